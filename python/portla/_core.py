"""Conversions shared by portla.solve and portla.scipy: Python objects to the extension's
operators, vectors and settings, each converted once per call.

GPU arrays (CuPy arrays and cupyx.scipy.sparse matrices, PyTorch CUDA tensors, dense or sparse
CSR) take another path (_run_gpu): they reach the extension through DLPack and are used in
place, never copied; x is the caller's x0 (updated in place) or a new array of b's type."""

from __future__ import annotations

import sys
from operator import index as operator_index
from typing import Any, Callable, Optional, Tuple

import numpy as np

from . import _portla

_PRECISIONS = {"double": np.float64, "single": np.float32}
_INT32_MAX = 2**31 - 1
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_C64 = np.dtype(np.complex64)


def _is_sparse(a: Any) -> bool:
    # scipy.sparse is loaded when a sparse matrix exists: portla needs no SciPy otherwise.
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(a)


def _framework(a: Any) -> Optional[str]:
    """"cupy" for CuPy arrays and cupyx.scipy.sparse matrices, "torch" for PyTorch CUDA tensors
    (CPU tensors take the NumPy path), None for anything else."""
    if a is None or type(a) is np.ndarray:
        return None
    module = type(a).__module__
    if module.startswith("cupy"):
        return "cupy"
    if module.startswith("torch") and getattr(a, "is_cuda", False):
        return "torch"
    return None


# The methods that apply A^T (and M^-T): A as an operator that provides it.
TRANSPOSE_METHODS = ("bicg", "qmr")


def _is_linear_operator(a: Any) -> bool:
    return hasattr(a, "matvec") and hasattr(a, "shape") and not _is_sparse(a)


