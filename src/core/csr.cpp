#include "portla/matrix/csr.hpp"

#include "common/csr_long_rows.hpp"
#include "common/csr_pattern.hpp"
#include "core/dispatch_values.hpp"
#include "core/kernels/csr_split_kernels.hpp"
#include "core/host_threads.hpp"
#include "core/kernels/matrix_kernels.hpp"
#include "core/matrix_checks.hpp"
#include "portla/blas.hpp"
#include "portla/sparse.hpp"

#include <atomic>
#include <complex>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace portla {
namespace {

constexpr std::size_t kInt32Max = std::numeric_limits<std::int32_t>::max();

/// The lanes per row of the CSR groups of exec's backend when it splits long rows by the plan
/// (core/kernels/csr_split_kernels.hpp), 0 when it never does or exec's
/// KernelOptions::csr_split is false (the groups by the average row for every row).
int split_lanes(const Executor& exec, std::size_t entries, std::size_t rows) {
    if (!exec.kernel_options().csr_split) return 0;
    return dispatch(exec, [&](auto backend) -> int {
        if constexpr (kernels::splits_csr_long_rows<decltype(backend)>) {
            return csr_group_lanes(backend, entries, rows);
        } else {
            return 0;
        }
    });
}

template <typename T, typename P, typename C>
std::vector<T> diagonal_of(std::size_t rows, const_view<P> row_ptrs, const_view<C> col_idxs,
                           const_view<T> values) {
    std::vector<T> d(rows);
    for (std::size_t i = 0; i < rows; ++i)
        d[i] = common::csr_row_diagonal(i, row_ptrs.data, col_idxs.data, values.data);
    return d;
}

template <typename P, typename C>
std::string defect_of(std::size_t rows, std::size_t cols, const_view<P> row_ptrs,
                      const_view<C> col_idxs) {
    return detail::structural_defect(rows, cols, [&](auto&& f) {
        for (std::size_t i = 0; i < rows; ++i)
            for (auto k = row_ptrs[i]; k < row_ptrs[i + 1]; ++k)
                f(i, static_cast<std::size_t>(col_idxs[k]));
    });
}

/// `host` on `exec` as an array of To (the form's index type; the values fit, checked before).
template <typename To, typename From>
Array<To> upload(const Executor& exec, const std::vector<From>& host) {
    if constexpr (std::is_same_v<To, From>) {
        return Array<To>(exec, host);
    } else {
        return Array<To>(exec, std::vector<To>(host.begin(), host.end()));
    }
}

/// f(P{}, C{}): the row offset and column index types of `index`.
template <typename F>
decltype(auto) with_index_types(CsrIndex index, F&& f) {
    switch (index) {
        case CsrIndex::offsets64:
            return f(std::int64_t{}, std::int32_t{});
        case CsrIndex::int64:
            return f(std::int64_t{}, std::int64_t{});
        default:
            return f(std::int32_t{}, std::int32_t{});
    }
}

template <typename T>
const_view<T> of(const std::vector<T>& v) {
    return {v.data(), v.size()};
}

/// `v` itself when it is host memory, else a host copy of it in `copy`.
template <typename T>
const_view<T> on_host(const Executor& exec, const_view<T> v, std::vector<T>& copy) {
    if (exec.is_host()) return v;
    copy.resize(v.size);
    Executor::copy_bytes(Executor::reference(), copy.data(), exec, v.data, v.size * sizeof(T));
    return of(copy);
}

}  // namespace

std::string to_string(CsrIndex index) {
    switch (index) {
        case CsrIndex::int32:
            return "32";
        case CsrIndex::offsets64:
            return "64/32";
        case CsrIndex::int64:
            return "64";
        default:
            return "auto";
    }
}

CsrIndex csr_index_from_string(const std::string& text) {
    for (const CsrIndex i :
         {CsrIndex::automatic, CsrIndex::int32, CsrIndex::offsets64, CsrIndex::int64})
        if (text == to_string(i)) return i;
    throw BadInput("unknown csr index width '" + text + "' (auto, 32, 64/32 or 64)");
}

