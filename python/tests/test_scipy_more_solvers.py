"""portla.scipy's minres, cgs, tfqmr, lgmres and gcrotmk against scipy.sparse.linalg's: SciPy's signatures, the
same answers within the tolerance, SciPy's keywords (shift, check, x0='Mb', callback) and
clear errors on bad input."""

import inspect

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import portla.scipy as pscipy
from conftest import SOURCE_DIR

NEW = ["minres", "cgs", "tfqmr", "lgmres", "gcrotmk"]


def poisson2d(m):
    t = sp.diags_array([-1.0, 2.0, -1.0], offsets=[-1, 0, 1], shape=(m, m))
    eye = sp.eye_array(m)
    return (sp.kron(t, eye) + sp.kron(eye, t)).tocsr()


def convection2d(m):
    """Poisson plus a first-order term: a non-symmetric matrix."""
    t = sp.diags_array([-1.3, 2.0, -0.7], offsets=[-1, 0, 1], shape=(m, m))
    eye = sp.eye_array(m)
    return (sp.kron(t, eye) + sp.kron(eye, t)).tocsr()


def relres(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def jacobi_operator(A):
    d = 1.0 / A.diagonal()
    return sla.LinearOperator(A.shape, matvec=lambda r: d * r, dtype=A.dtype)


@pytest.mark.parametrize("name", NEW)
def test_signature_is_scipys(name):
    """SciPy's parameters, in SciPy's order and with its defaults, come first."""
    ours = list(inspect.signature(getattr(pscipy, name)).parameters.values())
    theirs = list(inspect.signature(getattr(sla, name)).parameters.values())
    assert [(p.name, p.default, p.kind) for p in ours[: len(theirs)]] == [
        (p.name, p.default, p.kind) for p in theirs
    ]


@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("M", [None, "jacobi", "operator"])
def test_matches_scipy(name, M):
    A = poisson2d(20) if name == "minres" else convection2d(20)
    b = np.random.default_rng(3).uniform(0.5, 1.5, A.shape[0])
    rtol = 1e-8
    m_portla = jacobi_operator(A) if M == "operator" else M
    m_scipy = None if M is None else jacobi_operator(A)
    x_s, info_s = getattr(sla, name)(A, b, rtol=rtol * 1e-3, maxiter=4000, M=m_scipy)
    x_p, info_p = getattr(pscipy, name)(A, b, rtol=rtol, maxiter=4000, M=m_portla)
    assert info_p == 0
    assert relres(A, x_p, b) <= rtol
    # cond(A) < 200 for both matrices: solutions within rtol agree to ~cond * rtol.
    assert np.linalg.norm(x_p - x_s) / np.linalg.norm(x_s) <= 1e3 * rtol


@pytest.mark.parametrize("name", ["cgs", "tfqmr"])
def test_iterations_near_scipys(name):
    """Same stopping rule as SciPy's (cgs: ||r|| < rtol ||b||; tfqmr: its residual bound):
    the counts of one callback per iteration agree within 10% on a SuiteSparse matrix."""
    A = sp.csr_matrix(scipy.io.mmread(SOURCE_DIR / "tests/data/suitesparse/cage5.mtx"))
    b = A @ np.ones(A.shape[0])
    counts = []
    for f in (getattr(sla, name), getattr(pscipy, name)):
        seen = []
        x, info = f(A, b, rtol=1e-8, atol=0.0, callback=lambda xk: seen.append(1))
        assert info == 0
        counts.append(len(seen))
    assert abs(counts[1] - counts[0]) <= max(1, 0.1 * counts[0]), counts


def test_minres_shift_solves_the_shifted_system():
    A = poisson2d(12)
    b = np.linspace(1.0, 2.0, A.shape[0])
    shift = 3.0  # inside A's spectrum (0, 8): an indefinite system
    x1, info1 = pscipy.minres(A, b, shift=shift, rtol=1e-10, maxiter=5000)
    x2, info2 = sla.minres(A - shift * sp.eye_array(A.shape[0]), b, rtol=1e-12, maxiter=5000)
    assert info1 == 0
    assert relres(A - shift * sp.eye_array(A.shape[0]), x1, b) <= 1e-10
    np.testing.assert_allclose(x1, x2, rtol=1e-6, atol=1e-8 * np.abs(x2).max())


def test_minres_check_refuses_nonsymmetric():
    with pytest.raises(ValueError, match="not symmetric"):
        pscipy.minres(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0]), check=True)
    x, info = pscipy.minres(poisson2d(4), np.ones(16), check=True)
    assert info == 0


@pytest.mark.parametrize("name", NEW)
def test_x0_mb_and_callback(name):
    A = poisson2d(10)
    b = np.arange(1.0, A.shape[0] + 1)
    M = jacobi_operator(A)
    seen = []
    x, info = getattr(pscipy, name)(A, b, x0="Mb", M=M, rtol=1e-9, callback=lambda xk: seen.append(xk.copy()))
    assert info == 0 and relres(A, x, b) <= 1e-9
    assert len(seen) > 0 and np.allclose(seen[-1], x)


@pytest.mark.parametrize("name", NEW)
def test_maxiter_reached(name):
    A = poisson2d(16)
    # lgmres: cycles of 30 + 3 steps, gcrotmk: of 5 + 5 here
    maxiter = 1 if name in ("lgmres", "gcrotmk") else 3
    kw = {"m": 5} if name == "gcrotmk" else {}
    x, info = getattr(pscipy, name)(A, np.ones(A.shape[0]), rtol=1e-12, maxiter=maxiter, **kw)
    assert info == maxiter


