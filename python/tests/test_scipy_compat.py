"""portla.scipy against scipy.sparse.linalg: the same answers within the solver's tolerance, on
generated Poisson problems and the SuiteSparse set of tests/data/suitesparse."""

import json
import warnings

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import portla
import portla.scipy as pscipy
from conftest import SOURCE_DIR

SOLVERS = ["cg", "bicgstab", "gmres"]


def poisson2d(m, dtype=np.float64):
    t = sp.diags_array([-1.0, 2.0, -1.0], offsets=[-1, 0, 1], shape=(m, m))
    eye = sp.eye_array(m)
    return (sp.kron(t, eye) + sp.kron(eye, t)).astype(dtype).tocsr()


def relres(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def jacobi_operator(A):
    d = 1.0 / A.diagonal()
    return sla.LinearOperator(A.shape, matvec=lambda r: d * r, dtype=A.dtype)


def scipy_solver(name):
    return getattr(sla, name)


@pytest.mark.parametrize("name", SOLVERS)
@pytest.mark.parametrize("M", [None, "jacobi", "operator"])
def test_poisson_matches_scipy(name, M):
    A = poisson2d(24)
    rng = np.random.default_rng(7)
    b = rng.uniform(0.5, 1.5, A.shape[0])
    rtol = 1e-8
    m_portla = jacobi_operator(A) if M == "operator" else M
    m_scipy = None if M is None else jacobi_operator(A)
    x_s, info_s = scipy_solver(name)(A, b, rtol=rtol, maxiter=2000, M=m_scipy)
    x_p, info_p = getattr(pscipy, name)(A, b, rtol=rtol, maxiter=2000, M=m_portla)
    assert info_s == 0 and info_p == 0
    assert x_p.dtype == np.float64 and x_p.shape == b.shape
    assert relres(A, x_p, b) <= rtol
    # cond(A) ~ 240: solutions within rtol agree to ~cond * rtol.
    assert np.linalg.norm(x_p - x_s) / np.linalg.norm(x_s) <= 1e3 * rtol


def _suitesparse_cases():
    baseline = json.loads((SOURCE_DIR / "tests/data/suitesparse/scipy.json").read_text())
    cases = []
    for name, m in baseline["matrices"].items():
        for run, r in m["runs"].items():
            # SciPy's converged runs of this machine's baseline that take under 0.3 s.
            if r.get("converged") and r.get("info") == 0 and r.get("time_s", 1) < 0.3:
                cases.append(pytest.param(name, *run.split("/"), id=f"{name}-{run}"))
    return cases


@pytest.mark.parametrize("matrix,name,precond", _suitesparse_cases())
def test_suitesparse_matches_scipy(matrix, name, precond):
    """Where SciPy converges (rtol 1e-8; gmres(30), 667 cycles), portla converges too, with a
    true residual within the tolerance; M given by name and as a LinearOperator."""
    A = sp.csr_array(scipy.io.mmread(SOURCE_DIR / f"tests/data/suitesparse/{matrix}.mtx"))
    b = A @ np.ones(A.shape[0])
    kw = dict(rtol=1e-8, maxiter=20000)
    if name == "gmres":
        kw = dict(rtol=1e-8, restart=30, maxiter=667)
    M = None if precond == "none" else jacobi_operator(A)
    x_s, info_s = scipy_solver(name)(A, b, M=M, **kw)
    if info_s != 0:
        pytest.skip(f"SciPy {sla.__name__} does not converge here with this SciPy version")
    for m in ([None] if M is None else ["jacobi", M]):
        x_p, info_p = getattr(pscipy, name)(A, b, M=m, **kw)
        assert info_p == 0, (matrix, name, m)
        assert relres(A, x_p, b) <= 1e-8 * (1 + 1e-6)


@pytest.mark.parametrize("name", SOLVERS)
def test_not_converged_returns_maxiter(name):
    A = poisson2d(16)
    b = np.ones(A.shape[0])
    x, info = getattr(pscipy, name)(A, b, rtol=1e-12, maxiter=2)
    assert info == 2
    assert np.all(np.isfinite(x))


def test_breakdown_is_negative():
    # CG with p.Ap = 0 at its first step: no step possible (SciPy's "< 0: breakdown").
    A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    x, info = pscipy.cg(A, np.array([1.0, 0.0]))
    assert info < 0
    # p.Ap < 0 is no breakdown, as in SciPy: CG goes on, and here converges as SciPy's does
    A = sp.diags_array([1.0, -1.0, 2.0, -3.0])
    x, info = pscipy.cg(A, np.ones(4))
    x_s, info_s = sla.cg(A, np.ones(4))
    assert info == 0 and info_s == 0 and np.allclose(x, x_s)


@pytest.mark.parametrize("name", ["bicgstab", "gmres"])
@pytest.mark.parametrize("matrix", ["mahindas", "impcol_a"])
def test_ilut_solves_what_spilu_solves(matrix, name):
    # Rows without a diagonal entry (mahindas has 106 of 1258): ILU(0) is refused, M="ilut"
    # (matching, column pivoting, tau 1e-4, 10 entries of fill) converges in a few iterations,
    # as spilu(drop_tol=1e-4, fill_factor=10) does (docs/real-matrices.md).
    A = sp.csr_array(scipy.io.mmread(SOURCE_DIR / f"tests/data/suitesparse/{matrix}.mtx"))
    b = A @ np.ones(A.shape[0])
    with pytest.raises(ValueError, match="no diagonal entry"):
        getattr(pscipy, name)(A, b, rtol=1e-8, M="ilu0", backend="omp")
    count = [0]

    def callback(*_):
        count[0] += 1

    kw = {"callback_type": "pr_norm"} if name == "gmres" else {}
    x, info = getattr(pscipy, name)(
        A, b, rtol=1e-8, M="ilut", backend="omp", callback=callback, **kw
    )
    assert info == 0
    assert relres(A, x, b) <= 1e-8
    assert 1 <= count[0] <= 30


def test_unstable_ilu0_is_the_reason():
    A = sp.csr_array(scipy.io.mmread(SOURCE_DIR / "tests/data/unstable_ilu0.mtx"))
    b = A @ np.arange(1.0, 7.0)
    r = portla.solve(A, b, solver="gmres", precond="ilu0", max_iters=0, backend="omp")
    assert r.reason == "unstable_preconditioner"
    assert not r.converged
    r = portla.solve(A, b, solver="gmres", precond="ilut", max_iters=50, backend="omp",
                     ilut_pivoting=True)
    assert r.converged


@pytest.mark.parametrize("name", SOLVERS)
def test_x0(name):
    A = poisson2d(12)
    x_true = np.linspace(1.0, 2.0, A.shape[0])
    b = A @ x_true
    x, info = getattr(pscipy, name)(A, b, x0=x_true, rtol=1e-8)
    assert info == 0 and np.allclose(x, x_true)
    seen = []
    pscipy.cg(A, b, x0=x_true + 1e-3, rtol=1e-8, monitor=lambda i, r: seen.append(i))
    warm = len(seen)
    seen.clear()
    pscipy.cg(A, b, rtol=1e-8, monitor=lambda i, r: seen.append(i))
    assert warm < len(seen)


@pytest.mark.parametrize("name", SOLVERS)
def test_matrix_free_operator(name):
    A = poisson2d(16)
    calls = []

    def matvec(x):
        calls.append(1)
        return A @ x

    op = sla.LinearOperator(A.shape, matvec=matvec, dtype=np.float64)
    b = np.arange(1.0, A.shape[0] + 1)
    x, info = getattr(pscipy, name)(op, b, rtol=1e-8, maxiter=1000)
    assert info == 0 and relres(A, x, b) <= 1e-8
    assert len(calls) > 10


def test_csc_coo_and_dense_inputs():
    A = poisson2d(10)
    b = np.ones(A.shape[0])
    for a in (A.tocsc(), A.tocoo(), sp.csr_matrix(A), A.toarray(), A.astype(np.int64)):
        x, info = pscipy.cg(a, b, rtol=1e-10)
        assert info == 0 and relres(A, x, b) <= 1e-10


def test_float32():
    A = poisson2d(16, np.float32)
    b = np.ones(A.shape[0], dtype=np.float32)
    x, info = pscipy.cg(A, b, rtol=1e-5)
    assert x.dtype == np.float32 and info == 0
    assert relres(A.astype(np.float64), x.astype(np.float64), b.astype(np.float64)) <= 1e-5
    x, info = pscipy.bicgstab(A.astype(np.float64), b, rtol=1e-5, precision="single")
    assert x.dtype == np.float32 and info == 0


def test_tol_is_a_deprecated_alias():
    A = poisson2d(8)
    b = np.ones(A.shape[0])
    with pytest.warns(DeprecationWarning):
        x, info = pscipy.cg(A, b, tol=1e-10)
    assert info == 0 and relres(A, x, b) <= 1e-10


@pytest.mark.parametrize("name", ["cg", "bicgstab"])
def test_callback_per_iteration_as_scipy(name):
    """callback(xk) after each iteration with the current iterate, as SciPy: as many calls as
    SciPy's, and the same iterates up to rounding (the same recurrences from x0 = 0)."""
    A = poisson2d(8)
    b = np.linspace(1.0, 2.0, A.shape[0])
    mine, theirs = [], []
    x, info = getattr(pscipy, name)(A, b, rtol=1e-8, callback=lambda xk: mine.append(xk.copy()))
    scipy_solver(name)(A, b, rtol=1e-8, callback=lambda xk: theirs.append(xk.copy()))
    assert info == 0 and abs(len(mine) - len(theirs)) <= 1, (len(mine), len(theirs))
    np.testing.assert_allclose(mine[-1], x)
    for k in range(min(5, len(theirs))):
        np.testing.assert_allclose(mine[k], theirs[k], rtol=1e-9, atol=1e-12)
    errors = [np.linalg.norm(xk - x) for xk in mine]
    assert errors[-1] <= 1e-6 * errors[0]


def test_callback_with_preconditioner_and_exception():
    A = poisson2d(8)
    b = np.ones(A.shape[0])
    calls = []
    x, info = pscipy.cg(A, b, M="jacobi", callback=lambda xk: calls.append(relres(A, xk, b)))
    assert info == 0 and len(calls) >= 5 and calls[-1] <= 1e-5

    def boom(xk):
        raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):
        pscipy.bicgstab(A, b, callback=boom)


