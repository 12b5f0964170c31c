// The extension module portla._portla: operators, solvers, multigrid hierarchies, batches,
// perron, gemm and info over include/portla only. python/portla/_core.py hands over C-contiguous
// arrays of the solve's precision: NumPy arrays, or CuPy / PyTorch arrays through DLPack. Operators
// and solves use the caller's memory in place where the executor can read it (host arrays on omp /
// reference, arrays of GPU N on cuda:N: Csr::borrow, Dense::borrow, views of b and x), and copy
// host arrays to the GPU and back when a host array meets the cuda backend. portla's errors become
// ValueError, MemoryError or RuntimeError with the same one-line message. The GIL is released
// while C++ runs and taken back only to call Python (a LinearOperator's matvec, a monitor, an
// iterate callback, the Ctrl-C check).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "portla/batch/matrix.hpp"
#include "portla/batch/solver.hpp"
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
/// Arrays of any device (host, or a GPU's through DLPack), read only or written.
template <typename T>
using Any1 = nb::ndarray<const T, nb::ndim<1>, nb::c_contig>;
template <typename T>
using Any2 = nb::ndarray<const T, nb::ndim<2>, nb::c_contig>;
template <typename T>
using AnyOut1 = nb::ndarray<T, nb::ndim<1>, nb::c_contig>;

/// Where an array's memory is: the host, or CUDA device `device`.
struct Place {
    bool host = true;
    int device = 0;
    bool operator==(const Place& o) const { return host == o.host && (host || device == o.device); }
    std::string name() const { return host ? "the host" : "cuda:" + std::to_string(device); }
};

template <typename Array>
Place place_of(const Array& a, const std::string& what) {
    if (a.device_type() == nb::device::cpu::value) return {};
    if (a.device_type() == nb::device::cuda::value) return {false, a.device_id()};
    throw BadInput(what + ": arrays of DLPack device type " + std::to_string(a.device_type()) +
                   " are not supported (host or CUDA memory)");
}

/// The kernel options set_kernel_options gave the package; none: the environment's.
std::optional<KernelOptions>& chosen_options() {
    static std::optional<KernelOptions> options;
    return options;
}

/// `exec` as the package runs it: the PORTLA_* variables applied (with_environment: a bad value
/// is a ValueError), then the options set_kernel_options gave, if any.
Executor prepared(Executor exec) {
    exec = with_environment(std::move(exec));
    if (chosen_options()) exec.set_kernel_options(*chosen_options());
    return exec;
}

/// Executor `backend` (executor_from_environment: PORTLA_OPENCL_DEVICE for a plain "opencl"),
/// prepared.
Executor executor_named(const std::string& backend) {
    return prepared(executor_from_environment(backend));
}

/// The executor for data at `p`: `backend` for host data; for data on a GPU, its device
/// (backend "auto", "cuda" or the same "cuda:N"), never a CPU backend.
Executor executor_for(const std::string& backend, Place p, const std::string& what) {
    if (p.host) return executor_named(backend);
    if (backend == "auto" || backend == "cuda") return prepared(Executor::cuda(p.device));
    const Executor e = executor_named(backend);
    if (e.backend() != Backend::cuda)
        throw BadInput(what + " is on " + p.name() + ", but backend '" + backend +
                       "' runs on the CPU (use backend='auto' or 'cuda')");
    if (e.device_id() != p.device)
        throw BadInput(what + " is on " + p.name() + ", but backend '" + backend +
                       "' is another GPU");
    return e;
}

/// Whether memory at `p` is what `exec`'s kernels read.
bool reachable(const Executor& exec, Place p) {
    return exec.is_host() ? p.host : (!p.host && p.device == exec.device_id());
}

