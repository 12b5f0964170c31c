// The extension module portla._portla: operators, solvers, perron, gemm and info over
// include/portla only. Arrays arrive as C-contiguous NumPy arrays of the solve's precision
// (python/portla/_core.py converts them once); portla's errors become ValueError, MemoryError or
// RuntimeError with the same one-line message. The GIL is released while C++ runs and taken
// back only to call Python (a LinearOperator's matvec, a monitor, the Ctrl-C check).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "portla/portla.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using namespace portla;

template <typename T>
using In1 = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <typename T>
using In2 = nb::ndarray<const T, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
template <typename T>
using Out1 = nb::ndarray<nb::numpy, T, nb::ndim<1>>;
template <typename T>
using Out2 = nb::ndarray<nb::numpy, T, nb::ndim<2>>;

/// A NumPy array that owns `v`.
template <typename T>
Out1<T> to_numpy(std::vector<T>&& v) {
    auto* owned = new std::vector<T>(std::move(v));
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    return Out1<T>(owned->data(), {owned->size()}, owner);
}

template <typename T>
std::vector<T> to_vector(const In1<T>& a) {
    return std::vector<T>(a.data(), a.data() + a.size());
}

/// y = f(x) for a Python callable f, with x and y in memory of `exec` (copied through the host
/// when it is a GPU). Holds the GIL only while Python runs. `what` names the callable in errors.
template <typename T>
void call_python(const nb::object& f, const Executor& exec, const char* what, const_view<T> x,
                 view<T> y) {
    std::vector<T> xh(x.size);
    Executor::copy_bytes(Executor::reference(), xh.data(), exec, x.data, x.size * sizeof(T));
    nb::gil_scoped_acquire gil;
    nb::object r = f(to_numpy(std::move(xh)));
    In1<T> ya;
    if (!nb::try_cast(r, ya, false))
        throw BadInput(std::string(what) + ": did not return a 1-D contiguous array of the " +
                       "solve's precision");
    if (ya.size() != y.size) throw DimensionMismatch(what, y.size, ya.size());
    Executor::copy_bytes(exec, y.data, Executor::reference(), ya.data(), y.size * sizeof(T));
}

/// An operator on an executor; a callback operator also keeps its Python callable.
template <typename T>
struct Operator {
    std::unique_ptr<LinearOperator<T>> op;
    std::string backend;
};

/// M^-1 r through a Python callable (SciPy's M: z = M @ r).
template <typename T>
class PythonPreconditioner : public solver::PreconditionerOperator<T> {
public:
    PythonPreconditioner(const Executor& exec, std::size_t n, nb::object f)
        : exec_(exec), n_(n), f_(std::move(f)) {}
    std::size_t size() const override { return n_; }
    const Executor& executor() const override { return exec_; }
    void apply(const_view<T> r, view<T> z) const override {
        call_python<T>(f_, exec_, "preconditioner M", r, z);
    }
    std::string name() const override { return "python"; }

private:
    Executor exec_;
    std::size_t n_;
    nb::object f_;
};

template <typename T>
std::unique_ptr<Operator<T>> make_csr(const std::string& backend, std::size_t rows,
                                      std::size_t cols, In1<std::int32_t> indptr,
                                      In1<std::int32_t> indices, In1<T> data) {
    if (indptr.size() != rows + 1) throw DimensionMismatch("csr: indptr", rows + 1, indptr.size());
    if (indices.size() != data.size())
        throw DimensionMismatch("csr: indices", data.size(), indices.size());
    auto p = to_vector(indptr), c = to_vector(indices);
    auto v = to_vector(data);
    auto result = std::make_unique<Operator<T>>();
    nb::gil_scoped_release nogil;
    const Executor exec = Executor::create(backend);
    result->op = std::make_unique<Csr<T>>(exec, rows, cols, p, c, v);
    result->backend = exec.name();
    return result;
}

template <typename T>
std::unique_ptr<Operator<T>> make_dense(const std::string& backend, In2<T> a) {
    const std::size_t rows = a.shape(0), cols = a.shape(1);
    std::vector<T> v(a.data(), a.data() + rows * cols);
    auto result = std::make_unique<Operator<T>>();
    nb::gil_scoped_release nogil;
    const Executor exec = Executor::create(backend);
    result->op = std::make_unique<Dense<T>>(exec, rows, cols, v);
    result->backend = exec.name();
    return result;
}

template <typename T>
std::unique_ptr<Operator<T>> make_callback(const std::string& backend, std::size_t rows,
                                           std::size_t cols, nb::object matvec) {
    const Executor exec = Executor::create(backend);
    auto result = std::make_unique<Operator<T>>();
    // The lambda owns a reference to matvec; it is destroyed with the operator, GIL held.
    result->op = std::make_unique<CallbackOperator<T>>(
        exec, rows, cols, [f = std::move(matvec), exec](const_view<T> x, view<T> y) {
            call_python<T>(f, exec, "operator A (matvec)", x, y);
        });
    result->backend = exec.name();
    return result;
}

