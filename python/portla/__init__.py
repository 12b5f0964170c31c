"""portla: linear-algebra kernels and iterative solvers on the CPU (omp) and the GPU (cuda).

    import portla
    r = portla.solve(A, b, solver="cg", precond="jacobi")   # A: scipy.sparse, ndarray, LinearOperator
    from portla.scipy import cg, bicgstab, gmres            # drop-ins for scipy.sparse.linalg
    portla.batch.solve(A_batch, b_batch)                     # many small systems at once

CuPy arrays, cupyx.scipy.sparse matrices and PyTorch CUDA tensors are used in place on their GPU
(see portla.scipy).

portla's errors are raised as ValueError (bad input, dimension mismatch, unsupported), MemoryError
(out of memory) and RuntimeError (a backend not compiled in, a device error), with the C++
library's one-line message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from . import _core, _portla

__version__: str = _portla.version

__all__ = ["SolveResult", "PerronResult", "solve", "info", "perron", "gemm", "batch", "scipy"]


@dataclass
class SolveResult:
    """The outcome of portla.solve."""

    x: Any  #: NumPy, or the caller's CuPy / PyTorch type on its GPU
    converged: bool
    reason: str  #: converged, max_iterations, breakdown, non_finite, indefinite, ...
    iterations: int
    residual_norm: float  #: true ||b - A x||, recomputed at the end
    rhs_norm: float  #: ||b||
    history: List[float] = field(default_factory=list)  #: recurrence residual per iteration
    time_s: float = 0.0  #: the C++ solver call alone
    backend: str = ""
    #: the kernel variant each step took where the backend chooses (cuda: "cg.direction" ->
    #: "stencil-ring", "csr-pass", ...; "blas1.sum" -> "cluster", ...); empty on CPUs
    kernels: Dict[str, str] = field(default_factory=dict)

    @property
    def relative_residual(self) -> float:
        return self.residual_norm / self.rhs_norm if self.rhs_norm > 0 else self.residual_norm


def solve(
    A: Any,
    b: Any,
    solver: str = "cg",
    precond: Any = "none",
    *,
    rtol: float = 1e-8,
    atol: float = 0.0,
    max_iters: int = 1000,
    x0: Any = None,
    restart: int = 30,
    backend: str = "auto",
    precision: Optional[str] = None,
    history: bool = True,
    monitor: Optional[Callable[[int, float], Any]] = None,
    **settings: Any,
) -> SolveResult:
    """Solves A x = b by `solver` ("cg", "bicgstab", "gmres") with `precond` (a name: "none",
    "jacobi", "block-jacobi", "ilu0", "ic0", "chebyshev"; or a LinearOperator / matrix giving
    M^-1 r) on `backend` ("auto": cuda when a GPU is present, else omp; "omp", "reference",
    "cuda", "cuda:N"). A is a scipy.sparse matrix or array, a dense 2-D array or a
    scipy.sparse.linalg.LinearOperator (matrix-free: its matvec is called from the solve).
    precision: "double" or "single" (default: single when A and b are float32). `monitor(i, r)`
    is called after each iteration with the recurrence residual norm. Further keywords set
    portla's solver Settings (left_preconditioning, flexible, block_size, chebyshev_degree,
    residual_replacement, device_loop). Converges when ||b - A x|| <= max(rtol ||b||, atol)."""
    x, r = _core.run(
        solver,
        A,
        b,
        x0=x0,
        M=precond,
        backend=backend,
        precision=precision,
        monitor=monitor,
        rtol=rtol,
        atol=atol,
        max_iters=max_iters,
        restart=restart,
        record_history=history,
        **settings,
    )
    return SolveResult(
        x=x,
        converged=r.converged,
        reason=r.reason,
        iterations=r.iterations,
        residual_norm=r.residual_norm,
        rhs_norm=r.rhs_norm,
        history=list(r.history),
        time_s=r.time_s,
        backend=r.backend,
        kernels=dict(r.kernels),
    )


def info() -> Dict[str, Any]:
    """The build: version, backends (name, compiled, devices), CUDA devices, omp threads and
    the backend "auto" picks."""
    d = dict(_portla.info())
    d["version"] = __version__
    return d


@dataclass
class PerronResult:
    """The dominant eigenpair of a positive matrix (portla.perron)."""

    eigenvalue: float
    vector: np.ndarray
    converged: bool
    reason: str
    iterations: int
    residual: float  #: ||A v - lambda v|| / ||lambda v||


def _host_only(what: str, *arrays: Any) -> None:
    for a in arrays:
        if _core._framework(a) is not None:
            raise ValueError(f"{what}: takes host (NumPy) arrays, not {type(a).__module__} arrays")


def perron(
    A: Any,
    eps: float = 1e-3,
    max_iters: int = 1000,
    method: str = "power",
    backend: str = "auto",
    precision: Optional[str] = None,
) -> PerronResult:
    """Dominant eigenpair of a square matrix with positive entries (dense), by portla's parallel
    similarity transformation ("similarity", "fused" or "power"). ValueError when an entry is
    not positive and finite."""
    _host_only("perron", A)
    dtype = _core.dtype_for(precision, A)
    a = np.ascontiguousarray(np.asarray(A), dtype=dtype)
    if a.ndim != 2:
        raise ValueError(f"perron: expected a square matrix, got shape {a.shape}")
    v, lam, conv, reason, its, res = getattr(_portla, "perron" + _core.suffix(dtype))(
        backend, a, eps, _core.integer("max_iters", max_iters), method
    )
    return PerronResult(lam, v, conv, reason, its, res)


def gemm(
    A: Any, B: Any, backend: str = "auto", variant: str = "fast", precision: Optional[str] = None
) -> np.ndarray:
    """C = A @ B for dense matrices through portla's gemm ("naive", "tiled", "subgroup", "fast",
    "vendor"; tiled and subgroup on cuda only)."""
    _host_only("gemm", A, B)
    dtype = _core.dtype_for(precision, A, B)
    a = np.ascontiguousarray(np.asarray(A), dtype=dtype)
    b = np.ascontiguousarray(np.asarray(B), dtype=dtype)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"gemm: expected matrices, got shapes {a.shape} and {b.shape}")
    return getattr(_portla, "gemm" + _core.suffix(dtype))(backend, a, b, variant)


from . import batch, scipy  # noqa: E402  (portla.batch; portla.scipy, the drop-ins: no SciPy import)
