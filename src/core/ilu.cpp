// ILU(0) and IC(0) (include/portla/solver/ilu.hpp): the factorizations, once, on the host in
// double precision; the level schedules of the factors; the two triangular solves of apply()
// through the sptrsv kernels (core/kernels/sptrsv_kernels.hpp).
#include "portla/solver/ilu.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <sstream>
#include <utility>
#include <vector>

#include "core/kernels/sptrsv_kernels.hpp"
#include "portla/error.hpp"
#include "portla/vendor.hpp"

namespace portla::solver {

std::string to_string(TriangularSolver how) {
    switch (how) {
        case TriangularSolver::automatic:
            return "automatic";
        case TriangularSolver::levels:
            return "levels";
        case TriangularSolver::vendor:
            return "vendor";
    }
    return "unknown";
}

TriangularSolver triangular_solver_from_string(const std::string& name) {
    for (auto how :
         {TriangularSolver::automatic, TriangularSolver::levels, TriangularSolver::vendor})
        if (name == to_string(how)) return how;
    throw BadInput("unknown triangular solver '" + name + "' (automatic, levels, vendor)");
}

namespace {

// A pivot is zero when |u_ii| <= kPivotFloor * max_j |a_ij| (row i of A): within ~45 eps of the
// row's scale, the rounding of the pivot's own elimination (a few eps times the terms it sums)
// is as large as the pivot, whose sign and size are then noise; U^-1 would amplify by > 1e14.
constexpr double kPivotFloor = 1e-14;
// IC(0) breakdown: Manteuffel's shift A + alpha diag(A), alpha from 1e-3 doubling to 1.
constexpr double kFirstShift = 1e-3;
constexpr double kLargestShift = 1.0;

std::string row_name(std::size_t i) { return "row " + std::to_string(i + 1); }

std::string number(double x) {
    std::ostringstream s;
    s.precision(3);
    s << x;
    return s.str();
}

// A square CSR on the host in double: columns sorted within each row, duplicates summed.
struct HostCsr {
    std::size_t n = 0;
    std::vector<std::int32_t> ptr, col;
    std::vector<double> val;
};

template <typename T>
HostCsr host_copy(const Csr<T>& A) {
    HostCsr h;
    h.n = A.rows();
    const auto ptr = A.row_ptrs().to_host();
    const auto col = A.col_idxs().to_host();
    const auto val = A.values().to_host();
    h.ptr.assign(h.n + 1, 0);
    h.col.reserve(col.size());
    h.val.reserve(val.size());
    std::vector<std::pair<std::int32_t, double>> row;
    for (std::size_t i = 0; i < h.n; ++i) {
        row.clear();
        for (auto k = ptr[i]; k < ptr[i + 1]; ++k) row.emplace_back(col[k], double(val[k]));
        // Csr does not promise sorted rows (its raw-array constructor keeps the given order).
        std::stable_sort(row.begin(), row.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (std::size_t k = 0; k < row.size(); ++k) {
            if (k > 0 && row[k].first == row[k - 1].first) {
                h.val.back() += row[k].second;
            } else {
                h.col.push_back(row[k].first);
                h.val.push_back(row[k].second);
            }
        }
        h.ptr[i + 1] = static_cast<std::int32_t>(h.col.size());
    }
    return h;
}

// Position of a_ii in each row; BadInput naming the first row without one.
std::vector<std::int32_t> diagonal_positions(const HostCsr& a, const char* who) {
    std::vector<std::int32_t> diag(a.n);
    for (std::size_t i = 0; i < a.n; ++i) {
        const auto first = a.col.begin() + a.ptr[i], last = a.col.begin() + a.ptr[i + 1];
        const auto it = std::lower_bound(first, last, static_cast<std::int32_t>(i));
        if (it == last || static_cast<std::size_t>(*it) != i)
            throw BadInput(std::string(who) + ": " + row_name(i) + " has no diagonal entry");
        diag[i] = static_cast<std::int32_t>(it - a.col.begin());
    }
    return diag;
}

// Values of entries k in [ptr[i], ptr[i+1]) with keep(i, col) must be finite.
template <typename Keep>
void check_finite(const HostCsr& a, const char* who, Keep keep) {
    for (std::size_t i = 0; i < a.n; ++i)
        for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
            if (keep(i, a.col[k]) && !std::isfinite(a.val[k]))
                throw BadInput(std::string(who) + ": non-finite value at " + row_name(i) +
                               ", column " + std::to_string(a.col[k] + 1));
}

// ILU(0) in place, row by row (the IKJ form): for each k < i in the pattern of row i, in
// increasing order, l_ik = a_ik / u_kk and a_ij -= l_ik u_kj for every j > k in the patterns of
// both rows k and i. Row i then holds l_i* left of the diagonal and u_i* from it on.
void ilu0_in_place(HostCsr& a, const std::vector<std::int32_t>& diag) {
    std::vector<std::int32_t> pos(a.n, -1);  // column -> position in the current row, or -1
    for (std::size_t i = 0; i < a.n; ++i) {
        const auto begin = a.ptr[i], end = a.ptr[i + 1];
        double row_max = 0;
        for (auto k = begin; k < end; ++k) {
            pos[a.col[k]] = k;
            row_max = std::max(row_max, std::abs(a.val[k]));
        }
        for (auto k = begin; k < diag[i]; ++k) {
            const auto j = a.col[k];
            const double l = a.val[k] / a.val[diag[j]];
            a.val[k] = l;
            for (auto m = diag[j] + 1; m < a.ptr[j + 1]; ++m)
                if (pos[a.col[m]] >= 0) a.val[pos[a.col[m]]] -= l * a.val[m];
        }
        const double pivot = a.val[diag[i]];
        if (!std::isfinite(pivot))
            throw BadInput("ilu0: zero pivot at " + row_name(i) + " (u_ii is not finite)");
        if (std::abs(pivot) <= kPivotFloor * row_max)
            throw BadInput("ilu0: zero pivot at " + row_name(i) +
                           " (|u_ii| = " + number(std::abs(pivot)) +
                           " <= 1e-14 max_j |a_ij| = " + number(kPivotFloor * row_max) + ")");
        for (auto k = begin; k < end; ++k) pos[a.col[k]] = -1;
    }
}

// The lower triangle (j <= i) of a, diagonal last in each row.
HostCsr lower_triangle(const HostCsr& a) {
    HostCsr l;
    l.n = a.n;
    l.ptr.assign(a.n + 1, 0);
    for (std::size_t i = 0; i < a.n; ++i) {
        for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
            if (static_cast<std::size_t>(a.col[k]) <= i) {
                l.col.push_back(a.col[k]);
                l.val.push_back(a.val[k]);
            }
        l.ptr[i + 1] = static_cast<std::int32_t>(l.col.size());
    }
    return l;
}

// IC(0) of a + alpha diag(a) on the lower pattern `a` (diagonal last): row by row,
// l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj over the pattern, l_ii = sqrt(d_i) with
// d_i = (1 + alpha) a_ii - sum_{k<i} l_ik^2. Returns the first row whose d_i is not positive
// (d_i <= kPivotFloor (1 + alpha) a_ii, or not finite), or n on success.
std::size_t ic0_attempt(const HostCsr& a, double alpha, std::vector<double>& l) {
    l = a.val;
    std::vector<std::int32_t> pos(a.n, -1);
    for (std::size_t i = 0; i < a.n; ++i) {
        const auto begin = a.ptr[i], diag = a.ptr[i + 1] - 1;
        for (auto k = begin; k < diag; ++k) pos[a.col[k]] = k;
        double d = (1 + alpha) * a.val[diag];
        const double floor = kPivotFloor * d;
        for (auto k = begin; k < diag; ++k) {
            const auto j = a.col[k];
            double s = l[k];
            for (auto m = a.ptr[j]; m < a.ptr[j + 1] - 1; ++m)
                if (pos[a.col[m]] >= 0) s -= l[pos[a.col[m]]] * l[m];
            s /= l[a.ptr[j + 1] - 1];
            l[k] = s;
            d -= s * s;
        }
        for (auto k = begin; k < diag; ++k) pos[a.col[k]] = -1;
        if (!(d > floor) || !std::isfinite(d)) return i;
        l[diag] = std::sqrt(d);
    }
    return a.n;
}

// The transpose of a lower CSR: an upper CSR, columns sorted, diagonal first.
HostCsr transpose(const HostCsr& a) {
    HostCsr t;
    t.n = a.n;
    t.ptr.assign(a.n + 1, 0);
    for (auto c : a.col) ++t.ptr[c + 1];
    for (std::size_t i = 0; i < a.n; ++i) t.ptr[i + 1] += t.ptr[i];
    t.col.resize(a.col.size());
    t.val.resize(a.val.size());
    std::vector<std::int32_t> next(t.ptr.begin(), t.ptr.end() - 1);
    for (std::size_t i = 0; i < a.n; ++i)
        for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
            const auto dst = next[a.col[k]]++;
            t.col[dst] = static_cast<std::int32_t>(i);
            t.val[dst] = a.val[k];
        }
    return t;
}

// Level schedule of a triangular CSR: level(i) = 1 + max level(j) over the off-diagonal
// entries j of row i (0 when none), visiting rows in dependency order. Rows sorted by level
// (ascending row within a level) into `rows`, level k at rows[ptrs[k], ptrs[k+1]).
void level_schedule(const HostCsr& a, bool lower, std::vector<std::int32_t>& rows,
                    std::vector<std::int32_t>& ptrs) {
    std::vector<std::int32_t> level(a.n, 0);
    std::int32_t levels = a.n > 0 ? 1 : 0;
    for (std::size_t step = 0; step < a.n; ++step) {
        const std::size_t i = lower ? step : a.n - 1 - step;
        std::int32_t l = 0;
        for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
            if (static_cast<std::size_t>(a.col[k]) != i) l = std::max(l, level[a.col[k]] + 1);
        level[i] = l;
        levels = std::max(levels, l + 1);
    }
    ptrs.assign(static_cast<std::size_t>(levels) + 1, 0);
    for (auto l : level) ++ptrs[l + 1];
    for (std::int32_t k = 0; k < levels; ++k) ptrs[k + 1] += ptrs[k];
    rows.resize(a.n);
    std::vector<std::int32_t> next(ptrs.begin(), ptrs.end() - 1);
    for (std::size_t i = 0; i < a.n; ++i) rows[next[level[i]]++] = static_cast<std::int32_t>(i);
}

template <typename T>
std::vector<T> rounded(const std::vector<double>& v, const char* who, const HostCsr& a) {
    std::vector<T> out(v.size());
    for (std::size_t i = 0; i < a.n; ++i)
        for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
            out[k] = static_cast<T>(v[k]);
            if (!std::isfinite(out[k]))
                throw BadInput(std::string(who) + ": factor entry at " + row_name(i) +
                               " overflows the value type (" + number(v[k]) + ")");
        }
    return out;
}

TriangularSolver resolve(TriangularSolver how, const Executor& exec) {
    if (how != TriangularSolver::automatic) return how;
    // automatic: the vendor solve where there is one. One ILU(0) apply (L and U) of 3-D Poisson,
    // `portla bench ilu0-apply --backend cuda,cusparse`, H100, 2026-11-23 (42f2771): cuSPARSE
    // SpSV 682 us at n = 262144 and 1628 us at n = 2097152; portla's sync-free level kernels
    // 1092 us and 2856 us (1.6-1.75x slower). Levels elsewhere (the CPU backends have no vendor
    // sparse triangular solve).
    return vendor::sparse_available(exec) ? TriangularSolver::vendor : TriangularSolver::levels;
}

}  // namespace

