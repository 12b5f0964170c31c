// The device-loop CG (settings.device_loop on cuda, stencil, CSR and ELL operators) against the
// same solver with device_loop = false on the same executor (the steps call the operator's
// apply() and the state is read back every iteration: the "host loop" below). Solutions are not
// compared value by value: both must converge, the true residual ||b - A x|| / ||b|| is
// recomputed on the host from the coordinate data, and iteration counts must agree within
// rounding (2 in double, 10% in float, as in test_solvers.cpp).
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>

#include "backends/backend_fixture.hpp"

namespace portla::test {
namespace {

using solver::Preconditioner;
using solver::Settings;
using solver::StopReason;
using solver_defaults::default_settings;
using solver_defaults::slack;

template <typename T>
using MakeOp = std::function<std::unique_ptr<LinearOperator<T>>(const Executor&)>;

template <typename T>
MakeOp<T> stencil_op(int dim, int points) {
    return [=](const Executor& e) { return std::make_unique<Stencil<T>>(e, dim, points); };
}
template <typename T>
MakeOp<T> csr_op(const MatrixData& d) {
    return [d](const Executor& e) { return std::make_unique<Csr<T>>(Csr<T>::from_data(e, d)); };
}

template <typename T>
MakeOp<T> ell_op(const MatrixData& d) {
    return [d](const Executor& e) { return std::make_unique<Ell<T>>(Ell<T>::from_data(e, d)); };
}

// The kernel the step took last on this thread (kernel_choices), "" if it never ran.
std::string choice_of(const std::string& step) {
    std::string kernel;
    for (const auto& c : kernel_choices())
        if (c.step == step) kernel = c.kernel;
    return kernel;
}

template <typename T>
struct Outcome {
    solver::Result res;
    std::vector<T> x;
    std::vector<std::pair<int, double>> monitored;
};

template <typename T>
class CgDevice : public BackendTest {
protected:
    // One solve on the executor under test; x starts from `guess` when given.
    Outcome<T> solve(const LinearOperator<T>& A, const std::vector<T>& bh, Settings s,
                     bool device_loop, const std::vector<T>* guess = nullptr) {
        Outcome<T> run;
        s.device_loop = device_loop;
        s.record_history = true;
        s.monitor = [&run](int it, double r) { run.monitored.emplace_back(it, r); };
        Array<T> b(this->exec, bh);
        Array<T> x = poisoned<T>(this->exec, A.cols());
        if (guess) {
            x.copy_from_host(*guess);
            s.use_initial_guess = true;
        }
        run.res = solver::cg<T>(A, b, x, s);
        run.x = x.to_host();
        return run;
    }

    // History and monitor: iterations + 1 entries, iterations 0, 1, ... in order, equal values.
    static void check_record(const Outcome<T>& run) {
        const auto& res = run.res;
        ASSERT_EQ(res.history.size(), static_cast<std::size_t>(res.iterations) + 1);
        ASSERT_EQ(run.monitored.size(), res.history.size());
        for (std::size_t i = 0; i < run.monitored.size(); ++i) {
            EXPECT_EQ(run.monitored[i].first, static_cast<int>(i));
            EXPECT_EQ(run.monitored[i].second, res.history[i]);
        }
    }

