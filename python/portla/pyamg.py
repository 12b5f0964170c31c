"""PyAMG's solver constructors over portla's algebraic multigrid:

    import portla.pyamg as pyamg         # instead of: import pyamg
    ml = pyamg.ruge_stuben_solver(A)     # classical AMG; smoothed_aggregation_solver for SA
    x = ml.solve(b, tol=1e-10)           # multigrid cycles alone, or accel="cg"
    M = ml.aspreconditioner()            # a LinearOperator for SciPy's (and portla's) solvers
    print(ml)                            # the hierarchy, as PyAMG prints it

The hierarchy is built by portla (include/portla/solver/amg.hpp, docs/multigrid.md): a SciPy
matrix on a CPU backend (omp), a CuPy or PyTorch CSR matrix in place on its GPU. The solves and
cycles run in portla's C++ code; ``portla.scipy``'s solvers recognise ``aspreconditioner()``'s
operator and apply its cycle where the hierarchy lives, without calling back into Python.

PyAMG's common keywords map onto portla's settings; a keyword or value portla cannot honour
raises ValueError naming it, never ignored. What portla offers:

- smoothers (presmoother = postsmoother, the same before and after the coarse correction):
  ``'jacobi'`` (``omega``, weight omega / rho(D^-1 A), ``withrho=True``, ``iterations``),
  ``'chebyshev'`` (``degree``, ``iterations``; on D^-1 A over [lmax / 11, lmax], lmax 1.1 times
  the spectral radius estimate, not PyAMG's interval on A, so ``lower_bound`` and
  ``upper_bound`` are refused), portla's ``'l1_jacobi'`` (``iterations``). Gauss-Seidel and the
  other sequential smoothers are not available: the defaults are ``('chebyshev', {'degree': 1})``
  where PyAMG's are (block) Gauss-Seidel.
- smoothed aggregation: strength ``'symmetric'`` (``theta``) or None; aggregate ``'standard'``
  (portla's parallel aggregation: roots a distance-2 maximal independent set, the aggregates
  differ from PyAMG's greedy ones); smooth ``'jacobi'`` (``omega``); B the constant vector only;
  no candidate improvement (``improve_candidates=None``).
- classical: strength ``'classical'`` (``theta``, ``norm='abs'``) or None; CF ``'PMIS'`` (PyAMG's
  default ``'RS'`` is sequential and refused); interpolation ``'extended+i'`` (the default: PMIS
  leaves fine rows without a strong coarse neighbour, which PyAMG's default ``'classical'``
  interpolation, also offered, cannot serve; RS's second pass avoids them).
- max_levels, max_coarse; coarse_solver a direct solver name (``'pinv'``, ``'lu'``, ...):
  portla solves the last level by a dense LU when it has at most 1000 rows, else by smoothing.
- solve: cycles ``'V'`` and ``'W'``; accel None, ``'cg'``, ``'bicgstab'``, ``'gmres'`` (portla's
  solvers, preconditioned by the cycle in C++) or a SciPy-style solver function.
- ``solve(A, b, ...)``, PyAMG's black-box solve: smoothed aggregation with the defaults, CG for
  a symmetric A, GMRES otherwise.
- ``gallery.poisson`` and ``gallery.stencil_grid``, PyAMG's model matrices (the same matrices), so
  that examples building their problem with them run unchanged.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from . import _core, _portla
from . import _gallery as gallery

# `from portla.pyamg.gallery import poisson` as from PyAMG's gallery package.
sys.modules[__name__ + ".gallery"] = gallery

__all__ = [
    "smoothed_aggregation_solver",
    "ruge_stuben_solver",
    "solve",
    "MultilevelSolver",
    "Level",
]

_DIRECT_COARSE_SOLVERS = ("pinv", "pinvh", "pinv2", "lu", "cholesky", "splu")
_SMOOTHERS = ("jacobi", "chebyshev", "l1_jacobi")
_KRYLOV = ("cg", "bicgstab", "gmres")


def _named(value: Any, keyword: str) -> Tuple[Any, Dict[str, Any]]:
    """PyAMG's ``'name'`` or ``('name', {options})`` as (name, options); a list of per-level
    choices is taken when every level's is the same (portla uses one setting on every level)."""
    if isinstance(value, list):
        if not value:
            raise ValueError(f"{keyword}: an empty list")
        first = _named(value[0], keyword)
        for v in value[1:]:
            if _named(v, keyword) != first:
                raise ValueError(
                    f"{keyword}: portla uses one setting on every level, got {value!r}"
                )
        return first
    if isinstance(value, tuple):
        if len(value) != 2 or not isinstance(value[1], dict):
            raise ValueError(f"{keyword}: expected 'name' or ('name', {{options}}), got {value!r}")
        return value[0], dict(value[1])
    return value, {}