/// A NumPy array that owns `v`.
template <typename T>
Out1<T> to_numpy(std::vector<T>&& v) {
    auto* owned = new std::vector<T>(std::move(v));
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    return Out1<T>(owned->data(), {owned->size()}, owner);
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

/// An operator on an executor. A borrowed one keeps the caller's arrays (declared first, so
/// that they outlive `op`); a callback operator keeps its Python callable in `op`.
template <typename T>
struct Operator {
    std::optional<Any1<std::int32_t>> row_ptrs, col_idxs;
    std::optional<Any1<std::int64_t>> row_ptrs64;
    std::optional<Any1<T>> values;
    std::optional<Any2<T>> dense;
    std::unique_ptr<LinearOperator<T>> op;
    std::string backend;
    std::uintptr_t values_ptr = 0;  ///< where the operator reads its values (0: matrix-free)
};

/// M^-1 r through a Python callable (SciPy's M: z = M @ r), and M^-T r through a second one
/// when given (SciPy's M.rmatvec, for bicg).
template <typename T>
class PythonPreconditioner : public solver::PreconditionerOperator<T> {
public:
    PythonPreconditioner(const Executor& exec, std::size_t n, nb::object f, nb::object rf)
        : exec_(exec), n_(n), f_(std::move(f)), rf_(std::move(rf)) {}
    std::size_t size() const override { return n_; }
    const Executor& executor() const override { return exec_; }
    void apply(const_view<T> r, view<T> z) const override {
        call_python<T>(f_, exec_, "preconditioner M", r, z);
    }
    std::string name() const override { return "python"; }
    bool has_transpose() const override { return !rf_.is_none(); }
    void apply_transpose(const_view<T> r, view<T> z) const override {
        if (rf_.is_none()) solver::PreconditionerOperator<T>::apply_transpose(r, z);
        call_python<T>(rf_, exec_, "preconditioner M (rmatvec)", r, z);
    }

private:
    Executor exec_;
    std::size_t n_;
    nb::object f_, rf_;
};

template <typename T>
std::vector<T> to_vector(const Any1<T>& a) {
    return std::vector<T>(a.data(), a.data() + a.size());
}

/// CSR with int32 column indices and row offsets P: int32, or int64 (SciPy's index arrays past
/// 2^31 - 1 entries; Csr::borrow then keeps 64-bit offsets only where the entries need them,
/// else takes a 32-bit copy, 4 bytes per row). Arrays the executor reads (host arrays on a CPU
/// backend, arrays of GPU N on cuda:N) are borrowed, not copied; host arrays on cuda are copied
/// to the GPU. GPU arrays with 64-bit offsets are refused: that path has not run on a GPU.
template <typename T, typename P>
std::unique_ptr<Operator<T>> make_csr(const std::string& backend, std::size_t rows,
                                      std::size_t cols, Any1<P> indptr, Any1<std::int32_t> indices,
                                      Any1<T> data) {
    if (indptr.size() != rows + 1) throw DimensionMismatch("csr: indptr", rows + 1, indptr.size());
    if (indices.size() != data.size())
        throw DimensionMismatch("csr: indices", data.size(), indices.size());
    const Place p = place_of(data, "A");
    if (!(place_of(indptr, "A") == p) || !(place_of(indices, "A") == p))
        throw BadInput("A: its indptr, indices and data are on different devices");
    constexpr bool wide = std::is_same_v<P, std::int64_t>;
    if (wide && !p.host)
        throw Unsupported("A: 64-bit row offsets in GPU memory (" + p.name() +
                          "): give the matrix on the host, or with fewer than 2^31 - 1 entries");
    auto result = std::make_unique<Operator<T>>();
    const Executor exec = executor_for(backend, p, "A");
    if (reachable(exec, p)) {
        if constexpr (wide)
            result->row_ptrs64 = indptr;
        else
            result->row_ptrs = indptr;
        result->col_idxs = indices;
        result->values = data;
        nb::gil_scoped_release nogil;
        result->op = std::make_unique<Csr<T>>(
            Csr<T>::borrow(exec, rows, cols, {indptr.data(), indptr.size()},
                           {indices.data(), indices.size()}, {data.data(), data.size()}));
    } else {
        auto ptr = to_vector(indptr), col = to_vector(indices);
        auto val = to_vector(data);
        nb::gil_scoped_release nogil;
        if constexpr (wide)
            result->op =
                std::make_unique<Csr<T>>(Csr<T>::from_arrays(exec, rows, cols, ptr, col, val));
        else
            result->op = std::make_unique<Csr<T>>(exec, rows, cols, ptr, col, val);
    }
    result->values_ptr =
        reinterpret_cast<std::uintptr_t>(static_cast<const Csr<T>&>(*result->op).values().data());
    result->backend = exec.name();
    return result;
}

/// Dense row-major, borrowed or copied as make_csr.
template <typename T>
std::unique_ptr<Operator<T>> make_dense(const std::string& backend, Any2<T> a) {
    const std::size_t rows = a.shape(0), cols = a.shape(1);
    const Place p = place_of(a, "A");
    auto result = std::make_unique<Operator<T>>();
    const Executor exec = executor_for(backend, p, "A");
    if (reachable(exec, p)) {
        result->dense = a;
        result->op =
            std::make_unique<Dense<T>>(Dense<T>::borrow(exec, rows, cols, {a.data(), a.size()}));
    } else {
        std::vector<T> v(a.data(), a.data() + rows * cols);
        nb::gil_scoped_release nogil;
        result->op = std::make_unique<Dense<T>>(exec, rows, cols, v);
    }
    result->values_ptr =
        reinterpret_cast<std::uintptr_t>(static_cast<const Dense<T>&>(*result->op).values().data());
    result->backend = exec.name();
    return result;
}

template <typename T>
std::unique_ptr<Operator<T>> make_callback(const std::string& backend, std::size_t rows,
                                           std::size_t cols, nb::object matvec,
                                           nb::object rmatvec) {
    const Executor exec = executor_named(backend);
    auto result = std::make_unique<Operator<T>>();
    typename CallbackOperator<T>::ApplyFn transpose;
    if (!rmatvec.is_none())
        transpose = [f = std::move(rmatvec), exec](const_view<T> x, view<T> y) {
            call_python<T>(f, exec, "operator A (rmatvec)", x, y);
        };
    // The lambdas own a reference to matvec and rmatvec; destroyed with the operator, GIL held.
    result->op = std::make_unique<CallbackOperator<T>>(
        exec, rows, cols,
        [f = std::move(matvec), exec](const_view<T> x, view<T> y) {
            call_python<T>(f, exec, "operator A (matvec)", x, y);
        },
        typename CallbackOperator<T>::DiagonalFn{}, std::move(transpose));
    result->backend = exec.name();
    return result;
}

/// A multigrid hierarchy (solver::Amg) of a CSR operator, for portla.pyamg. The Python object
/// keeps its operator (whose arrays the hierarchy reads) alive: nb::keep_alive in its binding.
template <typename T>
struct Multigrid {
    std::unique_ptr<solver::Amg<T>> amg;
    std::string backend;
    /// Held while a cycle runs: the hierarchy's cycles share its vectors (one apply at a time).
    mutable std::mutex busy;
};

/// The hierarchy of A's CSR matrix, built where A lives with the GIL released.
template <typename T>
std::unique_ptr<Multigrid<T>> make_multigrid(const Operator<T>& A,
                                             const solver::AmgSettings& settings) {
    const auto* csr = dynamic_cast<const Csr<T>*>(A.op.get());
    if (!csr)
        throw BadInput("amg: the hierarchy is built from a sparse (csr) matrix, not a " +
                       A.op->format() + " operator");
    auto result = std::make_unique<Multigrid<T>>();
    result->backend = A.backend;
    nb::gil_scoped_release nogil;
    result->amg = std::make_unique<solver::Amg<T>>(*csr, settings);
    return result;
}

/// z = one cycle from zero for the right-hand side r, into the caller's z. Arrays the
/// hierarchy's executor reads are used in place; host arrays with a GPU hierarchy are staged
/// through device copies. Blocks until z is written.
template <typename T>
void multigrid_apply(const Multigrid<T>& mg, Any1<T> r, AnyOut1<T> z) {
    const solver::Amg<T>& M = *mg.amg;
    const Executor& exec = M.executor();
    if (r.size() != M.size()) throw DimensionMismatch("amg: r", M.size(), r.size());
    if (z.size() != M.size()) throw DimensionMismatch("amg: z", M.size(), z.size());
    const Place pr = place_of(r, "r"), pz = place_of(z, "z");
    if (!(pr == pz)) throw BadInput("amg: r is on " + pr.name() + ", z on " + pz.name());
    if (!reachable(exec, pr) && !pr.host)
        throw BadInput("amg: r is on " + pr.name() + ", the hierarchy on " + exec.name());
    if (r.size() > 0 && static_cast<const void*>(r.data()) == static_cast<void*>(z.data()))
        throw BadInput("amg: r and z are the same array");
    nb::gil_scoped_release nogil;
    const std::lock_guard<std::mutex> lock(mg.busy);
    if (reachable(exec, pr)) {
        M.apply(const_view<T>(r.data(), r.size()), view<T>(z.data(), z.size()));
        exec.synchronize();
        return;
    }
    Array<T> rd(exec, r.size()), zd(exec, z.size());
    Executor::copy_bytes(exec, rd.data(), Executor::reference(), r.data(), r.size() * sizeof(T));
    M.apply(std::as_const(rd).get_view(), zd.get_view());
    Executor::copy_bytes(Executor::reference(), z.data(), exec, zd.data(), z.size() * sizeof(T));
}

/// A CSR matrix of the hierarchy read back to the host: (rows, cols, indptr, indices, data).
template <typename T>
nb::tuple csr_to_host(const Csr<T>& a) {
    std::vector<std::int32_t> ptr, col;
    std::vector<T> val;
    {
        nb::gil_scoped_release nogil;
        ptr = a.row_ptrs().to_host();
        col = a.col_idxs().to_host();
        val = a.values().to_host();
    }
    return nb::make_tuple(a.rows(), a.cols(), to_numpy(std::move(ptr)), to_numpy(std::move(col)),
                          to_numpy(std::move(val)));
}

template <typename T>
nb::dict multigrid_info(const Multigrid<T>& mg) {
    const solver::AmgInfo& i = mg.amg->info();
    nb::dict d;
    nb::list levels;
    for (const auto& l : i.levels) levels.append(nb::make_tuple(l.rows, l.nnz));
    d["levels"] = levels;
    d["operator_complexity"] = i.operator_complexity;
    d["grid_complexity"] = i.grid_complexity;
    d["setup_seconds"] = i.setup_seconds;
    d["coarse_solver"] = i.coarse_solver;
    d["stopped"] = i.stopped;
    d["cycle_bytes"] = i.cycle_bytes;
    d["bytes"] = i.bytes;
    d["float_hierarchy"] = i.float_hierarchy;
    return d;
}

/// What the solve returns besides x.
struct SolveInfo {
    solver::Result result;
    double time_s = 0;  ///< the C++ solver call alone (steady clock, synchronised)
    std::string backend;
    /// The kernel variants the solve took, step -> kernel (kernel_choices; empty on CPUs).
    std::vector<std::pair<std::string, std::string>> kernels;
    /// Where the solver read b and wrote x: the caller's buffers, unless host arrays were
    /// staged through the GPU (then portla's device copies).
    std::uintptr_t b_ptr = 0, x_ptr = 0;
};

/// Complex values (complex64, complex128).
template <typename T>
inline constexpr bool is_complex = false;
template <typename R>
inline constexpr bool is_complex<std::complex<R>> = true;

/// The Krylov solver `which` with preconditioner pm (none: null); qmr with pm2 as its right
/// preconditioner (pm its left one) when pm2 is given. Complex values: solver::solves_complex.
template <typename T>
void run_krylov(solver::Solver which, const LinearOperator<T>& op,
                const solver::PreconditionerOperator<T>* pm,
                const solver::PreconditionerOperator<T>* pm2, const_view<T> bv, view<T> xv,
                const solver::Settings& settings, solver::Result& result) {
    if (pm2 && which != solver::Solver::qmr)
        throw BadInput(solver::to_string(which) + ": a right preconditioner M2 is qmr's");
    if constexpr (is_complex<T>) {
        if (!solver::solves_complex(which))
            throw Unsupported(solver::to_string(which) + ": complex values (" +
                              (sizeof(T) == 16 ? "complex128" : "complex64") + ") are solved by " +
                              solver::complex_solver_names("and") + " only");
    }
    // Calls solver `name` with or without pm; REAL_ONLY: a solver without a complex path
    // (refused above for complex values).
#define PORTLA_RUN_KRYLOV(name) \
    result = pm ? solver::name(op, *pm, bv, xv, settings) : solver::name(op, bv, xv, settings)
#define PORTLA_REAL_ONLY(name) \
    if constexpr (!is_complex<T>) PORTLA_RUN_KRYLOV(name)
    switch (which) {
        case solver::Solver::cg:
            PORTLA_RUN_KRYLOV(cg);
            break;
        case solver::Solver::bicgstab:
            PORTLA_RUN_KRYLOV(bicgstab);
            break;
        case solver::Solver::gmres:
            PORTLA_RUN_KRYLOV(gmres);
            break;
        case solver::Solver::cgs:
            PORTLA_RUN_KRYLOV(cgs);
            break;
        case solver::Solver::tfqmr:
            PORTLA_RUN_KRYLOV(tfqmr);
            break;
        case solver::Solver::pipecg:
            PORTLA_REAL_ONLY(pipecg);
            break;
        case solver::Solver::minres:
            PORTLA_REAL_ONLY(minres);
            break;
        case solver::Solver::lgmres:
            PORTLA_RUN_KRYLOV(lgmres);
            break;
        case solver::Solver::gcrotmk:
            PORTLA_RUN_KRYLOV(gcrotmk);
            break;
        case solver::Solver::bicg:
            PORTLA_RUN_KRYLOV(bicg);
            break;
        case solver::Solver::qmr:
            result = pm2  ? solver::qmr(op, pm, pm2, bv, xv, settings)
                     : pm ? solver::qmr(op, *pm, bv, xv, settings)
                          : solver::qmr(op, bv, xv, settings);
            break;
    }
#undef PORTLA_REAL_ONLY
#undef PORTLA_RUN_KRYLOV
}

/// lsqr or lsmr (`method`) of host arrays: b (A.rows()), x (A.cols(), x0 when
/// settings.use_initial_guess) and var (A.cols(), lsqr's variance when settings.calc_var),
/// staged through arrays of A's executor. Returns the solver's result.
template <typename T>
solver::LeastSquaresResult least_squares(const std::string& method, const Operator<T>& A, In1<T> b,
                                         Out1<T> x, Out1<T> var,
                                         const solver::LeastSquaresSettings& settings) {
    const LinearOperator<T>& op = *A.op;
    const Executor& exec = op.executor();
    if (method != "lsqr" && method != "lsmr")
        throw BadInput("least squares: method must be lsqr or lsmr (got " + method + ")");
    if (b.size() != op.rows()) throw DimensionMismatch(method + ": b", op.rows(), b.size());
    if (x.size() != op.cols()) throw DimensionMismatch(method + ": x0", op.cols(), x.size());
    if (var.size() != op.cols()) throw DimensionMismatch(method + ": var", op.cols(), var.size());
    nb::gil_scoped_release nogil;
    Array<T> bd(exec, b.size()), xd(exec, x.size()), vd(exec, var.size());
    Executor::copy_bytes(exec, bd.data(), Executor::reference(), b.data(), b.size() * sizeof(T));
    if (settings.use_initial_guess)
        Executor::copy_bytes(exec, xd.data(), Executor::reference(), x.data(),
                             x.size() * sizeof(T));
    const solver::LeastSquaresResult r = method == "lsqr"
                                             ? solver::lsqr<T>(op, bd, xd, settings, vd)
                                             : solver::lsmr<T>(op, bd, xd, settings);
    Executor::copy_bytes(Executor::reference(), x.data(), exec, xd.data(), x.size() * sizeof(T));
    if (settings.calc_var)
        Executor::copy_bytes(Executor::reference(), var.data(), exec, vd.data(),
                             var.size() * sizeof(T));
    return r;
}

/// Solves A x = b into the caller's x (its contents the initial guess when use_initial_guess).
/// b and x are used in place when the executor reads their memory, else (host arrays on cuda)
/// staged through device copies and x written back. iterate(i), when given, is called after
/// each iteration of cg and bicgstab, and at the end of each restart cycle of gmres, with x
/// holding iterate i. minimised(i, norm), when given, is gmres's
/// Settings::minimised_residual_monitor. M: none, a Python callable (z = M(r)) or a Multigrid on
/// A's device; method "amg" runs the Multigrid's cycles alone (solver::amg_solve).
template <typename T>
SolveInfo solve(const std::string& method, const Operator<T>& A, Any1<T> b, AnyOut1<T> x,
                bool use_initial_guess, solver::Settings settings, nb::object M, nb::object monitor,
                nb::object iterate, nb::object minimised) {
    const LinearOperator<T>& op = *A.op;
    const Executor& exec = op.executor();
    if (b.size() != op.rows()) throw DimensionMismatch(method + ": b", op.rows(), b.size());
    if (x.size() != op.cols()) throw DimensionMismatch(method + ": x0", op.cols(), x.size());
    // A hierarchy as M is applied where it lives, without Python; method "amg": its cycles alone.
    const Multigrid<T>* mg = nullptr;
    if constexpr (!is_complex<T>) {
        if (!M.is_none() && nb::isinstance<Multigrid<T>>(M)) {
            mg = nb::cast<const Multigrid<T>*>(M);
            const Executor& e = mg->amg->executor();
            if (e.is_host() != exec.is_host() ||
                (!e.is_host() && e.device_id() != exec.device_id()))
                throw BadInput(method + ": the multigrid hierarchy is on " + e.name() + ", A on " +
                               exec.name());
        }
    }
    const bool stationary = method == "amg";
    if (stationary && !mg) throw BadInput("amg: cycles alone need a multigrid hierarchy as M");
    const solver::Solver which = stationary ? solver::Solver::cg : solver::parse_solver(method);
    const Place pb = place_of(b, "b"), px = place_of(x, "x0");
    if (!(pb == px)) throw BadInput("b is on " + pb.name() + ", x0 on " + px.name());
    if (!reachable(exec, pb) && !pb.host)
        throw BadInput("b is on " + pb.name() + ", A on " +
                       (exec.is_host() ? std::string("the host")
                                       : "cuda:" + std::to_string(exec.device_id())));
    if (b.size() > 0 && static_cast<const void*>(b.data()) == static_cast<void*>(x.data()))
        throw BadInput(method + ": x0 and b are the same array");
    settings.use_initial_guess = use_initial_guess;
    // Host arrays on a GPU backend: device copies of b (and of x when it is the guess).
    const bool staged = !reachable(exec, pb);
    Array<T> bd, xd;
    const_view<T> bv(b.data(), b.size());
    view<T> xv(x.data(), x.size());
    if (staged) {
        bd = Array<T>(exec, b.size());
        xd = Array<T>(exec, x.size());
        Executor::copy_bytes(exec, bd.data(), Executor::reference(), b.data(),
                             b.size() * sizeof(T));
        if (use_initial_guess)
            Executor::copy_bytes(exec, xd.data(), Executor::reference(), x.data(),
                                 x.size() * sizeof(T));
        bv = bd;
        xv = xd;
    }
    std::unique_ptr<PythonPreconditioner<T>> python_m;
    // M: a callable (M^-1 r), a tuple of two (M^-1 r, M^-T r), or qmr's split preconditioners
    // as a dict {"M1": ..., "M2": ...} of such tuples (None: the identity).
    auto python_preconditioner = [&](nb::object f) -> std::unique_ptr<PythonPreconditioner<T>> {
        if (f.is_none()) return nullptr;
        const bool pair = nb::isinstance<nb::tuple>(f);
        return std::make_unique<PythonPreconditioner<T>>(
            exec, op.rows(), pair ? nb::object(f[0]) : f, pair ? nb::object(f[1]) : nb::none());
    };
    std::unique_ptr<PythonPreconditioner<T>> python_m2;
    if (nb::isinstance<nb::dict>(M)) {
        const nb::dict split = nb::borrow<nb::dict>(M);
        python_m =
            python_preconditioner(split.contains("M1") ? nb::object(split["M1"]) : nb::none());
        python_m2 =
            python_preconditioner(split.contains("M2") ? nb::object(split["M2"]) : nb::none());
    } else if (!M.is_none() && !mg) {
        python_m = python_preconditioner(M);
    }
    const solver::PreconditionerOperator<T>* pm =
        mg ? static_cast<const solver::PreconditionerOperator<T>*>(mg->amg.get()) : python_m.get();
    const auto* csr = dynamic_cast<const Csr<T>*>(&op);
    if (stationary && !csr) throw BadInput("amg: cycles alone need a sparse (csr) matrix A");

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
    if (!iterate.is_none())
        settings.iterate_monitor = [&](int iteration) {
            if (staged)
                Executor::copy_bytes(Executor::reference(), x.data(), exec, xd.data(),
                                     x.size() * sizeof(T));
            else
                exec.synchronize();  // x is the caller's, read by Python on its own stream
            nb::gil_scoped_acquire gil;
            iterate(iteration);
        };
    if (!minimised.is_none())
        settings.minimised_residual_monitor = [&](int iteration, double norm) {
            nb::gil_scoped_acquire gil;
            minimised(iteration, norm);
        };

    SolveInfo info;
    info.backend = exec.name();
    info.b_ptr = reinterpret_cast<std::uintptr_t>(bv.data);
    info.x_ptr = reinterpret_cast<std::uintptr_t>(xv.data);
    {
        nb::gil_scoped_release nogil;
        std::unique_lock<std::mutex> lock;
        if (mg) lock = std::unique_lock<std::mutex>(mg->busy);
        clear_kernel_choices();
        const auto start = clock::now();
        if (stationary) {
            if constexpr (!is_complex<T>)  // stationary needs mg: real values only
                info.result = solver::amg_solve(*mg->amg, *csr, bv, xv, settings);
        } else {
            run_krylov(which, op, pm, python_m2.get(), bv, xv, settings, info.result);
        }
        exec.synchronize();
        info.time_s = std::chrono::duration<double>(clock::now() - start).count();
        for (const auto& k : kernel_choices()) info.kernels.emplace_back(k.step, k.kernel);
        if (staged)
            Executor::copy_bytes(Executor::reference(), x.data(), exec, xd.data(),
                                 x.size() * sizeof(T));
    }
    // The hooks' captures end here; drop them before the settings outlive them.
    settings.monitor = nullptr;
    settings.iterate_monitor = nullptr;
    settings.minimised_residual_monitor = nullptr;
    return info;
}

/// The batched solvers on one shared CSR pattern (host arrays): x (num_systems * n), and per
/// system iterations, stop-reason codes (solver::StopReason), residual norms and ||b_s||.
/// The systems are solved in chunks, with the GIL released, each sized to take about 50 ms
/// (from the time per system of the chunk before); between chunks a pending signal
/// (KeyboardInterrupt) ends the solve. A system's result does not depend on its chunk.
template <typename T>
nb::tuple batch_solve(const std::string& backend, std::size_t n, In1<std::int32_t> row_ptrs,
                      In1<std::int32_t> col_idxs, In1<double> values, In1<double> rhs,
                      const std::string& format, const std::string& method,
                      const std::string& precond, bool absolute, double tolerance, int max_iters,
                      int restart, int block_size, bool shared_memory) {
    batch::BatchData part;  // the systems of one chunk (the pattern is every system's)
    part.n = n;
    part.row_ptrs.assign(row_ptrs.data(), row_ptrs.data() + row_ptrs.size());
    part.col_idxs.assign(col_idxs.data(), col_idxs.data() + col_idxs.size());
    const std::size_t num_systems = n > 0 ? rhs.size() / n : 0, nnz = part.nnz();
    if (values.size() != num_systems * nnz)
        throw DimensionMismatch("batch: values", num_systems * nnz, values.size());
    if (num_systems == 0) throw BadInput("batch: the batch holds no systems");
    const bool direct = method == "direct";
    batch::Settings s;
    if (!direct) {
        s.solver = solver::parse_solver(method);
        s.precond = solver::parse_preconditioner(precond);
    } else if (precond != "none") {
        throw BadInput("batch: solver 'direct' takes no preconditioner (got '" + precond + "')");
    }
    s.tolerance_type = absolute ? batch::ToleranceType::absolute : batch::ToleranceType::relative;
    s.tolerance = tolerance;
    s.max_iters = max_iters;
    s.restart = restart;
    s.block_size = block_size;
    s.shared_memory = shared_memory;
    const Format f = parse_format(format);
    if (direct && f != Format::dense)
        throw BadInput("batch: solver 'direct' needs format 'dense' (got '" + format + "')");
    batch::Result r;
    std::vector<T> x;
    x.reserve(num_systems * n);
    std::string name;
    {
        nb::gil_scoped_release nogil;
        const Executor exec = executor_named(backend);
        name = exec.name();
        using clock = std::chrono::steady_clock;
        constexpr double target_s = 0.05;
        std::size_t first = 0, chunk = std::min<std::size_t>(num_systems, 16);
        while (first < num_systems) {
            const std::size_t count = std::min(chunk, num_systems - first);
            const auto start = clock::now();
            part.num_systems = count;
            part.values.assign(values.data() + first * nnz, values.data() + (first + count) * nnz);
            part.rhs.assign(rhs.data() + first * n, rhs.data() + (first + count) * n);
            const batch::BatchMatrix<T> A(exec, part, f);
            const Array<T> bd(exec, std::vector<T>(part.rhs.begin(), part.rhs.end()));
            Array<T> xd(exec, std::vector<T>(count * n, T(0)));
            const batch::Result c =
                direct ? batch::direct_solve(A, bd, xd) : batch::solve(A, bd, xd, s);
            const std::vector<T> xc = xd.to_host();
            x.insert(x.end(), xc.begin(), xc.end());
            r.iterations.insert(r.iterations.end(), c.iterations.begin(), c.iterations.end());
            r.reason.insert(r.reason.end(), c.reason.begin(), c.reason.end());
            r.residual_norm.insert(r.residual_norm.end(), c.residual_norm.begin(),
                                   c.residual_norm.end());
            r.rhs_norm.insert(r.rhs_norm.end(), c.rhs_norm.begin(), c.rhs_norm.end());
            r.time_s += c.time_s;
            first += count;
            // The next chunk: about target_s at this chunk's time per system, at most 4 times
            // as many systems.
            const double took = std::chrono::duration<double>(clock::now() - start).count();
            const double fit = took > 0 ? double(count) * target_s / took : 4.0 * double(count);
            chunk = static_cast<std::size_t>(std::clamp(fit, 1.0, 4.0 * double(count)));
            nb::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0) throw nb::python_error();
        }
    }
    std::vector<std::uint8_t> reasons(r.reason.size());
    for (std::size_t i = 0; i < reasons.size(); ++i)
        reasons[i] = static_cast<std::uint8_t>(r.reason[i]);
    return nb::make_tuple(to_numpy(std::move(x)), to_numpy(std::move(r.iterations)),
                          to_numpy(std::move(reasons)), to_numpy(std::move(r.residual_norm)),
                          to_numpy(std::move(r.rhs_norm)), r.time_s, name);
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
        const Executor exec = executor_named(backend);
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
        const Executor exec = executor_named(backend);
        const GemmVariant v = parse_gemm_variant(variant);
        Array<T> ad(exec, av), bd(exec, bv), cd(exec, m * n);
        portla::gemm<T>(exec, m, n, k, T{1}, ad, bd, T{0}, cd, v);
        *c = cd.to_host();
    }
    return Out2<T>(c->data(), {m, n}, owner);
}