def test_gmres_callbacks():
    A = poisson2d(8)
    b = np.ones(A.shape[0])
    norms = []
    x, info = pscipy.gmres(A, b, rtol=1e-8, callback=norms.append, callback_type="pr_norm")
    assert info == 0 and len(norms) >= 5 and norms[-1] <= 1e-8 * 1.01
    xs = []
    pscipy.gmres(A, b, callback=xs.append, callback_type="x")
    assert len(xs) == 1


def test_zero_rhs():
    A = poisson2d(6)
    x, info = pscipy.cg(A, np.zeros(A.shape[0]))
    assert info == 0 and not x.any()


@pytest.mark.parametrize("name", SOLVERS)
def test_nan_in_matrix_is_negative_info(name):
    A = sp.diags_array([2.0, np.nan, 2.0]).tocsr()
    x, info = getattr(pscipy, name)(A, np.ones(3))
    assert info < 0


# ---- SciPy's semantics: x0="Mb", gmres's callback_type, infinite tolerances, b = 0, and the
# ---- operator applications a solve makes


def counted(A):
    """A as a LinearOperator that counts its applications (count[0])."""
    count = [0]

    def matvec(v):
        count[0] += 1
        return A @ v

    return sla.LinearOperator(A.shape, matvec=matvec, dtype=A.dtype), count


