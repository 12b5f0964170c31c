// The sparse product and transpose over the sparse kernel family (core/kernels/
// sparse_kernels.hpp): sizes on the device, one number read back per step.
#include "portla/sparse.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/device_arrays.hpp"
#include "core/kernels/sparse_kernels.hpp"
#include "portla/blas.hpp"
#include "portla/error.hpp"

namespace portla::sparse {
namespace {

using detail::prefix_sums;
using detail::read_at;

using I32 = std::int32_t;
using I64 = std::int64_t;

constexpr std::size_t kDefaultWorkspace = std::size_t{768} << 20;

/// A zeroed int32 array: blas::fill of float 0, whose bits are all zero, over its memory.
Array<I32> zeros(const Executor& exec, std::size_t n) {
    Array<I32> a(exec, n);
    if (n > 0) blas::fill<float>(exec, view<float>(reinterpret_cast<float*>(a.data()), n), 0.0f);
    return a;
}

bool same_memory(const Executor& a, const Executor& b) {
    return a.backend() == b.backend() && a.device_id() == b.device_id();
}

/// The matrix made by a backend's CPU kernel (kernels::has_host_sparse, KernelOptions::
/// host_sparse), or nothing where the backend has none or it is switched off: make(backend)
/// returns the arrays.
template <typename T, typename Make>
std::optional<Csr<T>> on_host(const Executor& exec, std::size_t rows, std::size_t cols, Make make) {
    if (!exec.kernel_options().host_sparse) return std::nullopt;
    return dispatch<KernelFamily::sparse>(exec, [&](auto backend) -> std::optional<Csr<T>> {
        if constexpr (kernels::has_host_sparse<decltype(backend)>) {
            kernels::CsrArrays<T> m = make(backend);
            return Csr<T>::adopt(exec, rows, cols, std::move(m.rp), std::move(m.ci),
                                 std::move(m.v));
        } else {
            return std::nullopt;
        }
    });
}

}  // namespace

template <typename T>
Csr<T> multiply(const Csr<T>& A, const Csr<T>& B, std::size_t workspace_bytes) {
    if (A.cols() != B.rows())
        throw DimensionMismatch("sparse::multiply: B's rows", A.cols(), B.rows());
    if (!same_memory(A.executor(), B.executor()))
        throw BadInput("sparse::multiply: A and B live on different executors");
    A.require_int32("sparse::multiply");
    B.require_int32("sparse::multiply");
    const Executor& exec = A.executor();
    const std::size_t n = A.rows();
    if (workspace_bytes == 0) {
        std::size_t free_bytes = 0, total_bytes = 0;
        exec.memory_info(free_bytes, total_bytes);
        // Half: the tables, and the product extracted from them (at most an entry a slot),
        // fit the free memory together. Fewer chunks are fewer passes: 512^3 Poisson's A P,
        // 3.2e9 products, is one chunk in half of the H200's free memory, several in a quarter.
        workspace_bytes = std::max(kDefaultWorkspace, free_bytes / 2);
    }
    const auto a_rp = A.row_ptrs().get_view(), a_ci = A.col_idxs().get_view();
    const auto b_rp = B.row_ptrs().get_view(), b_ci = B.col_idxs().get_view();
    const auto a_v = A.values().get_view(), b_v = B.values().get_view();
    // The CPU product's dense accumulator (B's columns, per thread) where it is no larger than
    // the inputs; a B far wider than its entries keeps the hash tables, sized by the rows.
    if (B.cols() <= A.nnz() + B.nnz() + n)
        if (std::optional<Csr<T>> C = on_host<T>(exec, n, B.cols(), [&](auto backend) {
                return host_spgemm(backend, exec, n, B.cols(), a_rp, a_ci, a_v, b_rp, b_ci, b_v);
            }))
            return std::move(*C);

    // Each row's capped table, and where it starts.
    Array<I64> slots(exec, n);
    dispatch<KernelFamily::sparse>(exec, [&](auto backend) {
        spgemm_slots(backend, exec, n, a_rp, a_ci, b_rp, static_cast<int>(B.cols()),
                     slots.get_view());
    });
    const Array<I64> offsets = prefix_sums(exec, slots);
    slots = Array<I64>();
    const I64 total = read_at(offsets, n);

    // Chunks of rows whose tables fit the workspace (a row larger than it alone).
    const std::size_t per_slot = sizeof(I32) + sizeof(T);
    const I64 budget = static_cast<I64>(std::max<std::size_t>(workspace_bytes / per_slot, 1));
    std::vector<std::size_t> bounds{0};
    std::size_t table = static_cast<std::size_t>(total);
    if (total <= budget) {
        bounds.push_back(n);
    } else {
        // Each bound found by a binary search over the offsets where they live, a few values
        // read back per chunk: the whole array on the host took a copy and the host memory of
        // 8 bytes a row (1 GiB for 512^3 Poisson's A P).
        table = 0;
        I64 start = 0;  // offsets[first]
        for (std::size_t first = 0; first < n;) {
            // The last row whose table ends within budget of the chunk's start (at least one):
            // the largest index in (first, n] with offsets[index] <= start + budget.
            std::size_t lo = first + 1, hi = n;
            I64 at_lo = read_at(offsets, lo);
            if (at_lo - start <= budget) {
                while (lo < hi) {
                    const std::size_t mid = lo + (hi - lo + 1) / 2;
                    const I64 at_mid = read_at(offsets, mid);
                    if (at_mid - start <= budget) {
                        lo = mid;
                        at_lo = at_mid;
                    } else {
                        hi = mid - 1;
                    }
                }
            }
            table = std::max(table, static_cast<std::size_t>(at_lo - start));
            bounds.push_back(lo);
            first = lo;
            start = at_lo;
        }
    }
    Array<I32> keys(exec, table);
    Array<T> vals(exec, table);
    Array<I32> counts(exec, n);
    // The rows of a chunk whose capped table overflowed, again in full tables.
    struct Retry {
        Array<I64> offsets;
        Array<I32> keys;
        Array<T> vals;
    };
    const auto accumulate = [&](std::size_t first, std::size_t last, Retry& retry) {
        const I64 base = read_at(offsets, first);
        const view<I32> chunk_counts(counts.data() + first, last - first);
        dispatch<KernelFamily::sparse>(exec, [&](auto backend) {
            spgemm_accumulate(backend, exec, first, last, a_rp, a_ci, a_v, b_rp, b_ci, b_v,
                              offsets.get_view(), base, 0, keys.get_view(), vals.get_view(),
                              chunk_counts);
        });
        Array<I64> retry_slots(exec, last - first);
        dispatch<KernelFamily::sparse>(exec, [&](auto backend) {
            spgemm_retry_slots(backend, exec, first, last, a_rp, a_ci, b_rp,
                               static_cast<int>(B.cols()), const_view<I32>(chunk_counts),
                               retry_slots.get_view());
        });
        retry.offsets = prefix_sums(exec, retry_slots);
        const I64 full = read_at(retry.offsets, last - first);
        if (full == 0) {
            retry = Retry{};
        } else {
            retry.keys = Array<I32>(exec, static_cast<std::size_t>(full));
            retry.vals = Array<T>(exec, static_cast<std::size_t>(full));
            dispatch<KernelFamily::sparse>(exec, [&](auto backend) {
                spgemm_accumulate(backend, exec, first, last, a_rp, a_ci, a_v, b_rp, b_ci, b_v,
                                  std::as_const(retry.offsets).get_view(), I64{0}, 1,
                                  retry.keys.get_view(), retry.vals.get_view(), chunk_counts);
            });
        }
        return base;
    };
    const auto extract = [&](std::size_t first, std::size_t last, I64 base, const Retry& retry,
                             const_view<I32> rows_at, view<I32> out_ci, view<T> out_v) {
        dispatch<KernelFamily::sparse>(exec, [&](auto backend) {
            spgemm_extract(backend, exec, first, last, offsets.get_view(), base,
                           std::as_const(keys).get_view(), std::as_const(vals).get_view(),
                           std::as_const(retry.offsets).get_view(),
                           std::as_const(retry.keys).get_view(),
                           std::as_const(retry.vals).get_view(), rows_at, out_ci, out_v);
        });
    };
    const auto too_many = [] {
        return Unsupported("sparse::multiply: the product has 2^31 or more entries");
    };
    if (bounds.size() == 2) {  // one chunk: its tables hold the whole product
        Retry retry;
        accumulate(0, n, retry);
        Array<I32> c_rp = prefix_sums(exec, counts);
        const I32 nnz = read_at(c_rp, n);
        if (nnz < 0) throw too_many();
        Array<I32> c_ci(exec, static_cast<std::size_t>(nnz));
        Array<T> c_v(exec, static_cast<std::size_t>(nnz));
        extract(0, n, 0, retry, std::as_const(c_rp).get_view(), c_ci.get_view(), c_v.get_view());
        return Csr<T>::adopt(exec, n, B.cols(), std::move(c_rp), std::move(c_ci), std::move(c_v));
    }
    // Several chunks: each accumulated once and its rows extracted at once into arrays of its
    // own (rows_at: each row's offset from the chunk's first entry, at the row's index), then
    // the tables freed and the chunks' entries copied into place. So the product is held twice
    // at the end, once in the chunks' arrays (each freed once copied) and once whole, where
    // accumulating each chunk a second time to extract it held it once.
    struct Part {
        std::size_t at = 0;
        Array<I32> ci;
        Array<T> v;
    };
    std::vector<Part> parts;
    Array<I32> rows_at(exec, n + 1);
    I64 entries = 0;
    for (std::size_t c = 0; c + 1 < bounds.size(); ++c) {
        const std::size_t first = bounds[c], last = bounds[c + 1];
        Retry retry;
        const I64 base = accumulate(first, last, retry);
        dispatch<KernelFamily::sparse>(exec, [&](auto backend) {
            exclusive_scan(backend, exec, const_view<I32>(counts.data() + first, last - first),
                           view<I32>(rows_at.data() + first, last - first + 1));
        });
        const I32 m = read_at(rows_at, last);
        if (m < 0 || entries + m > std::numeric_limits<I32>::max()) throw too_many();
        Part part{static_cast<std::size_t>(entries), Array<I32>(exec, static_cast<std::size_t>(m)),
                  Array<T>(exec, static_cast<std::size_t>(m))};
        extract(first, last, base, retry, std::as_const(rows_at).get_view(), part.ci.get_view(),
                part.v.get_view());
        entries += m;
        parts.push_back(std::move(part));
    }
    keys = Array<I32>();
    vals = Array<T>();
    rows_at = Array<I32>();
    Array<I32> c_rp = prefix_sums(exec, counts);
    Array<I32> c_ci(exec, static_cast<std::size_t>(entries));
    Array<T> c_v(exec, static_cast<std::size_t>(entries));
    for (Part& part : parts) {
        Executor::copy_bytes(exec, c_ci.data() + part.at, exec, part.ci.data(),
                             part.ci.size() * sizeof(I32));
        Executor::copy_bytes(exec, c_v.data() + part.at, exec, part.v.data(),
                             part.v.size() * sizeof(T));
        part = Part{};
    }
    return Csr<T>::adopt(exec, n, B.cols(), std::move(c_rp), std::move(c_ci), std::move(c_v));
}

template <typename T>
Csr<T> transpose(const Csr<T>& A) {
    A.require_int32("sparse::transpose");
    const Executor& exec = A.executor();
    const auto rp = A.row_ptrs().get_view(), ci = A.col_idxs().get_view();
    if (std::optional<Csr<T>> B = on_host<T>(exec, A.cols(), A.rows(), [&](auto backend) {
            return host_transpose(backend, exec, A.rows(), A.cols(), rp, ci, A.values().get_view());
        }))
        return std::move(*B);
    Array<I32> counts = zeros(exec, A.cols());
    dispatch<KernelFamily::sparse>(exec, [&](auto backend) {
        transpose_count(backend, exec, A.rows(), rp, ci, counts.get_view());
    });
    Array<I32> b_rp = prefix_sums(exec, counts);
    counts = zeros(exec, A.cols());  // now the entries placed per row
    Array<I32> b_ci(exec, A.nnz());
    Array<T> b_v(exec, A.nnz());
    dispatch<KernelFamily::sparse>(exec, [&](auto backend) {
        transpose_fill(backend, exec, A.rows(), rp, ci, A.values().get_view(), A.cols(),
                       std::as_const(b_rp).get_view(), counts.get_view(), b_ci.get_view(),
                       b_v.get_view());
    });
    return Csr<T>::adopt(exec, A.cols(), A.rows(), std::move(b_rp), std::move(b_ci),
                         std::move(b_v));
}

template <typename T>
Csr<T> multiply(const Csr<T>& A, const Csr<T>& B, const Csr<T>& C) {
    return multiply(multiply(A, B), C);
}

template Csr<double> multiply(const Csr<double>&, const Csr<double>&, std::size_t);
template Csr<float> multiply(const Csr<float>&, const Csr<float>&, std::size_t);
template Csr<double> multiply(const Csr<double>&, const Csr<double>&, const Csr<double>&);
template Csr<float> multiply(const Csr<float>&, const Csr<float>&, const Csr<float>&);
template Csr<double> transpose(const Csr<double>&);
template Csr<float> transpose(const Csr<float>&);

}  // namespace portla::sparse
