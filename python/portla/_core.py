"""Conversions shared by portla.solve and portla.scipy: Python objects to the extension's
operators, vectors and settings, each converted once per call."""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, Tuple

import numpy as np

from . import _portla

_PRECISIONS = {"double": np.float64, "single": np.float32}
_INT32_MAX = 2**31 - 1


def _is_sparse(a: Any) -> bool:
    # scipy.sparse is loaded when a sparse matrix exists: portla needs no SciPy otherwise.
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(a)


def _is_linear_operator(a: Any) -> bool:
    return hasattr(a, "matvec") and hasattr(a, "shape") and not _is_sparse(a)


def _check_real(dtype: Any, what: str) -> None:
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        raise ValueError(f"{what}: complex values are not supported (dtype {dtype})")
    if dtype.kind not in "fiub":
        raise ValueError(f"{what}: not a numeric array (dtype {dtype})")


def dtype_for(precision: Optional[str], *objects: Any) -> type:
    """float32 or float64: `precision` when given ("double"/"single"), else float32 when every
    array among `objects` is float32 (as SciPy keeps the caller's dtype), float64 otherwise."""
    if precision is not None:
        if precision not in _PRECISIONS:
            raise ValueError(f"precision: expected 'double' or 'single', got {precision!r}")
        return _PRECISIONS[precision]
    dtypes = []
    for o in objects:
        if o is None or isinstance(o, str):
            continue
        dt = getattr(o, "dtype", None)
        if dt is None:
            dt = np.asarray(o).dtype
        _check_real(dt, "portla")
        dtypes.append(np.dtype(dt))
    if dtypes and all(dt == np.float32 for dt in dtypes):
        return np.float32
    return np.float64


def suffix(dtype: type) -> str:
    return "_f32" if dtype == np.float32 else "_f64"


def vector(x: Any, dtype: type, n: int, what: str) -> np.ndarray:
    """A contiguous 1-D array of n values of dtype ((n, 1) and (1, n) accepted, as by SciPy)."""
    a = np.asarray(x)
    _check_real(a.dtype, what)
    if a.ndim == 2 and 1 in a.shape:
        a = a.reshape(-1)
    if a.ndim != 1:
        raise ValueError(f"{what}: expected a vector, got shape {a.shape}")
    if a.shape[0] != n:
        raise ValueError(f"{what}: dimension mismatch (expected {n}, got {a.shape[0]})")
    return np.ascontiguousarray(a, dtype=dtype)


def _matvec(f: Callable[[np.ndarray], Any], dtype: type) -> Callable[[np.ndarray], np.ndarray]:
    def apply(x: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(np.asarray(f(x)).reshape(-1), dtype=dtype)

    return apply


def shape_of(A: Any) -> Tuple[int, int]:
    shape = tuple(getattr(A, "shape", np.shape(A)))
    if len(shape) != 2:
        raise ValueError(f"A: expected a matrix or linear operator, got shape {shape}")
    return int(shape[0]), int(shape[1])


def operator(A: Any, dtype: type, backend: str) -> Any:
    """The extension's operator for A: CSR for a scipy.sparse matrix or array (CSC, COO, ...
    converted once), dense for a 2-D array, a matrix-free callback for anything with matvec and
    shape (scipy.sparse.linalg.LinearOperator)."""
    s = suffix(dtype)
    if _is_sparse(A):
        _check_real(A.dtype, "A")
        csr = A.tocsr()
        if not csr.has_canonical_format:
            csr = csr.copy()
            csr.sum_duplicates()
        if csr.nnz > _INT32_MAX or max(csr.shape) > _INT32_MAX:
            raise ValueError(f"A: {csr.nnz} entries or {csr.shape} exceed portla's int32 indices")
        rows, cols = csr.shape
        return getattr(_portla, "csr" + s)(
            backend,
            rows,
            cols,
            np.ascontiguousarray(csr.indptr, dtype=np.int32),
            np.ascontiguousarray(csr.indices, dtype=np.int32),
            np.ascontiguousarray(csr.data, dtype=dtype),
        )
    if _is_linear_operator(A):
        rows, cols = shape_of(A)
        return getattr(_portla, "callback" + s)(backend, rows, cols, _matvec(A.matvec, dtype))
    a = np.asarray(A)
    _check_real(a.dtype, "A")
    if a.ndim != 2:
        raise ValueError(f"A: expected a matrix or linear operator, got shape {a.shape}")
    return getattr(_portla, "dense" + s)(backend, np.ascontiguousarray(a, dtype=dtype))


def preconditioner(M: Any, dtype: type) -> Tuple[str, Optional[Callable[[np.ndarray], np.ndarray]]]:
    """(name, None) for a preconditioner portla builds ("jacobi", "ilu0", ...; None: "none"), or
    ("none", z = M @ r) for a LinearOperator, sparse matrix or array approximating A^-1."""
    if M is None:
        return "none", None
    if isinstance(M, str):
        return M.replace("_", "-"), None
    if _is_linear_operator(M):
        return "none", _matvec(M.matvec, dtype)
    if _is_sparse(M) or isinstance(M, np.ndarray):
        return "none", _matvec(lambda r: M @ r, dtype)
    raise TypeError(f"M: expected a preconditioner name, a LinearOperator or a matrix, got {type(M)}")


def settings(**kwargs: Any) -> Any:
    s = _portla.Settings()
    for key, value in kwargs.items():
        if not hasattr(s, key):
            raise TypeError(f"unknown solver setting {key!r}")
        setattr(s, key, value)
    return s


def run(
    method: str,
    A: Any,
    b: Any,
    x0: Any = None,
    M: Any = None,
    backend: str = "auto",
    precision: Optional[str] = None,
    monitor: Optional[Callable[[int, float], Any]] = None,
    **kwargs: Any,
) -> Tuple[np.ndarray, Any]:
    """Solves A x = b with the extension: returns (x, SolveInfo)."""
    dtype = dtype_for(precision, A, b)
    rows, cols = shape_of(A)
    bv = vector(b, dtype, rows, "b")
    xv = None if x0 is None else vector(x0, dtype, cols, "x0")
    name, apply_m = preconditioner(M, dtype)
    s = settings(precond=name, **kwargs)
    op = operator(A, dtype, backend)
    return getattr(_portla, "solve" + suffix(dtype))(method, op, bv, xv, s, apply_m, monitor)