    // Device loop and host loop both converge, with the true residual within 2 rtol, and
    // within `slack` iterations of each other.
    void compare(const MatrixData& d, const MakeOp<T>& make_op, const Settings& s,
                 const std::vector<T>* guess = nullptr, unsigned seed = 4242) {
        const auto bh = random_vector<T>(d.rows, seed, 0.5, 1.5);
        const auto A = make_op(this->exec);
        const Outcome<T> dev = solve(*A, bh, s, true, guess);
        const Outcome<T> host = solve(*A, bh, s, false, guess);
        ASSERT_TRUE(host.res.converged) << "host loop: " << solver::to_string(host.res.reason);
        ASSERT_TRUE(dev.res.converged) << solver::to_string(dev.res.reason) << " after "
                                       << dev.res.iterations << " iterations";
        EXPECT_EQ(dev.res.reason, StopReason::converged);
        const double rel = true_relative_residual(d, dev.x, bh);
        EXPECT_LE(rel, 2 * s.rtol);
        EXPECT_NEAR(dev.res.relative_residual(), rel, 0.05 * rel + 100 * eps<T>());
        EXPECT_NEAR(dev.res.iterations, host.res.iterations, slack<T>(host.res.iterations))
            << "host loop took " << host.res.iterations;
        // The last recorded residual meets the test (the loop stopped at a converged iteration,
        // not at the end of a batch: the count is within `slack` of the host loop's).
        EXPECT_LE(dev.res.history.back(), s.rtol * dev.res.rhs_norm);
        check_record(dev);
    }
};
using ValueTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(CgDevice, ValueTypes);

TYPED_TEST(CgDevice, StencilMatchesHostLoop) {
    using T = TypeParam;
    // cond(1-D Poisson, n points) ~ 0.4 n^2: 100 points in double, 40 (cond 660) in float.
    const int points_1d = std::is_same<T, double>::value ? 100 : 40;
    for (auto [dim, pts] : std::vector<std::pair<int, int>>{{1, points_1d}, {2, 40}, {3, 14}})
        for (auto p : {Preconditioner::none, Preconditioner::jacobi}) {
            SCOPED_TRACE("dim " + std::to_string(dim) + " precond " + solver::to_string(p));
            const MatrixData d = Stencil<T>(this->ref, dim, pts).assemble();
            this->compare(d, stencil_op<T>(dim, pts), default_settings<T>(p));
        }
}

// The stored formats with fused steps: CSR (a group of lanes per row) and ELL (a thread per row).
TYPED_TEST(CgDevice, CsrAndEllMatchHostLoop) {
    using T = TypeParam;
    const MatrixData f =
        io::read_matrix_market(std::string(PORTLA_TEST_DATA_DIR) + "/spd_fem_2d.mtx");
    for (const bool ell : {false, true}) {
        const auto op = [ell](const MatrixData& d) { return ell ? ell_op<T>(d) : csr_op<T>(d); };
        for (auto [dim, pts] : std::vector<std::pair<int, int>>{{1, 37}, {2, 40}, {3, 14}})
            for (auto p : {Preconditioner::none, Preconditioner::jacobi}) {
                SCOPED_TRACE(std::string(ell ? "ell" : "csr") + " dim " + std::to_string(dim) +
                             " precond " + solver::to_string(p));
                const MatrixData d = Stencil<T>(this->ref, dim, pts).assemble();
                this->compare(d, op(d), default_settings<T>(p));
            }
        for (auto p : {Preconditioner::none, Preconditioner::jacobi}) {
            SCOPED_TRACE(std::string(ell ? "ell" : "csr") + " spd_fem_2d.mtx precond " +
                         solver::to_string(p));
            auto s = default_settings<T>(p);
            if (std::is_same<T, float>::value) s.rtol = 1e-3;  // float attains ~1e-4 here
            this->compare(f, op(f), s);
        }
    }
}

// The CSR and ELL direction steps either form p_new on the fly (z and p_old in L2: every
// matrix of these tests) or in a pass of its own first (larger ones); KernelOptions::cg_direction
// forces each, and both must match the host loop.
TYPED_TEST(CgDevice, DirectionFormedOnTheFlyOrInAPass) {
    using T = TypeParam;
    const MatrixData d = Stencil<T>(this->ref, 3, 14).assemble();
    for (const auto how : {KernelOptions::CgDirection::pass, KernelOptions::CgDirection::fly}) {
        SCOPED_TRACE(how == KernelOptions::CgDirection::pass ? "pass" : "fly");
        KernelOptions o;
        o.cg_direction = how;
        this->exec.set_kernel_options(o);
        for (auto p : {Preconditioner::none, Preconditioner::jacobi}) {
            this->compare(d, csr_op<T>(d), default_settings<T>(p));
            this->compare(d, ell_op<T>(d), default_settings<T>(p));
        }
    }
}

// The 3-D stencil's direction step on cuda: tiles of whole x-lines marching along z (the
// default, ring, from 128^3; lines: up to 2048 points of a plane per tile, ring: 4096) or one
// thread per point; KernelOptions::cg_stencil forces each (other backends ignore it), here set
// through kernel_options_from_environment from the PORTLA_CG_STENCIL values. 17^3: one tile of all
// 17 rows, no halo row inside the grid. lines at 70^3: tiles of 29, 29 and 12 rows (both halo rows
// inside the grid in the middle one, a short last tile); ring at 100^3: 40, 40 and 20 rows; the
// planes split into as many ranges as fill the GPU. :1 tiles of one plane (more tiles than
// blocks: each block walks several); :7 ranges of 7 planes with a short last one (70 = 10 x 7,
// 100 = 14 x 7 + 2, 17 = 2 x 7 + 3); lines1024 1024 threads per tile.
TYPED_TEST(CgDevice, StencilByLinesOrByPoints) {
    using T = TypeParam;
    for (const char* how :
         {"points", "lines", "lines:1", "lines:7", "lines1024", "ring", "ring:1", "ring:7"}) {
        SCOPED_TRACE(std::string("PORTLA_CG_STENCIL=") + how);
        KernelOptions o;
        {
            const ScopedEnv env("PORTLA_CG_STENCIL", how);
            o = kernel_options_from_environment();
        }
        o.cg_block_loop_rows = 0;  // 17^3 = 4913 rows: above 4096 anyway
        this->exec.set_kernel_options(o);
        const int large = std::string(how).rfind("ring", 0) == 0 ? 100 : 70;
        for (int pts : {17, large}) {
            const MatrixData d = Stencil<T>(this->ref, 3, pts).assemble();
            for (auto p : {Preconditioner::none, Preconditioner::jacobi}) {
                auto s = default_settings<T>(p);
                // cond ~ 0.4 N^2: float does not reach 1e-4 at 70^3 in either loop
                if (std::is_same<T, float>::value && pts > 17) s.rtol = 1e-3;
                clear_kernel_choices();
                this->compare(d, stencil_op<T>(3, pts), s);
                if (this->exec.backend() == Backend::cuda) {  // the forced kernel ran
                    const std::string want =
                        "stencil-" + std::string(how).substr(0, std::string(how).find(':'));
                    EXPECT_EQ(choice_of("cg.direction"), want);
                }
            }
        }
    }
}

// The ring kernel's forms with 2 and 4 halo points per thread (N = 513 ... 1024 and 1025 ...
// 2048) forced on 100^3, where the extra slots are idle: the same tiles, 40, 40 and 20 rows.
TYPED_TEST(CgDevice, StencilRingHaloForms) {
    using T = TypeParam;
    const int pts = 100;
    const MatrixData d = Stencil<T>(this->ref, 3, pts).assemble();
    for (int halo : {2, 4}) {
        SCOPED_TRACE("cg_stencil_ring_halo " + std::to_string(halo));
        KernelOptions o;
        o.cg_stencil = KernelOptions::CgStencil::ring;
        o.cg_stencil_ring_halo = halo;
        o.cg_block_loop_rows = 0;
        this->exec.set_kernel_options(o);
        for (auto p : {Preconditioner::none, Preconditioner::jacobi}) {
            auto s = default_settings<T>(p);
            if (std::is_same<T, float>::value) s.rtol = 1e-3;  // as at 100^3 above
            clear_kernel_choices();
            this->compare(d, stencil_op<T>(3, pts), s);
            if (this->exec.backend() == Backend::cuda) {
                EXPECT_EQ(choice_of("cg.direction"), "stencil-ring");
            }
        }
    }
}

// Lines of more than 512 points (cuda only): 520^3 takes the ring by default, with two halo
// points per thread for the 1040 halo points of a plane and tiles of 7 rows (74 full tiles and
// a last one of 2 rows). Too large to assemble for the host's true residual: three iterations
// are compared with the same solve by one thread per point, whose q sums the same neighbours in
// the same order; only p.q is summed in another order (per-thread sums of about 1000 terms,
// then a tree), so alpha and x differ by a few hundred roundings at most: 1e-9 in double, 1e-3
// in float relative to max |x|. A missed or misplaced neighbour changes q_i by O(|p|).
TYPED_TEST(CgDevice, StencilRingPastFiveHundredTwelve) {
    using T = TypeParam;
    if (this->exec.backend() != Backend::cuda) GTEST_SKIP() << "the ring kernel is cuda's";
    const int pts = 520;
    const std::size_t n = std::size_t{pts} * pts * pts;
    const std::vector<T> bh(n, T(1));
    auto run = [&](KernelOptions::CgStencil how, const char* want) {
        KernelOptions o;
        o.cg_stencil = how;
        this->exec.set_kernel_options(o);
        Stencil<T> op(this->exec, 3, pts);
        Settings s = default_settings<T>();
        s.max_iters = 3;
        s.rtol = 1e-12;  // not reached in 3 iterations; float refuses thresholds below 8.9e-16
        clear_kernel_choices();
        const Outcome<T> out = this->solve(op, bh, s, true);
        EXPECT_EQ(out.res.iterations, 3);
        EXPECT_EQ(choice_of("cg.direction"), want);
        return out.x;
    };
    const std::vector<T> ring = run(KernelOptions::CgStencil::automatic, "stencil-ring");
    const std::vector<T> points = run(KernelOptions::CgStencil::points, "stencil-points");
    ASSERT_EQ(ring.size(), n);
    double scale = 0, worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        scale = std::max(scale, std::abs(double(points[i])));
        worst = std::max(worst, std::abs(double(ring[i]) - double(points[i])));
    }
    const double bound = std::is_same<T, double>::value ? 1e-9 : 1e-3;
    EXPECT_GT(scale, 0.0);
    EXPECT_LE(worst, bound * scale);
}

// Small systems run whole iterations in one thread block on cuda (up to 4096 rows by
// default); KernelOptions::cg_block_loop_rows = 0 takes the per-step launches instead, and a
// larger limit sends a 13824-row system (13.5 rows per thread) through the block. Every format
// and Jacobi.
TYPED_TEST(CgDevice, WholeIterationsInOneBlockOrStepByStep) {
    using T = TypeParam;
    for (const std::size_t rows : {std::size_t{0}, std::size_t{20000}}) {
        SCOPED_TRACE("cg_block_loop_rows " + std::to_string(rows));
        KernelOptions o;
        o.cg_block_loop_rows = rows;
        this->exec.set_kernel_options(o);
        for (int pts : {9, 24}) {
            const MatrixData d = Stencil<T>(this->ref, 3, pts).assemble();
            for (auto p : {Preconditioner::none, Preconditioner::jacobi}) {
                this->compare(d, stencil_op<T>(3, pts), default_settings<T>(p));
                this->compare(d, csr_op<T>(d), default_settings<T>(p));
                this->compare(d, ell_op<T>(d), default_settings<T>(p));
            }
        }
    }
}

TYPED_TEST(CgDevice, BlockSizesAndGroupWidths) {
    using T = TypeParam;
    // Work-group sizes of one warp and of 1024 threads; a CSR matrix with ~20 entries per row
    // (up to 32 lanes per row) next to the stencils' 2 (1-D) and 4.
    // A banded SPD matrix (diagonally dominant) with 2 half_width + 1 entries per row.
    auto banded = [](std::int64_t n, std::int64_t half_width) {
        MatrixData d;
        d.rows = d.cols = n;
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t k = -half_width; k <= half_width; ++k)
                if (i + k >= 0 && i + k < n)
                    d.add(i, i + k, k == 0 ? 30.0 : -1.0 / (1 + std::abs(k)));
        return d;
    };
    for (int wg : {32, 1024}) {
        SCOPED_TRACE("work-group size " + std::to_string(wg));
        this->exec.set_launch(LaunchConfig{wg, 4});
        const MatrixData d = Stencil<T>(this->ref, 3, 11).assemble();
        this->compare(d, stencil_op<T>(3, 11), default_settings<T>());
        for (std::int64_t half_width : {5, 10, 20}) {  // 8, 16 and 16 lanes (csr_lanes: at most 16)
            const MatrixData w = banded(301, half_width);
            this->compare(w, csr_op<T>(w), default_settings<T>(Preconditioner::jacobi));
            this->compare(w, ell_op<T>(w), default_settings<T>(Preconditioner::jacobi));
        }
    }
}

