// Smoothed aggregation multigrid (include/portla/solver/amg.hpp): the set-up over the
// aggregation kernels (core/kernels/amg_kernels.hpp) and portla/sparse.hpp, the cycle over
// operator applications and blas:: calls, on every backend.
#include "portla/solver/amg.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/sparse/rows.hpp"
#include "core/kernels/amg_kernels.hpp"
#include "core/runtime.hpp"
#include "core/device_arrays.hpp"
#include "core/host_threads.hpp"
#include "core/kernels/sparse_kernels.hpp"
#include "core/solver_common.hpp"
#include "portla/blas.hpp"
#include "portla/error.hpp"
#include "portla/matrix/dense.hpp"
#include "portla/solver/chebyshev.hpp"
#include "portla/sparse.hpp"

namespace portla::solver {
namespace {

using portla::detail::prefix_sums;
using portla::detail::read_at;

using I32 = std::int32_t;
using I64 = std::int64_t;
using U64 = std::uint64_t;

/// HMIS's first pass (classical_rows.h: amg_hmis_block) on every block of rows, on the host's
/// threads: the blocks handed out in turn, each a thread's alone (its rows, its scratch). The
/// arrays are read where they are on a CPU backend, else copied to the host (and the keys back).
void hmis_blocks(const Executor& exec, std::size_t n, const Array<I32>& rp, const Array<I32>& ci,
                 const Array<I32>& strong, const Array<I32>& tpos, Array<U64>& keys) {
    const Executor host = Executor::reference();
    const bool here = exec.is_host();
    std::vector<Array<I32>> copies;  // the host copies of the read-only arrays
    copies.reserve(4);
    const auto on_host = [&](const Array<I32>& a) -> const I32* {
        if (here) return a.data();
        copies.emplace_back(host, a);
        return copies.back().data();
    };
    const I32 *p_rp = on_host(rp), *p_ci = on_host(ci), *p_strong = on_host(strong),
              *p_tpos = on_host(tpos);
    Array<U64> h_keys = here ? Array<U64>() : Array<U64>(host, keys);
    U64* p_keys = here ? keys.data() : h_keys.data();
    Array<I32> scratch(host, 3 * n);
    I32* work = scratch.data();
    const std::size_t blocks = (n + PORTLA_AMG_HMIS_BLOCK - 1) / PORTLA_AMG_HMIS_BLOCK;
    // The reference backend stays sequential.
    const unsigned threads =
        exec.backend() == Backend::reference
            ? 1u
            : static_cast<unsigned>(std::min<std::size_t>(portla::detail::host_threads(), blocks));
    std::atomic<std::size_t> next{0};
    portla::detail::run_on_threads(std::max(threads, 1u), [&](unsigned) {
        for (std::size_t b = next++; b < blocks; b = next++)
            sparse_rows::SparseRows<double>::amg_hmis_block(
                static_cast<int>(b), static_cast<int>(n), p_rp, p_ci, p_strong, p_tpos, p_keys,
                work, work + n, work + 2 * n);
    });
    if (!here) Executor::copy_bytes(exec, keys.data(), host, h_keys.data(), n * sizeof(U64));
}

constexpr std::size_t kAmgReplays = 4;  // cuda: the graphs of the cycle kept (pairs of vectors)
constexpr int kLanczosSteps = 10;       // the estimate of rho(D^-1 A) per level
constexpr double kStall = 0.9;          // a coarse level keeping more rows has stalled
constexpr double kChebyshevLowerRatio = 11;  // the smoother's interval [lmax / 11, lmax]
constexpr double kChebyshevSafety = 1.1;     // lmax = 1.1 x the estimate

/// A level's smoother as fused steps (amg_smooth_update): the weights w and, per step of a
/// sweep, the coefficients (c1, c2) of d = c1 d + c2 w (b - A x), x += d.
template <typename T>
struct FusedSmoother {
    Array<T> w;
    std::vector<std::pair<double, double>> steps;
    explicit operator bool() const { return !steps.empty(); }
};

std::size_t csr_bytes(std::size_t rows, std::size_t nnz, std::size_t value_size) {
    return (rows + 1) * sizeof(I32) + nnz * (sizeof(I32) + value_size);
}

/// The inverse of the n x n row-major matrix a (Gauss-Jordan elimination with partial
/// pivoting, in double); throws BadInput when a pivot is zero or not finite.
std::vector<double> dense_inverse(std::vector<double> a, std::size_t n) {
    std::vector<double> inv(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) inv[i * n + i] = 1;
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t p = c;
        for (std::size_t i = c + 1; i < n; ++i)
            if (std::abs(a[i * n + c]) > std::abs(a[p * n + c])) p = i;
        const double pivot = a[p * n + c];
        if (pivot == 0 || !std::isfinite(pivot))
            throw BadInput("amg: the coarsest level's operator (" + std::to_string(n) +
                           " rows) is singular");
        if (p != c)
            for (std::size_t j = 0; j < n; ++j) {
                std::swap(a[p * n + j], a[c * n + j]);
                std::swap(inv[p * n + j], inv[c * n + j]);
            }
        const double scale = 1 / pivot;
        for (std::size_t j = 0; j < n; ++j) {
            a[c * n + j] *= scale;
            inv[c * n + j] *= scale;
        }
        for (std::size_t i = 0; i < n; ++i) {
            const double f = a[i * n + c];
            if (i == c || f == 0) continue;
            for (std::size_t j = 0; j < n; ++j) {
                a[i * n + j] -= f * a[c * n + j];
                inv[i * n + j] -= f * inv[c * n + j];
            }
        }
    }
    return inv;
}

void check_settings(const AmgSettings& s) {
    if (s.method != "sa" && s.method != "classical")
        throw BadInput("amg: unknown method '" + s.method + "' (expected sa or classical)");
    if (s.interpolation != "direct" && s.interpolation != "extended+i")
        throw BadInput("amg: unknown interpolation '" + s.interpolation +
                       "' (expected direct or extended+i)");
    if (s.coarsening != "pmis" && s.coarsening != "hmis")
        throw BadInput("amg: unknown coarsening '" + s.coarsening + "' (expected pmis or hmis)");
    if (!(s.trunc_factor >= 0 && s.trunc_factor < 1))
        throw BadInput("amg: the truncation factor must be in [0, 1)");
    if (s.interp_max_entries < 0)
        throw BadInput("amg: the interpolation's entries per row must be >= 0 (0: no limit)");
    if (!(s.strength_threshold >= 0) || !std::isfinite(s.strength_threshold))
        throw BadInput("amg: the strength threshold must be finite and >= 0");
    if (!(s.coarse_strength_threshold >= 0) || !std::isfinite(s.coarse_strength_threshold))
        throw BadInput("amg: the coarse strength threshold must be finite and >= 0");
    if (s.sweeps < 1 || s.sweeps > 16) throw BadInput("amg: sweeps must be in [1, 16]");
    if (s.chebyshev_degree < 1 || s.chebyshev_degree > 8)
        throw BadInput("amg: the chebyshev degree must be in [1, 8]");
    if (s.max_levels < 1 || s.max_levels > 40) throw BadInput("amg: max levels must be in [1, 40]");
    if (s.aggressive_interpolation != "multipass" &&
        s.aggressive_interpolation != "multipass-jacobi")
        throw BadInput("amg: unknown aggressive interpolation '" + s.aggressive_interpolation +
                       "' (expected multipass or multipass-jacobi)");
    if (s.aggressive_levels < 0 || s.aggressive_levels > 40)
        throw BadInput("amg: aggressive levels must be in [0, 40]");
    if (s.aggressive_levels > 0 && s.method != "classical")
        throw BadInput("amg: aggressive coarsening is a setting of the classical method (got '" +
                       s.method + "')");
    if (s.coarse_size < 1) throw BadInput("amg: the coarse size must be >= 1");
    if (!(s.prolongator_weight > 0 && s.prolongator_weight < 2))
        throw BadInput("amg: the prolongator weight must be in (0, 2)");
    if (!(s.jacobi_weight > 0 && s.jacobi_weight < 2))
        throw BadInput("amg: the jacobi weight must be in (0, 2)");
}

}  // namespace

