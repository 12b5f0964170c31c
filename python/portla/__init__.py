"""portla: linear-algebra kernels and iterative solvers on the CPU (omp) and the GPU (cuda).

    import portla
    r = portla.solve(A, b, solver="cg", precond="jacobi")   # A: scipy.sparse, ndarray, LinearOperator
    from portla.scipy import cg, bicgstab, gmres            # drop-ins for scipy.sparse.linalg
    import portla.pyamg as pyamg                             # PyAMG's solvers over portla's AMG
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

__all__ = [
    "SolveResult",
    "generate",
    "PerronResult",
    "solve",
    "info",
    "perron",
    "gemm",
    "batch",
    "scipy",
    "pyamg",
    "KernelOptions",
    "set_kernel_options",
    "kernel_options",
]

#: The kernel variants an executor's kernels take (C++ portla::KernelOptions, the same field names;
#: docs/kernel-choices.md, "Options"). The enumerations are strings: csr_row "chunked" or "loop";
#: cg_direction "automatic", "pass" or "fly"; cg_stencil "automatic", "points", "lines",
#: "lines1024" or "ring" (cg_stencil_ring_halo: the ring's halo points per thread, 0, 1, 2 or 4);
#: slab_stencil "automatic", "points" or "ring"; gemm_fast_tile "automatic", "large" or "small".
KernelOptions = _portla.KernelOptions


def set_kernel_options(options: Optional[KernelOptions]) -> None:
    """The kernel options of every executor the package makes from now on (each call with a
    backend makes its own); None, the default: those the PORTLA_* environment variables name,
    read at each call. The variables are read at each call either way (a bad value raises
    ValueError), and set the process-wide settings (omp threshold, opencl, tuning file). Raises
    ValueError for an option out of range."""
    _portla.set_kernel_options(options)


def kernel_options() -> KernelOptions:
    """The kernel options the next call's executor takes (a copy)."""
    return _portla.kernel_options()


@dataclass
class SolveResult:
    """The outcome of portla.solve."""

    x: Any  #: NumPy, or the caller's CuPy / PyTorch type on its GPU
    converged: bool  #: whether the true residual met the tolerance
    reason: str  #: converged, max_iterations, breakdown, non_finite, indefinite, ...
    iterations: int  #: iterations done (GMRES: Arnoldi steps)
    residual_norm: float  #: true ||b - A x||, recomputed at the end
    rhs_norm: float  #: ||b||
    history: List[float] = field(default_factory=list)  #: recurrence residual per iteration
    time_s: float = 0.0  #: the C++ solver call alone
    backend: str = ""  #: the backend that ran the solve ("omp", "cuda", ...)
    #: the kernel variant each step took where the backend chooses (cuda: "cg.direction" ->
    #: "stencil-ring", "csr-pass", ...; "blas1.sum" -> "cluster", ...); empty on CPUs
    kernels: Dict[str, str] = field(default_factory=dict)

    @property
    def relative_residual(self) -> float:
        """residual_norm / rhs_norm (residual_norm when b = 0)."""
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
    """Solves A x = b by a Krylov method on one of portla's backends; converged when the true
    residual ``norm(b - A x) <= max(rtol * norm(b), atol)``, recomputed at the end.

    :param A: a scipy.sparse matrix or array (CSR read in place; CSC, COO, ... converted once),
        a dense 2-D array, a scipy.sparse.linalg.LinearOperator (matrix-free: its matvec is
        called from the solve), or CuPy / PyTorch CUDA arrays, used in place on their GPU.
    :param b: the right-hand side, n values. Complex A or b (complex64 / complex128, precond
        "none", "jacobi", "block-jacobi" or "ilu0") are solved by cg (Hermitian positive
        definite A), bicgstab, gmres, cgs, tfqmr, lgmres, gcrotmk, bicg and qmr on every backend;
        minres and pipecg raise ValueError for them.
    :param solver: "cg" (symmetric positive definite A), "bicgstab", "gmres", "pipecg",
        "minres" (symmetric A; ``shift=s`` solves (A - s I) x = b), "cgs" or "tfqmr".
        "lgmres" and "gcrotmk" too (GCROT(m,k): settings ``gcrot_m``, ``gcrot_k``,
        ``gcrot_truncate_smallest`` as keywords), and "bicg" and "qmr" (both apply A^T: a
        LinearOperator needs its rmatvec; precond none, jacobi or a LinearOperator with rmatvec).
    :param precond: a name ("none", "jacobi", "block-jacobi", "ilu0", "ic0", "chebyshev", "amg")
        or a LinearOperator / matrix giving M^-1 r (host arrays only). "amg" (smoothed
        aggregation multigrid, one V-cycle per application) needs a sparse matrix (CSR, on the
        host or the GPU where A is) and takes its options as ``amg={...}``.
    :param rtol: relative tolerance (see above).
    :param atol: absolute tolerance (see above).
    :param max_iters: iteration limit (GMRES: Arnoldi steps).
    :param x0: the initial guess (default zero). A GPU x0 is overwritten with the solution.
    :param restart: GMRES: Krylov vectors per cycle.
    :param backend: "auto" (cuda when a GPU is present, else omp), "omp", "reference", "cuda",
        "cuda:N" or "opencl".
    :param precision: "double" or "single"; default single when A and b are float32.
    :param history: record the recurrence residual norm of every iteration
        (SolveResult.history).
    :param monitor: monitor(i, r), called after each iteration with the recurrence residual
        norm; an exception it raises ends the solve and propagates.
    :param settings: further fields of portla's solver Settings: left_preconditioning,
        flexible (GMRES), block_size (block-jacobi), chebyshev_degree, residual_replacement,
        device_loop (CG on the GPU), ilut_drop_tolerance, ilut_fill, ilut_pivoting (ilut),
        iluk_level (iluk), amg (a dict of multigrid settings: method "sa" or
        "classical", strength_threshold (give 0.25 with "classical"), smoother "jacobi" / "l1-jacobi" / "chebyshev", sweeps,
        chebyshev_degree, cycle "v" / "w", max_levels, coarse_size, prolongator_weight,
        mixed_precision (the hierarchy in float under a double solve)).
    :returns: a SolveResult. Not converging is not an error: see its converged and reason.
    :raises ValueError: bad input: shapes, dtypes, non-finite b, an unknown name, a zero
        diagonal given to Jacobi, a preconditioner the matrix's format cannot provide.
    :raises MemoryError: out of memory.
    :raises RuntimeError: a backend not compiled in, a device error.
    """
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
    """The build and the machine, as a dict: "version", "backends" (per backend its "name",
    whether it was "compiled" and its "devices"), "cuda_devices" (the properties of each
    GPU), "omp_threads" and "auto" (the backend "auto" picks)."""
    d = dict(_portla.info())
    d["version"] = __version__
    return d