// A power-law graph Laplacian + I (Chung-Lu: expected degrees ~ (i + 10)^-0.8, 8 on average)
// with two hubs of 3000 neighbours: on cuda its rows of more than 256 entries are split into
// segments of a warp each and the others taken by row blocks (csr-split), the replacement a
// product then the residual. Device loop against host loop, with and without Jacobi and residual
// replacement; PORTLA_CG_DIRECTION=fly does not apply to the split rows (the pass is kept).
MatrixData power_law(std::int64_t n, unsigned seed, std::int64_t edges_per_row = 4,
                     int hub_edges = 3000) {
    std::mt19937_64 gen(seed);
    std::vector<double> w(n);
    for (std::int64_t i = 0; i < n; ++i) w[i] = std::pow(double(i) + 10.0, -0.8);
    std::discrete_distribution<std::int64_t> pick(w.begin(), w.end());
    std::uniform_int_distribution<std::int64_t> any(0, n - 1);
    std::vector<double> degree(n, 0.0);
    MatrixData d;
    d.rows = d.cols = n;
    auto edge = [&](std::int64_t u, std::int64_t v) {
        if (u == v) return;
        d.add(u, v, -1.0);
        d.add(v, u, -1.0);
        degree[u] += 1;
        degree[v] += 1;
    };
    for (std::int64_t e = 0; e < edges_per_row * n; ++e) edge(pick(gen), pick(gen));
    for (std::int64_t hub : {n / 3, n - 2})
        for (int k = 0; k < hub_edges; ++k) edge(hub, any(gen));
    for (std::int64_t i = 0; i < n; ++i) d.add(i, i, degree[i] + 1.0);  // duplicates are summed
    return d;
}