def _check_real(dtype: Any, what: str, complex_ok: bool = False) -> None:
    """ValueError unless dtype is numeric: real, or complex where complex_ok (a solve of complex
    values: COMPLEX_METHODS)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c" and not complex_ok:
        raise ValueError(f"{what}: complex values are not supported (dtype {dtype})")
    if dtype.kind not in "fiubc":
        raise ValueError(f"{what}: not a numeric array (dtype {dtype})")


# The Krylov methods that solve complex systems (complex64, complex128), on every backend (cg:
# for Hermitian positive definite A), as the library lists them (solver::solves_complex); lsqr
# and lsmr solve them too.
COMPLEX_METHODS = tuple(_portla.complex_solvers)


def _dtype_of(o: Any) -> np.dtype:
    dt = getattr(o, "dtype", None)
    return np.dtype(np.asarray(o).dtype if dt is None else dt)


def is_complex(dtype: type) -> bool:
    return np.dtype(dtype).kind == "c"


def _complex_of(dtype: type) -> type:
    return np.complex64 if dtype == np.float32 else np.complex128


def dtype_for(precision: Optional[str], *objects: Any, complex_ok: bool = False) -> type:
    """float32 or float64: `precision` when given ("double"/"single"), else float32 when every
    array among `objects` is float32 (as SciPy keeps the caller's dtype), float64 otherwise.
    complex_ok: complex64 or complex128 by the same rule when some array is complex (complex64
    and float32 count as single precision)."""
    if complex_ok and any(
        _dtype_of(o).kind == "c"
        for o in objects
        if o is not None and not isinstance(o, str)
    ):
        if precision is not None:
            return _complex_of(dtype_for(precision))
        single = all(
            _dtype_of(o) in (_F32, _C64)
            for o in objects
            if o is not None and not isinstance(o, str)
        )
        return np.complex64 if single else np.complex128
    if precision is not None:
        if precision not in _PRECISIONS:
            raise ValueError(f"precision: expected 'double' or 'single', got {precision!r}")
        return _PRECISIONS[precision]
    seen = all32 = False
    for o in objects:
        if o is None or isinstance(o, str):
            continue
        dt = getattr(o, "dtype", None)
        if dt is None:
            dt = np.asarray(o).dtype
        # NumPy's built-in dtypes are singletons: the common cases cost two comparisons.
        if dt is not _F64 and dt is not _F32:
            _check_real(dt, "portla")
            dt = np.dtype(dt)
        all32 = (all32 or not seen) and dt == _F32
        seen = True
    return np.float32 if seen and all32 else np.float64


def suffix(dtype: type) -> str:
    return {np.float32: "_f32", np.complex64: "_c64", np.complex128: "_c128"}.get(dtype, "_f64")


def vector(x: Any, dtype: type, n: int, what: str) -> np.ndarray:
    """A contiguous 1-D array of n values of dtype ((n, 1) and (1, n) accepted, as by SciPy)."""
    a = np.asarray(x)
    _check_real(a.dtype, what, is_complex(dtype))
    if a.ndim == 2 and 1 in a.shape:
        a = a.reshape(-1)
    if a.ndim != 1:
        raise ValueError(f"{what}: expected a vector, got shape {a.shape}")
    if a.shape[0] != n:
        raise ValueError(f"{what}: dimension mismatch (expected {n}, got {a.shape[0]})")
    return np.ascontiguousarray(a, dtype=dtype)


def _matvec(
    f: Callable[[np.ndarray], Any], dtype: type, n: int, what: str
) -> Callable[[np.ndarray], np.ndarray]:
    """f as the solve calls it: its result must be n real numbers, shape (n,) or (n, 1) (as
    SciPy's LinearOperator gives), else ValueError naming `what`. A complex result is refused,
    never cast: dropping its imaginary part would solve another system."""

    def apply(x: np.ndarray) -> np.ndarray:
        try:
            y = np.asarray(f(x))
        except ValueError as e:
            # SciPy's LinearOperator.matvec refuses a wrongly shaped result itself ("cannot
            # reshape array of size 5 into shape (10,)"), naming no operator: the note does.
            if hasattr(e, "add_note"):  # Python >= 3.11
                e.add_note(f"(raised by {what})")
            raise
        if y.dtype.kind not in ("fiubc" if is_complex(dtype) else "fiub"):
            raise ValueError(
                f"{what} returned values of dtype {y.dtype}; the solve needs real numbers"
                + (" (complex systems are not supported)" if y.dtype.kind == "c" else "")
            )
        if y.shape not in ((n,), (n, 1)):
            raise ValueError(f"{what} returned shape {y.shape}; expected ({n},) or ({n}, 1)")
        return np.ascontiguousarray(y.reshape(-1), dtype=dtype)

    return apply


def shape_of(A: Any) -> Tuple[int, int]:
    shape = getattr(A, "shape", None)
    shape = tuple(np.shape(A) if shape is None else shape)
    if len(shape) != 2:
        raise ValueError(f"A: expected a matrix or linear operator, got shape {shape}")
    return int(shape[0]), int(shape[1])


def operator(A: Any, dtype: type, backend: str, transpose: bool = False) -> Any:
    """The extension's operator for A: CSR for a scipy.sparse matrix or array (CSC, COO, ...
    converted once), dense for a 2-D array, a matrix-free callback for anything with matvec and
    shape (scipy.sparse.linalg.LinearOperator). transpose: the solver needs A^T x too (its
    rmatvec for a LinearOperator; a dense array is taken as CSR, which provides it)."""
    s = suffix(dtype)
    complex_ok = is_complex(dtype)
    if complex_ok and transpose and not _is_sparse(A) and not _is_linear_operator(A):
        # a dense complex array for a solver that needs A^H: taken as CSR, which provides it
        a = np.asarray(A)
        if a.ndim == 2 and max(a.shape) <= _INT32_MAX:
            sparse = sys.modules.get("scipy.sparse")
            if sparse is None:
                import scipy.sparse as sparse
            A = sparse.csr_array(a)
    if transpose and not _is_sparse(A) and not _is_linear_operator(A):
        a = np.asarray(A)
        _check_real(a.dtype, "A")
        if a.ndim == 2 and max(a.shape) <= _INT32_MAX and np.count_nonzero(a) <= _INT32_MAX:
            rows, cols = a.shape
            nz = np.nonzero(a)
            indptr = np.zeros(rows + 1, np.int32)
            np.cumsum(np.count_nonzero(a, axis=1), out=indptr[1:])
            return getattr(_portla, "csr" + s)(
                backend,
                rows,
                cols,
                indptr,
                nz[1].astype(np.int32),
                np.ascontiguousarray(a[nz], dtype=dtype),
            )
    if _is_sparse(A):
        if A.dtype is not _F64 and A.dtype is not _F32:
            _check_real(A.dtype, "A", complex_ok)
        csr = A.tocsr()
        if not csr.has_canonical_format:
            csr = csr.copy()
            csr.sum_duplicates()
        if max(csr.shape) > _INT32_MAX:
            raise ValueError(f"A: shape {csr.shape} exceeds portla's int32 row and column indices")
        rows, cols = csr.shape
        indices = np.ascontiguousarray(csr.indices, dtype=np.int32)
        data = np.ascontiguousarray(csr.data, dtype=dtype)
        if csr.nnz > _INT32_MAX or csr.indptr.dtype == np.int64:
            # 64-bit row offsets (SciPy's past 2^31 - 1 entries), read as they are: portla keeps
            # them where the entries need them, else takes a 32-bit copy (4 bytes per row).
            indptr64 = np.ascontiguousarray(csr.indptr, dtype=np.int64)
            return getattr(_portla, "csr64" + s)(backend, rows, cols, indptr64, indices, data)
        indptr = np.ascontiguousarray(csr.indptr, dtype=np.int32)
        return getattr(_portla, "csr" + s)(backend, rows, cols, indptr, indices, data)
    if _is_linear_operator(A):
        rows, cols = shape_of(A)
        rmatvec = _matvec(A.rmatvec, dtype, cols, "A.rmatvec") if transpose else None
        return getattr(_portla, "callback" + s)(
            backend, rows, cols, _matvec(A.matvec, dtype, rows, "A.matvec"), rmatvec
        )
    a = np.asarray(A)
    _check_real(a.dtype, "A", complex_ok)
    if a.ndim != 2:
        raise ValueError(f"A: expected a matrix or linear operator, got shape {a.shape}")
    return getattr(_portla, "dense" + s)(backend, np.ascontiguousarray(a, dtype=dtype))


def multigrid(M: Any, dtype: type) -> Any:
    """The extension's hierarchy behind portla.pyamg's aspreconditioner() M, its cycle set, when
    its dtype is `dtype`; None otherwise."""
    get = getattr(M, "portla_multigrid", None)
    return get(dtype) if callable(get) else None


def preconditioner(M: Any, dtype: type, n: int, transpose: bool = False) -> Tuple[str, Any]:
    """(name, None) for a preconditioner portla builds ("jacobi", "ilu0", ...; None: "none"),
    ("none", hierarchy) for portla.pyamg's aspreconditioner() of the solve's dtype (applied in
    C++), or ("none", z = M @ r) for a LinearOperator, sparse matrix or array approximating
    A^-1 (its result n real numbers); transpose: ("none", (z = M @ r, z = M^T @ r)), M^T
    through a LinearOperator's rmatvec."""
    if M is None:
        return "none", None
    if isinstance(M, dict):  # qmr's split preconditioners {"M1": ..., "M2": ...}
        split = {}
        for key, part in M.items():
            if isinstance(part, str):
                raise ValueError(f"{key}: a preconditioner name is taken as M1 alone, without M2")
            split[key] = preconditioner(part, dtype, n, True)[1]
        return "none", split
    if isinstance(M, str):
        return M.replace("_", "-"), None
    hierarchy = multigrid(M, dtype)
    if hierarchy is not None:
        return "none", hierarchy
    if _is_linear_operator(M):
        f = _matvec(M.matvec, dtype, n, "M.matvec")
        return "none", (f, _matvec(M.rmatvec, dtype, n, "M.rmatvec")) if transpose else f
    if _is_sparse(M) or isinstance(M, np.ndarray):
        f = _matvec(lambda r: M @ r, dtype, n, "M @ r")
        return "none", (f, _matvec(lambda r: M.T @ r, dtype, n, "M.T @ r")) if transpose else f
    raise TypeError(f"M: expected a preconditioner name, a LinearOperator or a matrix, got {type(M)}")


# The Settings fields that are C int: a value outside int32 is refused naming its keyword
# (the semantic ranges, max_iters >= 0 and so on, are checked by the solvers).
_INT_SETTINGS = (
    "max_iters",
    "restart",
    "residual_replacement",
    "block_size",
    "chebyshev_degree",
    "ilut_fill",
    "iluk_level",
    "lgmres_outer_k",
    "lgmres_max_cycles",
    "gcrot_m",
    "gcrot_k",
    "gcrot_max_cycles",
)


def integer(key: str, value: Any, low: int = -(2**31), high: int = _INT32_MAX) -> int:
    """value as an int in [low, high]: an integral float (1e4) is taken; a fraction, NaN or a
    non-number is a ValueError or TypeError, and a value out of range an OverflowError, each
    naming `key`."""
    if isinstance(value, bool):
        raise TypeError(f"{key}: expected an integer, got {value!r}")
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value) or value != int(value):
            raise ValueError(f"{key}: expected an integer, got {value!r}")
        value = int(value)
    try:
        value = operator_index(value)
    except TypeError:
        raise TypeError(f"{key}: expected an integer, got {type(value).__name__}") from None
    if not low <= value <= high:
        raise OverflowError(f"{key}: {value} is out of range [{low}, {high}]")
    return value


