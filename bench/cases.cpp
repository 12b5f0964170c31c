// The benchmark cases: each kernel on each backend, with its bytes counted by hand and a check
// of its result against an independent host computation.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <limits>
#include <cstdint>

#include "bench/case.hpp"
#include "portla/environment.hpp"
#include "portla/portla.hpp"
#include "portla/vendor.hpp"

namespace portla::bench {

std::vector<std::string> kernel_names() {
    return {"copy", "axpby",    "dot",     "dot-host", "norm2",   "fused-cg", "unfused-cg",
            "gemv", "spmv-csr", "stencil", "cg",       "cg-host", "cg-dense", "ilu0-apply"};
}

std::vector<std::string> backends_for(const std::string& kernel) {
    static const std::map<std::string, std::vector<std::string>> table{
        {"copy", {"reference", "omp", "cuda", "opencl", "openblas", "cublas"}},
        {"axpby", {"reference", "omp", "cuda", "opencl", "openblas", "cublas"}},
        {"dot", {"reference", "omp", "cuda", "opencl", "openblas", "cublas"}},
        {"dot-host", {"reference", "omp", "cuda", "opencl", "openblas", "cublas"}},
        {"norm2", {"reference", "omp", "cuda", "opencl", "openblas", "cublas"}},
        {"fused-cg", {"reference", "omp", "cuda", "opencl"}},
        {"unfused-cg", {"reference", "omp", "cuda", "opencl", "openblas", "cublas"}},
        {"gemv", {"reference", "omp", "cuda", "opencl", "openblas", "cublas"}},
        {"spmv-csr", {"reference", "omp", "cuda", "opencl", "cusparse"}},
        {"stencil", {"reference", "omp", "cuda", "opencl"}},
        {"cg", {"reference", "omp", "cuda", "opencl", "cusparse"}},
        {"cg-host", {"cuda"}},
        {"cg-dense", {"reference", "omp", "cuda", "opencl", "openblas", "cublas"}},
        // cuda: portla's level-scheduled solves; cusparse: cuSPARSE SpSV on the same factors.
        {"ilu0-apply", {"reference", "omp", "cuda", "cusparse"}},
    };
    const auto it = table.find(kernel);
    if (it == table.end()) throw BadInput("bench: unknown kernel '" + kernel + "'");
    return it->second;
}

bool has_launch_config(const std::string& kernel, const std::string& backend) {
    static const std::vector<std::string> vector_kernels{
        "copy", "axpby", "dot", "dot-host", "norm2", "fused-cg", "unfused-cg"};
    return (backend == "cuda" || backend == "opencl") &&
           std::find(vector_kernels.begin(), vector_kernels.end(), kernel) != vector_kernels.end();
}

bool has_thread_config(const std::string& kernel, const std::string& backend) {
    tuning::Kernel k;
    return backend == "omp" && tuned_kernel(kernel, k);
}

bool tuned_kernel(const std::string& kernel, tuning::Kernel& out) {
    static const std::map<std::string, tuning::Kernel> table{
        {"copy", tuning::Kernel::copy},       {"axpby", tuning::Kernel::axpby},
        {"dot", tuning::Kernel::dot},         {"dot-host", tuning::Kernel::dot},
        {"norm2", tuning::Kernel::norm2},     {"fused-cg", tuning::Kernel::fused_cg},
        {"unfused-cg", tuning::Kernel::axpby}};
    const auto it = table.find(kernel);
    if (it == table.end()) return false;
    out = it->second;
    return true;
}

const std::vector<VendorLibrary>& vendor_libraries() {
    static const std::vector<VendorLibrary> libraries{
        {"openblas", Backend::omp}, {"cublas", Backend::cuda}, {"cusparse", Backend::cuda}};
    return libraries;
}

Executor executor_for(const std::string& backend) {
    for (const auto& v : vendor_libraries())
        if (backend == v.name) return with_environment(Executor::create(v.backend));
    return executor_from_environment(backend);
}

namespace detail {
namespace {

template <typename T>
std::vector<T> host_random(std::size_t n, unsigned seed) {
    // Values in [0.5, 1.5]: never zero (zeros hide unwritten output), and sums of positive
    // terms expose any dropped element in the checks. A hash of the index (splitmix64) instead
    // of a sequential generator: 2^28 values in a fraction of a second on all cores.
    std::vector<T> v(n);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t z = (std::uint64_t(seed) << 40) + i + 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        v[i] = static_cast<T>(0.5 + double(z >> 11) * 0x1.0p-53);
    }
    return v;
}

template <typename T>
constexpr double check_tolerance() {
    // Relative to sums of positive terms: rounding of sums of up to 2^30 terms in T, by
    // per-thread chunks and trees (float: chunks of up to 2^14 terms * 6e-8 = 1e-3).
    return std::is_same<T, double>::value ? 1e-9 : 2e-3;
}

double max_rel_error(const std::vector<double>& got, const std::vector<double>& want) {
    double err = 0, scale = 0;
    bool finite = true;
#pragma omp parallel for schedule(static) reduction(max : err, scale) reduction(&& : finite)
    for (std::size_t i = 0; i < want.size(); ++i) {
        finite = finite && std::isfinite(got[i]);
        err = std::max(err, std::abs(got[i] - want[i]));
        scale = std::max(scale, std::abs(want[i]));
    }
    if (!finite) return INFINITY;
    return scale > 0 ? err / scale : err;
}

template <typename T>
std::vector<double> to_double(const Array<T>& a) {
    const auto h = a.to_host();
    return std::vector<double>(h.begin(), h.end());
}

// Sets of vectors of n elements on an executor, `count` per set.
template <typename T>
struct VectorSets {
    std::vector<std::vector<Array<T>>> sets;
    std::vector<std::vector<T>> initial;  // host copies of set 0, to re-initialise and check
    VectorSets(const Executor& exec, int nsets, int count, std::size_t n) {
        for (int v = 0; v < count; ++v) initial.push_back(host_random<T>(n, 1234 + v));
        for (int s = 0; s < nsets; ++s) {
            sets.emplace_back();
            for (int v = 0; v < count; ++v) sets.back().emplace_back(exec, initial[v]);
        }
    }
    Array<T>& at(int set, int v) { return sets[set][v]; }
    void reset(int set) {
        for (std::size_t v = 0; v < initial.size(); ++v) sets[set][v].copy_from_host(initial[v]);
    }
};

// The vector operations of one backend, vendor libraries included.
template <typename T>
struct VectorOps {
    std::function<void(T, const_view<T>, T, view<T>)> axpby;  // vendor: b ignored (axpy)
    bool axpby_is_axpy = false;
    std::function<void(const_view<T>, view<T>)> copy;
    std::function<void(const_view<T>, const_view<T>, view<T>)> dot;
    std::function<T(const_view<T>, const_view<T>)> dot_host;
    std::function<void(const_view<T>, view<T>)> norm2;
};

template <typename T>
VectorOps<T> vector_ops(const std::string& backend, const Executor& exec) {
    VectorOps<T> ops;
    if (backend == "openblas" || backend == "cublas") {
        // The vendor library of exec's backend: OpenBLAS on omp, cuBLAS on cuda.
        ops.axpby_is_axpy = true;
        ops.axpby = [=](T a, const_view<T> x, T, view<T> y) { vendor::axpy<T>(exec, a, x, y); };
        ops.copy = [=](const_view<T> x, view<T> y) { vendor::copy<T>(exec, x, y); };
        ops.dot = [=](const_view<T> x, const_view<T> y, view<T> r) {
            vendor::dot<T>(exec, x, y, r);
        };
        ops.dot_host = [=](const_view<T> x, const_view<T> y) {
            return vendor::dot_host<T>(exec, x, y);
        };
        ops.norm2 = [=](const_view<T> x, view<T> r) { vendor::nrm2<T>(exec, x, r); };
        return ops;
    }
    ops.axpby = [=](T a, const_view<T> x, T b, view<T> y) { blas::axpby<T>(exec, a, x, b, y); };
    ops.copy = [=](const_view<T> x, view<T> y) { blas::copy<T>(exec, x, y); };
    ops.dot = [=](const_view<T> x, const_view<T> y, view<T> r) { blas::dot<T>(exec, x, y, r); };
    ops.dot_host = [=](const_view<T> x, const_view<T> y) { return blas::dot<T>(exec, x, y); };
    ops.norm2 = [=](const_view<T> x, view<T> r) { blas::norm2<T>(exec, x, r); };
    return ops;
}

template <typename T>
void poison(Array<T>& a) {
    a.copy_from_host(std::vector<T>(a.size(), std::numeric_limits<T>::quiet_NaN()));
}

template <typename T>
double host_dot(const std::vector<T>& x, const std::vector<T>& y) {
    long double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (std::size_t i = 0; i < x.size(); ++i) s += (long double)x[i] * y[i];
    return double(s);
}

template <typename T>
Case vector_case(const CaseConfig& c, const Executor& exec) {
    const std::string& k = c.kernel;
    const std::size_t n = c.size;
    const double w = sizeof(T);
    static const std::map<std::string, std::pair<int, double>> shape{
        // kernel: vectors per set, bytes per element in words
        {"copy", {2, 2}},  {"axpby", {2, 3}},    {"dot", {2, 2}},       {"dot-host", {2, 2}},
        {"norm2", {1, 1}}, {"fused-cg", {4, 6}}, {"unfused-cg", {4, 7}}};
    const auto [count, words] = shape.at(k);
    Case cs;
    cs.n = n;
    cs.bytes = words * w * double(n);
    const std::size_t set_bytes = std::size_t(count) * n * sizeof(T);
    cs.sets = c.flush_cache ? 1 : rotation_sets(set_bytes, last_level_cache_bytes(exec));
    check_fits(exec, double(set_bytes) * cs.sets);
    auto data = std::make_shared<VectorSets<T>>(exec, cs.sets, count, n);
    auto result = std::make_shared<Array<T>>(exec, 1);
    const auto ops = vector_ops<T>(c.backend, exec);
    cs.tolerance = check_tolerance<T>();
    const T a = T(0.5), b = T(0.5), alpha = T(1e-3);
    if (k == "copy") {
        cs.call = [=](int s) { ops.copy(data->at(s, 0), data->at(s, 1)); };
        cs.verify = [=] {
            data->reset(0);
            ops.copy(data->at(0, 0), data->at(0, 1));
            const auto& x = data->initial[0];
            return max_rel_error(to_double(data->at(0, 1)),
                                 std::vector<double>(x.begin(), x.end()));
        };
    } else if (k == "axpby") {
        cs.call = [=](int s) { ops.axpby(a, data->at(s, 0), b, data->at(s, 1)); };
        cs.verify = [=] {
            data->reset(0);
            ops.axpby(a, data->at(0, 0), b, data->at(0, 1));
            const auto &x = data->initial[0], &y = data->initial[1];
            std::vector<double> want(n);
            for (std::size_t i = 0; i < n; ++i)
                want[i] = double(a) * x[i] + (ops.axpby_is_axpy ? 1.0 : double(b)) * y[i];
            return max_rel_error(to_double(data->at(0, 1)), want);
        };
    } else if (k == "dot" || k == "dot-host" || k == "norm2") {
        const bool host = k == "dot-host", norm = k == "norm2";
        cs.host_timed = host;
        cs.call = [=](int s) {
            if (norm)
                ops.norm2(data->at(s, 0), result->get_view());
            else if (host)
                (void)ops.dot_host(data->at(s, 0), data->at(s, 1));
            else
                ops.dot(data->at(s, 0), data->at(s, 1), result->get_view());
        };
        cs.verify = [=] {
            const auto &x = data->initial[0], &y = data->initial[norm ? 0 : 1];
            const double want = norm ? std::sqrt(host_dot(x, x)) : host_dot(x, y);
            double got;
            if (host) {
                got = ops.dot_host(data->at(0, 0), data->at(0, 1));
            } else {
                poison(*result);
                norm ? ops.norm2(data->at(0, 0), result->get_view())
                     : ops.dot(data->at(0, 0), data->at(0, 1), result->get_view());
                got = result->to_host()[0];
            }
            return std::isfinite(got) ? std::abs(got - want) / std::max(std::abs(want), 1e-300)
                                      : INFINITY;
        };
    } else {  // fused-cg, unfused-cg: x += alpha p; r -= alpha q; rr = r.r
        const bool fused = k == "fused-cg";
        auto step = [=](int s) {
            auto &p = data->at(s, 0), &q = data->at(s, 1), &x = data->at(s, 2), &r = data->at(s, 3);
            if (fused) {
                blas::fused_cg_update<T>(exec, alpha, p, q, x, r, result->get_view());
            } else {
                ops.axpby(alpha, p, T(1), x);
                ops.axpby(-alpha, q, T(1), r);
                ops.dot(r, r, result->get_view());
            }
        };
        cs.call = step;
        cs.verify = [=] {
            data->reset(0);
            step(0);
            const auto &p = data->initial[0], &q = data->initial[1], &x = data->initial[2],
                       &r = data->initial[3];
            std::vector<double> wx(n), wr(n);
            long double rr = 0;
#pragma omp parallel for schedule(static) reduction(+ : rr)
            for (std::size_t i = 0; i < n; ++i) {
                wx[i] = double(x[i]) + double(alpha) * p[i];
                wr[i] = double(r[i]) - double(alpha) * q[i];
                rr += (long double)wr[i] * wr[i];
            }
            const double got_rr = result->to_host()[0];
            return std::max({max_rel_error(to_double(data->at(0, 2)), wx),
                             max_rel_error(to_double(data->at(0, 3)), wr),
                             std::abs(got_rr - double(rr)) / double(rr + 1e-300L)});
        };
    }
    return cs;
}

// Points per dimension of the 3-D Poisson problem with about n unknowns.
std::size_t cube_points(std::size_t n) {
    return std::max<std::size_t>(2, std::size_t(std::llround(std::cbrt(double(n)))));
}
// Rows of the square dense matrix with about `elements` entries.
std::size_t square_rows(std::size_t elements) {
    return std::max<std::size_t>(1, std::size_t(std::llround(std::sqrt(double(elements)))));
}

// y = A x on `count` sets of (A, x, y) with A from `make`. Verification against a host SpMV of
// the same coordinate data.
template <typename T>
Case operator_case(const CaseConfig& c, const Executor& exec) {
    Case cs;
    const std::string& k = c.kernel;
    MatrixData data;
    std::size_t rows = 0, matrix_bytes = 0;
    const double w = sizeof(T);
    if (k == "gemv") {
        rows = square_rows(c.size);
        matrix_bytes = rows * rows * sizeof(T);
        cs.bytes = w * (double(rows) * rows + 2.0 * rows);
    } else {
        const std::size_t pts = cube_points(c.size);
        const Stencil<double> S(Executor::reference(), 3, pts);
        rows = S.rows();
        if (k == "spmv-csr") {
            data = S.assemble();
            matrix_bytes = data.entries() * (sizeof(T) + 4) + (rows + 1) * 4;
            cs.bytes = double(matrix_bytes) + 2.0 * w * rows;
        } else {  // stencil: read x, write y
            cs.bytes = 2.0 * w * rows;
        }
    }
    cs.n = rows;
    const std::size_t set_bytes = matrix_bytes + 2 * rows * sizeof(T);
    cs.sets = c.flush_cache ? 1 : rotation_sets(set_bytes, last_level_cache_bytes(exec));
    check_fits(exec, double(set_bytes) * cs.sets);
    const std::size_t pts = cube_points(c.size);
    std::vector<T> dense_values;
    if (k == "gemv") dense_values = host_random<T>(rows * rows, 77);
    struct Set {
        std::unique_ptr<LinearOperator<T>> op;
        std::unique_ptr<Csr<T>> csr;
        Array<T> x, y;
    };
    auto sets = std::make_shared<std::vector<Set>>();
    const auto xh = host_random<T>(rows, 99);
    for (int s = 0; s < cs.sets; ++s) {
        Set set{nullptr, nullptr, Array<T>(exec, xh), Array<T>(exec, rows)};
        if (k == "gemv")
            set.op = std::make_unique<Dense<T>>(exec, rows, rows, dense_values);
        else if (k == "spmv-csr")
            set.csr = std::make_unique<Csr<T>>(Csr<T>::from_data(exec, data));
        else
            set.op = std::make_unique<Stencil<T>>(exec, 3, pts);
        sets->push_back(std::move(set));
    }
    const std::string backend = c.backend;
    auto apply = [=](int s) {
        Set& set = (*sets)[s];
        if (k == "gemv" && (backend == "openblas" || backend == "cublas"))
            vendor::gemv<T>(exec, rows, rows, static_cast<Dense<T>&>(*set.op).values().get_view(),
                            set.x, set.y);
        else if (k == "spmv-csr" && backend == "cusparse")
            vendor::csr_spmv<T>(exec, rows, rows, set.csr->row_ptrs(), set.csr->col_idxs(),
                                set.csr->values(), set.x, set.y);
        else if (k == "spmv-csr")
            set.csr->apply(set.x, set.y);
        else
            set.op->apply(set.x, set.y);
    };
    cs.call = apply;
    cs.tolerance = check_tolerance<T>();
    cs.verify = [=] {
        Set& set = (*sets)[0];
        poison(set.y);
        apply(0);
        std::vector<double> want(rows, 0.0);
        if (k == "gemv") {
            for (std::size_t i = 0; i < rows; ++i) {
                long double s = 0;
                for (std::size_t j = 0; j < rows; ++j)
                    s += (long double)dense_values[i * rows + j] * xh[j];
                want[i] = double(s);
            }
        } else {
            const MatrixData d =
                k == "spmv-csr" ? data : Stencil<double>(Executor::reference(), 3, pts).assemble();
            for (std::size_t e = 0; e < d.entries(); ++e)
                want[d.row_idx[e]] += d.values[e] * double(xh[d.col_idx[e]]);
            // Relative to the row's absolute sum: the stencil's rows nearly cancel.
            std::vector<double> scale(rows, 0.0);
            for (std::size_t e = 0; e < d.entries(); ++e)
                scale[d.row_idx[e]] += std::abs(d.values[e] * double(xh[d.col_idx[e]]));
            const auto got = to_double(set.y);
            double err = 0;
            for (std::size_t i = 0; i < rows; ++i) {
                if (!std::isfinite(got[i])) return double(INFINITY);
                err = std::max(err, std::abs(got[i] - want[i]) / scale[i]);
            }
            return err;
        }
        return max_rel_error(to_double(set.y), want);
    };
    return cs;
}

// One CG iteration: solves with a fixed number of iterations (rtol = 0) and times the
// difference between two iteration counts, so set-up and the final residual cancel. cg runs
// solver::cg with Settings::device_loop (the operator fused into the steps, the state read back
// every 16 iterations); cg-host with device_loop = false (the steps call the operator's apply()
// and the state is read back every iteration).
template <typename T>
Case cg_case(const CaseConfig& c, const Executor& exec) {
    Case cs;
    const std::string k = c.kernel, backend = c.backend;
    const bool dense = k == "cg-dense";
    const std::size_t rows = dense
                                 ? square_rows(c.size)
                                 : cube_points(c.size) * cube_points(c.size) * cube_points(c.size);
    const std::size_t pts = cube_points(c.size);
    const double w = sizeof(T);
    cs.n = rows;
    // Minimal traffic of one iteration. Stencil CG, fused: (read r, p; write p_new, q) +
    // (read p, q, x, r; write x, r) = 10 words per unknown. Dense CG: the matrix once, plus
    // gemv's x, y, p.q, the fused update and p = r + beta p: N^2 + 13 N words.
    cs.bytes = dense ? w * (double(rows) * rows + 13.0 * rows) : 10.0 * w * rows;
    std::size_t set_bytes = 8 * rows * sizeof(T);
    MatrixData data;
    if (dense) set_bytes += rows * rows * sizeof(T);
    if (backend == "cusparse") {
        data = Stencil<double>(Executor::reference(), 3, pts).assemble();
        set_bytes += data.entries() * (sizeof(T) + 4);
    }
    cs.sets = 1;
    check_fits(exec, double(set_bytes));
    // Few iterations for big problems (time), more for small ones (resolution).
    const double work = dense ? double(rows) * rows : double(rows);
    const int k1 = 2, k2 = work >= double(1 << 22) ? 12 : work >= double(1 << 18) ? 32 : 102;
    cs.iterations_per_call = k2 - k1;
    struct State {
        std::unique_ptr<LinearOperator<T>> op;
        std::unique_ptr<Csr<T>> csr;
        Array<T> b, x, work[4];
        solver::Result last;
    };
    auto st = std::make_shared<State>();
    if (dense) {
        // An SPD dense matrix: the 1-D Poisson matrix plus a random symmetric positive part.
        std::vector<T> vals(rows * rows, T(0));
        const auto rnd = host_random<T>(rows, 5);
        for (std::size_t i = 0; i < rows; ++i) {
            vals[i * rows + i] = T(2 + 2 * rnd[i]);
            if (i > 0) vals[i * rows + i - 1] = vals[(i - 1) * rows + i] = T(-0.5);
        }
        st->op = std::make_unique<Dense<T>>(exec, rows, rows, vals);
    } else if (backend == "cusparse") {
        st->csr = std::make_unique<Csr<T>>(Csr<T>::from_data(exec, data));
    } else {
        st->op = std::make_unique<Stencil<T>>(exec, 3, pts);
    }
    st->b = Array<T>(exec, host_random<T>(rows, 3));
    st->x = Array<T>(exec, rows);
    for (auto& a : st->work) a = Array<T>(exec, rows);
    auto run = [=](int iters) {
        if (backend == "cusparse") {
            vendor::cg<T>(exec, rows, st->csr->row_ptrs(), st->csr->col_idxs(), st->csr->values(),
                          st->b, st->x, 0.0, iters);
            return;
        }
        if (backend == "openblas" || backend == "cublas") {
            // CG composed from vendor BLAS calls, scalars on the host.
            const auto ops = vector_ops<T>(backend, exec);
            const auto& A = static_cast<const Dense<T>&>(*st->op);
            auto &r = st->work[0], &p = st->work[1], &q = st->work[2];
            blas::fill<T>(exec, st->x, T(0));
            ops.copy(st->b, r);
            ops.copy(r, p);
            double rr = ops.dot_host(r, r);
            for (int it = 0; it < iters; ++it) {
                vendor::gemv<T>(exec, rows, rows, A.values(), p, q);
                const double alpha = rr / double(ops.dot_host(p, q));
                ops.axpby(T(alpha), p, T(1), st->x);
                ops.axpby(T(-alpha), q, T(1), r);
                const double rr_new = ops.dot_host(r, r);
                // p = r + beta p, as a vendor user writes it: q = r; q += beta p; swap.
                ops.copy(r, q);
                ops.axpby(T(rr_new / rr), p, T(1), q);
                std::swap(p, q);
                rr = rr_new;
            }
            exec.synchronize();
            return;
        }
        solver::Settings s;
        s.rtol = 0;
        s.atol = 0;
        s.max_iters = iters;
        s.residual_replacement = 0;
        s.device_loop = k != "cg-host";
        st->last = solver::cg<T>(*st->op, st->b, st->x, s);
        exec.synchronize();
    };
    cs.host_timed = true;
    cs.call = [=](int) { run(k2); };
    cs.baseline = [=](int) { run(k1); };
    cs.tolerance = 1e-3;
    // The check: CG minimises phi(x) = x.Ax / 2 - x.b over growing Krylov spaces from x0 = 0,
    // so after k2 iterations phi(x) < phi(0) = 0, and it must be below phi after k1. (The
    // residual norm itself need not fall monotonically.) A.x is recomputed with portla's apply.
    auto phi = [=] {
        auto& ax = st->work[3];
        if (st->csr)
            st->csr->apply(st->x, ax);
        else
            st->op->apply(st->x, ax);
        return 0.5 * double(blas::dot<T>(exec, st->x, ax)) -
               double(blas::dot<T>(exec, st->x, st->b));
    };
    cs.verify = [=] {
        run(k1);
        const double phi1 = phi();
        run(k2);
        const double phi2 = phi();
        return std::isfinite(phi2) && phi2 < 0 && phi2 <= phi1 ? 0.0 : double(INFINITY);
    };
    return cs;
}

// One ILU(0) apply, z = U^-1 (L^-1 r), on the 3-D 7-point Poisson matrix (natural order: 3 (p - 1)
// + 1 levels per factor on p^3 points). Set-up (the host factorization) is not timed. Bytes: the
// two factors once (values, column indices, row pointers, level order) and r, work (written,
// then read), z. Verified by M z = L (U z) against r in double on the host, row by row relative
// to sum_k |l_ik| sum_j |u_kj z_j| (the terms of the product).
template <typename T>
Case ilu_case(const CaseConfig& c, const Executor& exec) {
    Case cs;
    const std::size_t pts = cube_points(c.size);
    const MatrixData data = Stencil<double>(Executor::reference(), 3, pts).assemble();
    const std::size_t rows = static_cast<std::size_t>(data.rows), nnz = data.entries();
    const double w = sizeof(T);
    cs.n = rows;
    cs.bytes = double(nnz) * (w + 4) + 2.0 * (rows + 1) * 4 + 2.0 * rows * 4 + 4.0 * w * rows;
    cs.sets = 1;
    // The host factorization holds a few copies of the matrix in double.
    check_fits(Executor::reference(), 60.0 * double(nnz));
    check_fits(exec, double(nnz) * (w + 4) * 2 + 8.0 * rows * (w + 4));
    const auto how = c.backend == "cusparse" ? solver::TriangularSolver::vendor
                                             : solver::TriangularSolver::levels;
    struct State {
        std::unique_ptr<solver::Ilu0<T>> m;
        Array<T> r, z;
    };
    const auto rh = host_random<T>(rows, 31);
    auto st = std::make_shared<State>();
    st->m = std::make_unique<solver::Ilu0<T>>(Csr<T>::from_data(exec, data), how);
    st->r = Array<T>(exec, rh);
    st->z = Array<T>(exec, rows);
    cs.call = [st](int) { st->m->apply(st->r, st->z); };
    cs.tolerance = check_tolerance<T>();
    cs.verify = [st, rh, rows] {
        poison(st->z);
        st->m->apply(st->r, st->z);
        const auto z = to_double(st->z);
        const auto host = [](const Csr<T>& a, std::vector<std::int32_t>& ptr,
                             std::vector<std::int32_t>& col, std::vector<T>& val) {
            ptr = a.row_ptrs().to_host();
            col = a.col_idxs().to_host();
            val = a.values().to_host();
        };
        std::vector<std::int32_t> lp, lc, up, uc;
        std::vector<T> lv, uv;
        host(st->m->lower(), lp, lc, lv);
        host(st->m->upper(), up, uc, uv);
        std::vector<double> y(rows), ya(rows);  // y = U z; ya = |U| |z|
        for (std::size_t i = 0; i < rows; ++i) {
            double s = 0, sa = 0;
            for (auto k = up[i]; k < up[i + 1]; ++k) {
                s += double(uv[k]) * z[uc[k]];
                sa += std::abs(double(uv[k]) * z[uc[k]]);
            }
            y[i] = s;
            ya[i] = sa;
        }
        double err = 0;
        for (std::size_t i = 0; i < rows; ++i) {  // (L y)_i = y_i + sum_k l_ik y_k
            double s = y[i], sa = ya[i];
            for (auto k = lp[i]; k < lp[i + 1]; ++k) {
                s += double(lv[k]) * y[lc[k]];
                sa += std::abs(double(lv[k])) * ya[lc[k]];
            }
            if (!std::isfinite(s)) return double(INFINITY);
            err = std::max(err, std::abs(s - double(rh[i])) / (sa + 1e-300));
        }
        return err;
    };
    return cs;
}

template <typename T>
Case make_typed(const CaseConfig& c, const Executor& exec) {
    const std::string& k = c.kernel;
    if (k == "ilu0-apply") return ilu_case<T>(c, exec);
    if (k == "gemv" || k == "spmv-csr" || k == "stencil") return operator_case<T>(c, exec);
    if (k == "cg" || k == "cg-host" || k == "cg-dense") return cg_case<T>(c, exec);
    return vector_case<T>(c, exec);
}

}  // namespace

Case make_case(const CaseConfig& c, const Executor& exec) {
    const auto backends = backends_for(c.kernel);
    if (std::find(backends.begin(), backends.end(), c.backend) == backends.end())
        throw BadInput("bench: kernel '" + c.kernel + "' has no '" + c.backend +
                       "' implementation");
    if (c.precision == "float") return make_typed<float>(c, exec);
    if (c.precision == "double") return make_typed<double>(c, exec);
    throw BadInput("bench: precision must be double or float, got '" + c.precision + "'");
}

}  // namespace detail
}  // namespace portla::bench