TYPED_TEST(CgDevice, PowerLawRowsMatchHostLoop) {
    using T = TypeParam;
    const MatrixData d = power_law(20000, 7);
    const bool cuda = this->exec.backend() == Backend::cuda;
    {
        const auto A = Csr<T>::from_data(this->exec, d);
        if (cuda) {
            EXPECT_GT(A.long_rows().segments, 12u);  // the hubs: 6 or more segments each
        }
    }
    // Residual replacement with Jacobi only: without a preconditioner (cond ~ 6000) and a
    // replacement every 7 iterations the device loop took 303 iterations where the host loop took
    // 300 in double (H200, 2026-11-26, 1b910d0), beyond the slack of 2: p.q summed by segment
    // rounds differently from the host loop's p.q by row (q is the same bits in both loops).
    using Case = std::pair<int, Preconditioner>;
    const std::vector<Case> cases{
        {0, Preconditioner::none}, {0, Preconditioner::jacobi}, {7, Preconditioner::jacobi}};
    for (const char* how : {"", "fly"}) {
        KernelOptions o;
        if (*how) o.cg_direction = KernelOptions::CgDirection::fly;
        this->exec.set_kernel_options(o);
        for (const auto& [every, p] : cases) {
            SCOPED_TRACE(std::string("direction ") + how + " replacement " + std::to_string(every) +
                         " precond " + solver::to_string(p));
            auto s = default_settings<T>(p);
            s.residual_replacement = every;
            clear_kernel_choices();
            this->compare(d, csr_op<T>(d), s);
            if (cuda) {
                EXPECT_EQ(choice_of("cg.direction"), "csr-split");
            }
        }
    }
    this->exec.set_kernel_options(KernelOptions{});
    // The 64-bit forms keep the groups by the average row, as the 32-bit form does with
    // KernelOptions::csr_split = false.
    {
        KernelOptions o;
        o.csr_split = false;
        this->exec.set_kernel_options(o);
        clear_kernel_choices();
        this->compare(d, csr_op<T>(d), default_settings<T>(Preconditioner::jacobi));
        this->exec.set_kernel_options(KernelOptions{});
    }
    if (cuda) {
        EXPECT_EQ(choice_of("cg.direction"), "csr-pass");
    }
    const auto wide = [d](const Executor& e) {
        return std::make_unique<Csr<T>>(Csr<T>::from_data(e, d, CsrIndex::offsets64));
    };
    clear_kernel_choices();
    this->compare(d, wide, default_settings<T>(Preconditioner::jacobi));
    if (cuda) {
        EXPECT_EQ(choice_of("cg.direction"), "csr-pass");
    }
}