# The AmgSettings fields that are C int (their ranges are checked when the hierarchy is built).
_AMG_INT_SETTINGS = (
    "sweeps",
    "chebyshev_degree",
    "max_levels",
    "coarse_size",
    "aggressive_levels",
)


def amg_settings(options: Any) -> Any:
    """Settings.amg from a dict of AmgSettings fields ({"smoother": "jacobi", "sweeps": 2},
    smoother and cycle by name) or an AmgSettings; an unknown field is a TypeError."""
    if isinstance(options, _portla.AmgSettings):
        return options
    if not isinstance(options, dict):
        raise TypeError(f"amg: expected a dict of multigrid settings, got {type(options).__name__}")
    a = _portla.AmgSettings()
    for key, value in options.items():
        if key in _AMG_INT_SETTINGS:
            value = integer(f"amg[{key!r}]", value)
        if not hasattr(a, key) or key.startswith("_"):
            raise TypeError(f"unknown multigrid setting {key!r}")
        setattr(a, key, value)
    return a


def settings(**kwargs: Any) -> Any:
    s = _portla.Settings()
    for key, value in kwargs.items():
        if key in _INT_SETTINGS:
            value = integer(key, value)
        elif key == "amg":
            value = amg_settings(value)
        try:
            setattr(s, key, value)
        except AttributeError:
            raise TypeError(f"unknown solver setting {key!r}") from None
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
    callback: Optional[Callable[[Any], Any]] = None,
    minimised: Optional[Callable[[int, float], Any]] = None,
    **kwargs: Any,
) -> Tuple[Any, Any]:
    """Solves A x = b with the extension: returns (x, SolveInfo). callback(x), when given, is
    called after each iteration of cg and bicgstab, and at the end of each restart cycle of
    gmres, with the solver's x itself. minimised(iteration, norm): gmres's minimised residual
    norm after each iteration (preconditioned with left preconditioning)."""
    gpu = _framework(A) or _framework(b) or _framework(x0)
    if gpu is not None:
        return _run_gpu(
            method, A, b, x0, M, backend, precision, monitor, callback, minimised, kwargs
        )
    follow = getattr(M, "portla_backend", None)
    if backend == "auto" and callable(follow):  # a portla.pyamg hierarchy: solve where it lives
        backend = follow()
    if method not in COMPLEX_METHODS:
        for o in (A, b):
            dt = _dtype_of(o)
            if dt.kind == "c":
                raise ValueError(
                    f"{method}: complex values (dtype {dt}) are not supported; "
                    f"{', '.join(COMPLEX_METHODS)} solve complex systems"
                )
    dtype = dtype_for(precision, A, b, complex_ok=method in COMPLEX_METHODS)
    rows, cols = shape_of(A)
    bv = vector(b, dtype, rows, "b")
    # x0 is the caller's: copied (as SciPy does), x written in place by the solve.
    x = np.empty(cols, dtype) if x0 is None else np.array(vector(x0, dtype, cols, "x0"))
    transpose = method in TRANSPOSE_METHODS
    name, apply_m = preconditioner(M, dtype, cols, transpose)
    s = settings(precond=name, **kwargs)
    op = operator(A, dtype, backend, transpose)
    iterate = None if callback is None else (lambda i: callback(x))
    info = getattr(_portla, "solve" + suffix(dtype))(
        method, op, bv, x, x0 is not None, s, apply_m, monitor, iterate, minimised
    )
    return x, info


