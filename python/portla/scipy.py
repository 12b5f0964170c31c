"""Drop-ins for scipy.sparse.linalg's cg, bicgstab, gmres, bicg and qmr:

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
approximating A^-1 (called for each M^-1 r). portla's own keywords: backend ("auto": cuda when a GPU is present, else omp),
precision ("double", "single"; default: single when A and b are float32) and monitor(iteration,
residual_norm), called after each iteration.

Differences from SciPy:

- bicg and qmr apply A^T: A's rmatvec for a LinearOperator (SciPy's), a sparse matrix's transpose
  (built once per solve on A's device, a second copy of A), a dense array taken as CSR; M as a
  LinearOperator needs its rmatvec, a matrix its transpose, and of portla's names only "jacobi"
  provides M^-T. qmr's M1 and M2 (SciPy's split preconditioners): each a LinearOperator
  (with rmatvec) or a matrix; a name only as M1 without M2.
- callback: for cg, bicgstab and bicg it is called after each iteration with the current iterate, as
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
- ``tol`` is accepted as a deprecated alias of ``rtol`` (removed from SciPy 1.14).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional, Tuple

import numpy as np

from . import _core

__all__ = [
    "cg",
    "bicgstab",
    "gmres",
    "bicg",
    "qmr",
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


def _info(r: Any, maxiter: int) -> int:
    if r.converged:
        return 0
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
    """||b||, after refusing complex and non-numeric values (whose norm would mislead)."""
    if _core._framework(b) is None:
        _core._check_real(np.asarray(b).dtype, "b")
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
    **kwargs: Any,
) -> Tuple[Any, int]:
    """SciPy's rules around one portla solve: x0='Mb'; b = 0 gives x = 0 (x0 aside); an
    infinite tolerance returns x0 (or zero) at once; a zero x0 is no initial guess, so that the
    first residual is b, no operator applied. info as SciPy's, maxiter for the limit."""
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
    return x, 0 if at_once else _info(r, maxiter)


def _short_recurrence(method: str, doc: str) -> Callable[..., Tuple[Any, int]]:
    """cg, bicgstab and bicg: SciPy's signature, one body."""

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


# The parameters, returns and raises that cg, bicgstab and bicg share (their docstrings' body).
_SHORT_RECURRENCE_PARAMETERS = """
    :param A: the matrix: a scipy.sparse matrix or array (CSR read in place; CSC, COO, ...
        converted once), a dense 2-D array, a scipy.sparse.linalg.LinearOperator (matrix-free:
        its matvec is called for each A x), or on the GPU a CuPy / cupyx.scipy.sparse / PyTorch
        CUDA matrix, used in place.
    :param b: the right-hand side, n values (shape (n,) or (n, 1)).
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
    """Conjugate gradients for symmetric positive definite A, as scipy.sparse.linalg.cg.
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
    :param b: the right-hand side, n values (shape (n,) or (n, 1)).
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
        single = _core._framework(b) is None and _core.dtype_for(precision, A, b) == np.float32
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
