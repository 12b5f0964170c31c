"""portla.scipy's lsqr and lsmr against SciPy's: rectangular and square SuiteSparse problems, the
same keywords, the same istop and iteration count on well-conditioned problems, the solution and
the returned norms within rounding; SciPy's tuples (order and types); bad input refused."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import portla.scipy as pscipy
from conftest import SOURCE_DIR


def problem(name, cols):
    """The first `cols` columns of a SuiteSparse matrix and b = A ones + noise (inconsistent)."""
    A = sp.csc_array(scipy.io.mmread(SOURCE_DIR / f"tests/data/suitesparse/{name}.mtx"))
    A = sp.csr_array(A[:, :cols])
    rng = np.random.default_rng(5)
    return A, A @ np.ones(A.shape[1]) + rng.uniform(-0.1, 0.1, A.shape[0])


# mahindas' first 600 columns (1258 x 600, cond 15) and cage5 (37 x 37 nonsymmetric, cond 15).
CASES = [("mahindas", 600, 0.0), ("mahindas", 600, 0.5), ("cage5", 37, 0.0), ("cage5", 37, 0.5)]


@pytest.mark.parametrize("name,cols,damp", CASES)
@pytest.mark.parametrize("method", ["lsqr", "lsmr"])
@pytest.mark.parametrize("operator", [False, True])
def test_matches_scipy(name, cols, damp, method, operator):
    A, b = problem(name, cols)
    kw = dict(damp=damp, atol=1e-10, btol=1e-10)
    want = getattr(sla, method)(A, b, **kw)
    a = sla.aslinearoperator(A) if operator else A
    got = getattr(pscipy, method)(a, b, **kw)
    assert len(got) == len(want)
    # On these well-conditioned problems the counts agree (the same recurrences); the stopping
    # test compares rounding-level estimates at the end, which sums in another order (the GPU's)
    # moved by 2 of 97 iterations: 5% plus one of slack.
    assert got[1] == want[1]
    assert abs(got[2] - want[2]) <= 0.05 * want[2] + 1
    # The solutions agree to 1e-8 relative: both meet ||A^T r|| <= 1e-10 ||A|| ||r||, and
    # with cond(A) 15 that fixes x to about 1e-10 * cond^2 relative.
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-8 * np.linalg.norm(want[0]))
    # The returned norms are estimates from the same recurrences, but the bidiagonalisation
    # loses orthogonality as it goes, and the late alpha, beta amplify rounding differences:
    # ||A|| (a sum over every alpha, beta) measured 1e-5 apart on mahindas and 7e-4 on cage5
    # (lsmr) with the same count, 1.6e-2 when the GPU's sums took 95 iterations to SciPy's 97
    # (the sum has two terms fewer): 5e-2 relative; cond(A), an estimate whose order of magnitude is what a user reads,
    # 4e-2 apart on cage5 (LSMR's, a ratio of extreme diagonals) and 1.0e-2 (LSQR's, with
    # the sums on the GPU): 0.1 relative. ||r|| and ||x||: 1e-6 relative, and for a consistent
    # system (cage5 undamped, ||r|| at rounding level) 1e-8 ||b||. ||A^T r|| at convergence is
    # rounding (1.6e-2 apart on cage5 with the sums on the GPU): 0.1 relative plus
    # 1e-9 ||A|| ||r||.
    names = ["r1norm", "r2norm", "anorm", "acond", "arnorm", "xnorm"]
    if method == "lsmr":
        names = ["r2norm", "arnorm", "anorm", "acond", "xnorm"]
    norms = dict(zip(names, want[3:]))
    scale = norms["anorm"] * norms["r2norm"]
    for name, g, w in zip(names, got[3:], want[3:]):
        tol = {
            "arnorm": 0.1 * abs(w) + 1e-9 * scale,
            "anorm": 5e-2 * abs(w),
            "acond": 0.1 * abs(w),
        }.get(name, 1e-6 * abs(w) + 1e-8 * np.linalg.norm(b))
        assert abs(g - w) <= tol, name


def test_tuples_as_scipy():
    A, b = problem("mahindas", 600)
    got = pscipy.lsqr(A, b, calc_var=True, iter_lim=5)
    want = sla.lsqr(A, b, calc_var=True, iter_lim=5)
    assert len(got) == 10
    assert isinstance(got[0], np.ndarray) and got[0].shape == (600,)
    assert [type(v) for v in got[1:3]] == [int, int]
    assert all(isinstance(v, float) for v in got[3:9])
    assert got[1] == want[1] == 7 and got[2] == want[2] == 5
    np.testing.assert_allclose(got[9], want[9], rtol=1e-8)
    got = pscipy.lsmr(A, b, maxiter=5)
    assert len(got) == 8 and got[1] == 7 and got[2] == 5
    assert all(isinstance(v, float) for v in got[3:])


def test_b_zero_and_x0():
    A, b = problem("cage5", 37)
    x, istop, itn, *_ = pscipy.lsqr(A, np.zeros(37), x0=np.ones(37))
    assert (istop, itn) == (0, 0) and not np.any(x)
    x, istop, itn, *_ = pscipy.lsmr(A, np.zeros(37))
    assert (istop, itn) == (0, 0) and not np.any(x)
    # a warm start from a few iterations reaches SciPy's answer
    x0 = pscipy.lsmr(A, b, maxiter=3)[0]
    x = pscipy.lsmr(A, b, x0=x0, atol=1e-10, btol=1e-10)[0]
    np.testing.assert_allclose(x, sla.lsmr(A, b, atol=1e-10, btol=1e-10)[0], atol=1e-8)


# Complex least squares: the matrix's entries turned by random phases (the same pattern and
# magnitudes), b complex; A^T is the adjoint, every scalar of the recurrences real. Measured
# (2-core VM, 2026-11-29, omp): the same istop and iteration count as SciPy's.
@pytest.mark.parametrize("name,cols,damp", [("mahindas", 600, 0.0), ("cage5", 37, 0.5)])
@pytest.mark.parametrize("method", ["lsqr", "lsmr"])
@pytest.mark.parametrize("operator", [False, True])
def test_complex_matches_scipy(name, cols, damp, method, operator):
    A, b = problem(name, cols)
    rng = np.random.default_rng(7)
    A = A.astype(np.complex128)
    A.data *= np.exp(2j * np.pi * rng.uniform(size=A.nnz))
    b = b * np.exp(2j * np.pi * rng.uniform(size=b.size))
    kw = dict(damp=damp, atol=1e-10, btol=1e-10)
    want = getattr(sla, method)(A, b, **kw)
    got = getattr(pscipy, method)(sla.aslinearoperator(A) if operator else A, b, **kw)
    assert got[0].dtype == np.complex128
    assert got[1] == want[1]
    assert abs(got[2] - want[2]) <= 0.05 * want[2] + 1
    # as above: x fixed to about 1e-10 cond^2 relative by the stopping test
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-8 * np.linalg.norm(want[0]))


def test_bad_input():
    A, b = problem("mahindas", 600)
    for f in (pscipy.lsqr, pscipy.lsmr):
        with pytest.raises(ValueError, match="dimension mismatch"):
            f(A, b[:600])  # n values, not m
        with pytest.raises(ValueError, match="damp"):
            f(A, b, damp=-1.0)
        bad = b.copy()
        bad[3] = np.nan
        with pytest.raises(ValueError, match="NaN"):
            f(A, bad)
        no_rmatvec = sla.LinearOperator(A.shape, matvec=lambda v: A @ v, dtype=float)
        with pytest.raises((ValueError, NotImplementedError)):
            f(no_rmatvec, b)
    # the square-only solvers refuse a rectangular matrix with one line
    for solver in (pscipy.cg, pscipy.gmres, pscipy.bicg):
        with pytest.raises(ValueError, match="square"):
            solver(A, b)