def nonsymmetric(n):
    return sp.diags_array([-1.3, 3.0, -0.6], offsets=[-1, 0, 1], shape=(n, n)).tocsr()


def exact_inverse(A):
    lu = sla.splu(A.tocsc())
    return sla.LinearOperator(A.shape, matvec=lu.solve, dtype=A.dtype)


@pytest.mark.parametrize("name", SOLVERS)
def test_x0_mb_starts_from_m_b(name):
    A = nonsymmetric(30) if name != "cg" else poisson2d(6)
    b = np.random.default_rng(3).uniform(0.5, 1.5, A.shape[0])
    op, count = counted(A)
    # x0 = M b with M = A^-1 is the solution: the first residual, b - A x0, meets the test.
    x, info = getattr(pscipy, name)(op, b, x0="Mb", M=exact_inverse(A), rtol=1e-8)
    assert info == 0 and relres(A, x, b) <= 1e-8
    assert count[0] == 1
    # Without M, x0 = b: the same solve as x0=b given.
    x_mb, _ = getattr(pscipy, name)(A, b, x0="Mb", rtol=1e-8)
    x_b, _ = getattr(pscipy, name)(A, b, x0=b.copy(), rtol=1e-8)
    np.testing.assert_array_equal(x_mb, x_b)
    with pytest.raises(ValueError, match="Mb"):
        getattr(pscipy, name)(A, b, x0="Mb", M="jacobi")
    with pytest.raises(ValueError, match="x0"):
        getattr(pscipy, name)(A, b, x0="M b")


@pytest.mark.parametrize("maxiter", [1, 4, 13])
def test_gmres_legacy_callback_counts_inner_iterations_as_scipy(maxiter):
    A = nonsymmetric(40)
    b = np.random.default_rng(5).uniform(0.5, 1.5, A.shape[0])
    M = 1e-3 * np.eye(A.shape[0])  # the values are of the preconditioned residual
    values = {}
    for lib in (sla, pscipy):
        got = []
        with pytest.warns(DeprecationWarning, match="callback_type"):
            x, info = lib.gmres(A, b, M=M, rtol=1e-14, restart=5, maxiter=maxiter,
                                callback=got.append)
        values[lib] = (got, info, x)
    (s_vals, s_info, s_x), (p_vals, p_info, p_x) = values[sla], values[pscipy]
    assert len(p_vals) == len(s_vals) == maxiter  # maxiter inner iterations, one call each
    assert p_info == s_info == maxiter
    assert all(isinstance(v, float) for v in p_vals)
    # The same Krylov space and least-squares problem; CGS2 and SciPy's modified Gram-Schmidt
    # differ by rounding only (~1e-15 relative here).
    np.testing.assert_allclose(p_vals, s_vals, rtol=1e-10)
    np.testing.assert_allclose(p_x, s_x, rtol=1e-10)