CsrIndex csr_index_for(CsrIndex asked, std::size_t rows, std::size_t cols, std::size_t nnz) {
    // Columns past the 32-bit range need 64-bit column indices; rows or non-zeros past it, 64-bit
    // offsets (the kernels index rows in 64 bits; the row count is kept below the 32-bit range
    // of the offsets all the same, as every consumer of the 32-bit form assumes).
    const CsrIndex needed = cols >= kInt32Max                       ? CsrIndex::int64
                            : rows >= kInt32Max || nnz >= kInt32Max ? CsrIndex::offsets64
                                                                    : CsrIndex::int32;
    if (asked == CsrIndex::automatic) return needed;
    if (static_cast<int>(asked) < static_cast<int>(needed))
        throw BadInput(
            "csr: " + std::to_string(rows) + " x " + std::to_string(cols) + " with " +
            std::to_string(nnz) + " entries exceeds the " +
            (asked == CsrIndex::int32 ? "int32 index range" : "int32 column index range") +
            " (index width " + to_string(asked) + " asked, " + to_string(needed) + " needed)");
    return asked;
}

template <typename T>
template <typename P, typename C>
Csr<T> Csr<T>::build(const Executor& exec, std::size_t rows, std::size_t cols,
                     const std::vector<P>& row_ptrs, const std::vector<C>& col_idxs,
                     const std::vector<T>& values, CsrIndex index) {
    detail::check_csr_structure("Csr", rows, cols, of(row_ptrs), of(col_idxs));
    if (values.size() != col_idxs.size())
        throw DimensionMismatch("Csr values", col_idxs.size(), values.size());
    index = csr_index_for(index, rows, cols, values.size());
    std::string defect = defect_of(rows, cols, of(row_ptrs), of(col_idxs));
    return with_index_types(index, [&](auto p, auto c) {
        using SP = decltype(p);
        using SC = decltype(c);
        Array<std::int32_t> rp32, ci32;
        Array<std::int64_t> rp64, ci64;
        if constexpr (std::is_same_v<SP, std::int32_t>)
            rp32 = upload<SP>(exec, row_ptrs);
        else
            rp64 = upload<SP>(exec, row_ptrs);
        if constexpr (std::is_same_v<SC, std::int32_t>)
            ci32 = upload<SC>(exec, col_idxs);
        else
            ci64 = upload<SC>(exec, col_idxs);
        Csr A(rows, cols, index, std::move(rp32), std::move(ci32), std::move(rp64), std::move(ci64),
              Array<T>(exec, values), std::move(defect));
        // The 32-bit form's diagonal from the host arrays, as before; the others' through the
        // backend's csr_diagonal on first use.
        if (index == CsrIndex::int32) {
            // the plan's trigger: the longest row, where the backend splits long rows
            const int lanes = split_lanes(exec, values.size(), rows);
            if (lanes > 0) A.plan_long_rows(common::csr_longest_row(rows, row_ptrs.data()), lanes);
            A.diag_ = Array<T>(exec, diagonal_of(rows, of(row_ptrs), of(col_idxs), of(values)));
            A.diag_once_.reset();
        }
        return A;
    });
}

template <typename T>
Csr<T>::Csr(const Executor& exec, std::size_t rows, std::size_t cols,
            const std::vector<std::int32_t>& row_ptrs, const std::vector<std::int32_t>& col_idxs,
            const std::vector<T>& values, CsrIndex index)
    : Csr(build(exec, rows, cols, row_ptrs, col_idxs, values, index)) {}

template <typename T>
Csr<T> Csr<T>::from_arrays(const Executor& exec, std::size_t rows, std::size_t cols,
                           const std::vector<std::int64_t>& row_ptrs,
                           const std::vector<std::int32_t>& col_idxs, const std::vector<T>& values,
                           CsrIndex index) {
    return build(exec, rows, cols, row_ptrs, col_idxs, values, index);
}

template <typename T>
Csr<T> Csr<T>::from_arrays(const Executor& exec, std::size_t rows, std::size_t cols,
                           const std::vector<std::int64_t>& row_ptrs,
                           const std::vector<std::int64_t>& col_idxs, const std::vector<T>& values,
                           CsrIndex index) {
    return build(exec, rows, cols, row_ptrs, col_idxs, values, index);
}