def _options(keyword: str, name: str, opts: Dict[str, Any], allowed: Dict[str, Any]) -> Dict:
    """opts with allowed's defaults filled in; an option outside `allowed` is a ValueError."""
    for key in opts:
        if key not in allowed:
            raise ValueError(
                f"{keyword}: option {key!r} of {name!r} is not supported by portla "
                f"(supported: {', '.join(sorted(allowed)) or 'none'})"
            )
    return {**allowed, **opts}


def _require(keyword: str, value: Any, accepted: Tuple, why: str) -> None:
    if not any(value is a or (type(value) is type(a) and value == a) for a in accepted):
        raise ValueError(f"{keyword}={value!r} is not supported by portla: {why}")


def _theta(keyword: str, value: Any) -> float:
    theta = float(value)
    if not np.isfinite(theta) or theta < 0:
        raise ValueError(f"{keyword}: theta must be finite and >= 0, got {value!r}")
    return theta


def _strength(s: Any, strength: Any, accepted: str, defaults: Dict[str, Any], method: str) -> Dict:
    """Sets s.strength_threshold from PyAMG's strength keyword: None (threshold 0) or `accepted`
    with options (theta among them); returns the options ({} for None)."""
    name, opts = _named(strength, "strength")
    if name is None:
        s.strength_threshold = 0.0
        return {}
    if name != accepted:
        raise ValueError(
            f"strength={strength!r} is not supported by portla for {method} ('{accepted}' with "
            "theta, or None)"
        )
    o = _options("strength", name, opts, defaults)
    s.strength_threshold = _theta("strength", o["theta"])
    return o


def _smoother(settings: Any, presmoother: Any, postsmoother: Any) -> None:
    pre = _named(presmoother, "presmoother")
    post = _named(postsmoother, "postsmoother")
    if pre != post:
        raise ValueError(
            f"postsmoother={postsmoother!r} differs from presmoother={presmoother!r}: portla "
            "applies the same smoother before and after the coarse correction"
        )
    name, opts = pre
    if isinstance(name, str):
        name = name.replace("-", "_")
    if name not in _SMOOTHERS:
        raise ValueError(
            f"presmoother={presmoother!r} is not supported by portla (its smoothers run in "
            f"parallel: {', '.join(repr(s) for s in _SMOOTHERS)})"
        )
    if name == "jacobi":
        o = _options("presmoother", name, opts, {"omega": 1.0, "withrho": True, "iterations": 1})
        if o["withrho"] is not True:
            raise ValueError(
                "presmoother: jacobi with withrho=False is not supported by portla (its "
                "weight is omega / rho(D^-1 A))"
            )
        settings.smoother = "jacobi"
        settings.jacobi_weight = float(o["omega"])
    elif name == "chebyshev":
        o = _options("presmoother", name, opts, {"degree": 3, "iterations": 1})
        settings.smoother = "chebyshev"
        settings.chebyshev_degree = _core.integer("presmoother: degree", o["degree"])
    else:
        o = _options("presmoother", name, opts, {"iterations": 1})
        settings.smoother = "l1-jacobi"
    settings.sweeps = _core.integer("presmoother: iterations", o["iterations"])


def _common(settings: Any, max_levels: Any, max_coarse: Any, kwargs: Dict[str, Any]) -> None:
    settings.max_levels = _core.integer("max_levels", max_levels)
    settings.coarse_size = _core.integer("max_coarse", max_coarse)
    for key, value in kwargs.items():
        if key != "coarse_solver":
            raise ValueError(f"keyword {key!r} is not supported by portla.pyamg")
        name, opts = _named(value, "coarse_solver")
        if name not in _DIRECT_COARSE_SOLVERS or opts:
            raise ValueError(
                f"coarse_solver={value!r} is not supported by portla: the last level is solved "
                "by a dense LU (at most 1000 rows, else by smoothing); give a direct solver's "
                f"name ({', '.join(_DIRECT_COARSE_SOLVERS)}) without options"
            )