std::size_t amg_hierarchy_estimate(std::size_t n, std::size_t nnz, std::size_t value_size,
                                   const std::string& method) {
    // The coarse operators (operator complexity up to about 2.2 with smoothed aggregation at
    // the default thresholds: 2.13 measured on anisotropic3d, 1.45 on Poisson; with the classical
    // method up to about 4.5: 4.3 measured on anisotropic3d:48 with HMIS and extended+i; larger
    // thresholds than the defaults can exceed these, and then an allocation of the set-up fails
    // with OutOfMemory instead of the refusal up front), P and R (at most one entry per stored
    // entry of A each), the cycle's four vectors per level and smoother weights.
    const std::size_t entry = sizeof(I32) + value_size;
    const std::size_t coarse = method == "classical" ? nnz * entry * 7 / 2 : nnz * entry * 6 / 5;
    return coarse + 2 * nnz * entry + n * 6 * value_size;
}

std::size_t amg_memory_estimate(std::size_t n, std::size_t nnz, std::size_t value_size,
                                const std::string& method) {
    // The hierarchy, and the set-up's transient arrays on the finest level (strength flags, keys,
    // the smoother S's values, offsets) and the product's workspace.
    const std::size_t entry = sizeof(I32) + value_size;
    const std::size_t setup = nnz * entry + n * (3 * sizeof(U64) + 24) +
                              std::min<std::size_t>(std::size_t{768} << 20, 8 * nnz * entry);
    return amg_hierarchy_estimate(n, nnz, value_size, method) + setup;
}

template <typename T>
struct Amg<T>::Hierarchy {
    const Csr<T>* fine = nullptr;
    AmgSettings s;
    std::vector<std::unique_ptr<Csr<T>>> coarse;  // levels 1, 2, ...
    std::vector<std::unique_ptr<Csr<T>>> P, R;    // P[l]: level l + 1 -> l; R[l] = P[l]^T
    std::vector<Array<I32>> aggregates;           // sa: per row; classical: the coarse rows' ranks
    std::vector<Array<I32>> coarse_flags;         // classical: 1 for a coarse row, else 0
    std::vector<FusedSmoother<T>> smoothers;      // per level (empty: none)
    std::unique_ptr<Dense<T>> coarse_inverse;
    // The cycle's vectors per level (x, b: level 0's are apply()'s arguments).
    // r: the residual and the prolongated correction; z: the smoothing steps' other iterate.
    mutable std::vector<Array<T>> x, b, r, z;
    mutable view<T> x0;
    mutable const_view<T> b0;
    AmgInfo info;
    // Mixed precision: the matrix rounded to float, its hierarchy, and the cycle's float
    // right-hand side and result.
    std::unique_ptr<Csr<float>> float_matrix;
    std::unique_ptr<Amg<float>> float_amg;
    mutable Array<float> rf, zf;
    // cuda: the cycle of each recent pair of apply()'s vectors, captured as a graph after a
    // first direct run (which sets up any scratch its kernels keep), and replayed; none once a
    // capture has failed.
    struct Replay {
        const void* r;
        void* z;
        std::size_t n;
        std::unique_ptr<portla::detail::Graph> graph;
    };
    std::vector<Replay> replays;
    bool no_replay = false;

    /// z = one cycle from z = 0 for r: the work of apply(), queued directly.
    void run(const_view<T> r, view<T> z);

    std::size_t levels() const { return coarse.size() + 1; }
    const Csr<T>& op(std::size_t l) const { return l == 0 ? *fine : *coarse[l - 1]; }
    view<T> xv(std::size_t l) const { return l == 0 ? x0 : x[l].get_view(); }
    const_view<T> bv(std::size_t l) const {
        return l == 0 ? b0 : const_view<T>(std::as_const(b[l]).get_view());
    }