namespace detail {

// One triangular factor on the executor, its level schedule and the backend's solve plan.
template <typename T>
struct TriangularFactor {
    Csr<T> matrix;
    bool lower;
    bool unit_diagonal;
    Array<std::int32_t> level_rows;
    std::vector<std::int32_t> level_ptrs;  // host
    std::unique_ptr<kernels::SptrsvPlan> plan;

    TriangularFactor(const Executor& exec, const HostCsr& a, bool lower_, bool unit,
                     const char* who)
        : matrix(exec, a.n, a.n, a.ptr, a.col, rounded<T>(a.val, who, a)),
          lower(lower_),
          unit_diagonal(unit) {
        std::vector<std::int32_t> rows;
        level_schedule(a, lower, rows, level_ptrs);
        level_rows = Array<std::int32_t>(exec, rows);
    }

    kernels::TriangularMatrix<T> matrix_view() const {
        kernels::TriangularMatrix<T> m;
        m.rows = matrix.rows();
        m.lower = lower;
        m.unit_diagonal = unit_diagonal;
        m.row_ptrs = matrix.row_ptrs().get_view();
        m.col_idxs = matrix.col_idxs().get_view();
        m.values = matrix.values().get_view();
        m.level_rows = level_rows.get_view();
        m.level_ptrs = const_view<std::int32_t>(level_ptrs.data(), level_ptrs.size());
        return m;
    }

