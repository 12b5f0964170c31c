// ILU(0), IC(0), ILUT and ILU(k) (include/portla/solver/ilu.hpp): the factorizations, once, on
// the host in double precision (ILU(0) of complex values in complex<double>), and their diagnosis;
// the level schedules of the factors; the two triangular solves of apply() through the sptrsv
// kernels (core/kernels/sptrsv_kernels.hpp).
#include "portla/solver/ilu.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <queue>
#include <random>
#include <cstdio>
#include <utility>
#include <vector>

#include "common/scalar.hpp"
#include "core/kernels/matrix_kernels.hpp"
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

std::string number(double x) {  // as %.3g; printf's formatting does not depend on std::locale
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", x);
    return text;
}

// A square CSR on the host in S (double; complex<double> for complex values): columns sorted
// within each row, duplicates summed.
template <typename S>
struct HostCsrOf {
    std::size_t n = 0;
    std::vector<std::int32_t> ptr, col;
    std::vector<S> val;
};
using HostCsr = HostCsrOf<double>;

template <typename T>
HostCsrOf<common::wide_t<T>> host_copy(const Csr<T>& A) {
    using S = common::wide_t<T>;
    HostCsrOf<S> h;
    h.n = A.rows();
    const auto ptr = A.row_ptrs().to_host();
    const auto col = A.col_idxs().to_host();
    const auto val = A.values().to_host();
    h.ptr.assign(h.n + 1, 0);
    h.col.reserve(col.size());
    h.val.reserve(val.size());
    std::vector<std::pair<std::int32_t, S>> row;
    for (std::size_t i = 0; i < h.n; ++i) {
        row.clear();
        for (auto k = ptr[i]; k < ptr[i + 1]; ++k) row.emplace_back(col[k], common::widen(val[k]));
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
template <typename S>
std::vector<std::int32_t> diagonal_positions(const HostCsrOf<S>& a, const char* who) {
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
template <typename S, typename Keep>
void check_finite(const HostCsrOf<S>& a, const char* who, Keep keep) {
    for (std::size_t i = 0; i < a.n; ++i)
        for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
            if (keep(i, a.col[k]) && !common::is_finite(a.val[k]))
                throw BadInput(std::string(who) + ": non-finite value at " + row_name(i) +
                               ", column " + std::to_string(a.col[k] + 1));
}

// ILU(0) in place, row by row (the IKJ form): for each k < i in the pattern of row i, in
// increasing order, l_ik = a_ik / u_kk and a_ij -= l_ik u_kj for every j > k in the patterns of
// both rows k and i. Row i then holds l_i* left of the diagonal and u_i* from it on.
template <typename S>
void ilu0_in_place(HostCsrOf<S>& a, const std::vector<std::int32_t>& diag, const char* who) {
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
            const S l = a.val[k] / a.val[diag[j]];
            a.val[k] = l;
            for (auto m = diag[j] + 1; m < a.ptr[j + 1]; ++m)
                if (pos[a.col[m]] >= 0) a.val[pos[a.col[m]]] -= l * a.val[m];
        }
        const S pivot = a.val[diag[i]];
        if (!common::is_finite(pivot))
            throw BadInput(std::string(who) + ": zero pivot at " + row_name(i) +
                           " (u_ii is not finite)");
        if (std::abs(pivot) <= kPivotFloor * row_max)
            throw BadInput(std::string(who) + ": zero pivot at " + row_name(i) +
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

// The symmetric matrix whose lower triangle (diagonal last in each row) is `l`.
HostCsr symmetric_from_lower(const HostCsr& l) {
    const HostCsr t = transpose(l);  // diagonal first
    HostCsr s;
    s.n = l.n;
    s.ptr.assign(l.n + 1, 0);
    for (std::size_t i = 0; i < l.n; ++i) {
        for (auto k = l.ptr[i]; k < l.ptr[i + 1]; ++k) {
            s.col.push_back(l.col[k]);
            s.val.push_back(l.val[k]);
        }
        for (auto k = t.ptr[i] + 1; k < t.ptr[i + 1]; ++k) {
            s.col.push_back(t.col[k]);
            s.val.push_back(t.val[k]);
        }
        s.ptr[i + 1] = static_cast<std::int32_t>(s.col.size());
    }
    return s;
}

// Level schedule of a triangular CSR: level(i) = 1 + max level(j) over the off-diagonal
// entries j of row i (0 when none), visiting rows in dependency order. Rows sorted by level
// (ascending row within a level) into `rows`, level k at rows[ptrs[k], ptrs[k+1]).
template <typename S>
void level_schedule(const HostCsrOf<S>& a, bool lower, std::vector<std::int32_t>& rows,
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

// Split an in-place LU (row i: l_i* left of diag[i], u_i* from it on) into L strictly lower
// (unit diagonal implied) and U from the diagonal on.
template <typename S>
void split_lu(const HostCsrOf<S>& a, const std::vector<std::int32_t>& diag, HostCsrOf<S>& l,
              HostCsrOf<S>& u) {
    l = HostCsrOf<S>{};
    u = HostCsrOf<S>{};
    l.n = u.n = a.n;
    l.ptr.assign(a.n + 1, 0);
    u.ptr.assign(a.n + 1, 0);
    for (std::size_t i = 0; i < a.n; ++i) {
        for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
            HostCsrOf<S>& part = k < diag[i] ? l : u;
            part.col.push_back(a.col[k]);
            part.val.push_back(a.val[k]);
        }
        l.ptr[i + 1] = static_cast<std::int32_t>(l.col.size());
        u.ptr[i + 1] = static_cast<std::int32_t>(u.col.size());
    }
}

// ILU(k)'s pattern: A's entries (level 0) and every fill entry (i, j) of level
// lev(i, m) + lev(m, j) + 1 <= k, the smallest over the rows m < i, j that create it; rows sorted,
// values those of A and 0 for fill. Rows are formed in order, each from the U parts (j > m) of
// the rows above it and their levels.
HostCsr iluk_pattern(const HostCsr& a, int k) {
    const std::size_t n = a.n;
    HostCsr out;
    out.n = n;
    out.ptr.assign(n + 1, 0);
    std::vector<std::int32_t> u_ptr(n + 1, 0), u_col;  // U parts of the rows done and levels
    std::vector<int> u_lev;
    std::vector<int> level(n, 0);
    std::vector<char> in(n, 0);
    std::vector<double> value(n, 0);
    std::vector<std::int32_t> pattern;
    std::priority_queue<std::int32_t, std::vector<std::int32_t>, std::greater<>> lower;
    for (std::size_t i = 0; i < n; ++i) {
        pattern.clear();
        for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) {
            const auto j = a.col[e];
            in[j] = 1;
            level[j] = 0;
            value[j] = a.val[e];
            pattern.push_back(j);
            if (static_cast<std::size_t>(j) < i) lower.push(j);
        }
        while (!lower.empty()) {
            const auto m = lower.top();
            lower.pop();
            for (auto e = u_ptr[m]; e < u_ptr[m + 1]; ++e) {
                const auto j = u_col[e];
                const int lev = level[m] + u_lev[e] + 1;
                if (lev > k) continue;
                if (!in[j]) {
                    in[j] = 1;
                    level[j] = lev;
                    value[j] = 0;
                    pattern.push_back(j);
                    if (static_cast<std::size_t>(j) < i) lower.push(j);
                } else {
                    level[j] = std::min(level[j], lev);
                }
            }
        }
        std::sort(pattern.begin(), pattern.end());
        for (auto j : pattern) {
            out.col.push_back(j);
            out.val.push_back(value[j]);
            if (static_cast<std::size_t>(j) > i) {
                u_col.push_back(j);
                u_lev.push_back(level[j]);
            }
            in[j] = 0;
        }
        out.ptr[i + 1] = static_cast<std::int32_t>(out.col.size());
        u_ptr[i + 1] = static_cast<std::int32_t>(u_col.size());
    }
    return out;
}

// With pivoting, column i is exchanged for the column of the largest |u_ij| s_j when
// |u_ii| s_i < kPivotThreshold max_j |u_ij| s_j: SuperLU's default diagonal pivot threshold (0.1,
// what SciPy's spilu uses), which prefers the diagonal unless it is an order of magnitude smaller.
// s_j = 1 / max_k |a_kj| puts the entries of different columns in the same units: a row-wise
// factorization pivots by comparing entries of one row, which lie in different columns (SuperLU
// compares the entries of one column, which share their units). Unscaled, the test trades a
// diagonal for any entry of a column that is merely larger in its own units: on arc130 after
// matching and RCM (column maxima from 1 to 1e5), row 1 gave its diagonal 1 for an entry 5e4 of
// another column, and the column it left, with no other entry of its size, was passed from row
// to row until no row had a nonzero in it (4 replaced pivots, growth 1.5e9).
constexpr double kPivotThreshold = 0.1;

struct IlutFactors {
    HostCsr l, u;                      // in the permuted column order (positions)
    std::vector<std::int32_t> column;  // column of A at each position
    std::size_t interchanges = 0;
    std::size_t replaced_pivots = 0;
};

// ILUT's replacement of a zero pivot: (kReplacedPivot + tau) times the row's mean |a_ij|.
constexpr double kReplacedPivot = 1e-4;

// The largest `keep` of the candidates (|value|, position), then sorted by position.
void keep_largest(std::vector<std::pair<double, std::int32_t>>& c, std::size_t keep) {
    if (c.size() > keep) {
        std::nth_element(c.begin(), c.begin() + keep, c.end(),
                         [](const auto& x, const auto& y) { return x.first > y.first; });
        c.resize(keep);
    }
    std::sort(c.begin(), c.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
}

// ILUT(tau, p), with column pivoting when `pivoting` (ILUTP), row by row. Columns are handled by
// position: position[c] is where column c of A stands now; rows of U are stored by A's column
// while they are formed (later exchanges move positions right of the current row) and mapped to
// positions at the end.
IlutFactors ilut_factor(const HostCsr& a, double tau, int p, bool pivoting) {
    const std::size_t n = a.n;
    IlutFactors f;
    f.column.resize(n);
    std::iota(f.column.begin(), f.column.end(), 0);
    std::vector<std::int32_t> position(f.column);
    HostCsr& l = f.l;
    HostCsr u;  // columns of A, diagonal first
    l.n = u.n = n;
    l.ptr.assign(n + 1, 0);
    u.ptr.assign(n + 1, 0);
    std::vector<double> w(n, 0), pivot(n, 0), scale(n, 0);
    std::vector<char> in(n, 0);
    if (pivoting) {  // s_j = 1 / max_k |a_kj| (1 for an empty column, never a pivot)
        for (std::size_t e = 0; e < a.val.size(); ++e)
            scale[a.col[e]] = std::max(scale[a.col[e]], std::abs(a.val[e]));
        for (auto& s : scale) s = s > 0 ? 1 / s : 1;
    }
    std::vector<std::int32_t> pattern;
    std::vector<std::pair<double, std::int32_t>> part;
    std::priority_queue<std::int32_t, std::vector<std::int32_t>, std::greater<>> lower;
    for (std::size_t i = 0; i < n; ++i) {
        const auto begin = a.ptr[i], end = a.ptr[i + 1];
        if (begin == end)
            throw BadInput("ilut: " + row_name(i) + " is empty (A is structurally singular)");
        const std::int32_t row = static_cast<std::int32_t>(i);
        double row_sum = 0, row_max = 0;
        std::size_t nnz_l = 0, nnz_u = 0;
        pattern.clear();
        for (auto e = begin; e < end; ++e) {
            const auto q = position[a.col[e]];
            in[q] = 1;
            w[q] = a.val[e];
            pattern.push_back(q);
            if (q < row) lower.push(q);
            row_sum += std::abs(a.val[e]);
            row_max = std::max(row_max, std::abs(a.val[e]));
            nnz_l += a.col[e] < row;
            nnz_u += a.col[e] > row;
        }
        const double drop = tau * row_sum / double(end - begin);  // tau_i
        // w -= l_ik u_k* for the positions k < i of w, in increasing k (fill included)
        while (!lower.empty()) {
            const auto k = lower.top();
            lower.pop();
            // dropped when small in A's units: |w_k| = |l_ik u_kk| <= tau_i
            if (std::abs(w[k]) <= drop) {
                w[k] = 0;
                continue;
            }
            const double lik = w[k] / pivot[k];
            w[k] = lik;
            for (auto e = u.ptr[k] + 1; e < u.ptr[k + 1]; ++e) {
                const auto q = position[u.col[e]];
                if (!in[q]) {
                    in[q] = 1;
                    w[q] = 0;
                    pattern.push_back(q);
                    if (q < row) lower.push(q);
                }
                w[q] -= lik * u.val[e];
            }
        }
        if (pivoting) {
            // |u_iq| s_q, q in positions: the entry in A's column units
            const auto scaled = [&](std::int32_t q) { return std::abs(w[q]) * scale[f.column[q]]; };
            std::int32_t best = row;
            double largest = in[row] ? scaled(row) : 0;
            for (auto q : pattern)
                if (q > row && scaled(q) > largest) {
                    largest = scaled(q);
                    best = q;
                }
            if (best != row && (!in[row] || scaled(row) < kPivotThreshold * largest)) {
                std::swap(f.column[row], f.column[best]);
                position[f.column[row]] = row;
                position[f.column[best]] = best;
                std::swap(w[row], w[best]);
                std::swap(in[row], in[best]);
                for (auto& q : pattern) q = q == row ? best : q == best ? row : q;
                ++f.interchanges;
            }
        }
        double u_ii = in[row] ? w[row] : 0.0;
        if (!std::isfinite(u_ii))
            throw BadInput("ilut: pivot at " + row_name(i) + " is not finite");
        // A zero pivot (what dropping leaves of a row dependent on the rows above, or a row
        // without a diagonal when not pivoting) is replaced by (1e-4 + tau) times the row's mean
        // |a_ij|, as Saad's ILUT does; the diagnosis then judges the factor.
        if (std::abs(u_ii) <= kPivotFloor * row_max) {
            u_ii = (u_ii < 0 ? -1 : 1) * (kReplacedPivot + tau) * row_sum / double(end - begin);
            ++f.replaced_pivots;
        }
        pivot[row] = u_ii;
        // L: the largest nnz_l + p of the kept multipliers, by |l_ij u_jj|
        part.clear();
        for (auto q : pattern)
            if (q < row && w[q] != 0) part.emplace_back(std::abs(w[q] * pivot[q]), q);
        keep_largest(part, nnz_l + std::size_t(p));
        for (const auto& [magnitude, q] : part) {
            l.col.push_back(q);
            l.val.push_back(w[q]);
        }
        l.ptr[i + 1] = static_cast<std::int32_t>(l.col.size());
        // U: the diagonal, then the largest nnz_u + p of |u_ij| > tau_i (j > i)
        part.clear();
        for (auto q : pattern)
            if (q > row && std::abs(w[q]) > drop) part.emplace_back(std::abs(w[q]), q);
        keep_largest(part, nnz_u + std::size_t(p));
        u.col.push_back(f.column[row]);
        u.val.push_back(u_ii);
        for (const auto& [magnitude, q] : part) {
            u.col.push_back(f.column[q]);
            u.val.push_back(w[q]);
        }
        u.ptr[i + 1] = static_cast<std::int32_t>(u.col.size());
        for (auto q : pattern) {
            in[q] = 0;
            w[q] = 0;
        }
    }
    // U's columns by final position, sorted (the diagonal, at position i, first)
    f.u.n = n;
    f.u.ptr = u.ptr;
    f.u.col.resize(u.col.size());
    f.u.val.resize(u.val.size());
    std::vector<std::pair<std::int32_t, double>> entries;
    for (std::size_t i = 0; i < n; ++i) {
        entries.clear();
        for (auto e = u.ptr[i]; e < u.ptr[i + 1]; ++e)
            entries.emplace_back(position[u.col[e]], u.val[e]);
        std::sort(entries.begin(), entries.end());
        for (std::size_t e = 0; e < entries.size(); ++e) {
            f.u.col[u.ptr[i] + e] = entries[e].first;
            f.u.val[u.ptr[i] + e] = entries[e].second;
        }
    }
    return f;
}

// Reverse Cuthill-McKee order of the graph of A + A^T: breadth-first from a vertex of least
// degree in each connected component, neighbours by increasing degree, reversed. order[i] is
// the row (and column) of A that comes i-th.
std::vector<std::int32_t> rcm_order(const HostCsr& a) {
    const std::size_t n = a.n;
    std::vector<std::vector<std::int32_t>> adj(n);
    for (std::size_t i = 0; i < n; ++i)
        for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) {
            const auto j = a.col[e];
            if (static_cast<std::size_t>(j) == i) continue;
            adj[i].push_back(j);
            adj[j].push_back(static_cast<std::int32_t>(i));
        }
    for (auto& v : adj) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    const auto by_degree = [&](std::int32_t x, std::int32_t y) {
        return adj[x].size() < adj[y].size();
    };
    std::vector<std::int32_t> starts(n);
    std::iota(starts.begin(), starts.end(), 0);
    std::stable_sort(starts.begin(), starts.end(), by_degree);
    std::vector<std::int32_t> order, next;
    order.reserve(n);
    std::vector<char> seen(n, 0);
    for (auto start : starts) {
        if (seen[start]) continue;
        seen[start] = 1;
        order.push_back(start);
        for (std::size_t head = order.size() - 1; head < order.size(); ++head) {
            next = adj[order[head]];
            std::stable_sort(next.begin(), next.end(), by_degree);
            for (auto j : next)
                if (!seen[j]) {
                    seen[j] = 1;
                    order.push_back(j);
                }
        }
    }
    std::reverse(order.begin(), order.end());
    return order;
}

// A row permutation that puts a large entry on every diagonal position: the assignment of rows
// to columns maximising prod |a_{row(j), j}| (the objective of Duff and Koster's MC64), found as
// a minimum-cost perfect matching with costs c_ij = log max_k |a_kj| - log |a_ij| >= 0 by
// successive shortest augmenting paths (Dijkstra over reduced costs, row and column
// potentials). Returns row_of[j], the row of A placed at row j. Explicit zeros are not
// entries; BadInput when no perfect matching exists (A is structurally singular).
std::vector<std::int32_t> matching_rows(const HostCsr& a, const char* who) {
    const std::size_t n = a.n;
    std::vector<double> column_max(n, 0.0), cost(a.val.size(), 0.0);
    for (std::size_t e = 0; e < a.val.size(); ++e)
        column_max[a.col[e]] = std::max(column_max[a.col[e]], std::abs(a.val[e]));
    for (std::size_t e = 0; e < a.val.size(); ++e)
        cost[e] = a.val[e] != 0 ? std::log(column_max[a.col[e]]) - std::log(std::abs(a.val[e]))
                                : std::numeric_limits<double>::infinity();
    constexpr double inf = std::numeric_limits<double>::infinity();
    std::vector<double> u(n, 0.0), v(n, 0.0), d(n, inf);
    std::vector<std::int32_t> row_of(n, -1), column_of(n, -1), previous(n, -1), touched;
    std::vector<char> done(n, 0);
    // u_i = min_j c_ij keeps every reduced cost c_ij - u_i - v_j >= 0; a row whose cheapest
    // column is free takes it at once.
    for (std::size_t i = 0; i < n; ++i) {
        double best = inf;
        std::int32_t at = -1;
        for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e)
            if (cost[e] < best) {
                best = cost[e];
                at = a.col[e];
            }
        if (at < 0)
            throw BadInput(std::string(who) + ": " + row_name(i) +
                           " has no nonzero entry (A is structurally singular)");
        u[i] = best;
        if (row_of[at] < 0) {
            row_of[at] = static_cast<std::int32_t>(i);
            column_of[i] = at;
        }
    }
    using Item = std::pair<double, std::int32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    for (std::size_t s = 0; s < n; ++s) {
        if (column_of[s] >= 0) continue;
        // Dijkstra from row s to the nearest free column over reduced costs
        auto relax = [&](std::int32_t i, double base) {
            for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) {
                const auto j = a.col[e];
                if (done[j] || !std::isfinite(cost[e])) continue;
                const double dj = base + cost[e] - u[i] - v[j];
                if (dj < d[j]) {
                    if (d[j] == inf) touched.push_back(j);
                    d[j] = dj;
                    previous[j] = i;
                    heap.emplace(dj, j);
                }
            }
        };
        relax(static_cast<std::int32_t>(s), 0.0);
        std::int32_t free_column = -1;
        double delta = 0;
        std::vector<std::int32_t> finished;
        while (!heap.empty()) {
            const auto [dj, j] = heap.top();
            heap.pop();
            if (done[j] || dj > d[j]) continue;
            done[j] = 1;
            finished.push_back(j);
            if (row_of[j] < 0) {
                free_column = j;
                delta = dj;
                break;
            }
            relax(row_of[j], dj);
        }
        while (!heap.empty()) heap.pop();
        if (free_column < 0)
            throw BadInput(std::string(who) +
                           ": A is structurally singular (no row permutation puts a nonzero on "
                           "every diagonal position; " +
                           row_name(s) + " cannot be matched)");
        // potentials: matched edges keep reduced cost 0, all stay >= 0
        u[s] += delta;
        for (auto j : finished)
            if (j != free_column) {
                v[j] += d[j] - delta;
                u[row_of[j]] += delta - d[j];
            }
        // augment along the path back to s
        for (std::int32_t j = free_column; j >= 0;) {
            const auto i = previous[j];
            const auto next = column_of[i];
            row_of[j] = i;
            column_of[i] = j;
            j = static_cast<std::size_t>(i) == s ? -1 : next;
        }
        for (auto j : touched) {
            d[j] = inf;
            done[j] = 0;
            previous[j] = -1;
        }
        touched.clear();
    }
    return row_of;
}

// R A: row i of the result is row rows[i] of a.
HostCsr permute_rows(const HostCsr& a, const std::vector<std::int32_t>& rows) {
    HostCsr b;
    b.n = a.n;
    b.ptr.assign(a.n + 1, 0);
    for (std::size_t i = 0; i < a.n; ++i) {
        for (auto e = a.ptr[rows[i]]; e < a.ptr[rows[i] + 1]; ++e) {
            b.col.push_back(a.col[e]);
            b.val.push_back(a.val[e]);
        }
        b.ptr[i + 1] = static_cast<std::int32_t>(b.col.size());
    }
    return b;
}

// B = Q A Q^T: b_ij = a_{order[i], order[j]}, rows sorted.
HostCsr permute(const HostCsr& a, const std::vector<std::int32_t>& order) {
    std::vector<std::int32_t> inverse(a.n);
    for (std::size_t i = 0; i < a.n; ++i) inverse[order[i]] = static_cast<std::int32_t>(i);
    HostCsr b;
    b.n = a.n;
    b.ptr.assign(a.n + 1, 0);
    std::vector<std::pair<std::int32_t, double>> row;
    for (std::size_t i = 0; i < a.n; ++i) {
        row.clear();
        for (auto e = a.ptr[order[i]]; e < a.ptr[order[i] + 1]; ++e)
            row.emplace_back(inverse[a.col[e]], a.val[e]);
        std::sort(row.begin(), row.end());
        for (const auto& [c, v] : row) {
            b.col.push_back(c);
            b.val.push_back(v);
        }
        b.ptr[i + 1] = static_cast<std::int32_t>(b.col.size());
    }
    return b;
}

// ---- diagnosis ----

// x = L^-1 b (L lower, unit diagonal implied or stored last in each row)
template <typename S>
void host_lower_solve(const HostCsrOf<S>& l, bool unit, const std::vector<S>& b,
                      std::vector<S>& x) {
    for (std::size_t i = 0; i < l.n; ++i) {
        S s = b[i];
        const auto last = unit ? l.ptr[i + 1] : l.ptr[i + 1] - 1;
        for (auto e = l.ptr[i]; e < last; ++e) s -= l.val[e] * x[l.col[e]];
        x[i] = unit ? s : s / l.val[last];
    }
}

// x = U^-1 b (U upper, diagonal first in each row)
template <typename S>
void host_upper_solve(const HostCsrOf<S>& u, const std::vector<S>& b, std::vector<S>& x) {
    for (std::size_t step = 0; step < u.n; ++step) {
        const std::size_t i = u.n - 1 - step;
        S s = b[i];
        for (auto e = u.ptr[i] + 1; e < u.ptr[i + 1]; ++e) s -= u.val[e] * x[u.col[e]];
        x[i] = s / u.val[u.ptr[i]];
    }
}

template <typename S>
double max_abs(const std::vector<S>& v) {
    double m = 0;
    for (const S& x : v) m = std::max(m, double(std::abs(x)));
    return m;
}

// Growth and probe of M = Q^T L U P^T as an approximation of a (see FactorDiagnosis): M^-1 r
// gathers t[i] = r[row_order[i]], solves L U y = t and gathers z[c] = y[column_order[c]] (an
// empty order is the identity).
template <typename S>
FactorDiagnosis diagnose(const HostCsrOf<S>& a, const HostCsrOf<S>& l, bool unit_l,
                         const HostCsrOf<S>& u, const std::vector<std::int32_t>& row_order,
                         const std::vector<std::int32_t>& column_order, const char* who) {
    FactorDiagnosis d;
    const std::size_t n = a.n;
    d.max_matrix_entry = max_abs(a.val);
    d.max_factor_entry = std::max(max_abs(l.val), max_abs(u.val));
    d.growth = d.max_matrix_entry > 0 ? d.max_factor_entry / d.max_matrix_entry : 0;
    d.min_pivot = n > 0 ? std::numeric_limits<double>::infinity() : 0;
    for (std::size_t i = 0; i < n; ++i)
        d.min_pivot = std::min(d.min_pivot, std::abs(u.val[u.ptr[i]]));
    if (n > 0) {
        // probe: v uniform in [-1, 1], fixed seed; ||M^-1 A v - v|| / ||v||
        std::mt19937_64 gen(20261128);
        std::uniform_real_distribution<double> uniform(-1.0, 1.0);
        std::vector<S> v(n), av(n, S(0)), y(n), z(n);
        for (auto& x : v) x = uniform(gen);
        for (std::size_t i = 0; i < n; ++i)
            for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) av[i] += a.val[e] * v[a.col[e]];
        if (!row_order.empty()) {
            std::vector<S> t(n);
            for (std::size_t i = 0; i < n; ++i) t[i] = av[row_order[i]];
            av.swap(t);
        }
        host_lower_solve(l, unit_l, av, y);
        host_upper_solve(u, y, z);
        double diff = 0, norm = 0;
        for (std::size_t c = 0; c < n; ++c) {
            const S mv = column_order.empty() ? z[c] : z[column_order[c]];
            diff += std::norm(mv - v[c]);
            norm += std::norm(v[c]);
        }
        d.probe = std::sqrt(diff / norm);
    }
    const bool growth_ok = d.growth <= kUnstableGrowth;
    const bool probe_ok = std::isfinite(d.probe) && d.probe <= kProbeLimit;
    d.stable = growth_ok && probe_ok;
    if (!d.stable) {
        std::string found;
        if (!growth_ok) found = "growth " + number(d.growth) + " > " + number(kUnstableGrowth);
        if (!probe_ok)
            found += (found.empty() ? "" : ", ") + std::string("probe |M^-1 A v - v|/|v| = ") +
                     number(d.probe) + " > " + number(kProbeLimit);
        d.advice = std::string(who) + " factor is unstable (" + found + ", smallest pivot " +
                   number(d.min_pivot) +
                   "): M^-1 is unreliable; try ILUT with column pivoting, a diagonal shift of A, "
                   "or a larger drop tolerance / more fill";
    }
    return d;
}