    /// Where smoothing starts: from zero, from x, or from the iterate in z.
    enum class Start { zero, x, z };
    /// `sweeps` sweeps of level l's smoother, the result in x.
    void smooth(std::size_t l, int sweeps, Start start) const;
    /// The Lanczos estimates' start vector of n entries (amg_start_row), on the device.
    Array<T> start_vector(std::size_t n) const {
        const Executor& exec = fine->executor();
        Array<T> v(exec, n);
        dispatch<KernelFamily::amg>(exec,
                                    [&](auto backend) { amg_start(backend, exec, v.get_view()); });
        return v;
    }
    /// rho(D^-1 A) of a level by Lanczos: the prolongator smoother's weight and the smoother's
    /// interval. 1 where neither is used: classical AMG with l1-Jacobi (convergent without a
    /// bound) takes no Lanczos steps in its set-up.
    double spectral_radius(const Csr<T>& A) const {
        if (s.method == "classical" && s.smoother == AmgSmoother::l1_jacobi) return 1.0;
        return Chebyshev<T>::ritz_values(A, kLanczosSteps, start_vector(A.rows())).second;
    }
    void cycle(std::size_t l, bool zero_guess) const;
    /// The memory floor of one cycle of the settings' kind (AmgInfo::cycle_bytes).
    double cycle_floor() const;
    /// The smoother of level l from rho(D^-1 A) and the level's diagonal d.
    void build_smoother(std::size_t l, double rho, const Array<T>& d);
};

template <typename T>
void Amg<T>::Hierarchy::build_smoother(std::size_t l, double rho, const Array<T>& d) {
    const Csr<T>& A = op(l);
    const Executor& exec = A.executor();
    FusedSmoother<T>& m = smoothers[l];
    m.w = s.smoother == AmgSmoother::l1_jacobi ? Array<T>(exec, A.rows()) : Array<T>(exec, d);
    switch (s.smoother) {
        case AmgSmoother::jacobi:  // w = jacobi_weight / rho D^-1
            blas::invert_diagonal<T>(exec, m.w.get_view());
            blas::axpby<T>(exec, T(0), std::as_const(m.w).get_view(), T(s.jacobi_weight / rho),
                           m.w.get_view());
            m.steps = {{0.0, 1.0}};
            break;
        case AmgSmoother::l1_jacobi:  // w = 1 / (the rows' l1 norms)
            dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                amg_l1(backend, exec, A.rows(), A.row_ptrs().get_view(), A.values().get_view(),
                       m.w.get_view());
            });
            blas::invert_diagonal<T>(exec, m.w.get_view());
            m.steps = {{0.0, 1.0}};
            break;
        case AmgSmoother::chebyshev: {
            // degree + 1 steps of the Chebyshev iteration on D^-1 A over [lmax / 11, lmax]: the
            // smoothing step x += p(D^-1 A) D^-1 (b - A x) of solver::Chebyshev of that degree.
            blas::invert_diagonal<T>(exec, m.w.get_view());
            const double lmax = kChebyshevSafety * rho;
            m.steps = Chebyshev<T>::step_coefficients(lmax / kChebyshevLowerRatio, lmax,
                                                      s.chebyshev_degree);
            break;
        }
    }
}

template <typename T>
void Amg<T>::Hierarchy::smooth(std::size_t l, int sweeps, Start start) const {
    const Csr<T>& A = op(l);
    const Executor& exec = A.executor();
    const FusedSmoother<T>& m = smoothers[l];
    const std::size_t per_sweep = m.steps.size();
    const std::size_t total = per_sweep * static_cast<std::size_t>(sweeps);
    // Each step reads one iterate and writes the other; step k writes x when total - 1 - k is
    // even, so the last step leaves the result in x. A start in the iterate that the first step
    // must write (x for an odd count, z for an even one) is copied to the other first. A step
    // finds the iterate before its input in the iterate it writes (amg_smooth_update).
    const view<T> x = xv(l), other = z[l].get_view();
    if (start == Start::x && total % 2 == 1) blas::copy<T>(exec, const_view<T>(x), other);
    if (start == Start::z && total % 2 == 0) blas::copy<T>(exec, const_view<T>(other), x);
    const bool zero_guess = start == Start::zero;
    for (std::size_t k = 0; k < total; ++k) {
        const bool to_x = (total - 1 - k) % 2 == 0;
        const view<T> out = to_x ? x : other;
        const const_view<T> in = to_x ? const_view<T>(other) : const_view<T>(x);
        const double c1 = m.steps[k % per_sweep].first, c2 = m.steps[k % per_sweep].second;
        dispatch<KernelFamily::amg>(exec, [&](auto backend) {
            amg_smooth(backend, exec, A.rows(), A.row_ptrs().get_view(), A.col_idxs().get_view(),
                       A.values().get_view(), bv(l), in, out, std::as_const(m.w).get_view(), T(c1),
                       T(c2), zero_guess && k == 0 ? 1 : 0,
                       (k % per_sweep == 0 ? PORTLA_AMG_STEP_FIRST : 0) |
                           (zero_guess && k == 1 ? PORTLA_AMG_STEP_AFTER_ZERO : 0));
        });
    }
}

template <typename T>
void Amg<T>::Hierarchy::cycle(std::size_t l, bool zero_guess) const {
    const Csr<T>& A = op(l);
    const Executor& exec = A.executor();
    if (l + 1 == levels()) {
        if (coarse_inverse)
            coarse_inverse->apply(bv(l), xv(l));
        else
            smooth(l, 4 * s.sweeps, zero_guess ? Start::zero : Start::x);
        return;
    }
    smooth(l, s.sweeps, zero_guess ? Start::zero : Start::x);
    // r = b - A x, restricted.
    const auto rp = A.row_ptrs().get_view(), ci = A.col_idxs().get_view();
    dispatch<KernelFamily::amg>(exec, [&](auto backend) {
        amg_residual(backend, exec, A.rows(), rp, ci, A.values().get_view(), bv(l),
                     const_view<T>(xv(l)), r[l].get_view());
    });
    R[l]->apply(std::as_const(r[l]).get_view(), b[l + 1].get_view());
    cycle(l + 1, true);
    if (s.cycle == AmgCycle::w && l + 2 < levels()) cycle(l + 1, false);
    // x + P x_c, written where the post-smoothing's first step reads it (no copy).
    const Csr<T>& P = *this->P[l];
    const bool odd = smoothers[l].steps.size() * static_cast<std::size_t>(s.sweeps) % 2 == 1;
    const view<T> corrected = odd ? z[l].get_view() : xv(l);
    dispatch<KernelFamily::amg>(exec, [&](auto backend) {
        amg_correct(backend, exec, P.rows(), P.row_ptrs().get_view(), P.col_idxs().get_view(),
                    P.values().get_view(), std::as_const(x[l + 1]).get_view(), const_view<T>(xv(l)),
                    corrected);
    });
    smooth(l, s.sweeps, odd ? Start::z : Start::x);
}