def least_squares(
    method: str, A: Any, b: Any, x0: Any, backend: str, **kwargs: Any
) -> Tuple[np.ndarray, np.ndarray, Any]:
    """lsqr or lsmr (``method``) in double precision (complex128 where A, b or x0 is complex)
    of a host A (sparse, dense or a LinearOperator with rmatvec, any shape m x n), b (m values:
    shape (m,), (m, 1) or a scalar when m = 1) and x0 (n values or None); kwargs are
    LeastSquaresSettings' fields. Returns (x, var, LeastSquaresResult); var is zeros unless
    calc_var."""
    if _framework(A) or _framework(b) or _framework(x0):
        raise ValueError(f"{method}: GPU arrays are not supported; give NumPy / SciPy ones")
    rows, cols = shape_of(A)
    # complex128 where A, b or x0 is complex (A^T: the adjoint), else float64
    dtype = dtype_for(None, A, b, *([] if x0 is None else [x0]), complex_ok=True)
    dtype = np.complex128 if is_complex(dtype) else np.float64
    bv = vector(np.atleast_1d(b), dtype, rows, "b")
    x = np.zeros(cols, dtype) if x0 is None else np.array(vector(x0, dtype, cols, "x0"))
    s = _portla.LeastSquaresSettings()
    s.use_initial_guess = x0 is not None
    for key, value in kwargs.items():
        setattr(s, key, value)
    var = np.zeros(cols, dtype)
    op = operator(A, dtype, backend, transpose=True)
    result = getattr(_portla, "least_squares" + suffix(dtype))(method, op, bv, x, var, s)
    return x, var, result