def _cycle(cycle: Any) -> str:
    c = str(cycle).upper()
    if c not in ("V", "W"):
        raise ValueError(f"cycle={cycle!r} is not supported by portla (V or W)")
    return c.lower()


def _host_backend() -> str:
    for b in _portla.info()["backends"]:
        if b["name"] == "omp" and b["compiled"]:
            return "omp"
    return "reference"


class Level:
    """One level of the hierarchy, as PyAMG's: ``A`` (the level's operator), and below the
    last level ``P`` (the prolongator from the next level) and ``R`` (= P^T), each a SciPy CSR
    matrix read back from the hierarchy; ``AggOp`` (smoothed aggregation: rows x aggregates,
    1 where a row is in an aggregate) or ``splitting`` (classical: 1 for a coarse row, 0 for a
    fine one) likewise."""

    def __init__(self, ml: "MultilevelSolver", index: int, A: Any) -> None:
        self._ml = ml
        self._index = index
        self.A = A  #: the level's operator (SciPy CSR)

    def _below(self, what: str) -> None:
        if self._index + 1 >= len(self._ml.levels):
            raise AttributeError(f"the last level has no {what}")

    @property
    def P(self) -> Any:
        """The prolongator from level index + 1 (SciPy CSR)."""
        self._below("P")
        return self._ml._csr(self._ml._handle.prolongator(self._index))

    @property
    def R(self) -> Any:
        """The restriction to level index + 1, P^T (SciPy CSR)."""
        return self.P.T.tocsr()

    @property
    def AggOp(self) -> Any:
        """Smoothed aggregation: the aggregation operator (rows x aggregates, SciPy CSR)."""
        if self._ml.method != "sa":
            raise AttributeError("AggOp: the hierarchy is classical (see splitting)")
        self._below("AggOp")
        import scipy.sparse

        agg = np.asarray(self._ml._handle.aggregates(self._index))
        rows = np.flatnonzero(agg >= 0)
        n_agg = int(self._ml.levels[self._index + 1].A.shape[0])
        return scipy.sparse.csr_matrix(
            (np.ones(rows.size), (rows, agg[rows])), shape=(agg.size, n_agg)
        )

    @property
    def splitting(self) -> np.ndarray:
        """Classical: 1 for each coarse row, 0 for each fine one (uint8)."""
        if self._ml.method != "classical":
            raise AttributeError("splitting: the hierarchy is smoothed aggregation (see AggOp)")
        self._below("splitting")
        return (np.asarray(self._ml._handle.aggregates(self._index)) >= 0).astype(np.uint8)


