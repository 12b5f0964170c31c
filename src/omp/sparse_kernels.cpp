// The sparse and aggregation kernels of the omp backend: the rows shared over the thread team in
// chunks handed out as threads free up (the rows of a product differ widely in work), serial
// below parallel_threshold() rows. Each row's result does not depend on the thread that computes
// it; the row kernels' transpose's scatter order does, and its rows are sorted after. The CPU
// product and transpose (host_spgemm, host_transpose) and the extended+i weights (amg_ext_fill)
// have their own loops below, with scratch per thread.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "common/sparse/rows.hpp"
#include "core/kernels/amg_kernels.hpp"
#include "core/kernels/sparse_kernels.hpp"
#include "omp/parallel.hpp"
#include "portla/error.hpp"

namespace portla::kernels::omp {
namespace {

// Rows per hand-out. for_rows deals the chunks round-robin (static): the cycle's row updates
// (about 6 passes over the finest level's rows per cycle) then pay no atomic hand-out per chunk,
// and interleaved chunks balance the irregular set-up rows about as well as dynamic hand-out on
// 2-8 threads (omp, 2-core VM, 2026-11-29, poisson3d:48 AMG solve, 5 interleaved runs: median
// 87.8 ms against 111.4 with dynamic, set-up alike; the VM's noise is +-20%). amg_ext_fill keeps
// dynamic hand-out: its rows' work varies by orders of magnitude.
constexpr long long kChunk = 256;

template <typename F>
void for_rows(const Executor&, std::size_t first, std::size_t last, F f) {
    if (last - first < parallel_threshold()) {
        for (std::size_t i = first; i < last; ++i) f(i);
        return;
    }
    const long long begin = static_cast<long long>(first), end = static_cast<long long>(last);
#pragma omp parallel for schedule(static, kChunk)
    for (long long i = begin; i < end; ++i) f(static_cast<std::size_t>(i));
}

template <typename F>
std::size_t count_rows(const Executor&, std::size_t n, F f) {
    long long count = 0;
    const long long end = static_cast<long long>(n);
    if (n < parallel_threshold()) {
        for (long long i = 0; i < end; ++i) count += f(static_cast<std::size_t>(i));
        return static_cast<std::size_t>(count);
    }
#pragma omp parallel for schedule(static) reduction(+ : count)
    for (long long i = 0; i < end; ++i) count += f(static_cast<std::size_t>(i));
    return static_cast<std::size_t>(count);
}

}  // namespace

// Two passes over a static split: each thread sums its share, the shares' offsets are summed in
// thread order, then each thread writes its share's prefix sums from its offset.
template <typename I>
void exclusive_scan(tag, const Executor&, const_view<I> in, view<I> out) {
    const std::size_t n = in.size;
    out[0] = 0;
    if (n < parallel_threshold()) {
        I sum = 0;
        for (std::size_t i = 0; i < n; ++i) out[i + 1] = sum += in[i];
        return;
    }
    std::vector<I> offsets(static_cast<std::size_t>(omp_get_max_threads()) + 1, 0);
#pragma omp parallel
    {
        const auto [first, last] = thread_range(n);
        const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
        I sum = 0;
        for (std::size_t i = first; i < last; ++i) sum += in[i];
        offsets[t + 1] = sum;
#pragma omp barrier
#pragma omp single
        for (std::size_t k = 1; k < offsets.size(); ++k) offsets[k] += offsets[k - 1];
        sum = offsets[t];
        for (std::size_t i = first; i < last; ++i) out[i + 1] = sum += in[i];
    }
}

#define PORTLA_ROWS_OWN_EXT_FILL
#include "core/kernels/row_kernels.inc"

// The extended+i weights (amg_ext_fill_row_map) with a dense map of each row over the
// fine-level rows per thread: row i's coarse columns are looked up by the fine-level row they
// stand for (found through `fine_of`, each coarse number's row) instead of searched for in the
// row, and the map is cleared after the row; the shares of each influencing row are added over
// the entries its sum took (noted in `found`) alone.
template <typename T>
void amg_ext_fill(tag, const Executor&, std::size_t rows, const_view<I32> rp, const_view<I32> ci,
                  const_view<T> v, const_view<I32> strong, const_view<U64> keys,
                  const_view<I32> rank, const_view<I32> p_rp, const_view<I32> p_ci, view<T> p_v) {
    const long long end = static_cast<long long>(rows);
    const bool parallel = rows >= parallel_threshold();
    std::vector<I32> fine_of(rows);  // the coarse numbers are below rows
#pragma omp parallel for schedule(static) if (parallel)
    for (long long r = 0; r < end; ++r)
        if (Rows<T>::amg_root_row(static_cast<int>(r), keys.data))
            fine_of[static_cast<std::size_t>(rank[r])] = static_cast<I32>(r);
    I32 longest = 0;  // the longest row of A: room for the entries a row j's sum takes
#pragma omp parallel for schedule(static) reduction(max : longest) if (parallel)
    for (long long r = 0; r < end; ++r) longest = std::max(longest, rp[r + 1] - rp[r]);
#pragma omp parallel if (parallel)
    {
        std::vector<I32> map(rows, -1), found(static_cast<std::size_t>(longest));
#pragma omp for schedule(dynamic, kChunk)
        for (long long r = 0; r < end; ++r) {
            const std::size_t i = static_cast<std::size_t>(r);
            for (I32 at = p_rp[i]; at < p_rp[i + 1]; ++at) map[fine_of[p_ci[at]]] = at;
            Rows<T>::amg_ext_fill_row_map(static_cast<int>(i), rp.data, ci.data, v.data,
                                          strong.data, keys.data, rank.data, p_rp.data, p_ci.data,
                                          map.data(), found.data(), p_v.data);
            for (I32 at = p_rp[i]; at < p_rp[i + 1]; ++at) map[fine_of[p_ci[at]]] = -1;
        }
    }
}

// ---- the CPU product and transpose (sparse_kernels.hpp: host_spgemm, host_transpose) ----------

constexpr std::size_t kProductChunk = 64;  // rows of a product per hand-out

// The chunks of rows are handed out as threads free up; each thread appends its chunks' rows to
// its own buffer and notes where each chunk starts, so the rows are only copied to their final
// places once their counts are summed. A row's columns are listed as they first appear (the
// marker holds the row that last touched a column) and sorted; its values are read from the
// accumulator in that order. The first product of a column sets its sum and the next ones add
// to it, in the order of A's row and then of B's rows: spgemm_row_accumulate's order.
template <typename T>
CsrArrays<T> host_spgemm(tag, const Executor& exec, std::size_t rows, std::size_t b_cols,
                         const_view<I32> a_rp, const_view<I32> a_ci, const_view<T> a_v,
                         const_view<I32> b_rp, const_view<I32> b_ci, const_view<T> b_v) {
    CsrArrays<T> c{Array<I32>(exec, rows + 1), Array<I32>(), Array<T>()};
    I32* const c_rp = c.rp.data();
    c_rp[0] = 0;
    const std::size_t chunks = (rows + kProductChunk - 1) / kProductChunk;
    const bool parallel = a_ci.size >= parallel_threshold() && chunks > 1;
    const int team = parallel ? omp_get_max_threads() : 1;
    struct Buffer {
        std::vector<I32> ci;
        std::vector<T> v;
    };
    std::vector<Buffer> buffers(static_cast<std::size_t>(team));
    std::vector<std::pair<std::size_t, std::size_t>> where(chunks);  // thread, first entry
    const long long chunk_count = static_cast<long long>(chunks);
#pragma omp parallel num_threads(team) if (parallel)
    {
        const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
        std::vector<I32> mark_store(b_cols, -1), cols_store(b_cols);
        std::vector<T> acc_store(b_cols);
        // Raw pointers: the compiler keeps them in registers across the stores to acc.
        I32* const __restrict mark = mark_store.data();
        I32* const __restrict cols = cols_store.data();
        T* const __restrict acc = acc_store.data();
        const I32* const __restrict arp = a_rp.data;
        const I32* const __restrict aci = a_ci.data;
        const T* const __restrict av = a_v.data;
        const I32* const __restrict brp = b_rp.data;
        const I32* const __restrict bci = b_ci.data;
        const T* const __restrict bv = b_v.data;
        Buffer& out = buffers[t];
#pragma omp for schedule(dynamic, 1)
        for (long long chunk = 0; chunk < chunk_count; ++chunk) {
            const std::size_t first = static_cast<std::size_t>(chunk) * kProductChunk;
            const std::size_t last = std::min(rows, first + kProductChunk);
            where[static_cast<std::size_t>(chunk)] = {t, out.ci.size()};
            for (std::size_t i = first; i < last; ++i) {
                const I32 row = static_cast<I32>(i);
                std::size_t count = 0;  // the row's columns, in cols[0, count)
                for (I32 ka = arp[i]; ka < arp[i + 1]; ++ka) {
                    const I32 k = aci[ka];
                    const T a = av[ka];
                    for (I32 kb = brp[k]; kb < brp[k + 1]; ++kb) {
                        const I32 col = bci[kb];
                        const T p = a * bv[kb];
                        if (mark[col] != row) {
                            mark[col] = row;
                            acc[col] = p;
                            cols[count++] = col;
                        } else {
                            acc[col] += p;
                        }
                    }
                }
                std::sort(cols, cols + count);
                const std::size_t start = out.ci.size();
                out.ci.resize(start + count);
                out.v.resize(start + count);
                for (std::size_t e = 0; e < count; ++e) {
                    out.ci[start + e] = cols[e];
                    out.v[start + e] = acc[cols[e]];
                }
                c_rp[i + 1] = static_cast<I32>(count);
            }
        }
    }
    I64 nnz = 0;
    for (std::size_t i = 0; i < rows; ++i) {
        nnz += c_rp[i + 1];
        if (nnz > std::numeric_limits<I32>::max())
            throw Unsupported("sparse::multiply: the product has 2^31 or more entries");
        c_rp[i + 1] = static_cast<I32>(nnz);
    }
    c.ci = Array<I32>(exec, static_cast<std::size_t>(nnz));
    c.v = Array<T>(exec, static_cast<std::size_t>(nnz));
    I32* const c_ci = c.ci.data();
    T* const c_v = c.v.data();
#pragma omp parallel for schedule(static) num_threads(team) if (parallel)
    for (long long chunk = 0; chunk < chunk_count; ++chunk) {
        const std::size_t first = static_cast<std::size_t>(chunk) * kProductChunk;
        const std::size_t last = std::min(rows, first + kProductChunk);
        const auto [t, from] = where[static_cast<std::size_t>(chunk)];
        const std::size_t count = static_cast<std::size_t>(c_rp[last] - c_rp[first]);
        std::copy_n(buffers[t].ci.data() + from, count, c_ci + c_rp[first]);
        std::copy_n(buffers[t].v.data() + from, count, c_v + c_rp[first]);
    }
    return c;
}

// The rows are split by work (entries + rows) into one contiguous share per thread; counts[t]
// holds share t's entries of each column, then where they start within the column (after the
// earlier shares' entries), then the next free place while the share writes. The team is kept
// to at most entries / cols threads, so the counts take no more room than the matrix.
template <typename T>
CsrArrays<T> host_transpose(tag, const Executor& exec, std::size_t rows, std::size_t cols,
                            const_view<I32> rp, const_view<I32> ci, const_view<T> v) {
    const std::size_t nnz = ci.size;
    CsrArrays<T> b{Array<I32>(exec, cols + 1), Array<I32>(exec, nnz), Array<T>(exec, nnz)};
    I32* const b_rp = b.rp.data();
    I32* const b_ci = b.ci.data();
    T* const b_v = b.v.data();
    const bool parallel = nnz >= parallel_threshold();
    const std::size_t team =
        parallel
            ? std::max<std::size_t>(1, std::min(static_cast<std::size_t>(omp_get_max_threads()),
                                                nnz / std::max<std::size_t>(cols, 1)))
            : 1;
    std::vector<I32> counts(team * cols, 0);
    const auto start = [&](std::size_t i) { return static_cast<std::size_t>(rp[i]) + i; };
    const long long col_count = static_cast<long long>(cols);
#pragma omp parallel num_threads(static_cast <int>(team)) if (team > 1)
    {
        const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
        const auto [first, last] = rows_of_share(rows, start, t, team);
        I32* const mine = counts.data() + t * cols;
        for (std::size_t i = first; i < last; ++i)
            for (I32 k = rp[i]; k < rp[i + 1]; ++k) ++mine[ci[k]];
#pragma omp barrier
#pragma omp for schedule(static)
        for (long long c = 0; c < col_count; ++c) {
            I32 sum = 0;
            for (std::size_t s = 0; s < team; ++s) {
                I32& n = counts[s * cols + static_cast<std::size_t>(c)];
                const I32 share = n;
                n = sum;
                sum += share;
            }
            b_rp[c + 1] = sum;
        }
#pragma omp single
        {
            b_rp[0] = 0;
            for (std::size_t c = 0; c < cols; ++c) b_rp[c + 1] += b_rp[c];
        }
        for (std::size_t i = first; i < last; ++i)
            for (I32 k = rp[i]; k < rp[i + 1]; ++k) {
                const I32 at = b_rp[ci[k]] + mine[ci[k]]++;
                b_ci[at] = static_cast<I32>(i);
                b_v[at] = v[k];
            }
    }
    return b;
}

PORTLA_INSTANTIATE_HOST_SPARSE_KERNELS(double);
PORTLA_INSTANTIATE_HOST_SPARSE_KERNELS(float);
PORTLA_INSTANTIATE_SCAN_KERNELS;
PORTLA_INSTANTIATE_SPARSE_KERNELS(double);
PORTLA_INSTANTIATE_SPARSE_KERNELS(float);
PORTLA_INSTANTIATE_AMG_KERNELS(double);
PORTLA_INSTANTIATE_AMG_KERNELS(float);

}  // namespace portla::kernels::omp
