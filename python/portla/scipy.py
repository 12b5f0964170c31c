"""Drop-ins for scipy.sparse.linalg's cg, bicgstab, gmres, minres, cgs, tfqmr, lgmres,
gcrotmk, bicg and qmr, and its least-squares solvers lsqr and lsmr:

    from portla.scipy import cg          # instead of: from scipy.sparse.linalg import cg
    x, info = cg(A, b, rtol=1e-8, M="jacobi")

Same signature and return value as SciPy (>= 1.12): ``x, info`` with info 0 when converged,
> 0 (maxiter) when the iteration limit was reached, < 0 on breakdown (breakdown, non_finite,
indefinite, singular_preconditioner); illegal input raises ValueError as in SciPy. portla stops
when the true residual ||b - A x|| <= max(rtol ||b||, atol), recomputed, as SciPy's test on its
recurrence residual intends.

A: a scipy.sparse matrix or array (its CSR arrays read in place on the CPU backends, copied to
the GPU once per call on cuda; CSC, COO, ... converted once), a dense 2-D array, or a scipy.sparse.linalg.LinearOperator (matrix-free: portla calls its
matvec for each A x). M: a portla preconditioner name ("jacobi", "block-jacobi", "ilu0", "ic0",
"chebyshev", "amg": smoothed aggregation multigrid with its default settings, built from a sparse
A on A's device; "ilut": threshold ILU with drop tolerance 1e-4 and 10 entries of fill per row of
L and U, after a row permutation by matching and pivoting by columns (spilu pivots by rows); "iluk": ILU(1); portla.solve
takes their options) or, as in SciPy, a LinearOperator / matrix
approximating A^-1 (called for each M^-1 r). portla's own keywords: backend ("auto": cuda when a GPU is present, else omp;
with M from portla.pyamg's aspreconditioner(), the backend its hierarchy was built on),
precision ("double", "single"; default: single when A and b are float32) and monitor(iteration,
residual_norm), called after each iteration.

Differences from SciPy:

- bicg and qmr apply A^T: A's rmatvec for a LinearOperator (SciPy's), a sparse matrix's transpose
  (built once per solve on A's device, a second copy of A), a dense array taken as CSR; M as a
  LinearOperator needs its rmatvec, a matrix its transpose, and of portla's names only "jacobi"
  provides M^-T. qmr's M1 and M2 (SciPy's split preconditioners): each a LinearOperator
  (with rmatvec) or a matrix; a name only as M1 without M2.
- callback: for cg, bicgstab, minres, cgs, tfqmr and bicg it is called after each iteration
  with the current iterate, as
  in SciPy: the solver's own x array (SciPy's too), valid during the call (copy it to keep it).
  Set, it makes CG read its state back every iteration instead of every 16 (slower on the GPU).
  gmres follows SciPy's callback_type: "legacy" (the default, with SciPy's DeprecationWarning
  when a callback is given without callback_type) and "pr_norm" call it after each inner
  iteration with the preconditioned residual norm over ||b||, and "legacy" makes maxiter count
  inner iterations; "x" calls it with x at the end of every restart cycle.
- Operator applications: a zero initial guess (none, or all zeros) costs none (the first
  residual is b). Every solve ends with the true residual b - A x recomputed, which SciPy's cg
  and bicgstab do not compute: one more A x per solve (and one per false convergence of the
  recurrence residual, after which the solve goes on).
- GPU arrays (CuPy arrays and cupyx.scipy.sparse matrices, PyTorch CUDA tensors, dense or sparse
  CSR): A, b and x0 are used in place through DLPack, never copied, and x comes back as the
  caller's type on the same GPU: x0 itself, overwritten with the solution (unlike SciPy, which
  leaves x0 alone), or a new array like b. They must share one GPU, one dtype (float32 or
  float64; none is converted) and be contiguous; M must be a preconditioner name. int64 index
  arrays (PyTorch's default) are converted once to int32 on the GPU; CSC/COO matrices are
  converted to CSR once. Host (SciPy) matrices with int64 index arrays, such as SciPy's past
  2^31 - 1 entries, are taken with 64-bit row offsets.
- As SciPy: x0="Mb" starts from M b (b without M; M must then be a LinearOperator or a matrix:
  a preconditioner name is built inside the solve, ValueError); b = 0 returns x = 0 and info 0,
  whatever x0; an infinite rtol or atol returns x0 (or 0) and info 0 without iterating.
- gmres preconditions from the left, as SciPy does, and counts maxiter in restart cycles
  (inner iterations with callback_type "legacy" and a callback).
- lsqr and lsmr take any m x n A with A^T (a LinearOperator's rmatvec, a matrix's transpose) and
  return SciPy's tuples, the norms as Python floats; they run in double precision (as SciPy's,
  whatever the input dtype) on host arrays only (no GPU arrays, no monitor); show=True prints
  one line at the start and the stop message at the end.
- lgmres and gcrotmk count maxiter in cycles (SciPy's outer iterations) and report info as
  SciPy's, which tests convergence when a cycle starts: a solve that converges only in its last
  allowed cycle reports maxiter, and a non-finite value the cycles begun. outer_v (lgmres) and
  CU (gcrotmk) recycle vectors between calls as SciPy's lists do.
- cg goes on where p.Ap < 0, as SciPy's (portla.solve's cg stops there as indefinite).
- ``tol`` is accepted as a deprecated alias of ``rtol`` (removed from SciPy 1.14).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional, Tuple

import numpy as np

from . import _core
from .batch import _host

__all__ = [
    "cg",
    "bicgstab",
    "gmres",
    "minres",
    "cgs",
    "tfqmr",
    "lgmres",
    "gcrotmk",
    "bicg",
    "qmr",
    "lsqr",
    "lsmr",
]

_INT_MAX = 2**31 - 1
_INT64_MAX = 2**63 - 1


def _maxiter(maxiter: Any) -> int:
    """maxiter as an int >= 0 (any size: the solve's limit is capped at 2^31 - 1); a fraction,
    a non-number or a negative value raises, naming the keyword."""
    return _core.integer("maxiter", maxiter, 0, _INT64_MAX)


def _rtol(rtol: float, tol: Optional[float], name: str) -> float:
    if tol is None:
        return rtol
    warnings.warn(
        f"portla.scipy.{name}: keyword 'tol' is deprecated (as in SciPy); use 'rtol'",
        DeprecationWarning,
        stacklevel=3,
    )
    return tol


def _check_atol(atol: Any, name: str) -> float:
    if atol is None or isinstance(atol, str) or not atol >= 0:
        raise ValueError(
            f"portla.scipy.{name} called with invalid atol={atol!r}; "
            "if set, atol must be a real, non-negative number."
        )
    return float(atol)


def _info(r: Any, maxiter: int, cycles: bool = False) -> int:
    """SciPy's info from portla's result. cycles (lgmres and gcrotmk, maxiter counting cycles):
    as SciPy's, which tests convergence when a cycle starts, a solve that converges only by the
    end of its last allowed cycle reports maxiter (x is the converged one), and a non-finite value
    reports the cycles begun."""
    if cycles and r.reason == "non_finite":
        return max(r.cycles, 1)
    if r.converged:
        return maxiter if cycles and maxiter > 0 and r.cycles >= maxiter else 0
    if r.reason == "max_iterations":
        return max(int(maxiter), 1)
    return -1


def _copy(b: Any) -> Any:
    if _core._framework(b) == "torch":
        return b.detach().clone()
    return b.copy() if _core._framework(b) == "cupy" else np.array(b)


def _apply_m(M: Any, b: Any) -> Any:
    """M b, the initial guess x0='Mb' (b itself without M), as SciPy computes it."""
    if M is None:
        return _copy(b)
    if isinstance(M, str):
        raise ValueError(
            "x0='Mb' needs M as a LinearOperator or a matrix (or no M): a preconditioner "
            f"name ({M!r}) is built inside the solve"
        )
    if _core._is_linear_operator(M):
        return M.matvec(_copy(b))
    return M @ _copy(b)


def _rhs_norm(b: Any) -> float:
    """||b||, after refusing non-numeric values (whose norm would mislead); complex values are
    refused by the solve of a method without a complex path."""
    if _core._framework(b) is None:
        _core._check_real(np.asarray(b).dtype, "b", complex_ok=True)
    return _core.norm(b)


def _solve(
    method: str,
    A: Any,
    b: Any,
    x0: Any,
    rtol: float,
    atol: float,
    maxiter: int,
    max_iters: int,
    M: Any,
    backend: str,
    precision: Optional[str],
    monitor: Optional[Callable[[int, float], Any]],
    callback: Optional[Callable[[Any], Any]] = None,
    bnorm: Optional[float] = None,
    cycles: bool = False,
    **kwargs: Any,
) -> Tuple[Any, int]:
    """SciPy's rules around one portla solve: x0='Mb'; b = 0 gives x = 0 (x0 aside); an
    infinite tolerance returns x0 (or zero) at once; a zero x0 is no initial guess, so that the
    first residual is b, no operator applied. info as SciPy's, maxiter for the limit (cycles:
    _info's rules of lgmres and gcrotmk)."""
    if isinstance(x0, str):
        if x0 != "Mb":
            raise ValueError(f"x0: expected an array or 'Mb', got {x0!r}")
        x0 = _apply_m(M, b)
    # ||b|| only where a rule needs it (x0 given, an infinite tolerance): one pass over b.
    if bnorm is None and (x0 is not None or not (np.isfinite(rtol) and np.isfinite(atol))):
        bnorm = _rhs_norm(b)
    if x0 is not None:
        if _core._framework(x0) is not None:
            if bnorm == 0:
                x0[...] = 0  # used in place, and returned: x = 0
        elif _core._framework(A) is None and _core._framework(b) is None and (
            bnorm == 0 or not np.any(np.asarray(x0))
        ):
            # x = 0 without applying A; x0's size and type still checked.
            _core.vector(x0, np.float64, _core.shape_of(A)[1], "x0")
            x0 = None
    if bnorm == 0:
        rtol, atol = 0.0, 0.0  # x = 0 solves A x = 0 exactly: the solve stops at once, r = b = 0
    at_once = bnorm is not None and bnorm > 0 and not np.isfinite(max(atol, rtol * bnorm))
    if at_once:
        # Every residual meets an infinite tolerance: x0 (or zero) is the answer. Run without
        # an iteration for the checks and x, the tolerances finite for them.
        rtol, atol, max_iters = 0.0, 0.0, 0
    if method == "cg":  # as SciPy's: on through p.Ap < 0 (A not SPD); only p.Ap = 0 stops it
        kwargs.setdefault("cg_indefinite_stops", False)
    if isinstance(M, str) and M == "ilut":
        # as spilu, which pivots: by columns within rows, after a row permutation by matching
        kwargs.setdefault("ilut_pivoting", True)
        kwargs.setdefault("ilut_matching", True)
    x, r = _core.run(
        method,
        A,
        b,
        x0=x0,
        M=M,
        backend=backend,
        precision=precision,
        monitor=monitor,
        callback=callback,
        rtol=float(rtol),
        atol=atol,
        max_iters=min(int(max_iters), _INT_MAX),
        **kwargs,
    )
    return x, 0 if at_once else _info(r, maxiter, cycles)


def _short_recurrence(method: str, doc: str) -> Callable[..., Tuple[Any, int]]:
    """cg, bicgstab, cgs and bicg: SciPy's signature, one body."""

    def solve(
        A: Any,
        b: Any,
        x0: Any = None,
        *,
        rtol: float = 1e-5,
        atol: float = 0.0,
        maxiter: Optional[int] = None,
        M: Any = None,
        callback: Optional[Callable[[np.ndarray], Any]] = None,
        tol: Optional[float] = None,
        backend: str = "auto",
        precision: Optional[str] = None,
        monitor: Optional[Callable[[int, float], Any]] = None,
    ) -> Tuple[Any, int]:
        rtol = _rtol(rtol, tol, method)
        atol = _check_atol(atol, method)
        maxiter = 10 * _core.shape_of(A)[0] if maxiter is None else _maxiter(maxiter)
        return _solve(
            method, A, b, x0, rtol, atol, maxiter, maxiter, M, backend, precision, monitor, callback
        )

    solve.__name__ = solve.__qualname__ = method
    solve.__doc__ = doc
    return solve


# The parameters, returns and raises that cg, bicgstab, cgs and bicg share (their docstrings' body).
_SHORT_RECURRENCE_PARAMETERS = """
    :param A: the matrix: a scipy.sparse matrix or array (CSR read in place; CSC, COO, ...
        converted once), a dense 2-D array, a scipy.sparse.linalg.LinearOperator (matrix-free:
        its matvec is called for each A x), or on the GPU a CuPy / cupyx.scipy.sparse / PyTorch
        CUDA matrix, used in place.
    :param b: the right-hand side, n values (shape (n,) or (n, 1)). Complex A or b
        (complex64 / complex128; M "jacobi", "block-jacobi", "ilu0" or a LinearOperator on the host)
        are solved by cg
        (Hermitian positive definite A), bicgstab, gmres, cgs, tfqmr, lgmres and gcrotmk on the
        reference, omp, cuda and opencl backends, CuPy / PyTorch CUDA complex arrays
        (sparse CSR or dense A) in place on cuda;
        the other methods raise ValueError for them.
    :param x0: the initial guess (default zero), or "Mb" for M b. A GPU x0 is overwritten with
        the solution and returned; a host x0 is copied.
    :param rtol: relative tolerance: converged when the true residual
        ``norm(b - A x) <= max(rtol * norm(b), atol)`` (infinite: x0 is the answer).
    :param atol: absolute tolerance (a real number >= 0, or infinite).
    :param maxiter: iteration limit (default 10 n).
    :param M: a preconditioner name ("jacobi", "block-jacobi", "ilu0", "ic0", "chebyshev", "amg", "ilut",
        "iluk") or a
        LinearOperator / matrix applying M^-1 (host arrays only).
    :param callback: callback(xk), called after each iteration with the current iterate (the solver's own x, valid during the call).
    :param tol: deprecated alias of rtol (a DeprecationWarning), as in SciPy before 1.14.
    :param backend: "auto" (cuda when a GPU is present, else omp), "omp", "reference", "cuda",
        "cuda:N" or "opencl".
    :param precision: "double" or "single"; default single when A and b are float32.
    :param monitor: monitor(iteration, residual_norm), called after each iteration with the
        recurrence residual norm (portla's own keyword).
    :returns: ``(x, info)``: x the solution (NumPy, or the caller's GPU type); info 0 when
        converged, maxiter when the limit was reached, -1 on breakdown, a non-finite value, an
        indefinite operator, a singular preconditioner or an unstable one (an incomplete factor
        whose growth or probe failed).
    :raises ValueError: bad input (shapes, dtypes, a negative atol, an unknown name, GPU arrays
        on different devices or with a CPU backend).
    :raises MemoryError: out of memory.
    :raises RuntimeError: a backend not compiled in, a device error.
"""

cg = _short_recurrence(
    "cg",
    """Conjugate gradients for symmetric positive definite A, as scipy.sparse.linalg.cg. As
SciPy's, it goes on where p.Ap < 0 (A not positive definite: on a symmetric indefinite A it often
still converges) and stops only on p.Ap = 0 (info -1); portla.solve's cg reports such an A as
indefinite instead.
"""
    + _SHORT_RECURRENCE_PARAMETERS,
)
bicgstab = _short_recurrence(
    "bicgstab",
    """BiCGSTAB for general A, as scipy.sparse.linalg.bicgstab.
"""
    + _SHORT_RECURRENCE_PARAMETERS,
)

def gmres(
    A: Any,
    b: Any,
    x0: Any = None,
    *,
    rtol: float = 1e-5,
    atol: float = 0.0,
    restart: Optional[int] = None,
    maxiter: Optional[int] = None,
    M: Any = None,
    callback: Optional[Callable[[Any], Any]] = None,
    callback_type: Optional[str] = None,
    tol: Optional[float] = None,
    backend: str = "auto",
    precision: Optional[str] = None,
    monitor: Optional[Callable[[int, float], Any]] = None,
) -> Tuple[Any, int]:
    """Restarted GMRES, as scipy.sparse.linalg.gmres, preconditioned from the left.

    :param A: the matrix: a scipy.sparse matrix or array (CSR read in place; CSC, COO, ...
        converted once), a dense 2-D array, a scipy.sparse.linalg.LinearOperator (matrix-free:
        its matvec is called for each A x), or on the GPU a CuPy / cupyx.scipy.sparse / PyTorch
        CUDA matrix, used in place.
    :param b: the right-hand side, n values (shape (n,) or (n, 1)). Complex A or b
        (complex64 / complex128; M "jacobi", "block-jacobi", "ilu0" or a LinearOperator on the host)
        are solved by cg
        (Hermitian positive definite A), bicgstab, gmres, cgs, tfqmr, lgmres and gcrotmk on the
        reference, omp, cuda and opencl backends, CuPy / PyTorch CUDA complex arrays
        (sparse CSR or dense A) in place on cuda;
        the other methods raise ValueError for them.
    :param x0: the initial guess (default zero), or "Mb" for M b. A GPU x0 is overwritten with
        the solution and returned; a host x0 is copied.
    :param rtol: relative tolerance: converged when the true residual
        ``norm(b - A x) <= max(rtol * norm(b), atol)`` (infinite: x0 is the answer).
    :param atol: absolute tolerance (a real number >= 0, or infinite).
    :param maxiter: iteration limit in restart cycles (default 10 n); in inner iterations with
        callback_type "legacy" and a callback, as SciPy.
    :param M: a preconditioner name ("jacobi", "block-jacobi", "ilu0", "ic0", "chebyshev", "amg", "ilut",
        "iluk") or a
        LinearOperator / matrix applying M^-1 (host arrays only).
    :param callback: see callback_type.
    :param restart: Krylov vectors per cycle (default 20, at most n).
    :param callback_type: "pr_norm" or "legacy" (default; a DeprecationWarning when a callback
        is given without it, as SciPy's): callback(norm(M r) / norm(b)), the preconditioned
        residual norm GMRES minimises, after each inner iteration; "legacy" also makes maxiter
        count inner iterations. "x": callback(x) at the end of every restart cycle.
    :param tol: deprecated alias of rtol (a DeprecationWarning), as in SciPy before 1.14.
    :param backend: "auto" (cuda when a GPU is present, else omp), "omp", "reference", "cuda",
        "cuda:N" or "opencl".
    :param precision: "double" or "single"; default single when A and b are float32.
    :param monitor: monitor(iteration, residual_norm), called after each iteration with the
        recurrence residual norm (portla's own keyword).
    :returns: ``(x, info)``: x the solution (NumPy, or the caller's GPU type); info 0 when
        converged, maxiter when the limit was reached, -1 on breakdown, a non-finite value, an
        indefinite operator, a singular preconditioner or an unstable one (an incomplete factor
        whose growth or probe failed).
    :raises ValueError: bad input (shapes, dtypes, a negative atol, an unknown name, GPU arrays
        on different devices or with a CPU backend).
    :raises MemoryError: out of memory.
    :raises RuntimeError: a backend not compiled in, a device error.
    """
    rtol = _rtol(rtol, tol, "gmres")
    atol = _check_atol(atol, "gmres")
    if callback is not None and callback_type is None:
        warnings.warn(
            "portla.scipy.gmres called without specifying `callback_type`, as "
            "scipy.sparse.linalg.gmres warns. The default value will be changed in a future "
            "release. For compatibility, specify a value for `callback_type` explicitly, e.g., "
            "``gmres(..., callback_type='pr_norm')``, or to retain the old behavior "
            "``gmres(..., callback_type='legacy')``",
            DeprecationWarning,
            stacklevel=2,
        )
    if callback_type is None:
        callback_type = "legacy"
    if callback_type not in ("x", "pr_norm", "legacy"):
        raise ValueError(f"Unknown callback_type: {callback_type!r}")
    if callback is None:
        callback_type = None  # no effect without a callback
    n = _core.shape_of(A)[0]
    restart = 20 if restart is None else _core.integer("restart", restart, 1, _INT64_MAX)
    restart = min(restart, max(n, 1))
    maxiter = 10 * n if maxiter is None else _maxiter(maxiter)
    # legacy: maxiter counts Arnoldi steps; otherwise restart cycles of `restart` steps.
    max_iters = maxiter if callback_type == "legacy" else maxiter * restart
    bnorm = None
    minimised = None
    if callback_type in ("legacy", "pr_norm"):
        bnorm = _rhs_norm(b)
        # SciPy's values are scalars of the solve's type.
        single = _core._framework(b) is None and _core.dtype_for(
            precision, A, b, complex_ok=True
        ) in (np.float32, np.complex64)
        scalar = np.float32 if single else np.float64

        def minimised(iteration: int, norm: float) -> None:
            callback(scalar(norm / bnorm))

    return _solve(
        "gmres",
        A,
        b,
        x0,
        rtol,
        atol,
        maxiter,
        max_iters,
        M,
        backend,
        precision,
        monitor,
        callback if callback_type == "x" else None,
        bnorm=bnorm,
        minimised=minimised,
        restart=restart,
        left_preconditioning=True,
    )


def _symmetry_defect(apply: Callable[[np.ndarray], np.ndarray], y: np.ndarray) -> float:
    """|w.w - y.(A w)| over its allowance, w = A y: above 1 when A is visibly not symmetric
    (the probe scipy.sparse.linalg.minres(check=True) makes, with an allowance of eps^(1/3)
    relative to w.w, cube-root of the rounding of two products)."""
    w = np.asarray(apply(y), dtype=np.float64).ravel()
    s = float(w @ w)
    t = float(y @ np.asarray(apply(w), dtype=np.float64).ravel())
    eps = np.finfo(np.float64).eps
    return abs(s - t) / ((s + eps) * eps ** (1.0 / 3.0))


def _check_minres_inputs(A: Any, M: Any, b: Any) -> None:
    """check=True: ValueError when A (or a LinearOperator / matrix M) is visibly not symmetric,
    probed with b on the host. GPU arrays and preconditioner names are not probed."""
    if any(_core._framework(a) is not None for a in (A, b)):
        return
    from scipy.sparse.linalg import aslinearoperator

    y = np.asarray(b, dtype=np.float64).ravel()
    if _symmetry_defect(aslinearoperator(A).matvec, y) > 1:
        raise ValueError("portla.scipy.minres: A is not symmetric (check=True)")
    if M is not None and not isinstance(M, str):
        if _symmetry_defect(aslinearoperator(M).matvec, y) > 1:
            raise ValueError("portla.scipy.minres: M is not symmetric (check=True)")


def minres(
    A: Any,
    b: Any,
    x0: Any = None,
    *,
    rtol: float = 1e-5,
    shift: float = 0.0,
    maxiter: Optional[int] = None,
    M: Any = None,
    callback: Optional[Callable[[Any], Any]] = None,
    show: bool = False,
    check: bool = False,
    tol: Optional[float] = None,
    backend: str = "auto",
    precision: Optional[str] = None,
    monitor: Optional[Callable[[int, float], Any]] = None,
) -> Tuple[Any, int]:
    """MINRES for symmetric, possibly indefinite A, as scipy.sparse.linalg.minres: solves
    (A - shift I) x = b with a symmetric positive definite preconditioner M.

    Stops when the true residual ``norm(b - (A - shift I) x) <= rtol * norm(b)``; SciPy's
    minres stops earlier, on the backward error ``norm(r) / (norm(A) norm(x)) <= rtol``
    (docs/solvers.md compares the iteration counts).

    :param A: the symmetric matrix, as for cg.
    :param b: the right-hand side, n values.
    :param x0: the initial guess (default zero), or "Mb" for M b.
    :param rtol: relative tolerance (infinite: x0 is the answer).
    :param shift: solve (A - shift I) x = b (a finite number).
    :param maxiter: iteration limit (default 5 n, as SciPy).
    :param M: a preconditioner name ("jacobi", "block-jacobi", "ic0", "chebyshev", "amg": the
        symmetric positive definite ones) or a LinearOperator / matrix applying M^-1.
    :param callback: callback(xk), called after each iteration with the current iterate.
    :param show: accepted for SciPy's signature; portla prints nothing.
    :param check: probe A (and a LinearOperator / matrix M) with b for symmetry first, as
        SciPy does: ValueError when visibly not symmetric.
    :param tol: deprecated alias of rtol (a DeprecationWarning).
    :param backend: as for cg.
    :param precision: "double" or "single"; default single when A and b are float32.
    :param monitor: monitor(iteration, estimate), after each iteration: the recurrence's
        residual estimate (the M^-1-norm of the residual with M).
    :returns: ``(x, info)``: info 0 when converged, maxiter when the limit was reached, -1 on
        breakdown, a non-finite value or an indefinite preconditioner.
    :raises ValueError: bad input (shapes, dtypes, a non-finite shift, check=True on a
        non-symmetric A or M).
    :raises MemoryError: out of memory.
    :raises RuntimeError: a backend not compiled in, a device error.
    """
    rtol = _rtol(rtol, tol, "minres")
    maxiter = 5 * _core.shape_of(A)[0] if maxiter is None else _maxiter(maxiter)
    if not np.isfinite(shift):
        raise ValueError(f"portla.scipy.minres: shift must be finite, got {shift!r}")
    if check:
        _check_minres_inputs(A, M, b)
    return _solve(
        "minres",
        A,
        b,
        x0,
        rtol,
        0.0,
        maxiter,
        maxiter,
        M,
        backend,
        precision,
        monitor,
        callback,
        shift=float(shift),
    )


cgs = _short_recurrence(
    "cgs",
    """Conjugate gradients squared for general A, as scipy.sparse.linalg.cgs (no A^T; the
    residual is not smoothed: it may grow on the way).
"""
    + _SHORT_RECURRENCE_PARAMETERS,
)


def tfqmr(
    A: Any,
    b: Any,
    x0: Any = None,
    *,
    rtol: float = 1e-5,
    atol: float = 0.0,
    maxiter: Optional[int] = None,
    M: Any = None,
    callback: Optional[Callable[[Any], Any]] = None,
    show: bool = False,
    tol: Optional[float] = None,
    backend: str = "auto",
    precision: Optional[str] = None,
    monitor: Optional[Callable[[int, float], Any]] = None,
) -> Tuple[Any, int]:
    rtol = _rtol(rtol, tol, "tfqmr")
    atol = _check_atol(atol, "tfqmr")
    n = _core.shape_of(A)[0]
    maxiter = min(10000, 10 * n) if maxiter is None else _maxiter(maxiter)
    done = [0]  # iterations, for show

    def count(iteration: int, norm: float) -> None:
        done[0] = iteration
        if monitor is not None:
            monitor(iteration, norm)

    x, info = _solve(
        "tfqmr",
        A,
        b,
        x0,
        rtol,
        atol,
        maxiter,
        maxiter,
        M,
        backend,
        precision,
        count if show else monitor,
        callback,
    )
    if show and info == 0:
        print(f"TFQMR: Linear solve converged due to reach TOL iterations {done[0]}")
    elif show and info > 0:
        print(f"TFQMR: Linear solve not converged due to reach MAXIT iterations {done[0]}")
    return x, info


tfqmr.__doc__ = (
    """Transpose-free QMR for general A, as scipy.sparse.linalg.tfqmr (right-preconditioned;
    an iteration is a half step: one A x and one M^-1 r). maxiter defaults to min(10000, 10 n),
    as SciPy; show=True prints SciPy's line on convergence or at maxiter. The monitor gets
    the residual bound tau sqrt(m + 1). The other parameters, returns and raises are cg's:
"""
    + _SHORT_RECURRENCE_PARAMETERS
)

_CYCLE_PARAMETERS = """
    :param A: the matrix, as for gmres.
    :param b: the right-hand side, n values.
    :param x0: the initial guess (default zero), or "Mb" for M b.
    :param rtol: relative tolerance: converged when the true residual
        ``norm(b - A x) <= max(rtol * norm(b), atol)`` (infinite: x0 is the answer).
    :param atol: absolute tolerance (a real number >= 0, or infinite).
    :param maxiter: iteration limit in cycles (SciPy's outer iterations; default 1000). As
        SciPy's, which tests convergence when a cycle starts, a solve that converges only in its
        last allowed cycle reports info = maxiter (its x is the converged one).
    :param M: a preconditioner name or a LinearOperator / matrix applying M^-1, as for gmres.
    :param tol: deprecated alias of rtol (a DeprecationWarning).
    :param backend: "auto" (cuda when a GPU is present, else omp), "omp", "reference", "cuda",
        "cuda:N" or "opencl".
    :param precision: "double" or "single"; default single when A and b are float32.
    :returns: ``(x, info)``: info 0 when converged, maxiter when the limit was reached, the
        cycles begun on a non-finite value (as SciPy's), -1 on breakdown.
    :raises MemoryError: out of memory.
    :raises RuntimeError: a backend not compiled in, a device error.
"""


def _kept_vectors(pairs: Any, name: str, first: int) -> Any:
    """SciPy's list of vector pairs (lgmres's outer_v: (v, A v); gcrotmk's CU: (c, u)) as the
    extension's KeptVectors: `first` the index in each pair of the vector always given, the other
    one None where not given."""
    if not isinstance(pairs, list):
        raise ValueError(f"{name}: expected a list of vector pairs (or None), as SciPy's")
    kept = _core._portla.KeptVectors()
    firsts, seconds = [], []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2 or pair[first] is None:
            raise ValueError(f"{name}[{i}]: expected a pair of vectors, as SciPy's")
        vectors = []
        for v in (pair[first], pair[1 - first]):
            if v is None:
                vectors.append([])
                continue
            a = _host(v, f"{name}[{i}]")  # on the host, real
            vectors.append(a.astype(np.float64).ravel().tolist())
        firsts.append(vectors[0])
        seconds.append(vectors[1])
    kept.first, kept.second = firsts, seconds
    return kept


def _kept_pairs(kept: Any, first: int, keep_second: bool = True) -> list:
    """KeptVectors back as SciPy's pairs (the inverse of _kept_vectors); the second vector None
    where it is empty or not to be kept."""
    pairs = []
    for f, s in zip(kept.first, kept.second):
        other = np.array(s) if keep_second and len(s) else None
        pairs.append((np.array(f), other) if first == 0 else (other, np.array(f)))
    return pairs


def _cycles(
    method: str,
    A: Any,
    b: Any,
    x0: Any,
    rtol: float,
    tol: Optional[float],
    atol: Any,
    maxiter: Any,
    M: Any,
    callback: Optional[Callable[[Any], Any]],
    backend: str,
    precision: Optional[str],
    monitor: Optional[Callable[[int, float], Any]],
    steps: int,
    max_cycles: str,
    **kwargs: Any,
) -> Tuple[Any, int]:
    """lgmres and gcrotmk: SciPy's tolerances, and maxiter in cycles of at most `steps` Arnoldi
    steps (the setting named `max_cycles` limits the cycles)."""
    rtol = _rtol(rtol, tol, method)
    atol = _check_atol(atol, method)
    maxiter = _maxiter(maxiter)
    kwargs[max_cycles] = min(maxiter, _INT_MAX)
    if kwargs.get("kept") is None:  # no vectors kept between calls
        kwargs.pop("kept", None)
    return _solve(
        method,
        A,
        b,
        x0,
        rtol,
        atol,
        maxiter,
        min(maxiter * steps, _INT_MAX),
        M,
        backend,
        precision,
        monitor,
        callback,
        cycles=True,
        **kwargs,
    )


def lgmres(
    A: Any,
    b: Any,
    x0: Any = None,
    *,
    rtol: float = 1e-5,
    atol: float = 0.0,
    maxiter: int = 1000,
    M: Any = None,
    callback: Optional[Callable[[Any], Any]] = None,
    inner_m: int = 30,
    outer_k: int = 3,
    outer_v: Any = None,
    store_outer_Av: bool = True,
    prepend_outer_v: bool = False,
    tol: Optional[float] = None,
    backend: str = "auto",
    precision: Optional[str] = None,
    monitor: Optional[Callable[[int, float], Any]] = None,
) -> Tuple[Any, int]:
    inner_m = _core.integer("inner_m", inner_m, 1, _INT_MAX)
    outer_k = _core.integer("outer_k", outer_k, 0, _INT_MAX)
    kept = None if outer_v is None else _kept_vectors(outer_v, "outer_v", 0)
    x, info = _cycles(
        "lgmres",
        A,
        b,
        x0,
        rtol,
        tol,
        atol,
        maxiter,
        M,
        callback,
        backend,
        precision,
        monitor,
        inner_m + outer_k,
        "lgmres_max_cycles",
        restart=inner_m,
        lgmres_outer_k=outer_k,
        lgmres_store_outer_av=bool(store_outer_Av),
        lgmres_prepend_outer_v=bool(prepend_outer_v),
        left_preconditioning=True,
        kept=kept,
    )
    if outer_v is not None:  # as SciPy's: the list now holds this solve's vectors
        outer_v[:] = _kept_pairs(kept, 0)
    return x, info


lgmres.__doc__ = (
    """LGMRES, as scipy.sparse.linalg.lgmres: GMRES cycles of inner_m Krylov vectors augmented
    with the corrections of the last outer_k cycles, preconditioned on the left as SciPy's (the
    true residual decides convergence at the end of each cycle).

    :param callback: callback(xk), called at the end of every cycle with the current iterate.
    :param inner_m: Krylov vectors per cycle (>= 1).
    :param outer_k: corrections kept as augmentation vectors (>= 0).
    :param outer_v: a list of pairs (v, A v or None) kept between calls, as SciPy's: the solve
        starts with them as augmentation vectors and leaves its own there (A v None unless
        store_outer_Av), to recycle them in the next solve.
    :param store_outer_Av: keep A times each augmentation vector (one A x fewer per vector).
    :param prepend_outer_v: the augmentation vectors before the Krylov vectors of each cycle.
    :param monitor: monitor(iteration, residual_norm) after each Arnoldi step, with the estimate
        of the true residual norm (the minimised ||M^-1 r|| scaled by the cycle's start).
    :raises ValueError: bad input (shapes, dtypes, a negative atol, outer_v not a list of
        pairs of vectors of A's size).
    :raises OverflowError: inner_m < 1 or outer_k < 0."""
    + _CYCLE_PARAMETERS
)


def gcrotmk(
    A: Any,
    b: Any,
    x0: Any = None,
    *,
    rtol: float = 1e-5,
    atol: float = 0.0,
    maxiter: int = 1000,
    M: Any = None,
    callback: Optional[Callable[[Any], Any]] = None,
    m: int = 20,
    k: Optional[int] = None,
    CU: Any = None,
    discard_C: bool = False,
    truncate: str = "oldest",
    tol: Optional[float] = None,
    backend: str = "auto",
    precision: Optional[str] = None,
    monitor: Optional[Callable[[int, float], Any]] = None,
) -> Tuple[Any, int]:
    if truncate not in ("oldest", "smallest"):
        raise ValueError(f"Invalid value for 'truncate': {truncate!r}")
    m = _core.integer("m", m, 1, _INT_MAX)
    k = m if k is None else _core.integer("k", k, 0, _INT_MAX)
    kept = None if CU is None else _kept_vectors(CU, "CU", 1)
    x, info = _cycles(
        "gcrotmk",
        A,
        b,
        x0,
        rtol,
        tol,
        atol,
        maxiter,
        M,
        callback,
        backend,
        precision,
        monitor,
        m + k,
        "gcrot_max_cycles",
        gcrot_m=m,
        gcrot_k=k,
        gcrot_truncate_smallest=truncate == "smallest",
        kept=kept,
    )
    if CU is not None:  # as SciPy's: the list now holds this solve's pairs (c None: discard_C)
        CU[:] = _kept_pairs(kept, 1, keep_second=not discard_C)
    return x, info


gcrotmk.__doc__ = (
    """GCROT(m,k), as scipy.sparse.linalg.gcrotmk: flexible GMRES cycles of m steps (plus one
    per missing pair while fewer than k are kept) orthogonal to k kept pairs (c, u), A u = c,
    preconditioned on the right as SciPy's (the true residual decides convergence).

    :param callback: callback(xk), called at the end of every cycle with the current iterate
        (SciPy calls it at the start of every cycle).
    :param m: inner flexible GMRES steps per cycle (>= 1).
    :param k: pairs (c, u) kept between cycles (>= 0; None: m).
    :param CU: a list of pairs (c, u) kept between calls, as SciPy's: the solve starts with the
        newest max(k, 1) (c = A u computed where c is None, then orthonormalised) and leaves its
        own there, to recycle them in the next solve.
    :param discard_C: leave (None, u) in CU (c is recomputed as A u by the next solve).
    :param truncate: beyond k pairs drop the "oldest" or the directions of the "smallest"
        singular values of the cycle's projection onto the kept c.
    :param monitor: monitor(iteration, residual_norm) after each Arnoldi step, with the residual
        norm of the cycle's minimiser.
    :raises ValueError: bad input (shapes, dtypes, a negative atol, an unknown truncate, CU not
        a list of pairs of vectors of A's size).
    :raises OverflowError: m < 1 or k < 0."""
    + _CYCLE_PARAMETERS
)


bicg = _short_recurrence(
    "bicg",
    """BiCG for general A, as scipy.sparse.linalg.bicg: needs A^T (a LinearOperator's rmatvec) and
M^-T (a LinearOperator's rmatvec, a matrix's transpose, or "jacobi").
"""
    + _SHORT_RECURRENCE_PARAMETERS,
)


def qmr(
    A: Any,
    b: Any,
    x0: Any = None,
    *,
    rtol: float = 1e-5,
    atol: float = 0.0,
    maxiter: Optional[int] = None,
    M1: Any = None,
    M2: Any = None,
    callback: Optional[Callable[[Any], Any]] = None,
    tol: Optional[float] = None,
    backend: str = "auto",
    precision: Optional[str] = None,
    monitor: Optional[Callable[[int, float], Any]] = None,
) -> Tuple[Any, int]:
    """QMR for general A, as scipy.sparse.linalg.qmr: needs A^T (a LinearOperator's rmatvec),
    split-preconditioned M1^-1 A M2^-1.

    :param A: as for bicg; a LinearOperator needs its rmatvec.
    :param b: the right-hand side, n values (shape (n,) or (n, 1)).
    :param x0: the initial guess (default zero).
    :param rtol: relative tolerance: converged when the true residual
        ``norm(b - A x) <= max(rtol * norm(b), atol)`` (infinite: x0 is the answer).
    :param atol: absolute tolerance (a real number >= 0, or infinite).
    :param maxiter: iteration limit (default 10 n).
    :param M1: left preconditioner applying M1^-1 (and M1^-T): a LinearOperator with rmatvec or
        a matrix; without M2 also a preconditioner name providing M^-T ("jacobi").
    :param M2: right preconditioner applying M2^-1 (and M2^-T), as M1 but no name.
    :param callback: callback(xk), called after each iteration with the current iterate.
    :param tol: deprecated alias of rtol (a DeprecationWarning), as in SciPy before 1.14.
    :param backend: "auto", "omp", "reference", "cuda", "cuda:N" or "opencl".
    :param precision: "double" or "single"; default single when A and b are float32.
    :param monitor: monitor(iteration, residual_norm), called after each iteration.
    :returns: ``(x, info)`` as bicg's.
    :raises ValueError: bad input (shapes, dtypes, a negative atol, an operator without
        rmatvec where needed, a preconditioner without M^-T).
    :raises MemoryError: out of memory.
    :raises RuntimeError: a backend not compiled in, a device error.
    """
    rtol = _rtol(rtol, tol, "qmr")
    atol = _check_atol(atol, "qmr")
    maxiter = 10 * _core.shape_of(A)[0] if maxiter is None else _maxiter(maxiter)
    if isinstance(x0, str) and x0 == "Mb":
        x0 = _apply_m(None, b)  # as SciPy's qmr: make_system without M, so M b is b
    M = M1 if M2 is None else {"M1": M1, "M2": M2}
    return _solve(
        "qmr", A, b, x0, rtol, atol, maxiter, maxiter, M, backend, precision, monitor, callback
    )


def _least_squares(
    method: str,
    A: Any,
    b: Any,
    x0: Any,
    show: bool,
    backend: str,
    **settings: Any,
) -> Tuple[Any, Any]:
    """One lsqr / lsmr solve with SciPy's checks of its keywords: returns (x, var, result)."""
    for key in ("damp", "atol", "btol", "conlim"):
        value = settings[key]
        if isinstance(value, str) or not np.isfinite(value) or value < 0:
            raise ValueError(f"{method}: {key} must be a finite real number >= 0, got {value!r}")
        settings[key] = float(value)
    limit = settings.pop("iter_lim")
    settings["iter_lim"] = -1 if limit is None else min(_maxiter(limit), _INT64_MAX)
    m, n = _core.shape_of(A)
    if show:
        print(f"portla.scipy.{method}: least squares of a {m} x {n} operator, damp = "
              f"{settings['damp']:.2e}, atol = {settings['atol']:.2e}, "
              f"btol = {settings['btol']:.2e}, conlim = {settings['conlim']:.2e}")
    x, var, r = _core.least_squares(method, A, b, x0, backend, **settings)
    if show:
        print(f"portla.scipy.{method}: istop = {r.istop} after {r.iterations} iterations: "
              + _core._portla.least_squares_message(r.istop))
    return x, var, r


def lsqr(
    A: Any,
    b: Any,
    damp: float = 0.0,
    atol: float = 1e-6,
    btol: float = 1e-6,
    conlim: float = 1e8,
    iter_lim: Optional[int] = None,
    show: bool = False,
    calc_var: bool = False,
    x0: Any = None,
    *,
    backend: str = "auto",
) -> Tuple[Any, ...]:
    """LSQR for min ||A x - b||^2 + damp^2 ||x||^2, as scipy.sparse.linalg.lsqr: A of any
    shape m x n with A^T (a LinearOperator's rmatvec, a matrix's transpose, built once per call
    on A's device; for complex values the adjoint A^H, x then complex128). Per iteration one A v
    and one A^T u.

    :param A: a scipy.sparse matrix or array, a dense 2-D array or a LinearOperator with rmatvec.
    :param b: the right-hand side, m values (shape (m,) or (m, 1); a scalar when m = 1).
    :param damp: the regularisation weight (>= 0).
    :param atol: stopping tolerance: ||A^T r|| <= atol ||A|| ||r|| (a least-squares solution).
    :param btol: stopping tolerance: ||r|| <= btol ||b|| + atol ||A|| ||x|| (A x = b solved).
    :param conlim: stop when the estimate of cond(A) exceeds it (0: no limit).
    :param iter_lim: iteration limit (default 2 n).
    :param show: print a line at the start and the stop message at the end.
    :param calc_var: compute var, the diagonal of (A^T A + damp^2 I)^-1 estimated.
    :param x0: the initial guess, n values (default zero).
    :param backend: "auto", "omp", "reference", "cuda", "cuda:N" or "opencl".
    :returns: ``(x, istop, itn, r1norm, r2norm, anorm, acond, arnorm, xnorm, var)`` as SciPy's:
        istop 0..7 (0 x = 0 exact, 1 A x = b to atol/btol, 2 least squares to atol, 3 cond(A)
        above conlim, 4 to 6 the same at machine precision, 7 the iteration limit).
    :raises ValueError: bad input (shapes, a negative tolerance, an operator without rmatvec,
        NaN or Inf in b, x0 or A's products).
    :raises RuntimeError: a backend not compiled in, a device error.
    """
    x, var, r = _least_squares(
        "lsqr", A, b, x0, show, backend, damp=damp, atol=atol, btol=btol, conlim=conlim,
        iter_lim=iter_lim, calc_var=bool(calc_var),
    )
    return (
        x, int(r.istop), int(r.iterations), float(r.r1norm), float(r.r2norm), float(r.anorm),
        float(r.acond), float(r.arnorm), float(r.xnorm), var,
    )


def lsmr(
    A: Any,
    b: Any,
    damp: float = 0.0,
    atol: float = 1e-6,
    btol: float = 1e-6,
    conlim: float = 1e8,
    maxiter: Optional[int] = None,
    show: bool = False,
    x0: Any = None,
    *,
    backend: str = "auto",
) -> Tuple[Any, ...]:
    """LSMR for min ||A x - b||^2 + damp^2 ||x||^2, as scipy.sparse.linalg.lsmr: as lsqr (A, b,
    damp, atol, btol, conlim, show, x0, backend), with ||A^T r|| decreasing monotonically.

    :param maxiter: iteration limit (default min(m, n)).
    :returns: ``(x, istop, itn, normr, normar, norma, conda, normx)`` as SciPy's, istop as
        lsqr's.
    :raises ValueError: as lsqr.
    :raises RuntimeError: as lsqr.
    """
    x, _, r = _least_squares(
        "lsmr", A, b, x0, show, backend, damp=damp, atol=atol, btol=btol, conlim=conlim,
        iter_lim=maxiter,
    )
    return (
        x, int(r.istop), int(r.iterations), float(r.r2norm), float(r.arnorm), float(r.anorm),
        float(r.acond), float(r.xnorm),
    )
