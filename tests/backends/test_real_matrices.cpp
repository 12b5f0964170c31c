// Every solver and preconditioner that applies, on the public SuiteSparse matrices of
// tests/data/suitesparse (sources and licence in its README.md), against SciPy's results on the
// same files (scipy.json, written by scripts/scipy-baseline.py): b = A (1, ..., 1), x0 = 0,
// rtol 1e-8. Each solve's answer is checked independently (double residual on the host):
//  - a solve that reports converged meets the tolerance;
//  - a solve that stops unconverged says why (max_iterations, breakdown, non_finite,
//    indefinite, or unstable_preconditioner where the factor's own diagnosis, rebuilt here,
//    finds it unstable: ILU(0) of bcsstk09), never a heuristic early stop;
//  - where SciPy's same solver (none or Jacobi, gmres with restart 30) reaches 1e-8 within 20000
//    iterations, portla's does too: CG and GMRES in at most 1.1x SciPy's iterations (GMRES
//    with Jacobi on the same side as SciPy's, the left; the right-preconditioned run is checked
//    for honesty); BiCGSTAB within the spread that rounding alone gives its count (below). This
//    comparison runs on the backends users solve with (omp, cuda, opencl): the sequential
//    reference sums in plain order, and its counts drift further on the most ill-conditioned
//    cases (662_bus GMRES/Jacobi stalls there), so on the reference only the honesty checks run
//    (on opencl too for that one case, below);
//  - a preconditioner that cannot be built for a matrix (zero diagonal, zero pivot, singular
//    block, not positive definite) is refused with BadInput before the solve.
#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <map>

#include <nlohmann/json.hpp>

#include "backends/backend_fixture.hpp"