    void analyse(TriangularSolver how) {
        const auto& exec = matrix.executor();
        const auto m = matrix_view();
        plan = dispatch<KernelFamily::sptrsv>(exec, [&](auto backend) {
            return how == TriangularSolver::vendor ? vendor_sptrsv_analysis(backend, exec, m)
                                                   : sptrsv_analysis(backend, exec, m);
        });
    }

    // x = A^-1 b
    template <typename Tag>
    void solve(Tag backend, TriangularSolver how, const_view<T> b, view<T> x) const {
        const auto& exec = matrix.executor();
        if (how == TriangularSolver::vendor)
            vendor_sptrsv(backend, exec, matrix_view(), *plan, b, x);
        else
            sptrsv(backend, exec, matrix_view(), plan.get(), b, x);
    }
};

template <typename T>
struct TriangularPair {
    TriangularFactor<T> lower, upper;
    TriangularSolver how;
    mutable Array<T> work;  // L^-1 r

    TriangularPair(const Executor& exec, const HostCsr& l, bool unit_l, const HostCsr& u,
                   TriangularSolver how_, const char* who)
        : lower(exec, l, true, unit_l, who),
          upper(exec, u, false, false, who),
          how(resolve(how_, exec)),
          work(exec, l.n) {
        lower.analyse(how);
        upper.analyse(how);
    }