class MultilevelSolver:
    """A multigrid hierarchy built by smoothed_aggregation_solver or ruge_stuben_solver, with
    PyAMG's MultilevelSolver's methods. ``info`` holds portla's account of the set-up (levels,
    complexities, set-up time in seconds, coarse solver, why coarsening stopped, bytes)."""

    def __init__(self, A: Any, method: str, settings: Any, backend: Optional[str]) -> None:
        self.method = method  #: "sa" or "classical"
        self._framework = _core._framework(A)
        if self._framework is None:
            A = _host_csr(A)
            self.dtype = np.float32 if A.dtype == np.float32 else np.float64
            self.backend = backend or _host_backend()  #: where a host matrix's hierarchy lives
            self._op = _core.operator(A, self.dtype, self.backend)
            self._A = A
        else:
            _core._sync_caller_stream(A)
            self.backend = backend or "auto"
            self._op, self.dtype, self._device, shape = _core._gpu_operator(
                A, self.backend, None
            )
            if shape[0] != shape[1]:
                raise ValueError(f"A: expected a square matrix, got shape {shape}")
            self._A = A
        self._handle = getattr(_portla, "multigrid" + _core.suffix(self.dtype))(self._op, settings)
        self.info: Dict[str, Any] = dict(self._handle.info())
        self._levels: Optional[List[Level]] = None

    # ---- the hierarchy ------------------------------------------------------------------

    @staticmethod
    def _csr(parts: Tuple) -> Any:
        import scipy.sparse

        rows, cols, indptr, indices, data = parts
        return scipy.sparse.csr_matrix((data, indices, indptr), shape=(rows, cols))

    @property
    def levels(self) -> List[Level]:
        """The levels, finest first (their matrices read back on first access)."""
        if self._levels is None:
            count = self._handle.levels
            levels = []
            for i in range(count):
                if i == 0 and self._framework is None:
                    A = self._A
                else:
                    A = self._csr(self._handle.level_operator(i))
                levels.append(Level(self, i, A))
            self._levels = levels
        return self._levels

    def operator_complexity(self) -> float:
        """The levels' stored entries over the finest level's."""
        return float(self.info["operator_complexity"])

    def grid_complexity(self) -> float:
        """The levels' rows over the finest level's."""
        return float(self.info["grid_complexity"])

    def __repr__(self) -> str:
        levels = self.info["levels"]
        out = "MultilevelSolver\n"
        out += f"Number of Levels:     {len(levels)}\n"
        out += f"Operator Complexity:  {self.operator_complexity():6.3f}\n"
        out += f"Grid Complexity:      {self.grid_complexity():6.3f}\n"
        out += f"Coarse Solver:        {self.info['coarse_solver']!r}\n"
        total = sum(nnz for _, nnz in levels) or 1
        out += "  level   unknowns     nonzeros\n"
        for n, (rows, nnz) in enumerate(levels):
            out += f"{n:>6} {rows:>11} {nnz:>12} [{100 * nnz / total:2.2f}%]\n"
        return out

    # ---- solving ------------------------------------------------------------------------

    def _vectors(self, b: Any, x0: Any) -> Tuple[Any, Any, Any]:
        """(b as the solve reads it, x to write, what solve returns)."""
        n = self._handle.size
        if self._framework is None:
            if _core._framework(b) is not None or _core._framework(x0) is not None:
                raise ValueError("b: a GPU array with a hierarchy built from a host matrix")
            bv = _core.vector(b, self.dtype, n, "b")
            x = np.zeros(n, self.dtype) if x0 is None else np.array(
                _core.vector(x0, self.dtype, n, "x0")
            )
            return bv, x, x
        bv = _core._gpu_vector(b, self.dtype, n, "b", self._device)
        if x0 is None:
            x = _core._empty_like(bv, n)
            x[:] = 0
        else:
            x0 = _core._gpu_vector(x0, self.dtype, n, "x0", self._device)
            x = x0.clone() if self._framework == "torch" else x0.copy()
        return bv, x, x

    def solve(
        self,
        b: Any,
        x0: Any = None,
        tol: float = 1e-5,
        maxiter: Optional[int] = 100,
        cycle: str = "V",
        accel: Any = None,
        callback: Optional[Callable[[Any], Any]] = None,
        residuals: Optional[List[float]] = None,
        cycles_per_level: int = 1,
        return_info: bool = False,
    ) -> Any:
        """Solves A x = b by multigrid cycles (accel None) or a Krylov method preconditioned by
        one cycle per iteration, stopping when ``norm(b - A x) < tol * norm(b)`` (tol
        absolute when b = 0) or after maxiter iterations.

        :param b: the right-hand side (NumPy for a host hierarchy, the hierarchy's GPU type on
            its GPU otherwise).
        :param x0: the initial guess (copied; default zero).
        :param tol: relative tolerance.
        :param maxiter: iteration limit (cycles, or Krylov iterations; default 100).
        :param cycle: "V" or "W".
        :param accel: None, "cg", "bicgstab", "gmres" (portla's solvers; gmres without restarts
            up to maxiter), or a function with SciPy's solver interface, called as
            ``accel(A, b, x0=x0, rtol=tol, atol=0, maxiter=maxiter, M=M, callback=...)``.
        :param callback: callback(x) after each iteration (not with accel "gmres").
        :param residuals: a list, replaced by the residual norm of the initial guess and of
            each iteration (accel "cg", "bicgstab", "gmres": the solver's recurrence residual).
        :param cycles_per_level: 1 (F cycles are not available).
        :param return_info: return ``(x, info)``: info 0 when converged, the iteration count
            when maxiter was reached, -1 on breakdown.
        :returns: x, or (x, info).
        :raises ValueError: an unsupported cycle or accel, shapes, devices.
        """
        c = _cycle(cycle)
        if cycles_per_level != 1:
            raise ValueError("cycles_per_level: only 1 is supported by portla (no F cycles)")
        maxiter = 100 if maxiter is None else _core.integer("maxiter", maxiter, 0)
        if accel is not None and not isinstance(accel, str):
            if not callable(accel):
                raise ValueError(f"accel={accel!r}: expected None, a solver name or a function")
            return self._solve_with(accel, b, x0, tol, maxiter, c, callback, residuals, return_info)
        if accel is not None and accel not in _KRYLOV:
            raise ValueError(
                f"accel={accel!r} is not supported by portla (None, {', '.join(_KRYLOV)} or a "
                "SciPy-style solver function)"
            )
        if accel == "gmres" and callback is not None:
            raise ValueError("callback: portla's gmres forms x only at the end (use accel='cg')")
        bv, x, result = self._vectors(b, x0)
        atol = float(tol) if _core.norm(bv) == 0 else 0.0
        if accel is None and callback is not None:
            info = self._cycles_in_python(bv, x, float(tol), atol, maxiter, c, callback, residuals)
            return (result, info) if return_info else result
        kwargs: Dict[str, Any] = {}
        if accel == "gmres":
            kwargs["restart"] = max(1, min(maxiter, self._handle.size))
        settings = _core.settings(
            rtol=float(tol), atol=atol, max_iters=maxiter, record_history=residuals is not None,
            **kwargs,
        )
        iterate = None if callback is None else (lambda i: callback(x))
        self._handle.cycle = c
        r = getattr(_portla, "solve" + _core.suffix(self.dtype))(
            accel or "amg", self._op, bv, x, x0 is not None, settings, self._handle, None, iterate
        )
        if residuals is not None:
            residuals[:] = list(r.history)
        info = 0 if r.converged else (r.iterations if r.reason == "max_iterations" else -1)
        return (result, info) if return_info else result

    def _residual_norm(self, b: Any, x: Any) -> float:
        A = self._A
        return _core.norm(b - A @ x)

    def _cycles_in_python(self, b, x, tol, atol, maxiter, cycle, callback, residuals) -> int:
        """x += cycle(b - A x) with callback(x) after each cycle (PyAMG's loop)."""
        A = self._A
        bound = max(tol * _core.norm(b), atol)
        normr = self._residual_norm(b, x)
        if residuals is not None:
            residuals[:] = [normr]
        self._handle.cycle = cycle
        z = x.clone() if self._framework == "torch" else x.copy()
        it = 0
        while True:
            r = b - A @ x
            self._handle.apply(r, z)
            x += z
            it += 1
            normr = self._residual_norm(b, x)
            if residuals is not None:
                residuals.append(normr)
            callback(x)
            if normr < bound:
                return 0
            if it >= maxiter:
                return it

    def _solve_with(self, accel, b, x0, tol, maxiter, cycle, callback, residuals, return_info):
        """accel(A, b, ...) with the cycle as M, as PyAMG calls a SciPy-style solver."""
        A = self._A
        M = self.aspreconditioner(cycle=cycle)
        wrapper = callback
        if residuals is not None:
            x_start = np.zeros_like(b) if x0 is None else x0
            residuals[:] = [self._residual_norm(b, x_start)]

            def wrapper(x: Any) -> None:
                residuals.append(float(x) if np.isscalar(x) else self._residual_norm(b, x))
                if callback is not None:
                    callback(x)

        x, info = accel(A, b, x0=x0, rtol=tol, atol=0, maxiter=maxiter, M=M, callback=wrapper)
        return (x, info) if return_info else x

    def aspreconditioner(self, cycle: str = "V") -> Any:
        """One cycle from zero as a LinearOperator approximating A^-1: a
        scipy.sparse.linalg.LinearOperator (a cupyx one for a CuPy hierarchy). portla.scipy's
        solvers (and portla.solve's precond) apply it in C++ where the hierarchy lives.

        :param cycle: "V" or "W".
        """
        c = _cycle(cycle)
        if self._framework == "cupy":
            import cupyx.scipy.sparse.linalg as csla

            base = csla.LinearOperator
        else:
            import scipy.sparse.linalg as sla

            base = sla.LinearOperator
        return _preconditioner_class(base)(self, c)