@pytest.mark.parametrize(
    "name, matrix",
    [
        (name, matrix)
        for name in ("lgmres", "gcrotmk")
        for matrix in ("cage5", "bcsstk01", "helmholtz", "hermitian")
    ],
)
@pytest.mark.parametrize("jacobi", [False, True])
def test_arnoldi_steps_match_scipys(name, matrix, jacobi):
    """Preconditioned on the same side as SciPy's, both stopping on the true residual: the
    Arnoldi steps agree within 10%. lgmres with store_outer_Av=False (one A x a step): SciPy's
    steps are its A x products less the one per cycle, its callbacks. gcrotmk: SciPy's are its
    A x products less the one recomputing b - A x when it converges. helmholtz and hermitian:
    the complex matrices of test_complex.py (24 x 24 grids)."""
    if matrix in ("helmholtz", "hermitian"):
        from test_complex import helmholtz, hermitian

        A = helmholtz(24) if matrix == "helmholtz" else hermitian(24)
    else:
        A = sp.csr_matrix(scipy.io.mmread(SOURCE_DIR / f"tests/data/suitesparse/{matrix}.mtx"))
    b = A @ np.ones(A.shape[0])
    M = sp.diags(1 / A.diagonal()) if jacobi else None
    products, cycles, steps = [0], [0], [0]

    def matvec(v):
        products[0] += 1
        return A @ v

    op = sla.LinearOperator(A.shape, matvec=matvec, dtype=A.dtype)
    kw = dict(rtol=1e-8, atol=0.0, maxiter=200, M=M)
    if name == "lgmres":
        kw["store_outer_Av"] = False
    count = lambda xk: cycles.__setitem__(0, cycles[0] + 1)  # noqa: E731
    _, info_s = getattr(sla, name)(op, b, callback=count, **kw)
    x, info_p = getattr(pscipy, name)(A, b, monitor=lambda i, r: steps.__setitem__(0, i), **kw)
    assert info_s == 0 and info_p == 0 and relres(A, x, b) <= 1e-8
    theirs = products[0] - (cycles[0] if name == "lgmres" else 1)
    # bcsstk01 without a preconditioner (condition number about 1e6): SciPy's own count follows
    # the CPU kernels OpenBLAS picks for its dot products and rotations. SciPy 1.17.1 on an AMD
    # EPYC (2026-11-29): lgmres 522 steps with OpenBLAS's Haswell or Zen kernels, 457 with its
    # Sandybridge ones (OPENBLAS_CORETYPE), 456 on the AVX-512 host of 2026-11-28; portla 456 on
    # both hosts. 15% covers that spread; 10% elsewhere.
    margin = 0.15 if matrix == "bcsstk01" and not jacobi else 0.1
    assert abs(steps[0] - theirs) <= margin * theirs, (steps[0], theirs)


def test_lgmres_options_and_outer_v():
    A = convection2d(16)
    b = np.ones(A.shape[0])
    for kw in ({"prepend_outer_v": True}, {"store_outer_Av": False}, {"outer_k": 0}):
        x, info = pscipy.lgmres(A, b, rtol=1e-10, inner_m=10, **kw)
        assert info == 0 and relres(A, x, b) <= 1e-10, kw
    with pytest.raises(ValueError, match="outer_v"):  # a list of pairs, as SciPy's
        pscipy.lgmres(A, b, outer_v=[np.ones(A.shape[0])])
    with pytest.raises(OverflowError, match="inner_m"):  # as restart for gmres
        pscipy.lgmres(A, b, inner_m=0)


def test_gcrotmk_options_and_cu():
    A = convection2d(16)
    b = np.ones(A.shape[0])
    for kw in ({"truncate": "smallest"}, {"k": 0}, {"k": 2, "truncate": "smallest"},
               {"discard_C": True}):
        x, info = pscipy.gcrotmk(A, b, rtol=1e-10, m=5, **kw)
        assert info == 0 and relres(A, x, b) <= 1e-10, kw
    # GCROT(m, 0) keeps one pair at most, as SciPy's: the same x after one cycle
    x_p, _ = pscipy.gcrotmk(A, b, m=10, k=0, maxiter=1)
    x_s, _ = sla.gcrotmk(A, b, m=10, k=0, maxiter=1)
    assert np.linalg.norm(x_p - x_s) <= 1e-8 * np.linalg.norm(x_s)
    with pytest.raises(ValueError, match="CU"):  # a list of pairs, as SciPy's
        pscipy.gcrotmk(A, b, CU=[np.ones(A.shape[0])])
    with pytest.raises(ValueError, match="truncate"):
        pscipy.gcrotmk(A, b, truncate="newest")
    with pytest.raises(OverflowError, match="m"):
        pscipy.gcrotmk(A, b, m=0)
    with pytest.raises(OverflowError, match="k"):
        pscipy.gcrotmk(A, b, k=-1)


@pytest.mark.parametrize("name", NEW)
def test_bad_input(name):
    f = getattr(pscipy, name)
    with pytest.raises(ValueError):
        f(np.ones((3, 4)), np.ones(3))  # rectangular
    with pytest.raises(ValueError):
        f(poisson2d(3), np.ones(5))  # b of the wrong size
    if name == "minres":
        with pytest.raises(ValueError, match="shift"):
            f(poisson2d(3), np.ones(9), shift=np.nan)
    else:
        with pytest.raises(ValueError, match="atol"):
            f(poisson2d(3), np.ones(9), atol=-1.0)