# ---- GPU arrays: CuPy and PyTorch, in place through DLPack ----------------------------------

_TORCH_DTYPES = {
    "torch.float64": np.float64,
    "torch.float32": np.float32,
    "torch.complex128": np.complex128,
    "torch.complex64": np.complex64,
}
_GPU_DTYPES = "float32, float64, complex64, complex128"


def _np_dtype(a: Any, what: str) -> type:
    dt = a.dtype
    if _framework(a) == "torch" or type(dt).__module__.startswith("torch"):
        if str(dt) not in _TORCH_DTYPES:
            raise ValueError(f"{what}: dtype {dt} is not supported on the GPU ({_GPU_DTYPES})")
        return _TORCH_DTYPES[str(dt)]
    dt = np.dtype(dt)
    if dt not in (np.float32, np.float64, np.complex64, np.complex128):
        raise ValueError(f"{what}: dtype {dt} is not supported on the GPU ({_GPU_DTYPES})")
    return dt.type


def _device(a: Any) -> str:
    if _framework(a) == "torch":
        return f"cuda:{a.device.index}"
    if _framework(a) == "cupy":
        return f"cuda:{a.device.id}"
    return "the host"


def _contiguous(a: Any) -> bool:
    return a.is_contiguous() if _framework(a) == "torch" else bool(a.flags.c_contiguous)