template <typename T>
Csr<T>::Csr(std::size_t rows, std::size_t cols, CsrIndex index, Array<std::int32_t> row_ptrs,
            Array<std::int32_t> col_idxs, Array<std::int64_t> row_ptrs64,
            Array<std::int64_t> col_idxs64, Array<T> values, std::string defect)
    : rows_(rows),
      cols_(cols),
      index_(index),
      row_ptrs_(std::move(row_ptrs)),
      col_idxs_(std::move(col_idxs)),
      row_ptrs64_(std::move(row_ptrs64)),
      col_idxs64_(std::move(col_idxs64)),
      values_(std::move(values)),
      diag_(values_.executor(), 0),
      diag_once_(std::make_unique<std::once_flag>()),
      transposed_once_(std::make_unique<std::once_flag>()),
      defect_(std::move(defect)) {}

namespace {

// A^H of a complex CSR matrix with 32-bit indices, built on the host (once, at the first A^H x):
// the rows of A scanned in order, so each row of A^H has its columns in order.
template <typename T>
Csr<T> conjugate_transpose_on_host(const Csr<T>& A) {
    A.require_int32("csr: A^H x of complex values");
    const std::vector<std::int32_t> rp = A.row_ptrs().to_host(), ci = A.col_idxs().to_host();
    const std::vector<T> v = A.values().to_host();
    std::vector<std::int32_t> trp(A.cols() + 1, 0), tci(v.size());
    std::vector<T> tv(v.size());
    for (const std::int32_t c : ci) ++trp[static_cast<std::size_t>(c) + 1];
    for (std::size_t c = 0; c < A.cols(); ++c) trp[c + 1] += trp[c];
    std::vector<std::int32_t> at(trp.begin(), trp.end() - 1);
    for (std::size_t i = 0; i < A.rows(); ++i)
        for (std::int32_t k = rp[i]; k < rp[i + 1]; ++k) {
            const std::int32_t to = at[static_cast<std::size_t>(ci[k])]++;
            tci[to] = static_cast<std::int32_t>(i);
            tv[to] = std::conj(v[k]);
        }
    return Csr<T>(A.executor(), A.cols(), A.rows(), trp, tci, tv);
}

}  // namespace

// A^T x, for complex values the adjoint A^H x (SciPy's rmatvec; what BiCG, QMR, LSQR and LSMR
// take). The transposed matrix is built at the first call and kept.
template <typename T>
void Csr<T>::apply_transpose(const_view<T> x, view<T> y) const {
    if (!has_transpose()) LinearOperator<T>::apply_transpose(x, y);
    std::call_once(*transposed_once_, [this] {
        if constexpr (common::is_complex_v<T>)
            transposed_ = std::make_shared<const Csr>(conjugate_transpose_on_host(*this));
        else
            transposed_ = std::make_shared<const Csr>(sparse::transpose(*this));
    });
    transposed_->apply(x, y);
}

template <typename T>
Csr<T> Csr<T>::borrow(const Executor& exec, std::size_t rows, std::size_t cols,
                      const_view<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,
                      const_view<T> values) {
    if (values.size != col_idxs.size)
        throw DimensionMismatch("Csr values", col_idxs.size, values.size);
    if (row_ptrs.size != rows + 1) throw DimensionMismatch("Csr row_ptrs", rows + 1, row_ptrs.size);
    auto* p = const_cast<std::int32_t*>(row_ptrs.data);
    return borrow_int32(exec, rows, cols, Array<std::int32_t>::borrow(exec, p, row_ptrs.size),
                        col_idxs, values);
}

