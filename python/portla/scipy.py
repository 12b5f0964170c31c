"""Drop-ins for scipy.sparse.linalg's cg, bicgstab and gmres:

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
A on A's device; portla.solve takes its options) or, as in SciPy, a LinearOperator / matrix
approximating A^-1 (called for each M^-1 r). portla's own keywords: backend ("auto": cuda when a GPU is present, else omp),
precision ("double", "single"; default: single when A and b are float32) and monitor(iteration,
residual_norm), called after each iteration.

Differences from SciPy:

- callback: for cg and bicgstab it is called after each iteration with the current iterate, as
  in SciPy: the solver's own x array (SciPy's too), valid during the call (copy it to keep it).
  Set, it makes CG read its state back every iteration instead of every 16 (slower on the GPU).
  For gmres with callback_type "pr_norm" or "legacy" (the default) it is called after each inner
  iteration with the relative (preconditioned) residual norm, as in SciPy; "x" once at the end
  (portla's GMRES forms x only at a restart).
- GPU arrays (CuPy arrays and cupyx.scipy.sparse matrices, PyTorch CUDA tensors, dense or sparse
  CSR): A, b and x0 are used in place through DLPack, never copied, and x comes back as the
  caller's type on the same GPU: x0 itself, overwritten with the solution (unlike SciPy, which
  leaves x0 alone), or a new array like b. They must share one GPU, one dtype (float32 or
  float64; none is converted) and be contiguous; M must be a preconditioner name. int64 index
  arrays (PyTorch's default) are converted once to int32 on the GPU; CSC/COO matrices are
  converted to CSR once. Host (SciPy) matrices with int64 index arrays, such as SciPy's past
  2^31 - 1 entries, are taken with 64-bit row offsets.
- gmres preconditions from the left, as SciPy does, and counts maxiter in restart cycles.
- ``tol`` is accepted as a deprecated alias of ``rtol`` (removed from SciPy 1.14).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional, Tuple

import numpy as np

from . import _core

__all__ = ["cg", "bicgstab", "gmres"]

_INT_MAX = 2**31 - 1


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


def _krylov(
    method: str,
    A: Any,
    b: Any,
    x0: Any,
    rtol: float,
    atol: float,
    maxiter: Optional[int],
    M: Any,
    backend: str,
    precision: Optional[str],
    monitor: Optional[Callable[[int, float], Any]],
    callback: Optional[Callable[[Any], Any]] = None,
) -> Tuple[Any, int]:
    if maxiter is None:
        maxiter = 10 * _core.shape_of(A)[0]
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
        max_iters=min(int(maxiter), _INT_MAX),
    )
    return x, _info(r, maxiter)


def _short_recurrence(method: str, doc: str) -> Callable[..., Tuple[Any, int]]:
    """cg and bicgstab: SciPy's signature, one body."""

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
        return _krylov(method, A, b, x0, rtol, atol, maxiter, M, backend, precision, monitor, callback)

    solve.__name__ = solve.__qualname__ = method
    solve.__doc__ = doc
    return solve


# The parameters, returns and raises that cg and bicgstab share (their docstrings' body).
_SHORT_RECURRENCE_PARAMETERS = """
    :param A: the matrix: a scipy.sparse matrix or array (CSR read in place; CSC, COO, ...
        converted once), a dense 2-D array, a scipy.sparse.linalg.LinearOperator (matrix-free:
        its matvec is called for each A x), or on the GPU a CuPy / cupyx.scipy.sparse / PyTorch
        CUDA matrix, used in place.
    :param b: the right-hand side, n values (shape (n,) or (n, 1)).
    :param x0: the initial guess (default zero). A GPU x0 is overwritten with the solution and
        returned; a host x0 is copied.
    :param rtol: relative tolerance: converged when the true residual
        ``norm(b - A x) <= max(rtol * norm(b), atol)``.
    :param atol: absolute tolerance (a real number >= 0).
    :param maxiter: iteration limit (default 10 n).
    :param M: a preconditioner name ("jacobi", "block-jacobi", "ilu0", "ic0", "chebyshev", "amg") or a
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
        indefinite operator or a singular preconditioner.
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
    :param x0: the initial guess (default zero). A GPU x0 is overwritten with the solution and
        returned; a host x0 is copied.
    :param rtol: relative tolerance: converged when the true residual
        ``norm(b - A x) <= max(rtol * norm(b), atol)``.
    :param atol: absolute tolerance (a real number >= 0).
    :param maxiter: iteration limit in restart cycles (default 10 n).
    :param M: a preconditioner name ("jacobi", "block-jacobi", "ilu0", "ic0", "chebyshev", "amg") or a
        LinearOperator / matrix applying M^-1 (host arrays only).
    :param callback: see callback_type.
    :param restart: Krylov vectors per cycle (default 20, at most n).
    :param callback_type: "pr_norm" or "legacy" (default): callback(relative preconditioned
        residual norm) after each inner iteration; "x": callback(x) once, with the final x.
    :param tol: deprecated alias of rtol (a DeprecationWarning), as in SciPy before 1.14.
    :param backend: "auto" (cuda when a GPU is present, else omp), "omp", "reference", "cuda",
        "cuda:N" or "opencl".
    :param precision: "double" or "single"; default single when A and b are float32.
    :param monitor: monitor(iteration, residual_norm), called after each iteration with the
        recurrence residual norm (portla's own keyword).
    :returns: ``(x, info)``: x the solution (NumPy, or the caller's GPU type); info 0 when
        converged, maxiter when the limit was reached, -1 on breakdown, a non-finite value, an
        indefinite operator or a singular preconditioner.
    :raises ValueError: bad input (shapes, dtypes, a negative atol, an unknown name, GPU arrays
        on different devices or with a CPU backend).
    :raises MemoryError: out of memory.
    :raises RuntimeError: a backend not compiled in, a device error.
    """
    rtol = _rtol(rtol, tol, "gmres")
    atol = _check_atol(atol, "gmres")
    if callback_type is None:
        callback_type = "legacy"
    if callback_type not in ("x", "pr_norm", "legacy"):
        raise ValueError(f"Unknown callback_type: {callback_type!r}")
    n = _core.shape_of(A)[0]
    restart = min(20 if restart is None else int(restart), max(n, 1))
    if maxiter is None:
        maxiter = 10 * n
    each = monitor
    if callback is not None and callback_type != "x":
        bnorm = _core.norm(b)
        scale = 1.0 / bnorm if bnorm > 0 else 1.0

        def each(iteration: int, rnorm: float) -> None:
            if monitor is not None:
                monitor(iteration, rnorm)
            if iteration > 0:
                callback(rnorm * scale)

    x, r = _core.run(
        "gmres",
        A,
        b,
        x0=x0,
        M=M,
        backend=backend,
        precision=precision,
        monitor=each,
        rtol=float(rtol),
        atol=atol,
        max_iters=min(int(maxiter) * restart, _INT_MAX),
        restart=restart,
        left_preconditioning=True,
    )
    if callback is not None and callback_type == "x":
        callback(x)
    return x, _info(r, maxiter)