def _detach(a: Any) -> Any:
    # A tensor that requires grad refuses DLPack export; detach() shares its memory.
    return a.detach() if getattr(a, "requires_grad", False) else a


def _gpu_vector(a: Any, dtype: type, n: int, what: str, device: str) -> Any:
    """The caller's GPU vector as the extension takes it (a view, never a copy): 1-D, (n, 1)
    or (1, n), contiguous, of dtype, on `device`. ValueError otherwise."""
    if _framework(a) is None:
        raise ValueError(f"{what}: a host array with A on {device}; give it on the same GPU")
    if _device(a) != device:
        raise ValueError(f"{what}: on {_device(a)}, A on {device}")
    a = _detach(a)
    if _np_dtype(a, what) != dtype:
        raise ValueError(
            f"{what}: dtype {a.dtype} differs from the solve's {np.dtype(dtype)} "
            "(GPU arrays are used in place, not converted)"
        )
    shape = tuple(a.shape)
    if len(shape) == 2 and 1 in shape:
        a = a.reshape(-1)
        shape = tuple(a.shape)
    if len(shape) != 1:
        raise ValueError(f"{what}: expected a vector, got shape {shape}")
    if shape[0] != n:
        raise ValueError(f"{what}: dimension mismatch (expected {n}, got {shape[0]})")
    if not _contiguous(a):
        raise ValueError(f"{what}: not contiguous (GPU arrays are used in place, not copied)")
    return a


def _index32(a: Any, what: str) -> Any:
    """int32 indices: as given, or converted once on the GPU from int64 (PyTorch's default)
    after a range check; the only conversion the GPU path makes."""
    if str(a.dtype) in ("int32", "torch.int32"):
        return a
    if a.numel() if _framework(a) == "torch" else a.size:
        if int(a.max()) > _INT32_MAX:
            raise ValueError(f"A: {what} exceed portla's int32 indices")
    if _framework(a) == "torch":
        import torch

        return a.to(torch.int32)
    return a.astype("int32")


def _gpu_operator(A: Any, backend: str, precision: Optional[str]) -> Tuple[Any, type, str, Tuple]:
    """(extension operator over A's own memory, dtype, device, shape) for a cupyx.scipy.sparse
    matrix, a PyTorch sparse CSR (or COO, converted once) tensor, or a dense 2-D GPU array."""
    fw = _framework(A)
    if fw is None:
        raise ValueError("A: a host matrix with b on a GPU; give A on the same GPU")
    A = _detach(A)
    sparse = None
    if fw == "cupy":
        import cupyx.scipy.sparse as csp

        if csp.issparse(A):
            if A.format != "csr":
                A = A.tocsr()
            sparse = (A.indptr, A.indices, A.data)
    else:
        import torch

        if A.layout == torch.sparse_coo:
            A = A.to_sparse_csr()
        if A.layout == torch.sparse_csr:
            sparse = (A.crow_indices(), A.col_indices(), A.values())
        elif A.layout != torch.strided:
            raise ValueError(f"A: PyTorch layout {A.layout} is not supported (strided, CSR, COO)")
    shape = tuple(int(d) for d in A.shape)
    if len(shape) != 2:
        raise ValueError(f"A: expected a matrix, got shape {shape}")
    values = A if sparse is None else sparse[2]
    dtype = _np_dtype(values, "A")
    if sparse is not None and not all(_contiguous(a) for a in sparse):
        raise ValueError("A: its CSR arrays are not contiguous")
    if precision is not None and _PRECISIONS.get(precision, None) != dtype:
        if precision not in _PRECISIONS:
            raise ValueError(f"precision: expected 'double' or 'single', got {precision!r}")
        raise ValueError(
            f"precision {precision!r} differs from A's dtype {np.dtype(dtype)} (GPU arrays are "
            "used in place, not converted)"
        )
    device = _device(values)
    s = suffix(dtype)
    if sparse is None:
        if not _contiguous(A):
            raise ValueError("A: not C-contiguous (GPU arrays are used in place, not copied)")
        return getattr(_portla, "dense" + s)(backend, A), dtype, device, shape
    indptr, indices = _index32(sparse[0], "row pointers"), _index32(sparse[1], "column indices")
    op = getattr(_portla, "csr" + s)(backend, shape[0], shape[1], indptr, indices, values)
    return op, dtype, device, shape