template <typename T>
Csr<T> Csr<T>::borrow(const Executor& exec, std::size_t rows, std::size_t cols,
                      const_view<std::int64_t> row_ptrs, const_view<std::int32_t> col_idxs,
                      const_view<T> values, CsrIndex index) {
    if (values.size != col_idxs.size)
        throw DimensionMismatch("Csr values", col_idxs.size, values.size);
    if (row_ptrs.size != rows + 1) throw DimensionMismatch("Csr row_ptrs", rows + 1, row_ptrs.size);
    index = csr_index_for(index, rows, cols, values.size);
    if (index == CsrIndex::int64)
        throw BadInput("Csr::borrow: " + std::to_string(rows) + " x " + std::to_string(cols) +
                       " needs index width 64 (64-bit column indices); these column indices "
                       "are 32-bit");
    std::vector<std::int64_t> ptr_copy;
    const auto ptr = on_host(exec, row_ptrs, ptr_copy);
    if (index == CsrIndex::int32) {
        // The offsets fit: a 32-bit copy of them (4 bytes per row), the entries read in place.
        // An offset outside the int32 range (a broken array: the last one is the entry count,
        // below it) is not narrowed but refused.
        std::vector<std::int32_t> narrow(ptr.size);
        for (std::size_t i = 0; i < ptr.size; ++i) {
            if (ptr[i] < 0 || ptr[i] > static_cast<std::int64_t>(values.size))
                throw BadInput("Csr: row_ptrs[" + std::to_string(i) +
                               "] = " + std::to_string(ptr[i]) + " is outside [0, " +
                               std::to_string(values.size) + "]");
            narrow[i] = static_cast<std::int32_t>(ptr[i]);
        }
        ptr_copy = {};
        return borrow_int32(exec, rows, cols, Array<std::int32_t>(exec, narrow), col_idxs, values);
    }
    // 64-bit offsets, read in place. The backends check 32-bit patterns only: this one is
    // checked on the host, rows shared over its threads.
    std::vector<std::int32_t> col_copy;
    const auto col = on_host(exec, col_idxs, col_copy);
    std::atomic<std::uint32_t> flags{
        rows == 0 && (ptr[0] != 0 || col.size != 0) ? kernels::kCsrInvalid : 0u};
    const unsigned threads = rows < 4096 ? 1u : detail::host_threads();
    detail::run_on_threads(threads, [&](unsigned t) {
        const auto [first, last] = detail::share(rows, t, threads);
        std::uint32_t mine = 0;
        for (std::size_t i = first; i < last; ++i)
            mine |= common::csr_row_pattern(i, rows, cols, col.size, ptr.data, col.data);
        flags |= mine;
    });
    std::string defect;
    if (flags != 0 && !(flags == kernels::kCsrDiagonalMissing && rows != cols)) {
        detail::check_csr_structure("Csr", rows, cols, ptr, col);
        defect = defect_of(rows, cols, ptr, col);
    }
    auto* p = const_cast<std::int64_t*>(row_ptrs.data);
    return Csr(
        rows, cols, index, {},
        Array<std::int32_t>::borrow(exec, const_cast<std::int32_t*>(col_idxs.data), col_idxs.size),
        Array<std::int64_t>::borrow(exec, p, row_ptrs.size), {},
        Array<T>::borrow(exec, const_cast<T*>(values.data), values.size), std::move(defect));
}

template <typename T>
Csr<T> Csr<T>::borrow_int32(const Executor& exec, std::size_t rows, std::size_t cols,
                            Array<std::int32_t> row_ptrs, const_view<std::int32_t> col_idxs,
                            const_view<T> values) {
    auto* c = const_cast<std::int32_t*>(col_idxs.data);
    return adopt(exec, rows, cols, std::move(row_ptrs),
                 Array<std::int32_t>::borrow(exec, c, col_idxs.size),
                 Array<T>::borrow(exec, const_cast<T*>(values.data), values.size));
}