template <typename T>
double Amg<T>::Hierarchy::cycle_floor() const {
    const Csr<T>& Ac = op(levels() - 1);
    const std::size_t nc = Ac.rows();
    const double vs = sizeof(T);
    const auto apply_bytes = [&](const Csr<T>& M) {
        return static_cast<double>(csr_bytes(M.rows(), M.nnz(), sizeof(T))) +
               vs * static_cast<double>(M.rows() + M.cols());
    };
    const int degree = s.smoother == AmgSmoother::chebyshev ? s.chebyshev_degree : 0;
    double visits = 1, floor = 0;
    for (std::size_t l = 0; l + 1 < levels(); ++l) {
        const double products = 2.0 * s.sweeps * (degree + 1);
        floor += visits * (products * apply_bytes(op(l)) + apply_bytes(*R[l]) + apply_bytes(*P[l]));
        if (s.cycle == AmgCycle::w && l + 2 < levels()) visits *= 2;
    }
    if (coarse_inverse)
        floor += visits * vs * static_cast<double>(nc * nc + 2 * nc);
    else
        floor += visits * 4.0 * s.sweeps * (degree + 1) * apply_bytes(Ac);
    return floor;
}

/// Adds the time since the last lap (after the executor's queued work has finished) to a phase.
class PhaseClock {
public:
    explicit PhaseClock(const Executor& exec) : exec_(exec) {}
    void lap(double& phase) {
        exec_.synchronize();
        const auto now = std::chrono::steady_clock::now();
        phase += std::chrono::duration<double>(now - last_).count();
        last_ = now;
    }

private:
    const Executor& exec_;
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

template <typename T>
Amg<T>::Amg(const Csr<T>& A, const AmgSettings& settings) : h_(std::make_unique<Hierarchy>()) {
    const auto started = std::chrono::steady_clock::now();
    check_settings(settings);
    if (A.rows() != A.cols())
        throw DimensionMismatch("amg: the matrix must be square (" + std::to_string(A.rows()) +
                                    " x " + std::to_string(A.cols()) + "); rows",
                                A.rows(), A.cols());
    A.require_int32("amg");
    if (const std::string defect = A.structural_defect(); !defect.empty())
        throw BadInput("amg: " + defect);
    const Executor& exec = A.executor();
    Hierarchy& h = *h_;
    h.fine = &A;
    h.s = settings;
    if constexpr (std::is_same_v<T, double>) {
        if (settings.mixed_precision) {
            // The matrix rounded to float on its executor, and a float hierarchy of it.
            Array<float> values(exec, A.nnz());
            dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                amg_narrow(backend, exec, A.values().get_view(), values.get_view());
            });
            h.float_matrix = std::make_unique<Csr<float>>(
                Csr<float>::adopt(exec, A.rows(), A.cols(), Array<I32>(exec, A.row_ptrs()),
                                  Array<I32>(exec, A.col_idxs()), std::move(values)));
            AmgSettings inner = settings;
            inner.mixed_precision = false;
            h.float_amg = std::make_unique<Amg<float>>(*h.float_matrix, inner);
            h.rf = Array<float>(exec, A.rows());
            h.zf = Array<float>(exec, A.rows());
            h.info = h.float_amg->info();
            h.info.float_hierarchy = true;
            h.info.bytes +=
                csr_bytes(A.rows(), A.nnz(), sizeof(float)) + 2 * A.rows() * sizeof(float);
            h.info.setup_seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            return;
        }
    }
    AmgInfo::SetupTimes& times = h.info.setup_times;
    PhaseClock clock(exec);
    const bool classical = h.s.method == "classical";

    // The finest diagonal: positive (the strength measure, the smoothers and the prolongator
    // smoother divide by it; an empty row has none).
    {
        Array<T> d(exec, A.rows());
        A.diagonal(d.get_view());
        const std::size_t bad = dispatch<KernelFamily::amg>(exec, [&](auto backend) {
            return amg_bad_diagonal(backend, exec, std::as_const(d).get_view());
        });
        // Counted where the matrix lives; read back only to name the first bad row.
        const std::vector<T> host = bad > 0 ? d.to_host() : std::vector<T>();
        for (std::size_t i = 0; i < host.size(); ++i)
            if (!(host[i] > 0) || !std::isfinite(static_cast<double>(host[i])))
                throw BadInput("amg: diagonal entry " +
                               std::to_string(static_cast<double>(host[i])) + " at row " +
                               std::to_string(i + 1) +
                               (host[i] == 0 ? " is zero (or the row is empty)"
                                             : " is not positive and finite") +
                               "; smoothed aggregation needs a positive diagonal");
    }
    // The memory estimate, refused before anything is built.
    {
        std::size_t free_bytes = 0, total_bytes = 0;
        exec.memory_info(free_bytes, total_bytes);
        const std::size_t need = amg_memory_estimate(A.rows(), A.nnz(), sizeof(T), h.s.method);
        if (free_bytes > 0 && need > free_bytes)
            throw OutOfMemory::refused(
                "amg: the hierarchy of a " + std::to_string(A.rows()) + "-row matrix with " +
                    std::to_string(A.nnz()) + " entries needs about " + std::to_string(need >> 20) +
                    " MiB; the " + to_string(exec.backend()) + " executor has " +
                    std::to_string(free_bytes >> 20) + " MiB free",
                need);
    }
    clock.lap(times.checks);

    for (std::size_t l = 0;; ++l) {
        const Csr<T>& Al = h.op(l);
        const std::size_t n = Al.rows();
        h.info.levels.push_back({n, Al.nnz()});
        h.smoothers.emplace_back();
        if (n <= static_cast<std::size_t>(h.s.coarse_size)) {
            h.info.stopped = "coarse-size";
            break;
        }
        if (l + 1 >= static_cast<std::size_t>(h.s.max_levels)) {
            h.info.stopped = "max-levels";
            break;
        }
        const double rho = h.spectral_radius(Al);
        if (!(rho > 0) || !std::isfinite(rho))
            throw BadInput("amg: the estimate of the spectral radius of D^-1 A on level " +
                           std::to_string(l) + " is " + std::to_string(rho) +
                           " (the matrix is not positive definite, or holds NaN or Inf)");
        Array<T> d(exec, n);
        Al.diagonal(d.get_view());
        h.build_smoother(l, rho, d);
        clock.lap(times.spectrum);

        // The members of the set (the roots, or the coarse rows) flagged and numbered in order;
        // 0 with the reason when coarsening stops here (no member, or too many).
        const auto number_set = [&](const Array<U64>& keys, Array<I32>& flags, Array<I32>& rank) {
            dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                amg_roots(backend, exec, n, keys.get_view(), flags.get_view());
            });
            rank = prefix_sums(exec, flags);
            const std::size_t members = static_cast<std::size_t>(read_at(rank, n));
            if (members == 0) h.info.stopped = "isolated";
            if (static_cast<double>(members) > kStall * static_cast<double>(n))
                h.info.stopped = "stalled";
            return h.info.stopped.empty() ? members : std::size_t{0};
        };
        Array<I32> agg;  // sa: each row's aggregate; classical: each coarse row's number
        if (!classical) {
            // Strength, the independent set, the aggregates.
            const auto rp = Al.row_ptrs().get_view(), ci = Al.col_idxs().get_view();
            const auto v = Al.values().get_view();
            Array<I32> strong(exec, Al.nnz()), flags(exec, n);
            Array<U64> keys(exec, n), work1(exec, n), work2(exec, n);
            dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                amg_strength(backend, exec, n, rp, ci, v, std::as_const(d).get_view(),
                             T(l == 0 ? h.s.strength_threshold : h.s.coarse_strength_threshold),
                             strong.get_view(), keys.get_view(), flags.get_view());
            });
            // Each round decides at least one row: at most n rounds.
            for (std::size_t round = 0; round <= n; ++round) {
                const std::size_t undecided = dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                    return amg_mis_round(backend, exec, n, rp, ci, std::as_const(strong).get_view(),
                                         keys.get_view(), work1.get_view(), work2.get_view());
                });
                if (undecided == 0) break;
            }
            Array<I32> rank;
            const std::size_t nc = number_set(keys, flags, rank);
            if (nc == 0) break;
            agg = Array<I32>(exec, n);
            Array<I32> work(exec, n);
            dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                amg_aggregates(backend, exec, n, rp, ci, std::as_const(strong).get_view(),
                               std::as_const(keys).get_view(), rank.get_view(), agg.get_view(),
                               work.get_view());
            });
            strong = Array<I32>();
            keys = Array<U64>();
            work1 = Array<U64>();
            work2 = Array<U64>();
            work = Array<I32>();
            clock.lap(times.aggregation);

            // The tentative prolongator T smoothed, P = S T with S = I - omega D^-1 A, formed
            // row by row from the aggregates (aggregation_rows.h: the product S T to the bit).
            Array<T> s_v(exec, Al.nnz());
            Array<I32> p_counts(exec, n);
            dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                amg_smoother(backend, exec, n, rp, ci, v, std::as_const(d).get_view(),
                             T(h.s.prolongator_weight / rho), s_v.get_view());
                amg_prolongator_count(backend, exec, n, rp, ci, std::as_const(agg).get_view(),
                                      p_counts.get_view());
            });
            Array<I32> p_rp = prefix_sums(exec, p_counts);
            p_counts = Array<I32>();
            const I32 p_nnz = read_at(p_rp, n);
            if (p_nnz < 0)
                throw Unsupported("amg: the prolongator of level " + std::to_string(l) +
                                  " has 2^31 or more entries");
            Array<I32> p_ci(exec, static_cast<std::size_t>(p_nnz));
            Array<T> p_v(exec, static_cast<std::size_t>(p_nnz));
            dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                amg_prolongator(backend, exec, n, rp, ci, std::as_const(s_v).get_view(),
                                std::as_const(agg).get_view(), std::as_const(p_rp).get_view(),
                                p_ci.get_view(), p_v.get_view());
            });
            s_v = Array<T>();
            h.P.push_back(std::make_unique<Csr<T>>(
                Csr<T>::adopt(exec, n, nc, std::move(p_rp), std::move(p_ci), std::move(p_v))));
        } else {
            // Classical: strength, PMIS coarse rows, classical interpolation.
            const auto rp = Al.row_ptrs().get_view(), ci = Al.col_idxs().get_view();
            Array<I32> strong(exec, Al.nnz()), tpos(exec, Al.nnz()), flags(exec, n);
            Array<U64> keys(exec, n), work(exec, n);
            dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                amg_classical_strength(backend, exec, n, rp, ci, Al.values().get_view(),
                                       T(h.s.strength_threshold), strong.get_view(),
                                       tpos.get_view());
                amg_pmis_init(backend, exec, n, rp, std::as_const(tpos).get_view(),
                              std::as_const(strong).get_view(), keys.get_view());
            });
            if (h.s.coarsening == "hmis") {
                // Ruge and Stueben's first pass on each block of rows; PMIS decides the rest.
                // The pass is sequential within a block (a heap of its undecided rows), so it
                // runs on the host's threads, a block at a time each, for every backend: a GPU
                // gives a block one thread whose every step waits on memory (13.3 s for the 250
                // blocks of poisson3d:160 on an H200, 2026-11-29). The pattern, the strength and
                // the keys are copied to the host where they are not there, the keys back.
                hmis_blocks(exec, n, Al.row_ptrs(), Al.col_idxs(), strong, tpos, keys);
            }
            // PMIS rounds over the graph (grp, gci) with strength flags gs and transpose
            // positions gt; each round makes at least one row coarse: at most `rows` rounds.
            const auto pmis_rounds = [&](std::size_t rows, const_view<I32> grp, const_view<I32> gci,
                                         const_view<I32> gs, const_view<I32> gt, Array<U64>& gkeys,
                                         Array<U64>& gwork) {
                for (std::size_t round = 0; round <= rows; ++round) {
                    const std::size_t undecided =
                        dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                            return amg_pmis_round(backend, exec, rows, grp, gci, gs, gt,
                                                  gkeys.get_view(), gwork.get_view());
                        });
                    if (undecided == 0) break;
                }
            };
            pmis_rounds(n, rp, ci, std::as_const(strong).get_view(), std::as_const(tpos).get_view(),
                        keys, work);
            // A matrix of n rows from its rows' entry counts (in flags): its offsets, and room
            // for its columns and values.
            struct Rows {
                Array<I32> rp, ci;
                Array<T> v;
            };
            const auto allocate = [&] {
                Rows m{prefix_sums(exec, flags), Array<I32>(), Array<T>()};
                const std::size_t nnz = static_cast<std::size_t>(read_at(m.rp, n));
                m.ci = Array<I32>(exec, nnz);
                m.v = Array<T>(exec, nnz);
                return m;
            };
            const auto strong_v = std::as_const(strong).get_view();
            const auto tpos_v = std::as_const(tpos).get_view();
            const bool aggressive = l < static_cast<std::size_t>(h.s.aggressive_levels);
            const bool jacobi = aggressive && h.s.aggressive_interpolation == "multipass-jacobi";
            if (aggressive) {
                // The split's coarse rows C1 split again: PMIS on G = M^T M, the graph joining
                // two C1 rows when at most two strong connections do (M: n x |C1|, each row's
                // strong connections of either direction to C1 rows, and a C1 row itself).
                Array<I32> c1(exec, n);
                dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                    amg_roots(backend, exec, n, std::as_const(keys).get_view(), c1.get_view());
                });
                const Array<I32> rank1 = prefix_sums(exec, c1);
                const std::size_t n1 = static_cast<std::size_t>(read_at(rank1, n));
                if (n1 > 0) {
                    dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                        amg_agg_graph_count(backend, exec, n, rp, ci, strong_v, tpos_v,
                                            std::as_const(c1).get_view(), flags.get_view());
                    });
                    Rows m = allocate();
                    dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                        amg_agg_graph_fill(backend, exec, n, rp, ci, strong_v, tpos_v,
                                           std::as_const(c1).get_view(), rank1.get_view(),
                                           std::as_const(m.rp).get_view(), m.ci.get_view(),
                                           m.v.get_view());
                    });
                    const Csr<T> M = Csr<T>::adopt(exec, n, n1, std::move(m.rp), std::move(m.ci),
                                                   std::move(m.v));
                    const Csr<T> G = sparse::multiply(sparse::transpose(M), M);
                    const auto g_rp = G.row_ptrs().get_view(), g_ci = G.col_idxs().get_view();
                    Array<I32> g_strong(exec, G.nnz()), g_tpos(exec, G.nnz());
                    Array<U64> g_keys(exec, n1), g_work(exec, n1);
                    // G's values are path counts (>= 1): with theta 0 every off-diagonal entry
                    // is a strong connection, in both directions.
                    dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                        amg_classical_strength(backend, exec, n1, g_rp, g_ci, G.values().get_view(),
                                               T(0), g_strong.get_view(), g_tpos.get_view());
                        amg_pmis_init(backend, exec, n1, g_rp, std::as_const(g_tpos).get_view(),
                                      std::as_const(g_strong).get_view(), g_keys.get_view());
                    });
                    pmis_rounds(n1, g_rp, g_ci, std::as_const(g_strong).get_view(),
                                std::as_const(g_tpos).get_view(), g_keys, g_work);
                    dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                        amg_agg_split(backend, exec, n, keys.get_view(), rank1.get_view(), g_rp,
                                      std::as_const(g_keys).get_view());
                    });
                }
            }
            Array<I32> rank;
            const std::size_t nc = number_set(keys, flags, rank);
            if (nc == 0) break;
            clock.lap(times.aggregation);
            const bool extended = !aggressive && h.s.interpolation == "extended+i";
            const auto keys_v = std::as_const(keys).get_view();
            Rows p;
            if (aggressive) {
                // Multipass interpolation: pass k's rows through the rows of the passes before,
                // P_k = W_k P_{k-1} (P_1 = W_1: the coarse rows and the direct interpolation of
                // pass 1); until a pass takes no row (at most n passes).
                Array<I32> pass(exec, n), next(exec, n);
                std::unique_ptr<Csr<T>> P;
                for (int k = 1; static_cast<std::size_t>(k) <= n + 1; ++k) {
                    const std::size_t taken = dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                        return amg_multipass(backend, exec, n, k, rp, ci, strong_v, keys_v,
                                             std::as_const(pass).get_view(), next.get_view());
                    });
                    std::swap(pass, next);
                    if (k > 1 && taken == 0) break;
                    dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                        amg_multipass_count(backend, exec, n, k, rp, ci, strong_v,
                                            std::as_const(pass).get_view(), flags.get_view());
                    });
                    Rows w = allocate();
                    dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                        amg_multipass_fill(
                            backend, exec, n, k, rp, ci, Al.values().get_view(), strong_v,
                            std::as_const(pass).get_view(), std::as_const(rank).get_view(),
                            std::as_const(w.rp).get_view(), w.ci.get_view(), w.v.get_view());
                    });
                    Csr<T> W = Csr<T>::adopt(exec, n, k == 1 ? nc : n, std::move(w.rp),
                                             std::move(w.ci), std::move(w.v));
                    P = std::make_unique<Csr<T>>(k == 1 ? std::move(W) : sparse::multiply(W, *P));
                }
                if (jacobi) {
                    // P = S P, S = I - D^-1 A on the fine rows and I on the coarse ones.
                    Array<T> s_v(exec, Al.nnz());
                    dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                        amg_fine_jacobi(backend, exec, n, rp, ci, Al.values().get_view(), keys_v,
                                        s_v.get_view());
                    });
                    const Csr<T> S =
                        Csr<T>::borrow(exec, n, n, rp, ci, std::as_const(s_v).get_view());
                    P = std::make_unique<Csr<T>>(sparse::multiply(S, *P));
                }
                p = Rows{Array<I32>(exec, P->row_ptrs()), Array<I32>(exec, P->col_idxs()),
                         Array<T>(exec, P->values())};
            } else {
                dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                    amg_interp_count(backend, exec, n, rp, ci, strong_v, keys_v, flags.get_view());
                });
                p = allocate();
                dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                    amg_interp_fill(backend, exec, n, rp, ci, Al.values().get_view(), strong_v,
                                    keys_v, rank.get_view(), extended ? 0 : 1,
                                    std::as_const(p.rp).get_view(), p.ci.get_view(),
                                    p.v.get_view());
                });
            }
            if (extended) {
                // The pattern of E P_direct (E: each fine row and its strongly influencing fine
                // rows), then the extended+i weights on it.
                dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                    amg_fine_neighbours_count(backend, exec, n, rp, ci, strong_v, keys_v,
                                              flags.get_view());
                });
                Rows e = allocate();
                dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                    amg_fine_neighbours_fill(backend, exec, n, rp, ci, strong_v, keys_v,
                                             std::as_const(e.rp).get_view(), e.ci.get_view(),
                                             e.v.get_view());
                });
                const Csr<T> pattern = sparse::multiply(
                    Csr<T>::adopt(exec, n, n, std::move(e.rp), std::move(e.ci), std::move(e.v)),
                    Csr<T>::adopt(exec, n, nc, std::move(p.rp), std::move(p.ci), std::move(p.v)));
                p = Rows{Array<I32>(exec, pattern.row_ptrs()), Array<I32>(exec, pattern.col_idxs()),
                         Array<T>(exec, pattern.nnz())};
                dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                    amg_ext_fill(backend, exec, n, rp, ci, Al.values().get_view(), strong_v, keys_v,
                                 std::as_const(rank).get_view(), std::as_const(p.rp).get_view(),
                                 std::as_const(p.ci).get_view(), p.v.get_view());
                });
            }
            // The Jacobi step leaves zeros in the coarse rows (S's zeros times P): the truncation
            // drops every zero, whatever its settings.
            if (h.s.trunc_factor > 0 || h.s.interp_max_entries > 0 || jacobi) {
                // Truncation: the kept entries of each row, rescaled to the row's sum.
                const T factor = static_cast<T>(h.s.trunc_factor);
                dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                    amg_trunc_count(backend, exec, n, std::as_const(p.rp).get_view(),
                                    std::as_const(p.v).get_view(), factor, h.s.interp_max_entries,
                                    flags.get_view());
                });
                Rows t = allocate();
                dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                    amg_trunc_fill(backend, exec, n, std::as_const(p.rp).get_view(),
                                   std::as_const(p.ci).get_view(), std::as_const(p.v).get_view(),
                                   factor, h.s.interp_max_entries, std::as_const(t.rp).get_view(),
                                   t.ci.get_view(), t.v.get_view());
                });
                p = std::move(t);
            }
            // Each coarse row's number: the rank among the coarse rows, read with the flags.
            agg = Array<I32>(exec, rank);
            dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                amg_roots(backend, exec, n, std::as_const(keys).get_view(), flags.get_view());
            });
            h.coarse_flags.resize(l + 1);
            h.coarse_flags[l] = std::move(flags);
            h.P.push_back(std::make_unique<Csr<T>>(
                Csr<T>::adopt(exec, n, nc, std::move(p.rp), std::move(p.ci), std::move(p.v))));
        }
        clock.lap(times.prolongator);
        h.R.push_back(std::make_unique<Csr<T>>(sparse::transpose(*h.P.back())));
        h.aggregates.push_back(std::move(agg));
        clock.lap(times.transpose);
        // The Galerkin operator R (A P).
        const Csr<T> AP = sparse::multiply(Al, *h.P.back());
        h.coarse.push_back(std::make_unique<Csr<T>>(sparse::multiply(*h.R.back(), AP)));
        clock.lap(times.galerkin);
    }

    // The last level's solve.
    const std::size_t last = h.levels() - 1;
    const Csr<T>& Ac = h.op(last);
    const std::size_t nc = Ac.rows();
    if (nc <= kAmgMaxDenseRows) {
        const auto rp = Ac.row_ptrs().to_host();
        const auto ci = Ac.col_idxs().to_host();
        const auto v = Ac.values().to_host();
        std::vector<double> dense(nc * nc, 0.0);
        for (std::size_t i = 0; i < nc; ++i)
            for (I32 k = rp[i]; k < rp[i + 1]; ++k)
                dense[i * nc + static_cast<std::size_t>(ci[static_cast<std::size_t>(k)])] +=
                    static_cast<double>(v[static_cast<std::size_t>(k)]);
        const std::vector<double> inv = dense_inverse(std::move(dense), nc);
        h.coarse_inverse =
            std::make_unique<Dense<T>>(exec, nc, nc, std::vector<T>(inv.begin(), inv.end()));
        h.info.coarse_solver = "dense-lu";
    } else {
        if (!h.smoothers[last]) {  // stopped by a stall or isolated rows: none built
            const double rho = h.spectral_radius(Ac);
            Array<T> d(exec, nc);
            Ac.diagonal(d.get_view());
            h.build_smoother(last, rho, d);
        }
        h.info.coarse_solver = "smoother";
    }
    if (h.coarse_inverse) h.smoothers[last] = FusedSmoother<T>();

    // The cycle's vectors.
    h.x.resize(h.levels());
    h.b.resize(h.levels());
    h.r.resize(h.levels());
    h.z.resize(h.levels());
    std::size_t bytes = 0;
    for (std::size_t l = 0; l < h.levels(); ++l) {
        const std::size_t n = h.op(l).rows();
        if (l > 0) {
            h.x[l] = Array<T>(exec, n);
            h.b[l] = Array<T>(exec, n);
            bytes += csr_bytes(n, h.op(l).nnz(), sizeof(T)) + 2 * n * sizeof(T);
        }
        h.r[l] = Array<T>(exec, n);
        h.z[l] = Array<T>(exec, n);
        bytes += (2 + (h.smoothers[l] ? 1 : 0)) * n * sizeof(T);
        if (l + 1 < h.levels())
            bytes += csr_bytes(h.P[l]->rows(), h.P[l]->nnz(), sizeof(T)) +
                     csr_bytes(h.R[l]->rows(), h.R[l]->nnz(), sizeof(T));
    }
    if (h.coarse_inverse) bytes += nc * nc * sizeof(T);
    h.info.bytes = bytes;

    h.info.cycle_bytes = h.cycle_floor();

    double rows = 0, entries = 0;
    for (const auto& level : h.info.levels) {
        rows += static_cast<double>(level.rows);
        entries += static_cast<double>(level.nnz);
    }
    h.info.grid_complexity = rows / static_cast<double>(std::max<std::size_t>(A.rows(), 1));
    h.info.operator_complexity = entries / static_cast<double>(std::max<std::size_t>(A.nnz(), 1));
    clock.lap(times.coarse);
    h.info.setup_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