def test_gmres_pr_norm_and_x_callbacks_count_restart_cycles_as_scipy():
    A = nonsymmetric(40)
    b = np.random.default_rng(6).uniform(0.5, 1.5, A.shape[0])
    for callback_type in ("pr_norm", "x"):
        got = {}
        for lib in (sla, pscipy):
            calls = []
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no DeprecationWarning with callback_type given
                x, info = lib.gmres(A, b, rtol=1e-14, restart=4, maxiter=3,
                                    callback=lambda v: calls.append(np.copy(v)),
                                    callback_type=callback_type)
            got[lib] = (calls, info)
        (s_calls, s_info), (p_calls, p_info) = got[sla], got[pscipy]
        # pr_norm: every inner iteration of 3 cycles; x: the iterate at the end of each cycle.
        assert len(p_calls) == len(s_calls) == (12 if callback_type == "pr_norm" else 3)
        assert p_info == s_info == 3
        for p, s in zip(p_calls, s_calls):
            np.testing.assert_allclose(p, s, rtol=1e-10)


@pytest.mark.parametrize("name", SOLVERS)
def test_infinite_tolerance_returns_x0(name):
    A = nonsymmetric(12) if name != "cg" else poisson2d(4)
    b = np.linspace(1.0, 2.0, A.shape[0])
    x0 = np.linspace(-1.0, 1.0, A.shape[0])
    for tolerances in ({"rtol": np.inf}, {"atol": np.inf}):
        op, count = counted(A)
        x, info = getattr(pscipy, name)(op, b, **tolerances)
        assert info == 0 and not x.any() and count[0] == 0
        x, info = getattr(pscipy, name)(op, b, x0=x0, **tolerances)
        assert info == 0 and x is not x0
        np.testing.assert_array_equal(x, x0)
        assert count[0] == 1  # b - A x0, as SciPy


@pytest.mark.parametrize("name", SOLVERS)
def test_zero_rhs_returns_zero_whatever_x0(name):
    A = nonsymmetric(12) if name != "cg" else poisson2d(4)
    op, count = counted(A)
    b = np.zeros(A.shape[0])
    for kw in ({}, {"x0": np.linspace(1.0, 2.0, A.shape[0])}, {"rtol": 0.0, "atol": 0.0},
               {"rtol": np.inf}):
        x, info = getattr(pscipy, name)(op, b, **kw)
        assert info == 0 and x.shape == b.shape and not x.any()
    assert count[0] == 0
    with pytest.raises(ValueError, match="x0"):
        getattr(pscipy, name)(A, b, x0=np.ones(A.shape[0] + 1))


@pytest.mark.parametrize("name,extra", [("cg", 1), ("bicgstab", 1), ("gmres", 0)])
def test_operator_applications_against_scipy(name, extra):
    """A zero x0 costs no operator application; the final true residual, which SciPy's cg and
    bicgstab do not compute, costs one (docs/python.md)."""
    A = poisson2d(6) if name == "cg" else nonsymmetric(36)
    b = np.random.default_rng(8).uniform(0.5, 1.5, A.shape[0])
    for M, x0 in ((exact_inverse(A), np.zeros(A.shape[0])), (None, None),
                  (None, np.linspace(0.0, 1.0, A.shape[0]))):
        counts = []
        for lib in (sla, pscipy):
            op, count = counted(A)
            x, info = getattr(lib, name)(op, b, x0=x0, M=M, rtol=1e-8)
            assert info == 0
            counts.append(count[0])
        assert counts[1] - counts[0] == extra, counts
    op, count = counted(A)
    getattr(pscipy, name)(op, b, x0=np.zeros(A.shape[0]), M=exact_inverse(A), rtol=1e-8)
    assert count[0] == 2  # A p (gmres: A v_0) once, and the true residual b - A x


@pytest.mark.parametrize("name", SOLVERS)
def test_integer_keywords_are_checked_by_name(name):
    A = poisson2d(4)
    b = np.ones(A.shape[0])
    x, info = getattr(pscipy, name)(A, b, maxiter=2**40)  # SciPy takes any size
    assert info == 0
    for bad, error in ((1.5, ValueError), (-1, OverflowError), ("10", TypeError)):
        with pytest.raises(error, match="maxiter"):
            getattr(pscipy, name)(A, b, maxiter=bad)
    if name == "gmres":
        for bad, error in ((2.5, ValueError), (0, OverflowError)):
            with pytest.raises(error, match="restart"):
                pscipy.gmres(A, b, restart=bad)