def generate(spec: str) -> Any:
    """A generated test matrix as a scipy.sparse.csr_matrix (float64, sorted, every diagonal
    entry stored), the same on every machine: "poisson1d:N", "poisson2d:N", "poisson3d:N" (3-, 5-
    and 7-point Poisson, N points per dimension), "anisotropic3d:N" (7-point
    -(u_xx + u_yy + 0.001 u_zz), N^3 rows), "contrast3d:N" (7-point finite volumes of
    -div(k grad u) on N^3 cells, k jumping over 6 orders of magnitude) or "fem2d:N" (P1 finite
    elements of -Laplace on a perturbed triangulation of the unit square, (N - 1)^2 rows); each
    symmetric positive definite with Dirichlet boundaries (C++ include/portla/matrix/generate.hpp).

    :raises ValueError: an unknown kind or a malformed N.
    :raises TypeError: spec is not a string.
    """
    if not isinstance(spec, str):
        raise TypeError(f"generate: expected a spec such as 'poisson3d:16', got {type(spec).__name__}")
    import scipy.sparse

    rows, cols, indptr, indices, data = _portla.generate(spec)
    return scipy.sparse.csr_matrix((data, indices, indptr), shape=(rows, cols))


@dataclass
class PerronResult:
    """The dominant eigenpair of a positive matrix (portla.perron)."""

    eigenvalue: float  #: the dominant eigenvalue (the common row sum at the stop)
    vector: np.ndarray  #: its eigenvector (positive entries, not normalised)
    converged: bool  #: whether the row sums met eps
    reason: str  #: converged, max_iterations or non_finite
    iterations: int  #: similarity transforms applied
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
    """Dominant eigenpair of a square matrix with positive entries (dense, host memory), by
    portla's parallel similarity transformation.

    :param A: a square 2-D array, every entry positive and finite.
    :param eps: stop when every pair of neighbouring row sums of the transformed matrix differs
        by less than eps.
    :param max_iters: at most this many transforms.
    :param method: "power" (default; one pass over A per iteration), "fused" or "similarity":
        the same iterates up to rounding.
    :param backend: "auto", "omp", "reference", "cuda", "cuda:N" or "opencl".
    :param precision: "double" or "single"; default single when A is float32.
    :returns: a PerronResult.
    :raises ValueError: an entry that is not positive and finite, a matrix that is not square,
        GPU arrays.
    """
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
    """C = A @ B for dense host matrices through portla's gemm.

    :param A: an m x k 2-D array.
    :param B: a k x n 2-D array.
    :param backend: "auto", "omp", "reference", "cuda", "cuda:N" or "opencl".
    :param variant: "fast" (default), "naive", "tiled", "subgroup" (tiled and subgroup on cuda
        only) or "vendor" (cuBLAS, OpenBLAS).
    :param precision: "double" or "single"; default single when A and B are float32.
    :returns: C, an m x n NumPy array.
    :raises ValueError: shapes that do not fit, GPU arrays, an unknown variant.
    """
    _host_only("gemm", A, B)
    dtype = _core.dtype_for(precision, A, B)
    a = np.ascontiguousarray(np.asarray(A), dtype=dtype)
    b = np.ascontiguousarray(np.asarray(B), dtype=dtype)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"gemm: expected matrices, got shapes {a.shape} and {b.shape}")
    return getattr(_portla, "gemm" + _core.suffix(dtype))(backend, a, b, variant)


from . import batch, pyamg, scipy  # noqa: E402  (portla.batch; portla.scipy and portla.pyamg, the drop-ins: no SciPy import)