// A plan without segments: one edge a row (3 entries a row on average: 2 lanes, long from 65
// entries) and hubs of 100 more neighbours: 39 rows of 65 to 232 entries, long for the groups but
// short for the row blocks (at most 256 entries), so every row goes by row blocks.
TYPED_TEST(CgDevice, RowBlocksWithoutSegments) {
    using T = TypeParam;
    const MatrixData d = power_law(20000, 11, 1, 100);
    if (this->exec.backend() == Backend::cuda) {
        const auto A = Csr<T>::from_data(this->exec, d);
        EXPECT_GT(A.long_rows().block_count, 0u);
        EXPECT_EQ(A.long_rows().segments, 0u);
    }
    clear_kernel_choices();
    this->compare(d, csr_op<T>(d), default_settings<T>(Preconditioner::jacobi));
    if (this->exec.backend() == Backend::cuda) {
        EXPECT_EQ(choice_of("cg.direction"), "csr-split");
    }
}

TYPED_TEST(CgDevice, IterationLimitIsExact) {
    using T = TypeParam;
    const MatrixData d = Stencil<T>(this->ref, 2, 30).assemble();
    const auto bh = random_vector<T>(d.rows, 5, 0.5, 1.5);
    for (const auto& make : {stencil_op<T>(2, 30), csr_op<T>(d), ell_op<T>(d)}) {
        const auto A = make(this->exec);
        for (int limit : {1, 7, 16, 17}) {
            SCOPED_TRACE("max_iters " + std::to_string(limit) + " " + A->format());
            auto s = default_settings<T>();
            s.max_iters = limit;
            const auto run = this->solve(*A, bh, s, true);
            EXPECT_FALSE(run.res.converged);
            EXPECT_EQ(run.res.reason, StopReason::max_iterations);
            EXPECT_EQ(run.res.iterations, limit);
            this->check_record(run);
            EXPECT_GT(run.res.residual_norm, 0);
            // The same iterates as the host loop, up to rounding.
            const auto host = this->solve(*A, bh, s, false);
            EXPECT_EQ(host.res.iterations, limit);
            EXPECT_NEAR(run.res.residual_norm, host.res.residual_norm,
                        1e3 * eps<T>() * host.res.rhs_norm);
        }
        // No iterations at all.
        auto s = default_settings<T>();
        s.max_iters = 0;
        const auto run = this->solve(*A, bh, s, true);
        EXPECT_EQ(run.res.iterations, 0);
        EXPECT_EQ(run.res.reason, StopReason::max_iterations);
    }
}