/// The operators over host or device arrays (CSR, matrix-free) and the Krylov solve, for real
/// and complex values.
template <typename T>
void bind_operators(nb::module_& m, const std::string& s) {
    nb::class_<Operator<T>>(m, ("Operator" + s).c_str())
        .def_prop_ro(
            "shape",
            [](const Operator<T>& o) { return nb::make_tuple(o.op->rows(), o.op->cols()); })
        .def_prop_ro("format", [](const Operator<T>& o) { return o.op->format(); })
        .def_prop_ro("backend", [](const Operator<T>& o) { return o.backend; })
        .def_prop_ro("nnz", [](const Operator<T>& o) { return o.op->nnz(); })
        .def_prop_ro(
            "index_width",
            [](const Operator<T>& o) {
                const auto* csr = dynamic_cast<const Csr<T>*>(o.op.get());
                return csr ? to_string(csr->index()) : std::string();
            },
            "A CSR operator's index form: '32', '64/32' (64-bit row offsets) or '64'; '' for "
            "other operators.")
        .def_ro("values_ptr", &Operator<T>::values_ptr,
                "Address of the values the operator reads (0 for a matrix-free one).");
    m.def(("csr" + s).c_str(), &make_csr<T, std::int32_t>, "backend"_a, "rows"_a, "cols"_a,
          "indptr"_a, "indices"_a, "data"_a,
          "A CSR operator (int32 indices): the arrays borrowed where the backend reads them, "
          "else copied.");
    m.def(("csr64" + s).c_str(), &make_csr<T, std::int64_t>, "backend"_a, "rows"_a, "cols"_a,
          "indptr"_a, "indices"_a, "data"_a,
          "A CSR operator over host arrays with 64-bit row offsets and int32 column indices "
          "(its index form chosen by portla: 32-bit where the matrix fits).");
    m.def(("dense" + s).c_str(), &make_dense<T>, "backend"_a, "a"_a,
          "A dense row-major operator: borrowed where the backend reads it, else copied.");
    m.def(("callback" + s).c_str(), &make_callback<T>, "backend"_a, "rows"_a, "cols"_a, "matvec"_a,
          "rmatvec"_a = nb::none(),
          "A matrix-free operator: y = matvec(x), and y = rmatvec(x) = A^T x when given, called "
          "with the GIL held.");
    m.def(("least_squares" + s).c_str(), &least_squares<T>, "method"_a, "A"_a, "b"_a, "x"_a,
          "var"_a, "settings"_a,
          "lsqr or lsmr of host arrays into x (and var): returns the LeastSquaresResult.");
    m.def(("solve" + s).c_str(), &solve<T>, "method"_a, "A"_a, "b"_a, "x"_a, "use_initial_guess"_a,
          "settings"_a, "M"_a.none(), "monitor"_a.none(), "iterate"_a.none(),
          "minimised"_a.none() = nb::none(),
          "Solves A x = b by cg, bicgstab, gmres, pipecg, minres, cgs, tfqmr, lgmres or gcrotmk "
          "into x (in place), "
          "or by the cycles "
          "of a Multigrid M alone (method 'amg'); returns SolveInfo.");
}