    // z = U^-1 (L^-1 r)
    void apply(const char* who, const_view<T> r, view<T> z) const {
        const std::size_t n = lower.matrix.rows();
        if (r.size != n) throw DimensionMismatch(std::string(who) + " apply: r", n, r.size);
        if (z.size != n) throw DimensionMismatch(std::string(who) + " apply: z", n, z.size);
        if (n == 0) return;
        const auto& exec = lower.matrix.executor();
        dispatch<KernelFamily::sptrsv>(exec, [&](auto backend) {
            lower.solve(backend, how, r, work.get_view());  // work = L^-1 r
            upper.solve(backend, how, work.get_view(), z);  // z = U^-1 work
        });
    }
};

}  // namespace detail

namespace {

void check_square(std::size_t rows, std::size_t cols, const char* who) {
    if (rows != cols)
        throw DimensionMismatch(std::string(who) + ": square matrix columns", rows, cols);
}

}  // namespace

// ---- ILU(0) ----

template <typename T>
Ilu0<T>::Ilu0(const Csr<T>& A, TriangularSolver how) {
    A.require_int32("ilu0");
    check_square(A.rows(), A.cols(), "ilu0");
    HostCsr a = host_copy(A);
    check_finite(a, "ilu0", [](std::size_t, std::int32_t) { return true; });
    const auto diag = diagonal_positions(a, "ilu0");
    ilu0_in_place(a, diag);
    // Split: L strictly lower (unit diagonal implied), U from the diagonal on.
    HostCsr l, u;
    l.n = u.n = a.n;
    l.ptr.assign(a.n + 1, 0);
    u.ptr.assign(a.n + 1, 0);
    for (std::size_t i = 0; i < a.n; ++i) {
        for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
            HostCsr& part = k < diag[i] ? l : u;
            part.col.push_back(a.col[k]);
            part.val.push_back(a.val[k]);
        }
        l.ptr[i + 1] = static_cast<std::int32_t>(l.col.size());
        u.ptr[i + 1] = static_cast<std::int32_t>(u.col.size());
    }
    this->factors_ =
        std::make_unique<detail::TriangularPair<T>>(A.executor(), l, true, u, how, "ilu0");
}