TYPED_TEST(CgDevice, IndefiniteMatrixIsReported) {
    using T = TypeParam;
    MatrixData d = Stencil<T>(this->ref, 1, 50).assemble();
    for (auto& v : d.values)
        if (v == 2.0) v = -0.5;  // diagonal no longer dominant: indefinite
    MatrixData neg = Stencil<T>(this->ref, 2, 20).assemble();
    for (auto& v : neg.values) v = -v;  // negative definite: p.q < 0 at once, Jacobi or not
    const auto bh = random_vector<T>(50, 9, 0.5, 1.5);
    const auto A = Csr<T>::from_data(this->exec, d);
    const auto dev = this->solve(A, bh, default_settings<T>(), true);
    const auto host = this->solve(A, bh, default_settings<T>(), false);
    EXPECT_FALSE(dev.res.converged);
    EXPECT_EQ(dev.res.reason, StopReason::indefinite) << solver::to_string(dev.res.reason);
    EXPECT_EQ(dev.res.iterations, host.res.iterations);
    this->check_record(dev);
    const auto N = Csr<T>::from_data(this->exec, neg);
    for (auto p : {Preconditioner::none, Preconditioner::jacobi}) {
        const auto run =
            this->solve(N, random_vector<T>(400, 10, 0.5, 1.5), default_settings<T>(p), true);
        EXPECT_EQ(run.res.reason, StopReason::indefinite) << solver::to_string(run.res.reason);
        EXPECT_EQ(run.res.iterations, 0);
    }
}

TYPED_TEST(CgDevice, ZeroRightHandSideAndInitialGuess) {
    using T = TypeParam;
    const Stencil<T> S(this->exec, 2, 30);
    const MatrixData d = Stencil<T>(this->ref, 2, 30).assemble();
    // b = 0: x = 0 at once.
    const auto zero = this->solve(S, std::vector<T>(S.rows(), T(0)), default_settings<T>(), true);
    EXPECT_TRUE(zero.res.converged);
    EXPECT_EQ(zero.res.iterations, 0);
    for (T v : zero.x) ASSERT_EQ(v, T(0));
    // A random guess: same iterations as the host loop from the same guess.
    const auto guess = random_vector<T>(S.rows(), 77, -1.0, 1.0);
    this->compare(d, stencil_op<T>(2, 30), default_settings<T>(), &guess);
    this->compare(d, csr_op<T>(d), default_settings<T>(Preconditioner::jacobi), &guess);
    // The converged solution as the guess: zero iterations.
    const auto bh = random_vector<T>(S.rows(), 4242, 0.5, 1.5);
    const auto first = this->solve(S, bh, default_settings<T>(), true);
    ASSERT_TRUE(first.res.converged);
    const auto again = this->solve(S, bh, default_settings<T>(), true, &first.x);
    EXPECT_TRUE(again.res.converged);
    EXPECT_EQ(again.res.iterations, 0);
}