template <typename T>
Amg<T>::~Amg() = default;

template <typename T>
std::size_t Amg<T>::size() const {
    return h_->fine->rows();
}

template <typename T>
const Executor& Amg<T>::executor() const {
    return h_->fine->executor();
}

template <typename T>
void Amg<T>::Hierarchy::run(const_view<T> r, view<T> z) {
    if constexpr (std::is_same_v<T, double>) {
        if (float_amg) {
            const Executor& exec = fine->executor();
            dispatch<KernelFamily::amg>(
                exec, [&](auto backend) { amg_narrow(backend, exec, r, rf.get_view()); });
            float_amg->h_->run(std::as_const(rf).get_view(), zf.get_view());
            dispatch<KernelFamily::amg>(exec, [&](auto backend) {
                amg_widen(backend, exec, std::as_const(zf).get_view(), z);
            });
            return;
        }
    }
    b0 = r;
    x0 = z;
    cycle(0, true);
}

template <typename T>
void Amg<T>::apply(const_view<T> r, view<T> z) const {
    if (r.size != size()) throw DimensionMismatch("amg: r", size(), r.size);
    if (z.size != size()) throw DimensionMismatch("amg: z", size(), z.size);
    Hierarchy& h = *h_;
    const Executor& exec = executor();
    // On cuda the cycle (a fixed sequence of launches that reads nothing back) is replayed as
    // a graph: one submission instead of a launch per smoothing step, residual, restriction and
    // correction of every level, whose coarse kernels last about as long as their launches.
    if (exec.backend() != Backend::cuda || h.no_replay) {
        h.run(r, z);
        return;
    }
    const auto it = std::find_if(h.replays.begin(), h.replays.end(), [&](const auto& p) {
        return p.r == r.data && p.z == z.data && p.n == r.size;
    });
    if (it == h.replays.end()) {
        if (h.replays.size() == kAmgReplays) h.replays.erase(h.replays.begin());
        h.replays.push_back({r.data, z.data, r.size, nullptr});
        h.run(r, z);
        return;
    }
    if (!it->graph) {
        try {
            it->graph = exec.runtime().capture([&h, r, z] { h.run(r, z); });
        } catch (const Error&) {
            // Something in the cycle cannot be captured: direct runs from now on.
            h.no_replay = true;
            h.replays.clear();
            h.run(r, z);
            return;
        }
    }
    it->graph->launch();
}