// ---- IC(0) ----

template <typename T>
Ic0<T>::Ic0(const Csr<T>& A, TriangularSolver how) {
    A.require_int32("ic0");
    check_square(A.rows(), A.cols(), "ic0");
    HostCsr a = host_copy(A);
    check_finite(a, "ic0", [](std::size_t i, std::int32_t j) { return std::size_t(j) <= i; });
    (void)diagonal_positions(a, "ic0");
    HostCsr l = lower_triangle(a);
    for (std::size_t i = 0; i < l.n; ++i)
        if (!(l.val[l.ptr[i + 1] - 1] > 0))
            throw BadInput("ic0: diagonal entry at " + row_name(i) + " is not positive (" +
                           number(l.val[l.ptr[i + 1] - 1]) + ")");
    std::vector<double> values;
    double alpha = 0;
    for (;;) {
        const std::size_t bad = ic0_attempt(l, alpha, values);
        if (bad == l.n) break;
        if (alpha >= kLargestShift)
            throw BadInput("ic0: non-positive pivot at " + row_name(bad) + " even with shift " +
                           number(alpha) +
                           " (A + alpha diag(A)); is A symmetric positive definite?");
        alpha = alpha == 0 ? kFirstShift : std::min(2 * alpha, kLargestShift);
    }
    shift_ = alpha;
    l.val = std::move(values);
    const HostCsr lt = transpose(l);
    this->factors_ =
        std::make_unique<detail::TriangularPair<T>>(A.executor(), l, false, lt, how, "ic0");
}

// ---- shared ----

template <typename T>
TriangularFactors<T>::TriangularFactors() = default;
template <typename T>
TriangularFactors<T>::~TriangularFactors() = default;
template <typename T>
TriangularFactors<T>::TriangularFactors(TriangularFactors&&) noexcept = default;
template <typename T>
TriangularFactors<T>& TriangularFactors<T>::operator=(TriangularFactors&&) noexcept = default;

template <typename T>
std::size_t TriangularFactors<T>::size() const {
    return factors_->lower.matrix.rows();
}
template <typename T>
const Executor& TriangularFactors<T>::executor() const {
    return factors_->lower.matrix.executor();
}
template <typename T>
void TriangularFactors<T>::apply(const_view<T> r, view<T> z) const {
    factors_->apply(this->name().c_str(), r, z);
}
template <typename T>
TriangularSolver TriangularFactors<T>::triangular_solver() const {
    return factors_->how;
}
template <typename T>
const Csr<T>& TriangularFactors<T>::lower() const {
    return factors_->lower.matrix;
}
template <typename T>
const Csr<T>& TriangularFactors<T>::upper() const {
    return factors_->upper.matrix;
}
template <typename T>
std::size_t TriangularFactors<T>::lower_levels() const {
    return factors_->lower.level_ptrs.size() - 1;
}
template <typename T>
std::size_t TriangularFactors<T>::upper_levels() const {
    return factors_->upper.level_ptrs.size() - 1;
}

template class TriangularFactors<double>;
template class TriangularFactors<float>;
template class Ilu0<double>;
template class Ilu0<float>;
template class Ic0<double>;
template class Ic0<float>;

}  // namespace portla::solver