// x itself for a real x (its sign kept in messages), |x| for a complex one.
double magnitude(double x) { return x; }
double magnitude(const std::complex<double>& x) { return std::abs(x); }

template <typename T, typename S>
std::vector<T> rounded(const std::vector<S>& v, const char* who, const HostCsrOf<S>& a) {
    std::vector<T> out(v.size());
    for (std::size_t i = 0; i < a.n; ++i)
        for (auto k = a.ptr[i]; k < a.ptr[i + 1]; ++k) {
            out[k] = common::narrow<T>(v[k]);
            if (!common::is_finite(out[k]))
                throw BadInput(std::string(who) + ": factor entry at " + row_name(i) +
                               " overflows the value type (" + number(magnitude(v[k])) + ")");
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

    TriangularFactor(const Executor& exec, const HostCsrOf<common::wide_t<T>>& a, bool lower_,
                     bool unit, const char* who)
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
    FactorDiagnosis diagnosis;
    // After a reordering or column pivoting (M = Q^T L U P^T): t[i] = r[row_order[i]],
    // y = U^-1 L^-1 t, z[c] = y[column_order[c]]; each empty when it is the identity.
    Array<std::int32_t> row_order, column_order;
    mutable Array<T> work, work2;  // L^-1 t; t, then y before the gather

    // `a` is the matrix factored (for the diagnosis); the orders as above, on the host.
    TriangularPair(const Executor& exec, const HostCsrOf<common::wide_t<T>>& a,
                   const HostCsrOf<common::wide_t<T>>& l, bool unit_l,
                   const HostCsrOf<common::wide_t<T>>& u, TriangularSolver how_, const char* who,
                   const std::vector<std::int32_t>& rows = {},
                   const std::vector<std::int32_t>& columns = {})
        : lower(exec, l, true, unit_l, who),
          upper(exec, u, false, false, who),
          how(resolve(how_, exec)),
          diagnosis(diagnose(a, l, unit_l, u, rows, columns, who)),
          row_order(exec, rows),
          column_order(exec, columns),
          work(exec, l.n),
          work2(exec, rows.empty() && columns.empty() ? 0 : l.n) {
        lower.analyse(how);
        upper.analyse(how);
    }

    // z = P U^-1 L^-1 Q r
    void apply(const char* who, const_view<T> r, view<T> z) const {
        const std::size_t n = lower.matrix.rows();
        if (r.size != n) throw DimensionMismatch(std::string(who) + " apply: r", n, r.size);
        if (z.size != n) throw DimensionMismatch(std::string(who) + " apply: z", n, z.size);
        if (n == 0) return;
        const auto& exec = lower.matrix.executor();
        const bool rows = row_order.size() > 0, columns = column_order.size() > 0;
        const const_view<T> w2 = work2.get_view();
        if (rows)  // work2 = Q r
            dispatch(exec, [&](auto backend) {
                gather(backend, exec, row_order.get_view(), r, work2.get_view());
            });
        dispatch<KernelFamily::sptrsv>(exec, [&](auto backend) {
            lower.solve(backend, how, rows ? w2 : r, work.get_view());  // work = L^-1 Q r
            // z = U^-1 work, or work2 = U^-1 work and z = P work2
            upper.solve(backend, how, work.get_view(), columns ? work2.get_view() : z);
        });
        if (columns)
            dispatch(exec,
                     [&](auto backend) { gather(backend, exec, column_order.get_view(), w2, z); });
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
    auto a = host_copy(A);
    check_finite(a, "ilu0", [](std::size_t, std::int32_t) { return true; });
    const auto diag = diagonal_positions(a, "ilu0");
    const auto original = a;
    ilu0_in_place(a, diag, "ilu0");
    decltype(a) l, u;
    split_lu(a, diag, l, u);
    this->factors_ = std::make_unique<detail::TriangularPair<T>>(A.executor(), original, l, true, u,
                                                                 how, "ilu0");
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
    // The diagnosis measures M against A itself (a shift is part of what M approximates),
    // the symmetric matrix of the lower triangle.
    const HostCsr full = symmetric_from_lower(l);
    l.val = std::move(values);
    const HostCsr lt = transpose(l);
    this->factors_ =
        std::make_unique<detail::TriangularPair<T>>(A.executor(), full, l, false, lt, how, "ic0");
}

// ---- ILUT ----

template <typename T>
Ilut<T>::Ilut(const Csr<T>& A, double drop_tolerance, int fill, bool pivoting, bool rcm,
              bool matching, TriangularSolver how) {
    A.require_int32("ilut");
    check_square(A.rows(), A.cols(), "ilut");
    if (!(drop_tolerance >= 0) || !std::isfinite(drop_tolerance))
        throw BadInput("ilut: drop tolerance must be finite and >= 0 (got " +
                       number(drop_tolerance) + ")");
    if (fill < 0) throw BadInput("ilut: fill must be >= 0 (got " + std::to_string(fill) + ")");
    const HostCsr a = host_copy(A);
    check_finite(a, "ilut", [](std::size_t, std::int32_t) { return true; });
    // With matching, the rows of A are permuted first (R A, a large entry on every diagonal
    // position); with rcm, B = Q (R A) Q^T is factored: B P = L U, M^-1 = Q^T P U^-1 L^-1 Q R.
    std::vector<std::int32_t> matched, order, rows;
    HostCsr b = a;
    if (matching && a.n > 0) {
        matched = matching_rows(a, "ilut");
        b = permute_rows(a, matched);
    }
    if (rcm && a.n > 0) {
        order = rcm_order(b);
        b = permute(b, order);
    }
    if (!matched.empty() || !order.empty()) {  // t[i] = r[rows[i]]
        rows.resize(a.n);
        for (std::size_t i = 0; i < a.n; ++i) {
            const auto k = order.empty() ? static_cast<std::int32_t>(i) : order[i];
            rows[i] = matched.empty() ? k : matched[k];
        }
    }
    const IlutFactors f = ilut_factor(b, drop_tolerance, fill, pivoting);
    interchanges_ = f.interchanges;
    replaced_pivots_ = f.replaced_pivots;
    // z[k] = y[position of column k of A]: column k of A is column i of B where order[i] = k
    // (the row permutation leaves columns alone), at the position p with f.column[p] = i.
    std::vector<std::int32_t> columns;
    if (f.interchanges > 0 || !order.empty()) {
        std::vector<std::int32_t> position(a.n);
        for (std::size_t q = 0; q < a.n; ++q) position[f.column[q]] = static_cast<std::int32_t>(q);
        columns.resize(a.n);
        for (std::size_t i = 0; i < a.n; ++i) columns[order.empty() ? i : order[i]] = position[i];
    }
    this->factors_ = std::make_unique<detail::TriangularPair<T>>(A.executor(), a, f.l, true, f.u,
                                                                 how, "ilut", rows, columns);
}

// ---- ILU(k) ----

template <typename T>
Iluk<T>::Iluk(const Csr<T>& A, int level, TriangularSolver how) {
    A.require_int32("iluk");
    check_square(A.rows(), A.cols(), "iluk");
    if (level < 0) throw BadInput("iluk: level must be >= 0 (got " + std::to_string(level) + ")");
    const HostCsr a = host_copy(A);
    check_finite(a, "iluk", [](std::size_t, std::int32_t) { return true; });
    (void)diagonal_positions(a, "iluk");
    HostCsr f = iluk_pattern(a, level);
    const auto diag = diagonal_positions(f, "iluk");
    ilu0_in_place(f, diag, "iluk");
    HostCsr l, u;
    split_lu(f, diag, l, u);
    this->factors_ =
        std::make_unique<detail::TriangularPair<T>>(A.executor(), a, l, true, u, how, "iluk");
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
template <typename T>
const FactorDiagnosis& TriangularFactors<T>::diagnosis() const {
    return factors_->diagnosis;
}
template <typename T>
bool TriangularFactors<T>::unstable() const {
    return !factors_->diagnosis.stable;
}

template class TriangularFactors<double>;
template class TriangularFactors<float>;
template class TriangularFactors<std::complex<double>>;
template class TriangularFactors<std::complex<float>>;
template class Ilu0<double>;
template class Ilu0<float>;
template class Ilu0<std::complex<double>>;
template class Ilu0<std::complex<float>>;
template class Ic0<double>;
template class Ic0<float>;
template class Ilut<double>;
template class Ilut<float>;
template class Iluk<double>;
template class Iluk<float>;

}  // namespace portla::solver