template <typename T>
Csr<T> Csr<T>::adopt(const Executor& exec, std::size_t rows, std::size_t cols,
                     Array<std::int32_t> row_ptrs, Array<std::int32_t> col_idxs, Array<T> values) {
    if (values.size() != col_idxs.size())
        throw DimensionMismatch("Csr values", col_idxs.size(), values.size());
    if (row_ptrs.size() != rows + 1)
        throw DimensionMismatch("Csr row_ptrs", rows + 1, row_ptrs.size());
    // Checked where the memory lies (a GPU's: no copy of the pattern, 7e6 entries in ~0.1 ms
    // instead of ~30 ms on the host); a valid pattern with every diagonal entry stored has no
    // structural defect. Anything else is examined again on the host for the exact message.
    const std::uint32_t flags = dispatch(exec, [&](auto backend) {
        return csr_pattern_check(backend, exec, rows, cols, std::as_const(row_ptrs).get_view(),
                                 std::as_const(col_idxs).get_view());
    });
    std::string defect;
    if (flags != 0 && !(flags == kernels::kCsrDiagonalMissing && rows != cols)) {
        std::vector<std::int32_t> ptr_copy, col_copy;
        const auto ptr = on_host(exec, std::as_const(row_ptrs).get_view(), ptr_copy);
        const auto col = on_host(exec, std::as_const(col_idxs).get_view(), col_copy);
        detail::check_csr_structure("Csr", rows, cols, ptr, col);
        defect = defect_of(rows, cols, ptr, col);
    }
    Csr A(rows, cols, CsrIndex::int32, std::move(row_ptrs), std::move(col_idxs), {}, {},
          std::move(values), std::move(defect));
    // The long rows: the device finds the longest row (one number read back) and, when a row is
    // long, plans on the device (no copy of the offsets).
    const int lanes = split_lanes(exec, A.values_.size(), rows);
    const std::size_t longest = dispatch(exec, [&](auto backend) -> std::size_t {
        if constexpr (kernels::splits_csr_long_rows<decltype(backend)>) {
            if (lanes > 0)
                return csr_longest_row(backend, exec, rows, std::as_const(A.row_ptrs_).get_view());
        }
        return 0;
    });
    if (lanes > 0) A.plan_long_rows(longest, lanes);
    return A;
}

template <typename T>
void Csr<T>::plan_long_rows(std::size_t longest, int lanes) {
    if (rows_ == 0 || !common::csr_has_long_rows(longest, lanes)) return;  // the groups
    // The split kernels are instantiated for real values: complex rows take the groups.
    if constexpr (common::is_complex_v<T>) return;
    const Executor& exec = executor();
    dispatch(exec, [&](auto backend) {
        if constexpr (kernels::splits_csr_long_rows<decltype(backend)>) {
            kernels::CsrPlanArrays plan =
                csr_plan_long_rows(backend, exec, rows_, std::as_const(row_ptrs_).get_view());
            csr_split_reserve(backend, exec, plan.rows.size());
            long_from_ = common::kCsrBlockEntries;
            long_rows_ = std::move(plan.rows);
            long_parts_ = std::move(plan.parts);
            long_blocks_ = std::move(plan.blocks);
        }
    });
}

template <typename T>
Csr<T> Csr<T>::from_data(const Executor& exec, const MatrixData& input, CsrIndex index) {
    if (input.rows < 0 || input.cols < 0) throw BadInput("csr: negative dimensions");
    const auto rows = static_cast<std::size_t>(input.rows);
    const auto cols = static_cast<std::size_t>(input.cols);
    index = csr_index_for(index, rows, cols, input.entries());
    MatrixData copy;
    const MatrixData& data = detail::sorted_entries(input, copy);
    return with_index_types(index, [&](auto p, auto c) {
        using P = decltype(p);
        using C = decltype(c);
        std::vector<P> row_ptrs(rows + 1, 0);
        std::vector<C> col_idxs(data.entries());
        std::vector<T> values(data.entries());
        for (std::size_t k = 0; k < data.entries(); ++k) {
            ++row_ptrs[data.row_idx[k] + 1];
            col_idxs[k] = static_cast<C>(data.col_idx[k]);
            values[k] = static_cast<T>(data.values[k]);
        }
        for (std::size_t i = 0; i < rows; ++i) row_ptrs[i + 1] += row_ptrs[i];
        return build(exec, rows, cols, row_ptrs, col_idxs, values, index);
    });
}

template <typename T>
Csr<T> Csr<T>::from_data(const Executor& exec, const CsrData& data, CsrIndex index) {
    const auto rows = static_cast<std::size_t>(data.rows);
    const auto cols = static_cast<std::size_t>(data.cols);
    if constexpr (std::is_same_v<T, double>) {
        return build(exec, rows, cols, data.row_ptrs, data.col_idxs, data.values, index);
    } else {
        return build(exec, rows, cols, data.row_ptrs, data.col_idxs,
                     std::vector<T>(data.values.begin(), data.values.end()), index);
    }
}

template <typename T>
template <typename F>
decltype(auto) Csr<T>::with_indices(F&& f) const {
    switch (index_) {
        case CsrIndex::offsets64:
            return f(row_ptrs64_.get_view(), col_idxs_.get_view());
        case CsrIndex::int64:
            return f(row_ptrs64_.get_view(), col_idxs64_.get_view());
        default:
            return f(row_ptrs_.get_view(), col_idxs_.get_view());
    }
}