_CLASSES: Dict[Any, type] = {}


def _preconditioner_class(base: type) -> type:
    """A LinearOperator subclass of `base` applying a hierarchy's cycle."""
    if base in _CLASSES:
        return _CLASSES[base]

    class MultigridPreconditioner(base):  # type: ignore[misc, valid-type]
        def __init__(self, ml: MultilevelSolver, cycle: str) -> None:
            n = ml._handle.size
            super().__init__(dtype=np.dtype(ml.dtype), shape=(n, n))
            self.ml = ml
            self.cycle = cycle

        def portla_multigrid(self, dtype: Any) -> Any:
            """The hierarchy, its cycle set, for a solve in `dtype`; None for another dtype."""
            if np.dtype(dtype) != np.dtype(self.ml.dtype):
                return None
            self.ml._handle.cycle = self.cycle
            return self.ml._handle

        def portla_backend(self) -> str:
            """The backend the hierarchy lives on: a solve with backend "auto" runs there."""
            return self.ml.backend

        def _matvec(self, r: Any) -> Any:
            handle = self.ml._handle
            n = handle.size
            if _core._framework(r) is None:
                rv = _core.vector(r, self.ml.dtype, n, "r")
                z = np.empty(n, self.ml.dtype)
            else:
                rv = _core._gpu_vector(
                    r.reshape(-1), self.ml.dtype, n, "r", self.ml._device
                )
                rv = rv if _core._contiguous(rv) else rv.copy()
                z = _core._empty_like(rv, n)
            handle.cycle = self.cycle
            handle.apply(rv, z)
            return z.reshape(r.shape) if len(r.shape) == 2 else z

        def _adjoint(self) -> Any:
            return self  # the cycle is symmetric

    _CLASSES[base] = MultigridPreconditioner
    return MultigridPreconditioner