template <typename T>
const AmgInfo& Amg<T>::info() const {
    return h_->info;
}

template <typename T>
void Amg<T>::set_cycle(AmgCycle cycle) {
    h_->s.cycle = cycle;
    h_->replays.clear();
    if (h_->float_amg) {
        h_->float_amg->set_cycle(cycle);
        h_->info.cycle_bytes = h_->float_amg->info().cycle_bytes;
    } else {
        h_->info.cycle_bytes = h_->cycle_floor();
    }
}

template <typename T>
AmgCycle Amg<T>::cycle() const {
    return h_->s.cycle;
}

template <typename T>
const Csr<T>& Amg<T>::level_operator(std::size_t level) const {
    if (h_->float_amg)
        throw Unsupported("amg: the levels of a mixed-precision hierarchy are float");
    if (level >= h_->levels())
        throw BadInput("amg: level " + std::to_string(level) + " of " +
                       std::to_string(h_->levels()));
    return h_->op(level);
}

template <typename T>
const Csr<T>& Amg<T>::prolongator(std::size_t level) const {
    if (h_->float_amg)
        throw Unsupported("amg: the levels of a mixed-precision hierarchy are float");
    if (level + 1 >= h_->levels())
        throw BadInput("amg: no prolongator below level " + std::to_string(level));
    return *h_->P[level];
}