template <typename T>
void Csr<T>::apply(const_view<T> x, view<T> y) const {
    if (rows_ == 0) return;
    const auto& exec = executor();
    dispatch_values<T>(exec, [&](auto backend) {
        if constexpr (kernels::splits_csr_long_rows<decltype(backend)> &&
                      !common::is_complex_v<T>) {
            if (long_blocks_.size() > 0) {
                csr_split_apply(backend, exec, rows_, std::as_const(row_ptrs_).get_view(),
                                std::as_const(col_idxs_).get_view(), values_.get_view(),
                                long_rows(), x, y);
                return;
            }
        }
        with_indices([&](auto row_ptrs, auto col_idxs) {
            csr_apply(backend, exec, rows_, row_ptrs, col_idxs, values_.get_view(), x, y);
        });
    });
}

template <typename T>
FusedOperator<T> Csr<T>::fused() const {
    FusedOperator<T> f;
    f.kind = FusedOperator<T>::Kind::csr;
    f.index = index_;
    f.row_ptrs = row_ptrs_.data();
    f.col_idxs = col_idxs_.data();
    f.row_ptrs64 = row_ptrs64_.data();
    f.col_idxs64 = col_idxs64_.data();
    f.values = values_.data();
    f.nnz = values_.size();
    f.long_rows = long_rows();
    return f;
}

template <typename T>
CsrLongRows Csr<T>::long_rows() const {
    CsrLongRows l;
    if (long_blocks_.size() == 0) return l;
    l.from = long_from_;
    l.segments = long_rows_.size();
    l.rows = long_rows_.data();
    l.parts = long_parts_.data();
    l.block_count = long_blocks_.size() - 1;
    l.blocks = long_blocks_.data();
    return l;
}

template <typename T>
void Csr<T>::require_int32(const std::string& consumer) const {
    if (index_ != CsrIndex::int32)
        throw Unsupported(consumer + " needs a csr matrix with 32-bit indices; this " +
                          std::to_string(rows_) + " x " + std::to_string(cols_) + " one with " +
                          std::to_string(nnz()) + " non-zeros has index width " +
                          to_string(index_) +
                          (index_ == CsrIndex::int64 ? " (64-bit row offsets and column indices)"
                                                     : " (64-bit row offsets)"));
}

template <typename T>
const Array<std::int32_t>& Csr<T>::row_ptrs() const {
    require_int32("Csr::row_ptrs (32-bit row offsets)");
    return row_ptrs_;
}

template <typename T>
const Array<std::int32_t>& Csr<T>::col_idxs() const {
    if (index_ == CsrIndex::int64) require_int32("Csr::col_idxs (32-bit column indices)");
    return col_idxs_;
}

template <typename T>
const Array<std::int64_t>& Csr<T>::row_ptrs64() const {
    if (index_ == CsrIndex::int32)
        throw Unsupported("Csr::row_ptrs64: this csr matrix has 32-bit row offsets (row_ptrs)");
    return row_ptrs64_;
}

template <typename T>
const Array<std::int64_t>& Csr<T>::col_idxs64() const {
    if (index_ != CsrIndex::int64)
        throw Unsupported("Csr::col_idxs64: this csr matrix has 32-bit column indices (col_idxs)");
    return col_idxs64_;
}

template <typename T>
void Csr<T>::diagonal(view<T> d) const {
    if (diag_once_)
        std::call_once(*diag_once_, [this] {
            const Executor& exec = executor();
            diag_ = Array<T>(exec, rows_);
            dispatch_values<T>(exec, [&](auto backend) {
                with_indices([&](auto row_ptrs, auto col_idxs) {
                    csr_diagonal(backend, exec, rows_, row_ptrs, col_idxs, values_.get_view(),
                                 diag_.get_view());
                });
            });
        });
    blas::copy<T>(executor(), diag_.get_view(), d);
}

template class Csr<double>;
template class Csr<float>;
template class Csr<std::complex<double>>;
template class Csr<std::complex<float>>;

}  // namespace portla