def _host_csr(A: Any) -> Any:
    import scipy.sparse

    if not _core._is_sparse(A):
        if _core._is_linear_operator(A):
            raise ValueError("A: multigrid needs the matrix's entries, not a LinearOperator")
        a = np.asarray(A)
        if a.ndim != 2:
            raise ValueError(f"A: expected a square matrix, got shape {a.shape}")
        warnings.warn("Implicit conversion of A to CSR", scipy.sparse.SparseEfficiencyWarning)
        A = scipy.sparse.csr_matrix(a)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A: expected a square matrix, got shape {A.shape}")
    _core._check_real(A.dtype, "A")
    csr = A.tocsr()
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    return csr


def _check_b(B: Any, n_hint: Any) -> None:
    if B is None:
        return
    b = np.asarray(B)
    if b.ndim == 2 and b.shape[1] == 1:
        b = b[:, 0]
    if b.ndim != 1 or b.size == 0 or not np.all(b == b.flat[0]) or b.flat[0] == 0:
        raise ValueError(
            "B: portla's tentative prolongator interpolates the constant vector only (give "
            "B=None or a constant, non-zero column)"
        )
    if n_hint is not None and b.size != n_hint:
        raise ValueError(f"B: dimension mismatch (expected {n_hint} rows, got {b.size})")


def smoothed_aggregation_solver(
    A: Any,
    B: Any = None,
    BH: Any = None,
    symmetry: str = "hermitian",
    strength: Any = "symmetric",
    aggregate: Any = "standard",
    smooth: Any = ("jacobi", {"omega": 4.0 / 3.0}),
    presmoother: Any = ("chebyshev", {"degree": 1}),
    postsmoother: Any = ("chebyshev", {"degree": 1}),
    improve_candidates: Any = None,
    max_levels: int = 10,
    max_coarse: int = 10,
    diagonal_dominance: bool = False,
    keep: bool = False,
    backend: Optional[str] = None,
    **kwargs: Any,
) -> MultilevelSolver:
    """Smoothed aggregation multigrid (PyAMG's smoothed_aggregation_solver) by portla.

    :param A: a square sparse matrix: SciPy (built on the CPU, omp), or a CuPy / PyTorch CSR
        matrix (built in place on its GPU); a dense array is converted to CSR with a
        SparseEfficiencyWarning, as PyAMG does.
    :param B: None or a constant column (the near-null space portla interpolates).
    :param BH: None.
    :param symmetry: "hermitian" or "symmetric" (real matrices: the same).
    :param strength: "symmetric", ("symmetric", {"theta": t}) or None (theta 0).
    :param aggregate: "standard" (portla's parallel aggregation).
    :param smooth: "jacobi" or ("jacobi", {"omega": w}) (the prolongator smoother, 0 < w < 2).
    :param presmoother: "jacobi", "chebyshev" or "l1_jacobi", with options (see the module).
    :param postsmoother: the same as presmoother.
    :param improve_candidates: None.
    :param max_levels: levels at most (1 ... 40).
    :param max_coarse: a level of at most this many rows is the last.
    :param diagonal_dominance: False.
    :param keep: accepted; the levels always carry A, P, R and AggOp.
    :param backend: portla's backend (default: "omp" for a host matrix, the matrix's GPU
        otherwise).
    :param kwargs: coarse_solver, a direct solver's name.
    :returns: a MultilevelSolver.
    :raises ValueError: a keyword or value portla does not support (named), bad input (a zero
        or negative diagonal entry, a matrix that is not square).
    """
    s = _portla.AmgSettings()
    s.method = "sa"
    _check_b(B, getattr(A, "shape", (None,))[0])
    if BH is not None:
        raise ValueError("BH is not supported by portla (give BH=None)")
    _require("symmetry", symmetry, ("hermitian", "symmetric"), "the hierarchy is for symmetric A")
    _strength(s, strength, "symmetric", {"theta": 0.0}, "smoothed aggregation")
    name, opts = _named(aggregate, "aggregate")
    if name != "standard" or opts:
        raise ValueError(
            f"aggregate={aggregate!r} is not supported by portla ('standard': its parallel "
            "aggregation)"
        )
    name, opts = _named(smooth, "smooth")
    if name != "jacobi":
        raise ValueError(f"smooth={smooth!r} is not supported by portla ('jacobi' with omega)")
    o = _options(
        "smooth",
        name,
        opts,
        {"omega": 4.0 / 3.0, "degree": 1, "filter": False, "weighting": "diagonal"},
    )
    _require("smooth: degree", o["degree"], (1,), "one Jacobi step smooths the prolongator")
    _require("smooth: filter", o["filter"], (False,), "the prolongator smoother reads all of A")
    _require("smooth: weighting", o["weighting"], ("diagonal",), "the weight is omega / rho")
    s.prolongator_weight = float(o["omega"])
    _smoother(s, presmoother, postsmoother)
    if improve_candidates is not None:
        raise ValueError(
            "improve_candidates is not supported by portla (its B is the constant vector; "
            "give improve_candidates=None)"
        )
    _require("diagonal_dominance", diagonal_dominance, (False,), "no such exemption")
    _common(s, max_levels, max_coarse, kwargs)
    return MultilevelSolver(A, "sa", s, backend)