template <typename T>
void bind_precision(nb::module_& m, const char* suffix) {
    const std::string s = suffix;
    bind_operators<T>(m, s);
    nb::class_<Multigrid<T>>(m, ("Multigrid" + s).c_str(),
                             "A multigrid hierarchy (solver::Amg) of a CSR operator.")
        .def_prop_ro("backend", [](const Multigrid<T>& g) { return g.backend; })
        .def_prop_ro("size", [](const Multigrid<T>& g) { return g.amg->size(); })
        .def_prop_ro(
            "levels", [](const Multigrid<T>& g) { return g.amg->info().levels.size(); },
            "Levels of the hierarchy, the finest included.")
        .def_prop_rw(
            "cycle", [](const Multigrid<T>& g) { return solver::to_string(g.amg->cycle()); },
            [](Multigrid<T>& g, const std::string& name) {
                const solver::AmgCycle c = solver::parse_amg_cycle(name);
                const std::lock_guard<std::mutex> lock(g.busy);
                g.amg->set_cycle(c);
            },
            "The cycle of the applies and solves that follow: 'v' or 'w'.")
        .def("apply", &multigrid_apply<T>, "r"_a, "z"_a,
             "z = one cycle from zero for the right-hand side r (in place into z).")
        .def(
            "level_operator",
            [](const Multigrid<T>& g, std::size_t l) {
                return csr_to_host(g.amg->level_operator(l));
            },
            "level"_a, "Level l's operator read back: (rows, cols, indptr, indices, data).")
        .def(
            "prolongator",
            [](const Multigrid<T>& g, std::size_t l) { return csr_to_host(g.amg->prolongator(l)); },
            "level"_a,
            "The prolongator from level l + 1 to level l read back: (rows, cols, indptr, "
            "indices, data).")
        .def(
            "aggregates",
            [](const Multigrid<T>& g, std::size_t l) {
                std::vector<std::int32_t> a;
                {
                    nb::gil_scoped_release nogil;
                    a = g.amg->aggregates(l);
                }
                return to_numpy(std::move(a));
            },
            "level"_a,
            "Each row's aggregate on level l (-1: none); classical: each coarse row's number on "
            "the next level, -1 for a fine row.")
        .def("info", &multigrid_info<T>,
             "The hierarchy as built: levels ((rows, nnz) each), complexities, set-up time, "
             "coarse solver, why coarsening stopped, bytes.");
    m.def(("multigrid" + s).c_str(), &make_multigrid<T>, "A"_a, "settings"_a,
          nb::keep_alive<0, 1>(),
          "The multigrid hierarchy of a CSR operator, built on its executor.");
    m.def(("batch_solve" + s).c_str(), &batch_solve<T>, "backend"_a, "n"_a, "row_ptrs"_a,
          "col_idxs"_a, "values"_a, "rhs"_a, "format"_a, "solver"_a, "precond"_a, "absolute"_a,
          "tolerance"_a, "max_iters"_a, "restart"_a, "block_size"_a, "shared_memory"_a,
          "Batched solve on one CSR pattern; returns (x, iterations, reason codes, residual "
          "norms, rhs norms, time_s, backend).");
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

/// The name of an enumerator of `names` (its index is the value) and back; BadInput for a name
/// that is none of them.
template <typename E, std::size_t N>
nb::class_<KernelOptions>& bind_choice(nb::class_<KernelOptions>& c, const char* field,
                                       E KernelOptions::*member, const char* const (&names)[N]) {
    return c.def_prop_rw(
        field,
        [member, &names](const KernelOptions& o) { return std::string(names[int(o.*member)]); },
        [member, &names, field](KernelOptions& o, const std::string& name) {
            for (std::size_t i = 0; i < N; ++i)
                if (name == names[i]) {
                    o.*member = static_cast<E>(i);
                    return;
                }
            std::string accepted;
            for (std::size_t i = 0; i < N; ++i)
                accepted += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + names[i];
            throw BadInput(std::string("KernelOptions.") + field + " = '" + name + "': expected " +
                           accepted);
        });
}

constexpr const char* kCsrRows[] = {"chunked", "loop"};
constexpr const char* kCgDirections[] = {"automatic", "pass", "fly"};
constexpr const char* kCgStencils[] = {"automatic", "points", "lines", "lines1024", "ring"};
constexpr const char* kSlabStencils[] = {"automatic", "points", "ring"};
constexpr const char* kGemmTiles[] = {"automatic", "large", "small"};

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

    // Smoothed aggregation multigrid's settings (Settings.amg; solver/settings.hpp), the
    // smoother and cycle by their names.
    nb::class_<solver::AmgSettings>(m, "AmgSettings")
        .def(nb::init<>())
        .def_rw("method", &solver::AmgSettings::method)
        .def_rw("strength_threshold", &solver::AmgSettings::strength_threshold)
        .def_rw("coarse_strength_threshold", &solver::AmgSettings::coarse_strength_threshold)
        .def_rw("coarsening", &solver::AmgSettings::coarsening)
        .def_rw("interpolation", &solver::AmgSettings::interpolation)
        .def_rw("trunc_factor", &solver::AmgSettings::trunc_factor)
        .def_rw("interp_max_entries", &solver::AmgSettings::interp_max_entries)
        .def_rw("aggressive_levels", &solver::AmgSettings::aggressive_levels)
        .def_rw("aggressive_interpolation", &solver::AmgSettings::aggressive_interpolation)
        .def_prop_rw(
            "smoother", [](const solver::AmgSettings& s) { return solver::to_string(s.smoother); },
            [](solver::AmgSettings& s, const std::string& name) {
                s.smoother = solver::parse_amg_smoother(name);
            })
        .def_rw("sweeps", &solver::AmgSettings::sweeps)
        .def_rw("chebyshev_degree", &solver::AmgSettings::chebyshev_degree)
        .def_prop_rw(
            "cycle", [](const solver::AmgSettings& s) { return solver::to_string(s.cycle); },
            [](solver::AmgSettings& s, const std::string& name) {
                s.cycle = solver::parse_amg_cycle(name);
            })
        .def_rw("max_levels", &solver::AmgSettings::max_levels)
        .def_rw("coarse_size", &solver::AmgSettings::coarse_size)
        .def_rw("prolongator_weight", &solver::AmgSettings::prolongator_weight)
        .def_rw("jacobi_weight", &solver::AmgSettings::jacobi_weight)
        .def_rw("mixed_precision", &solver::AmgSettings::mixed_precision);

    nb::class_<solver::KeptVectors>(m, "KeptVectors")
        .def(nb::init<>())
        .def_rw("first", &solver::KeptVectors::first)
        .def_rw("second", &solver::KeptVectors::second);

    nb::class_<solver::Settings>(m, "Settings")
        .def(nb::init<>())
        .def_rw("rtol", &solver::Settings::rtol)
        .def_rw("atol", &solver::Settings::atol)
        .def_rw("max_iters", &solver::Settings::max_iters)
        .def_rw("residual_replacement", &solver::Settings::residual_replacement)
        .def_rw("cg_indefinite_stops", &solver::Settings::cg_indefinite_stops)
        .def_prop_rw(
            "precond", [](const solver::Settings& s) { return solver::to_string(s.precond); },
            [](solver::Settings& s, const std::string& name) {
                s.precond = solver::parse_preconditioner(name);
            })
        .def_rw("restart", &solver::Settings::restart)
        .def_rw("left_preconditioning", &solver::Settings::left_preconditioning)
        .def_rw("flexible", &solver::Settings::flexible)
        .def_rw("shift", &solver::Settings::shift)
        .def_rw("lgmres_outer_k", &solver::Settings::lgmres_outer_k)
        .def_rw("lgmres_store_outer_av", &solver::Settings::lgmres_store_outer_av)
        .def_rw("lgmres_prepend_outer_v", &solver::Settings::lgmres_prepend_outer_v)
        .def_rw("lgmres_max_cycles", &solver::Settings::lgmres_max_cycles)
        .def_rw("gcrot_m", &solver::Settings::gcrot_m)
        .def_rw("gcrot_k", &solver::Settings::gcrot_k)
        .def_rw("gcrot_truncate_smallest", &solver::Settings::gcrot_truncate_smallest)
        .def_rw("kept", &solver::Settings::kept, nb::rv_policy::reference)
        .def_rw("gcrot_max_cycles", &solver::Settings::gcrot_max_cycles)
        .def_rw("block_size", &solver::Settings::block_size)
        .def_rw("chebyshev_degree", &solver::Settings::chebyshev_degree)
        .def_rw("amg", &solver::Settings::amg)
        .def_rw("ilut_drop_tolerance", &solver::Settings::ilut_drop_tolerance)
        .def_rw("ilut_fill", &solver::Settings::ilut_fill)
        .def_rw("ilut_pivoting", &solver::Settings::ilut_pivoting)
        .def_rw("ilut_rcm", &solver::Settings::ilut_rcm)
        .def_rw("ilut_matching", &solver::Settings::ilut_matching)
        .def_rw("iluk_level", &solver::Settings::iluk_level)
        .def_rw("record_history", &solver::Settings::record_history)
        .def_rw("device_loop", &solver::Settings::device_loop);

    nb::class_<solver::LeastSquaresSettings>(m, "LeastSquaresSettings")
        .def(nb::init<>())
        .def_rw("damp", &solver::LeastSquaresSettings::damp)
        .def_rw("atol", &solver::LeastSquaresSettings::atol)
        .def_rw("btol", &solver::LeastSquaresSettings::btol)
        .def_rw("conlim", &solver::LeastSquaresSettings::conlim)
        .def_rw("iter_lim", &solver::LeastSquaresSettings::iter_lim)
        .def_rw("use_initial_guess", &solver::LeastSquaresSettings::use_initial_guess)
        .def_rw("calc_var", &solver::LeastSquaresSettings::calc_var);
    nb::class_<solver::LeastSquaresResult>(m, "LeastSquaresResult")
        .def_ro("istop", &solver::LeastSquaresResult::istop)
        .def_ro("iterations", &solver::LeastSquaresResult::iterations)
        .def_ro("r1norm", &solver::LeastSquaresResult::r1norm)
        .def_ro("r2norm", &solver::LeastSquaresResult::r2norm)
        .def_ro("anorm", &solver::LeastSquaresResult::anorm)
        .def_ro("acond", &solver::LeastSquaresResult::acond)
        .def_ro("arnorm", &solver::LeastSquaresResult::arnorm)
        .def_ro("xnorm", &solver::LeastSquaresResult::xnorm);
    m.def("least_squares_message", &solver::least_squares_message, "istop"_a,
          "SciPy's message for an lsqr / lsmr istop code (0..7).");

    nb::class_<SolveInfo>(m, "SolveInfo")
        .def_prop_ro("converged", [](const SolveInfo& i) { return i.result.converged; })
        .def_prop_ro("reason",
                     [](const SolveInfo& i) { return solver::to_string(i.result.reason); })
        .def_prop_ro("iterations", [](const SolveInfo& i) { return i.result.iterations; })
        .def_prop_ro("cycles", [](const SolveInfo& i) { return i.result.cycles; })
        .def_prop_ro("residual_norm", [](const SolveInfo& i) { return i.result.residual_norm; })
        .def_prop_ro("rhs_norm", [](const SolveInfo& i) { return i.result.rhs_norm; })
        .def_prop_ro("history", [](const SolveInfo& i) { return i.result.history; })
        .def_ro("time_s", &SolveInfo::time_s)
        .def_ro("backend", &SolveInfo::backend)
        .def_prop_ro("kernels",
                     [](const SolveInfo& i) {
                         nb::dict d;
                         for (const auto& [step, kernel] : i.kernels) d[step.c_str()] = kernel;
                         return d;
                     })
        .def_ro("b_ptr", &SolveInfo::b_ptr)
        .def_ro("x_ptr", &SolveInfo::x_ptr);

    nb::class_<KernelOptions> options(m, "KernelOptions");
    options.def(nb::init<>())
        .def_rw("packed_loads", &KernelOptions::packed_loads)
        .def_rw("cluster_sums", &KernelOptions::cluster_sums)
        .def_rw("cluster_max", &KernelOptions::cluster_max)
        .def_rw("csr_split", &KernelOptions::csr_split)
        .def_rw("host_sparse", &KernelOptions::host_sparse)
        .def_rw("cg_stencil_planes", &KernelOptions::cg_stencil_planes)
        .def_rw("cg_stencil_ring_halo", &KernelOptions::cg_stencil_ring_halo)
        .def_rw("cg_block_loop_rows", &KernelOptions::cg_block_loop_rows)
        .def_rw("batch_warp_max_rows", &KernelOptions::batch_warp_max_rows)
        .def_rw("batch_registers", &KernelOptions::batch_registers)
        .def_rw("batch_reg_min_blocks", &KernelOptions::batch_reg_min_blocks);
    bind_choice(options, "csr_row", &KernelOptions::csr_row, kCsrRows);
    bind_choice(options, "cg_direction", &KernelOptions::cg_direction, kCgDirections);
    bind_choice(options, "cg_stencil", &KernelOptions::cg_stencil, kCgStencils);
    bind_choice(options, "slab_stencil", &KernelOptions::slab_stencil, kSlabStencils);
    bind_choice(options, "gemm_fast_tile", &KernelOptions::gemm_fast_tile, kGemmTiles);
    m.def(
        "set_kernel_options",
        [](std::optional<KernelOptions> o) {
            if (o) {
                const std::string problem = kernel_options_problem(*o);
                if (!problem.empty()) throw BadInput("kernel options: " + problem);
            }
            chosen_options() = o;
        },
        "options"_a.none());
    m.def("kernel_options",
          [] { return chosen_options() ? *chosen_options() : kernel_options_from_environment(); });

    bind_precision<double>(m, "_f64");
    bind_precision<float>(m, "_f32");
    // complex128 and complex64: CSR, dense and matrix-free operators and their solvers
    bind_operators<std::complex<double>>(m, "_c128");
    bind_operators<std::complex<float>>(m, "_c64");
    nb::list reasons;  // index: solver::StopReason's value
    for (int r = 0; r <= static_cast<int>(solver::StopReason::unstable_preconditioner); ++r)
        reasons.append(solver::to_string(static_cast<solver::StopReason>(r)));
    m.attr("stop_reasons") = reasons;
    nb::list complex_solvers;  // solver::solves_complex, in all_solvers' order
    for (const auto s : solver::all_solvers())
        if (solver::solves_complex(s)) complex_solvers.append(solver::to_string(s));
    m.attr("complex_solvers") = nb::tuple(complex_solvers);
    m.def("info", &info, "Backends compiled into this build, their devices, the GPUs.");
    m.def(
        "generate",
        [](const std::string& spec) {
            CsrData d = generate_csr(spec);
            return nb::make_tuple(d.rows, d.cols, to_numpy(std::move(d.row_ptrs)),
                                  to_numpy(std::move(d.col_idxs)), to_numpy(std::move(d.values)));
        },
        "spec"_a,
        "A generated test matrix (matrix/generate.hpp) as (rows, cols, indptr, indices, data).");
    m.attr("version") = "0.1.0";
}