/// What the solve returns besides x.
struct SolveInfo {
    solver::Result result;
    double time_s = 0;  ///< the C++ solver call alone (steady clock, synchronised)
    std::string backend;
};

template <typename T>
nb::tuple solve(const std::string& method, const Operator<T>& A, In1<T> b, std::optional<In1<T>> x0,
                solver::Settings settings, nb::object M, nb::object monitor) {
    const LinearOperator<T>& op = *A.op;
    const Executor& exec = op.executor();
    if (b.size() != op.rows()) throw DimensionMismatch(method + ": b", op.rows(), b.size());
    if (x0 && x0->size() != op.cols())
        throw DimensionMismatch(method + ": x0", op.cols(), x0->size());
    const solver::Solver which = solver::parse_solver(method);
    Array<T> bd(exec, to_vector(b));
    Array<T> xd(exec, op.cols());
    settings.use_initial_guess = x0.has_value();
    if (x0) xd.copy_from_host(to_vector(*x0));
    std::unique_ptr<PythonPreconditioner<T>> pm;
    if (!M.is_none()) pm = std::make_unique<PythonPreconditioner<T>>(exec, op.rows(), M);

    // Per iteration: the Python monitor, if any, and a Ctrl-C check at most every 50 ms, both
    // with the GIL taken for the call. A pending signal (KeyboardInterrupt) ends the solve.
    using clock = std::chrono::steady_clock;
    auto next_check = clock::now();
    settings.monitor = [&](int iteration, double rnorm) {
        const bool check = clock::now() >= next_check;
        if (monitor.is_none() && !check) return;
        nb::gil_scoped_acquire gil;
        if (check) {
            if (PyErr_CheckSignals() != 0) throw nb::python_error();
            next_check = clock::now() + std::chrono::milliseconds(50);
        }
        if (!monitor.is_none()) monitor(iteration, rnorm);
    };

    SolveInfo info;
    info.backend = exec.name();
    {
        nb::gil_scoped_release nogil;
        const auto start = clock::now();
        view<T> x = xd;
        const_view<T> bv = bd;
        switch (which) {
            case solver::Solver::cg:
                info.result =
                    pm ? solver::cg(op, *pm, bv, x, settings) : solver::cg(op, bv, x, settings);
                break;
            case solver::Solver::bicgstab:
                info.result = pm ? solver::bicgstab(op, *pm, bv, x, settings)
                                 : solver::bicgstab(op, bv, x, settings);
                break;
            case solver::Solver::gmres:
                info.result = pm ? solver::gmres(op, *pm, bv, x, settings)
                                 : solver::gmres(op, bv, x, settings);
                break;
            case solver::Solver::pipecg:
                info.result = pm ? solver::pipecg(op, *pm, bv, x, settings)
                                 : solver::pipecg(op, bv, x, settings);
                break;
        }
        exec.synchronize();
        info.time_s = std::chrono::duration<double>(clock::now() - start).count();
    }
    // The monitor's captures end here; drop it before the settings outlive them.
    settings.monitor = nullptr;
    return nb::make_tuple(to_numpy(xd.to_host()), info);
}

template <typename T>
nb::tuple perron(const std::string& backend, In2<T> a, double eps, int max_iters,
                 const std::string& method) {
    if (a.shape(0) != a.shape(1))
        throw DimensionMismatch("perron: columns", a.shape(0), a.shape(1));
    const std::size_t n = a.shape(0);
    std::vector<T> values(a.data(), a.data() + n * n);
    eigen::PerronSettings settings;
    settings.eps = eps;
    settings.max_iters = max_iters;
    settings.method = eigen::parse_perron_method(method);
    eigen::PerronResult r;
    std::vector<T> v;
    {
        nb::gil_scoped_release nogil;
        const Executor exec = Executor::create(backend);
        Dense<T> A(exec, n, n, values);
        Array<T> vd(exec, n);
        r = eigen::perron(A, vd.get_view(), settings);
        v = vd.to_host();
    }
    return nb::make_tuple(to_numpy(std::move(v)), r.eigenvalue, r.converged,
                          solver::to_string(r.reason), r.iterations, r.residual);
}