def ruge_stuben_solver(
    A: Any,
    strength: Any = ("classical", {"theta": 0.25}),
    CF: Any = "PMIS",
    interpolation: Any = "extended+i",
    presmoother: Any = ("chebyshev", {"degree": 1}),
    postsmoother: Any = ("chebyshev", {"degree": 1}),
    max_levels: int = 30,
    max_coarse: int = 10,
    keep: bool = False,
    backend: Optional[str] = None,
    **kwargs: Any,
) -> MultilevelSolver:
    """Classical (Ruge-Stueben type) multigrid (PyAMG's ruge_stuben_solver) by portla: PMIS
    coarse rows and classical or extended+i interpolation.

    :param A: a square sparse matrix (see smoothed_aggregation_solver).
    :param strength: "classical", ("classical", {"theta": t, "norm": "abs"}) or None (theta 0).
    :param CF: "PMIS".
    :param interpolation: "extended+i" (the default: from each fine row's strongly
        influencing coarse rows and those of its strongly influencing fine rows) or "classical"
        (PyAMG's default, the modified classical interpolation from the strongly influencing
        coarse rows alone, portla's "direct": fewer entries, and after PMIS, whose fine rows
        may have no strong coarse neighbour, far more iterations: PyAMG's README problem, 2-D
        Poisson on 500 x 500, does not converge in its 100 cycles), each optionally as
        (name, {"trunc_factor": f, "max_entries": m}): the interpolation's truncation (weights
        below f times their row's
        largest dropped, at most m a row, 0: all; defaults 0 and 0 for "classical", 0 and 4
        for "extended+i"), each row rescaled to keep its sum.
    :param presmoother: "jacobi", "chebyshev" or "l1_jacobi", with options (see the module).
    :param postsmoother: the same as presmoother.
    :param max_levels: levels at most (1 ... 40).
    :param max_coarse: a level of at most this many rows is the last.
    :param keep: accepted; the levels always carry A, P, R and splitting.
    :param backend: portla's backend (default: "omp" for a host matrix, the matrix's GPU
        otherwise).
    :param kwargs: coarse_solver, a direct solver's name.
    :returns: a MultilevelSolver.
    :raises ValueError: a keyword or value portla does not support (named), bad input.
    """
    s = _portla.AmgSettings()
    s.method = "classical"
    o = _strength(
        s, strength, "classical", {"theta": 0.1, "norm": "abs", "block": False}, "classical AMG"
    )
    if o:
        _require("strength: norm", o["norm"], ("abs",), "strength compares |a_ij|")
        _require("strength: block", o["block"], (False,), "no block strength")
    name, opts = _named(CF, "CF")
    if name != "PMIS" or opts:
        raise ValueError(
            f"CF={CF!r} is not supported by portla ('PMIS': its coarse rows are a parallel "
            "independent set)"
        )
    name, opts = _named(interpolation, "interpolation")
    if name not in ("classical", "extended+i"):
        raise ValueError(
            f"interpolation={interpolation!r} is not supported by portla ('classical', PyAMG's "
            "modified classical interpolation, portla's 'direct'; or 'extended+i')"
        )
    # PyAMG's classical interpolation keeps every weight; extended+i keeps hypre's 4 a row.
    o = _options(
        "interpolation",
        name,
        opts,
        {"trunc_factor": 0.0, "max_entries": 0 if name == "classical" else 4},
    )
    s.interpolation = "direct" if name == "classical" else "extended+i"
    s.trunc_factor = float(o["trunc_factor"])
    if isinstance(o["max_entries"], bool) or not isinstance(o["max_entries"], (int, np.integer)):
        raise TypeError(f"interpolation: max_entries must be an int, got {o['max_entries']!r}")
    s.interp_max_entries = int(o["max_entries"])
    _smoother(s, presmoother, postsmoother)
    _common(s, max_levels, max_coarse, kwargs)
    return MultilevelSolver(A, "classical", s, backend)