template <typename T>
std::vector<std::int32_t> Amg<T>::aggregates(std::size_t level) const {
    if (h_->float_amg) return h_->float_amg->aggregates(level);
    if (level + 1 >= h_->levels())
        throw BadInput("amg: no aggregates on level " + std::to_string(level));
    std::vector<std::int32_t> agg = h_->aggregates[level].to_host();
    if (level < h_->coarse_flags.size()) {  // classical: the coarse rows' numbers, -1 elsewhere
        const std::vector<std::int32_t> flags = h_->coarse_flags[level].to_host();
        agg.resize(flags.size());
        for (std::size_t i = 0; i < flags.size(); ++i)
            if (!flags[i]) agg[i] = -1;
    }
    return agg;
}

template <typename T>
Result amg_solve(const Csr<T>& A, const_view<T> b, view<T> x, const Settings& s) {
    detail::check_inputs("amg", A, b, x, s);  // before the set-up's work
    const Amg<T> M(A, s.amg);
    return amg_solve(M, A, b, x, s);
}

template <typename T>
Result amg_solve(const Amg<T>& M, const Csr<T>& A, const_view<T> b, view<T> x, const Settings& s) {
    const double bnorm = detail::check_inputs("amg", A, b, x, s, &M);
    detail::start(A, x, s);
    const Executor& exec = A.executor();
    Result result;
    detail::Progress progress(s, bnorm, result);
    Array<T> r(exec, A.rows()), z(exec, A.rows());
    for (int it = 0;; ++it) {
        detail::residual<T>(A, b, const_view<T>(x), r.get_view());
        const double rnorm = blas::norm2<T>(exec, std::as_const(r).get_view());
        if (progress.record(it, rnorm)) break;
        if (it == s.max_iters) {
            progress.stop(StopReason::max_iterations);
            break;
        }
        M.apply(std::as_const(r).get_view(), z.get_view());
        blas::axpby<T>(exec, T(1), std::as_const(z).get_view(), T(1), x);
    }
    detail::finish<T>(A, b, const_view<T>(x), r.get_view(), result);
    return result;
}

template class Amg<double>;
template class Amg<float>;
template Result amg_solve(const Csr<double>&, const_view<double>, view<double>, const Settings&);
template Result amg_solve(const Csr<float>&, const_view<float>, view<float>, const Settings&);
template Result amg_solve(const Amg<double>&, const Csr<double>&, const_view<double>, view<double>,
                          const Settings&);
template Result amg_solve(const Amg<float>&, const Csr<float>&, const_view<float>, view<float>,
                          const Settings&);

}  // namespace portla::solver
