"""portla.batch: many small systems solved by one batched solver call (one CUDA block per system
on cuda, one thread per system on omp), as the command-line tool's `portla batch`.

    r = portla.batch.solve(A, b)                    # A: (B, n, n) array, b: (B, n)
    r = portla.batch.solve((indptr, indices, values), b, solver="gmres", precond="ilu0")
    r.x, r.converged, r.reason, r.iterations, r.residual_norm, r.rhs_norm, r.failed

A batch shares one sparsity pattern: a dense (B, n, n) array (format "dense" by default), or
one CSR pattern (indptr of n + 1, indices of nnz, sorted and unique within each row) with a
(B, nnz) array of values (format "csr" by default; "ell" and "dense" on request). System s has
converged when ||b_s - A_s x_s|| <= max(rtol ||b_s||, atol), recomputed after the solve. A
system that fails (NaN or Inf, a scale outside the precision's range, singular, no convergence)
is reported in its entry and never stops the others. The batch is assembled on the host
(portla's batch matrices are built from host arrays), so CuPy and PyTorch inputs are copied
through the host; the results come back as the inputs' type on their device.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from . import _core, _portla

__all__ = ["BatchResult", "solve"]

_INT32_MAX = 2**31 - 1


@dataclass
class BatchResult:
    """Per-system results of portla.batch.solve (arrays of B entries; x is (B, n))."""

    x: Any
    iterations: Any  #: int32
    converged: Any  #: bool
    #: per system: converged, max_iterations, breakdown, non_finite (a NaN or Inf in A_s, b_s or
    #: the iterates), indefinite, stagnation, singular_preconditioner or bad_scale (norm(b_s) or
    #: its stopping threshold outside what the precision's squared norms hold)
    reason: np.ndarray
    residual_norm: Any  #: true ||b_s - A_s x_s||, recomputed after the solve
    rhs_norm: Any  #: ||b_s||
    time_s: float = 0.0  #: the batched solve itself (device time on cuda)
    backend: str = ""  #: the backend that ran the batch

    @property
    def failed(self) -> np.ndarray:
        """The indices of the systems that did not converge (their reasons: ``reason[failed]``)."""
        return np.flatnonzero(self.reason != "converged")

    @property
    def relative_residual(self) -> Any:
        """residual_norm / rhs_norm per system (residual_norm where rhs_norm = 0)."""
        return self.residual_norm / np.where(self.rhs_norm > 0, self.rhs_norm, 1.0)


def _host(a: Any, what: str) -> np.ndarray:
    fw = _core._framework(a)
    if fw == "cupy":
        a = a.get()
    elif fw == "torch":
        a = a.detach().cpu().numpy()
    a = np.asarray(a)
    _core._check_real(a.dtype, what)
    return a


def _back(a: np.ndarray, like: Any) -> Any:
    """`a` as the type of `like` (CuPy or PyTorch on its device), else NumPy."""
    fw = _core._framework(like)
    if fw == "cupy":
        import cupy

        with cupy.cuda.Device(like.device.id):
            return cupy.asarray(a)
    if fw == "torch":
        import torch

        return torch.as_tensor(a, device=like.device)
    return a


def solve(
    A: Any,
    b: Any,
    *,
    solver: str = "bicgstab",
    precond: str = "none",
    format: Optional[str] = None,
    rtol: float = 1e-6,
    atol: float = 0.0,
    maxiter: Optional[int] = None,
    restart: int = 30,
    block_size: int = 4,
    backend: str = "auto",
    precision: Optional[str] = None,
    shared_memory: bool = True,
) -> BatchResult:
    """Solves A_s x_s = b_s for every system s of the batch, each with its own stopping test:
    system s has converged when ``norm(b_s - A_s x_s) <= max(rtol * norm(b_s), atol)``,
    recomputed after the solve. The defaults are those of `portla batch`.

    :param A: a (B, n, n) array, or a tuple (indptr, indices, values): one CSR pattern (indptr
        of n + 1 entries, indices of nnz, sorted and unique within each row) with values of
        shape (B, nnz). NumPy, CuPy or PyTorch (copied through the host).
    :param b: the right-hand sides, shape (B, n).
    :param solver: "bicgstab" (default), "cg", "gmres" or "direct" (dense LU per system;
        format "dense").
    :param precond: "none", "jacobi", "block-jacobi" (block_size rows per block) or "ilu0"
        (format "csr").
    :param format: "dense", "csr" or "ell"; default "dense" for a (B, n, n) array, "csr" for a
        pattern.
    :param rtol: relative tolerance (see above), finite and >= 0.
    :param atol: absolute tolerance (see above), finite and >= 0.
    :param maxiter: iteration limit of each system (default 2 n).
    :param restart: GMRES: Krylov vectors per cycle.
    :param block_size: block-jacobi: rows per diagonal block, 1 ... 32.
    :param backend: "auto" (cuda when a GPU is present, else omp), "omp", "reference", "cuda",
        "cuda:N" or "opencl".
    :param precision: "double" or "single"; default single when A and b are float32.
    :param shared_memory: cuda: keep the work vectors in shared memory (False: global memory).
    :returns: a BatchResult. A system that fails (NaN or Inf in A_s or b_s, norm(b_s) out of the
        precision's range, singular, no convergence) is reported in its entries (its index in
        the batch, its reason) and never stops the others; ``r.failed`` lists the failed
        systems' indices.
    :raises ValueError: bad input of the whole batch (shapes, dtypes, no systems, a pattern that
        is not sorted and unique, an unknown name).
    :raises KeyboardInterrupt: Ctrl-C (SIGINT) during the solve, within about 0.1 s: the batch
        is solved in chunks of systems, with pending signals checked between chunks.
    :raises MemoryError: out of memory.
    :raises RuntimeError: a backend not compiled in, a device error.
    """
    like = b
    if isinstance(A, tuple):
        if len(A) != 3:
            raise ValueError("A: expected a (B, n, n) array or a tuple (indptr, indices, values)")
        indptr, indices, values = (_host(a, "A") for a in A)
        if values.ndim != 2:
            raise ValueError(f"A: values must have shape (B, nnz), got {values.shape}")
        if indptr.ndim != 1 or indices.ndim != 1 or indptr.size < 1:
            raise ValueError("A: indptr and indices must be 1-D, indptr of n + 1 entries")
        if indices.size != values.shape[1]:
            raise ValueError(
                f"A: dimension mismatch (indices has {indices.size} entries, values "
                f"{values.shape[1]} per system)"
            )
        for a, what in ((indptr, "indptr"), (indices, "indices")):
            if a.dtype.kind not in "iu":
                raise ValueError(f"A: {what} must be integers, got dtype {a.dtype}")
            if a.size and (a.max() > _INT32_MAX or a.min() < 0):
                raise ValueError(f"A: {what} outside portla's int32 index range")
        n = indptr.size - 1
        num_systems = values.shape[0]
        default_format = "csr"
    else:
        dense = _host(A, "A")
        if dense.ndim != 3 or dense.shape[1] != dense.shape[2]:
            raise ValueError(f"A: expected a (B, n, n) array, got shape {dense.shape}")
        num_systems, n = dense.shape[0], dense.shape[1]
        if n == 0:
            raise ValueError("A: systems of size 0; each system needs at least one row")
        # The full pattern: every entry stored, row after row.
        indptr = np.arange(0, n * n + 1, n)
        indices = np.tile(np.arange(n), n)
        values = dense.reshape(num_systems, n * n)
        default_format = "dense"
    if n == 0:
        raise ValueError("A: systems of size 0; each system needs at least one row")
    if num_systems == 0:
        raise ValueError("A: the batch holds no systems (B = 0); give at least one")
    rhs = _host(b, "b")
    if rhs.shape != (num_systems, n):
        raise ValueError(f"b: expected shape ({num_systems}, {n}), got {rhs.shape}")
    dtype = _core.dtype_for(precision, values, rhs)
    if format is None:
        format = "dense" if solver == "direct" else default_format
    if not (np.isfinite(rtol) and np.isfinite(atol) and rtol >= 0 and atol >= 0):
        raise ValueError("rtol and atol must be finite and >= 0")
    if maxiter is None:
        maxiter = min(2 * n, _INT32_MAX)
    maxiter = _core.integer("maxiter", maxiter)
    restart = _core.integer("restart", restart)
    block_size = _core.integer("block_size", block_size)
    if maxiter < 0:
        raise ValueError(f"maxiter must be in [0, {_INT32_MAX}], got {maxiter}")
    if restart < 1:
        raise ValueError(f"restart must be >= 1, got {restart}")
    if not 1 <= block_size <= 32:
        raise ValueError(f"block_size must be in [1, 32], got {block_size}")

    # The batched solvers take one relative or one absolute tolerance; with both, system s is
    # solved for b_s / tau_s, tau_s = max(rtol ||b_s||, atol), to the absolute tolerance 1, and
    # its norms scaled back (as `portla batch`).
    rhs64 = np.ascontiguousarray(rhs, dtype=np.float64)
    combined = solver != "direct" and rtol > 0 and atol > 0
    tau = np.ones(num_systems)
    if combined:
        tau = np.maximum(rtol * np.linalg.norm(rhs64, axis=1), atol)
        rhs64 = rhs64 / tau[:, None]
    absolute = combined or rtol == 0
    tolerance = 1.0 if combined else (atol if absolute else rtol)

    x, its, codes, res, bnorm, time_s, name = getattr(_portla, "batch_solve" + _core.suffix(dtype))(
        backend,
        n,
        np.ascontiguousarray(indptr, dtype=np.int32),
        np.ascontiguousarray(indices, dtype=np.int32),
        np.ascontiguousarray(values, dtype=np.float64).reshape(-1),
        rhs64.reshape(-1),
        format,
        solver,
        precond.replace("_", "-"),
        absolute,
        float(tolerance),
        int(maxiter),
        int(restart),
        int(block_size),
        bool(shared_memory),
    )
    x = x.reshape(num_systems, n)
    if combined:
        x = x * tau[:, None].astype(x.dtype)
        res = res * tau
        bnorm = bnorm * tau
    reason = np.array(_portla.stop_reasons)[codes]
    converged = reason == "converged"
    return BatchResult(
        x=_back(x, like),
        iterations=_back(its, like),
        converged=_back(converged, like),
        reason=reason,
        residual_norm=_back(res, like),
        rhs_norm=_back(bnorm, like),
        time_s=time_s,
        backend=name,
    )