def solve(
    A: Any,
    b: Any,
    x0: Any = None,
    tol: float = 1e-5,
    maxiter: int = 400,
    return_solver: bool = False,
    existing_solver: Optional[MultilevelSolver] = None,
    verb: bool = True,
    residuals: Optional[List[float]] = None,
) -> Any:
    """PyAMG's black-box solve of A x = b: a smoothed aggregation hierarchy with the defaults
    (or `existing_solver`, built for a matrix of A's size), then CG preconditioned by its V cycle
    where A is symmetric, GMRES otherwise, to ``norm(b - A x) < tol * norm(b)``.

    Where PyAMG adapts its settings to an indefinite or complex A, portla's hierarchy needs a
    real matrix with a positive diagonal (anything else is refused with its ValueError), and the
    default initial guess is zero where PyAMG's is random.

    :param A: a square sparse matrix (as smoothed_aggregation_solver takes).
    :param b: the right-hand side.
    :param x0: the initial guess (default zero).
    :param tol: relative tolerance.
    :param maxiter: iteration limit.
    :param return_solver: return ``(x, ml)``, ml the hierarchy, for another solve of A.
    :param existing_solver: a MultilevelSolver of a matrix of A's size, used instead of a new one.
    :param verb: print the hierarchy, the Krylov method and the residual reduction.
    :param residuals: a list, replaced by the residual norms of the iterations.
    :returns: x, or (x, ml).
    :raises TypeError: existing_solver is not a MultilevelSolver of A's size.
    """
    if existing_solver is None:
        ml = smoothed_aggregation_solver(A)
    elif not isinstance(existing_solver, MultilevelSolver):
        raise TypeError(
            "existing_solver: a portla.pyamg MultilevelSolver, got "
            f"{type(existing_solver).__name__}"
        )
    elif existing_solver.levels[0].A.shape != tuple(A.shape):
        raise TypeError(
            f"existing_solver: built for a {existing_solver.levels[0].A.shape} matrix, A is "
            f"{tuple(A.shape)}"
        )
    else:
        ml = existing_solver
    accel = getattr(ml, "_blackbox_accel", None)
    if accel is None:  # decided once per hierarchy (its matrix read back from where it lives)
        fine = ml.levels[0].A
        asymmetry = abs(fine - fine.T).max() if fine.nnz else 0.0
        scale = abs(fine).max() if fine.nnz else 0.0
        # symmetric to the rounding of values assembled in different orders
        accel = "cg" if asymmetry <= 1e-12 * scale else "gmres"
        ml._blackbox_accel = accel
    res: List[float] = [] if residuals is None else residuals
    x = ml.solve(b, x0=x0, tol=tol, maxiter=maxiter, accel=accel, residuals=res)
    if verb:
        print(ml)
        reduction = res[-1] / res[0] if res and res[0] > 0 else 0.0
        print(f"    accel = {accel!r}, maxiter = {maxiter}, iterations = {len(res) - 1}")
        print(f"    Residual reduction ||r_k||/||r_0|| = {reduction:1.2e}")
    return (x, ml) if return_solver else x