def norm(b: Any) -> float:
    """||b|| in double precision, on b's device."""
    fw = _framework(b)
    if fw == "torch":
        import torch

        wide = torch.complex128 if b.is_complex() else torch.float64
        return float(torch.linalg.vector_norm(b.detach().to(wide)))
    if fw == "cupy":
        import cupy

        wide = cupy.complex128 if b.dtype.kind == "c" else cupy.float64
        return float(cupy.linalg.norm(b.astype(wide)))
    a = np.asarray(b)
    return float(np.linalg.norm(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)))


def _empty_like(b: Any, n: int) -> Any:
    if _framework(b) == "torch":
        import torch

        return torch.empty(n, dtype=b.dtype, device=b.device)
    import cupy

    return cupy.empty(n, dtype=b.dtype)


def _sync_caller_stream(a: Any) -> None:
    """portla's stream waits for the legacy default stream, where CuPy and PyTorch work by
    default; work the caller queued on another stream is waited for here."""
    if _framework(a) == "torch":
        import torch

        s = torch.cuda.current_stream(a.device)
        if s != torch.cuda.default_stream(a.device):
            s.synchronize()
    else:
        import cupy

        s = cupy.cuda.get_current_stream()
        if s.ptr != 0:
            s.synchronize()


def _run_gpu(method, A, b, x0, M, backend, precision, monitor, callback, minimised, kwargs):
    # Before the operator: its constructor reads A's pattern (to check it).
    _sync_caller_stream(A if _framework(A) is not None else b)
    op, dtype, device, (rows, cols) = _gpu_operator(A, backend, precision)
    if is_complex(dtype) and method not in COMPLEX_METHODS:
        raise ValueError(
            f"{method}: complex values (dtype {np.dtype(dtype)}) are not supported; "
            f"{', '.join(COMPLEX_METHODS)} solve complex systems"
        )
    bv = _gpu_vector(b, dtype, rows, "b", device)
    if x0 is None:
        x = xv = _empty_like(bv, cols)
    else:
        x = x0
        xv = _gpu_vector(x0, dtype, cols, "x0", device)
    hierarchy = None if M is None or isinstance(M, str) else multigrid(M, dtype)
    if M is not None and not isinstance(M, str) and hierarchy is None:
        raise ValueError(
            "M: with GPU arrays, give a preconditioner name ('jacobi', 'ilu0', ...) or a "
            "portla.pyamg preconditioner of the solve's dtype"
        )
    name = "none" if hierarchy is not None else (M or "none").replace("_", "-")
    s = settings(precond=name, **kwargs)
    iterate = None if callback is None else (lambda i: callback(x))
    info = getattr(_portla, "solve" + suffix(dtype))(
        method, op, bv, xv, x0 is not None, s, hierarchy, monitor, iterate, minimised
    )
    return x, info