template <typename T>
Out2<T> gemm(const std::string& backend, In2<T> a, In2<T> b, const std::string& variant) {
    const std::size_t m = a.shape(0), k = a.shape(1), n = b.shape(1);
    if (b.shape(0) != k) throw DimensionMismatch("gemm: rows of B", k, b.shape(0));
    std::vector<T> av(a.data(), a.data() + m * k), bv(b.data(), b.data() + k * n);
    auto* c = new std::vector<T>();
    nb::capsule owner(c, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    {
        nb::gil_scoped_release nogil;
        const Executor exec = Executor::create(backend);
        const GemmVariant v = parse_gemm_variant(variant);
        Array<T> ad(exec, av), bd(exec, bv), cd(exec, m * n);
        portla::gemm<T>(exec, m, n, k, T{1}, ad, bd, T{0}, cd, v);
        *c = cd.to_host();
    }
    return Out2<T>(c->data(), {m, n}, owner);
}

template <typename T>
void bind_precision(nb::module_& m, const char* suffix) {
    const std::string s = suffix;
    nb::class_<Operator<T>>(m, ("Operator" + s).c_str())
        .def_prop_ro(
            "shape",
            [](const Operator<T>& o) { return nb::make_tuple(o.op->rows(), o.op->cols()); })
        .def_prop_ro("format", [](const Operator<T>& o) { return o.op->format(); })
        .def_prop_ro("backend", [](const Operator<T>& o) { return o.backend; })
        .def_prop_ro("nnz", [](const Operator<T>& o) { return o.op->nnz(); });
    m.def(("csr" + s).c_str(), &make_csr<T>, "backend"_a, "rows"_a, "cols"_a, "indptr"_a,
          "indices"_a, "data"_a, "A CSR operator (int32 indices) on the backend.");
    m.def(("dense" + s).c_str(), &make_dense<T>, "backend"_a, "a"_a,
          "A dense row-major operator on the backend.");
    m.def(("callback" + s).c_str(), &make_callback<T>, "backend"_a, "rows"_a, "cols"_a, "matvec"_a,
          "A matrix-free operator: y = matvec(x), called with the GIL held.");
    m.def(("solve" + s).c_str(), &solve<T>, "method"_a, "A"_a, "b"_a, "x0"_a.none(), "settings"_a,
          "M"_a.none(), "monitor"_a.none(),
          "Solves A x = b by cg, bicgstab or gmres; returns (x, SolveInfo).");
    m.def(("perron" + s).c_str(), &perron<T>, "backend"_a, "a"_a, "eps"_a, "max_iters"_a,
          "method"_a);
    m.def(("gemm" + s).c_str(), &gemm<T>, "backend"_a, "a"_a, "b"_a, "variant"_a);
}

nb::dict info() {
    nb::dict d;
    nb::list backends;
    for (Backend b : all_backends()) {
        nb::dict e;
        e["name"] = to_string(b);
        e["compiled"] = compiled(b);
        e["devices"] = device_count(b);
        backends.append(e);
    }
    d["backends"] = backends;
    nb::list gpus;
    for (const DeviceInfo& g : cuda_devices()) {
        nb::dict e;
        e["id"] = g.id;
        e["name"] = g.name;
        e["memory_bytes"] = g.memory_bytes;
        e["multiprocessors"] = g.multiprocessors;
        e["compute_capability"] = nb::make_tuple(g.compute_major, g.compute_minor);
        gpus.append(e);
    }
    d["cuda_devices"] = gpus;
    d["omp_threads"] = omp_max_threads();
    d["auto"] = Executor::create("auto").name();
    return d;
}

}  // namespace

NB_MODULE(_portla, m) {
    m.doc() = "portla's C++ library (the Python API is the portla package).";

    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const OutOfMemory& e) {
            PyErr_SetString(PyExc_MemoryError, e.what());
        } catch (const BadInput& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const DimensionMismatch& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const Unsupported& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const Error& e) {  // NotCompiled, DeviceError
            PyErr_SetString(PyExc_RuntimeError, e.what());
        }
    });

    nb::class_<solver::Settings>(m, "Settings")
        .def(nb::init<>())
        .def_rw("rtol", &solver::Settings::rtol)
        .def_rw("atol", &solver::Settings::atol)
        .def_rw("max_iters", &solver::Settings::max_iters)
        .def_rw("residual_replacement", &solver::Settings::residual_replacement)
        .def_prop_rw(
            "precond", [](const solver::Settings& s) { return solver::to_string(s.precond); },
            [](solver::Settings& s, const std::string& name) {
                s.precond = solver::parse_preconditioner(name);
            })
        .def_rw("restart", &solver::Settings::restart)
        .def_rw("left_preconditioning", &solver::Settings::left_preconditioning)
        .def_rw("flexible", &solver::Settings::flexible)
        .def_rw("block_size", &solver::Settings::block_size)
        .def_rw("chebyshev_degree", &solver::Settings::chebyshev_degree)
        .def_rw("record_history", &solver::Settings::record_history)
        .def_rw("device_loop", &solver::Settings::device_loop);

    nb::class_<SolveInfo>(m, "SolveInfo")
        .def_prop_ro("converged", [](const SolveInfo& i) { return i.result.converged; })
        .def_prop_ro("reason",
                     [](const SolveInfo& i) { return solver::to_string(i.result.reason); })
        .def_prop_ro("iterations", [](const SolveInfo& i) { return i.result.iterations; })
        .def_prop_ro("residual_norm", [](const SolveInfo& i) { return i.result.residual_norm; })
        .def_prop_ro("rhs_norm", [](const SolveInfo& i) { return i.result.rhs_norm; })
        .def_prop_ro("history", [](const SolveInfo& i) { return i.result.history; })
        .def_ro("time_s", &SolveInfo::time_s)
        .def_ro("backend", &SolveInfo::backend);

    bind_precision<double>(m, "_f64");
    bind_precision<float>(m, "_f32");
    m.def("info", &info, "Backends compiled into this build, their devices, the GPUs.");
    m.attr("version") = "0.1.0";
}