TYPED_TEST(CgDevice, ResidualReplacement) {
    using T = TypeParam;
    const MatrixData d = Stencil<T>(this->ref, 2, 40).assemble();
    for (int every : {0, 1, 7, 16, 50}) {
        SCOPED_TRACE("replacement every " + std::to_string(every));
        auto s = default_settings<T>();
        s.residual_replacement = every;
        this->compare(d, stencil_op<T>(2, 40), s);
        s.precond = Preconditioner::jacobi;
        this->compare(d, csr_op<T>(d), s);
    }
}

TYPED_TEST(CgDevice, UnattainableToleranceRunsToTheLimit) {
    // Below what the precision attains, CG goes on from the true residual after each false
    // convergence and ends at max_iters: never early, never claiming convergence.
    using T = TypeParam;
    const Stencil<T> S(this->exec, 2, 40);
    const auto bh = random_vector<T>(S.rows(), 8, 0.5, 1.5);
    auto s = default_settings<T>();
    s.rtol = std::is_same<T, double>::value ? 1e-17 : 1e-9;
    s.max_iters = 600;
    const auto run = this->solve(S, bh, s, true);
    EXPECT_FALSE(run.res.converged);
    EXPECT_EQ(run.res.reason, StopReason::max_iterations) << solver::to_string(run.res.reason);
    EXPECT_EQ(run.res.iterations, 600);
    EXPECT_LT(run.res.relative_residual(), (std::is_same<T, double>::value ? 1e-12 : 1e-4));
    EXPECT_EQ(run.res.history.size(), run.monitored.size());
}

TYPED_TEST(CgDevice, IteratesInBatchesOnTheDevice) {
    // Proof that the device loop ran: the host sees iteration 1's residual only after the whole
    // batch ran, so x is the same at the monitor calls of iterations 1 and 2; the host loop
    // calls the monitor after every iteration, with x one step further each time.
    using T = TypeParam;
    const Stencil<T> S(this->exec, 2, 40);
    Array<T> b(this->exec, random_vector<T>(S.rows(), 3, 0.5, 1.5));
    for (bool device_loop : {true, false}) {
        Array<T> x(this->exec, S.rows());
        std::vector<std::vector<T>> seen;
        auto s = default_settings<T>();
        s.device_loop = device_loop;
        s.monitor = [&](int it, double) {
            if (it == 1 || it == 2) seen.push_back(x.to_host());
        };
        EXPECT_TRUE(solver::cg<T>(S, b, x, s).converged);
        ASSERT_EQ(seen.size(), 2u);
        EXPECT_EQ(seen[0] == seen[1], device_loop);
    }
}

// Not a test (disabled; run with --gtest_also_run_disabled_tests): time per iteration of the
// device loop and the host loop on the 3-D stencil in double, from the difference of a 300- and
// a 100-iteration solve (setup, graph capture and the final residual cancel). Compare with the
// floor 80 n bytes / 3.03 TB/s per iteration (H100, PERFORMANCE.md).
TYPED_TEST(CgDevice, DISABLED_TimePerIteration) {
    using T = TypeParam;
    if (!std::is_same<T, double>::value) GTEST_SKIP() << "timed in double only";
    for (int points : {128, 464}) {
        const Stencil<T> S(this->exec, 3, points);
        const std::size_t n = S.rows();
        Array<T> b(this->exec, random_vector<T>(n, 1, 0.5, 1.5)), x(this->exec, n);
        for (bool device_loop : {true, false}) {
            auto seconds = [&](int iters) {
                auto s = default_settings<T>();
                s.rtol = 0;  // never met: exactly `iters` iterations
                s.max_iters = iters;
                s.device_loop = device_loop;
                this->exec.synchronize();
                const auto t0 = std::chrono::steady_clock::now();
                const auto res = solver::cg<T>(S, b, x, s);
                this->exec.synchronize();
                EXPECT_EQ(res.iterations, iters);
                return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            };
            seconds(20);  // warm-up
            double best = 1e30;
            for (int rep = 0; rep < 3; ++rep)
                best = std::min(best, (seconds(300) - seconds(100)) / 200);
            const double floor = 80.0 * n / 3.03e12;
            std::cout << "poisson3d:" << points << " n " << n
                      << (device_loop ? " device" : " host  ") << " loop: " << best * 1e6
                      << " us/iteration, floor " << floor * 1e6 << " us (80 n B at 3.03 TB/s), "
                      << 80.0 * n / best / 1e9 << " GB/s effective at 80 n B\n";
        }
    }
}