namespace portla::test {
namespace {

using solver::Preconditioner;
using solver::Solver;
using solver::StopReason;

const std::string kDir = std::string(PORTLA_TEST_DATA_DIR) + "/suitesparse";

const nlohmann::json& baseline() {
    static const nlohmann::json j = [] {
        std::ifstream f(kDir + "/scipy.json");
        return nlohmann::json::parse(f);
    }();
    return j;
}

std::vector<std::string> matrix_names() {
    std::vector<std::string> names;
    for (const auto& [name, entry] : baseline()["matrices"].items()) names.push_back(name);
    return names;
}

class RealMatrices : public BackendTest, public ::testing::WithParamInterface<std::string> {
protected:
    // Every solver (GMRES: krylov) and preconditioner (block Jacobi: precond; ILU(0): sptrsv).
    RealMatrices()
        : BackendTest({KernelFamily::krylov, KernelFamily::precond, KernelFamily::sptrsv}) {}
};

struct Outcome {
    bool built = false;
    solver::Result result;
    double true_relres = 0;
    bool preconditioner_unstable = false;  // the set-up's diagnosis, independently rebuilt
};

Outcome run(const Executor& exec, const MatrixData& d, const std::vector<double>& bh, Solver method,
            Preconditioner p, int max_iters, bool left = false) {
    Outcome out;
    const auto A = Csr<double>::from_data(exec, d);
    Array<double> b(exec, bh), x(exec, d.cols);
    solver::Settings s;
    s.rtol = 1e-8;
    s.max_iters = max_iters;
    s.precond = p;
    s.restart = 30;
    s.left_preconditioning = left;
    try {
        out.result = method == Solver::cg      ? solver::cg<double>(A, b, x, s)
                     : method == Solver::gmres ? solver::gmres<double>(A, b, x, s)
                                               : solver::bicgstab<double>(A, b, x, s);
    } catch (const BadInput& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(solver::to_string(p)), std::string::npos)
            << "a refused preconditioner names itself: " << what;
        return out;
    }
    out.built = true;
    out.true_relres = true_relative_residual(d, x.to_host(), bh);
    if (out.result.reason == StopReason::unstable_preconditioner) {
        const auto M = solver::make_preconditioner<double>(A, s);
        out.preconditioner_unstable = M && M->unstable();
    }
    return out;
}

// BiCGSTAB's iteration count on these ill-conditioned matrices is a function of rounding: on
// 494_bus with Jacobi, the reference backend takes 1622 iterations for b = A 1 and 607 to 1370
// when each entry of b moves by at most one unit in the last place (omp: 666 to 1421; SciPy
// 706); on bcsstk04 with Jacobi, 24 such draws give 58 to 77 on the reference, 58 to 81 on omp
// and 59 to 84 on opencl (PoCL). A backend that sums in another order is one more such draw, so
// its count is bounded by the reference's own draws on the same matrix and preconditioner,
// measured here: kRoundingDraws solves, b = A 1 and b with each entry moved by -1, 0 or +1 ulp
// (a fixed seed). The draws are skewed to the right (largest / median: 1.7 on 494_bus, 1.3 on
// bcsstk04), so the largest of a few draws is no bound for the next one; twice their median is,
// with room: a backend beyond it has changed the method, not the rounding.
constexpr int kRoundingDraws = 8;

// The iteration limit of the runs that check honesty alone (no SciPy solve to compare with, and
// the right-preconditioned GMRES runs): long enough that most converge (on omp all but 7 of the
// converged ones take under 500 iterations; those stop at the limit with max_iterations,
// which is checked too), short enough for a GPU shared by many test processes.
constexpr int kHonestyLimit = 500;

int bicgstab_bound(const MatrixData& d, const std::vector<double>& bh, Preconditioner p) {
    const Executor reference = Executor::reference();
    std::mt19937 gen(20261128);
    std::uniform_int_distribution<int> step(-1, 1);
    std::vector<int> counts;
    for (int draw = 0; draw < kRoundingDraws; ++draw) {
        std::vector<double> b = bh;
        if (draw > 0) {
            for (double& v : b) {
                const int k = step(gen);
                if (k != 0) v = std::nextafter(v, k * std::numeric_limits<double>::infinity());
            }
        }
        const Outcome o = run(reference, d, b, Solver::bicgstab, p, 20000);
        if (!o.built || !o.result.converged) return INT_MAX;  // no spread to bound by
        counts.push_back(o.result.iterations);
    }
    std::sort(counts.begin(), counts.end());
    return counts[kRoundingDraws / 2 - 1] + counts[kRoundingDraws / 2];  // 2 x the median
}

TEST_P(RealMatrices, EverySolverAndPreconditioner) {
    const std::string name = GetParam();
    const auto& entry = baseline()["matrices"][name];
    const MatrixData d = io::read_matrix_market(kDir + "/" + name + ".mtx");
    const bool symmetric = d.is_symmetric(MatrixData::rounding_symmetry);
    ASSERT_EQ(symmetric, entry["symmetric"].get<bool>());
    std::vector<double> ones(d.cols, 1.0), bh(d.rows, 0.0);  // b = A 1
    for (std::size_t k = 0; k < d.entries(); ++k) bh[d.row_idx[k]] += d.values[k];

    std::map<std::string, int> iterations;  // "solver/precond" -> iterations when converged
    for (const Solver method : {Solver::cg, Solver::bicgstab, Solver::gmres}) {
        if (method == Solver::cg && !symmetric) continue;
        for (const Preconditioner p :
             {Preconditioner::none, Preconditioner::jacobi, Preconditioner::block_jacobi,
              Preconditioner::ilu0, Preconditioner::ic0, Preconditioner::chebyshev}) {
            if (method == Solver::cg && p == Preconditioner::ilu0) continue;  // not symmetric
            if (!symmetric && p == Preconditioner::ic0) continue;
            const std::string key = solver::to_string(method) + "/" + solver::to_string(p);
            SCOPED_TRACE(name + ": " + key);
            const auto scipy = entry["runs"].contains(key) ? entry["runs"][key] : nlohmann::json();
            const bool scipy_solves = scipy.is_object() && scipy.contains("converged") &&
                                      scipy["converged"].is_boolean() &&
                                      scipy["converged"].get<bool>() &&
                                      scipy["iterations"].get<int>() <= 20000;
            // Where SciPy has no solve to compare with, a shorter run still checks honesty.
            const int limit = scipy_solves ? 20000 : kHonestyLimit;
            const bool left = method == Solver::gmres && p != Preconditioner::none;
            if (left) {  // the right-preconditioned run: honest, not compared with SciPy
                const Outcome right = run(exec, d, bh, method, p, kHonestyLimit, false);
                if (right.built && right.result.converged) {
                    EXPECT_LE(right.true_relres, 1.01e-8);
                }
                if (right.built && !right.result.converged) {
                    EXPECT_NE(right.result.reason, StopReason::stagnation);
                }
            }
            const Outcome o = run(exec, d, bh, method, p, limit, left);
            if (!o.built) {
                EXPECT_FALSE(scipy_solves && p == Preconditioner::jacobi)
                    << "SciPy solves this with Jacobi";
                continue;
            }
            const auto& res = o.result;
            if (res.converged) {
                // The solver's own test is in its backend's arithmetic; the independent residual
                // may differ by rounding of the norms: 1%.
                EXPECT_LE(o.true_relres, 1.01e-8);
                iterations[key] = res.iterations;
            } else {
                EXPECT_TRUE(res.reason == StopReason::max_iterations ||
                            res.reason == StopReason::breakdown ||
                            res.reason == StopReason::non_finite ||
                            res.reason == StopReason::indefinite ||
                            (res.reason == StopReason::unstable_preconditioner &&
                             o.preconditioner_unstable))
                    << solver::to_string(res.reason);
                if (res.reason == StopReason::max_iterations) {
                    EXPECT_EQ(res.iterations, limit);
                }
            }
            // 662_bus GMRES(30) with left Jacobi turns on the last bits of the sums (NumPy
            // converges or stalls under a 1e-13 perturbation of b; docs/real-matrices.md): on
            // opencl it converges with work-groups of 32 or 1024 and stalls with 64 to 256
            // (PoCL 3.1, 2026-11-25), so there, as on the reference, only honesty is checked.
            const bool rounding_bound = name == "662_bus" && key == "gmres/jacobi";
            // BiCGSTAB with Jacobi on watt_2 has no count that rounding bounds: with b = A 1
            // moved by at most one ulp per entry, 24 draws took 27 to 807 iterations on the
            // reference and 29 to 561 on omp (2 threads), SciPy 301 for b = A 1; its convergence
            // is checked, its count is not.
            const bool chaotic_count = name == "watt_2" && key == "bicgstab/jacobi";
            const bool compare = exec.backend() == Backend::omp ||
                                 exec.backend() == Backend::cuda ||
                                 (exec.backend() == Backend::opencl && !rounding_bound);
            if (scipy_solves && compare) {
                const int its = scipy["iterations"].get<int>();
                EXPECT_TRUE(res.converged) << solver::to_string(res.reason) << " after "
                                           << res.iterations << " iterations (SciPy: converged in "
                                           << its << "), relative residual " << o.true_relres;
                if (chaotic_count) {
                    // converged, checked above
                } else if (method == Solver::bicgstab) {
                    const int bound = bicgstab_bound(d, bh, p);
                    EXPECT_NE(bound, INT_MAX) << "the reference's rounding draws all converge";
                    EXPECT_LE(res.iterations, bound) << "SciPy: " << its;
                } else {
                    EXPECT_LE(res.iterations, static_cast<int>(std::ceil(1.1 * its)))
                        << "SciPy: " << its;
                }
            }
        }
    }
    // IC(0) against Jacobi on the power network: at least 3x fewer CG iterations.
    if (name == "1138_bus") {
        ASSERT_TRUE(iterations.count("cg/ic0") && iterations.count("cg/jacobi"));
        EXPECT_LE(3 * iterations["cg/ic0"], iterations["cg/jacobi"]);
    }
}

INSTANTIATE_TEST_SUITE_P(SuiteSparse, RealMatrices, ::testing::ValuesIn(matrix_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace portla::test