// The variables of the device loop's options refuse a value they do not know with a one-line
// BadInput: PORTLA_CG_BLOCK_LOOP (off or a row count), PORTLA_CG_DIRECTION (pass or fly) and
// PORTLA_CG_STENCIL (the 3-D stencil's); set empty, they leave the defaults, which solve.
TYPED_TEST(CgDevice, SwitchesRefuseAValueTheyDoNotKnow) {
    using T = TypeParam;
    const MatrixData d = Stencil<T>(this->ref, 3, 9).assemble();
    const auto read = [] { (void)kernel_options_from_environment(); };
    {
        const ScopedEnv typo("PORTLA_CG_BLOCK_LOOP", "of");
        const char* message = "PORTLA_CG_BLOCK_LOOP=of: expected off or an integer >= 0";
        for (int use = 0; use < 2; ++use) expect_bad_input(read, message);
    }
    {
        const ScopedEnv typo("PORTLA_CG_BLOCK_LOOP", "4096x");
        expect_bad_input(read, "PORTLA_CG_BLOCK_LOOP=4096x: expected off or an integer >= 0");
    }
    {
        const ScopedEnv off("PORTLA_CG_BLOCK_LOOP", "off");
        EXPECT_EQ(kernel_options_from_environment().cg_block_loop_rows, 0u);
    }
    {
        const ScopedEnv typo("PORTLA_CG_DIRECTION", "flyy");
        for (int use = 0; use < 2; ++use)
            expect_bad_input(read, "PORTLA_CG_DIRECTION=flyy: expected pass or fly");
    }
    for (const char* bad :
         {"rings", "ring:+4", "ring: 4", "ring:4x", "ring:0", "ring:513", "ring:", "points:2"}) {
        const ScopedEnv typo("PORTLA_CG_STENCIL", bad);
        expect_bad_input(read, std::string("PORTLA_CG_STENCIL=") + bad +
                                   ": expected points, lines, lines1024 or ring, the last three "
                                   "with an optional :PLANES (1 ... 512)");
    }
    {  // the typed option refuses what the variable refuses
        KernelOptions o;
        o.cg_stencil = KernelOptions::CgStencil::ring;
        o.cg_stencil_planes = 513;
        expect_bad_input([&] { this->exec.set_kernel_options(o); },
                         "kernel options: cg_stencil_planes must be from 0 to 512");
        o.cg_stencil = KernelOptions::CgStencil::points;
        o.cg_stencil_planes = 2;
        expect_bad_input(
            [&] { this->exec.set_kernel_options(o); },
            "kernel options: cg_stencil_planes must be 0 unless cg_stencil is lines, lines1024 "
            "or ring");
        o.cg_stencil_planes = 0;
        for (int halo : {-1, 3, 8}) {
            o.cg_stencil_ring_halo = halo;
            expect_bad_input([&] { this->exec.set_kernel_options(o); },
                             "kernel options: cg_stencil_ring_halo must be 0, 1, 2 or 4");
        }
    }
    for (const char* empty : {"PORTLA_CG_DIRECTION", "PORTLA_CG_STENCIL"}) {  // set empty: default
        const ScopedEnv unset(empty, "");
        this->exec.set_kernel_options(kernel_options_from_environment());
        this->compare(d, csr_op<T>(d), default_settings<T>(Preconditioner::jacobi));
        this->compare(d, stencil_op<T>(3, 9), default_settings<T>(Preconditioner::jacobi));
    }
}

}  // namespace
}  // namespace portla::test
