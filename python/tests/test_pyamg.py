"""portla.pyamg: PyAMG's solver constructors over portla's multigrid, compared with PyAMG (the
package, where installed) for the same settings; PyAMG-style code run unchanged; the keywords
portla cannot honour refused by name; CuPy / PyTorch matrices in place (where a GPU is present)."""

import inspect
import textwrap

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg as sla

import portla
import portla.pyamg as ppyamg
import portla.scipy as pscipy
from test_gpu import cupy, torch  # noqa: F401 (fixtures)
from test_scipy_compat import relres

# Damped Jacobi with PyAMG's spectral scaling (omega / rho(D^-1 A)) is the smoother both
# packages define the same way; PMIS coarse rows and classical interpolation, the classical
# hierarchy both build.
JACOBI = ("jacobi", {"omega": 4.0 / 3.0, "iterations": 2})


@pytest.fixture(autouse=True)
def seeded_numpy():
    """PyAMG's PMIS draws its random weights from NumPy's global generator: seeded, so that the
    hierarchies compared with portla's are the same in every run and test order."""
    state = np.random.get_state()
    np.random.seed(20261128)
    yield
    np.random.set_state(state)


def cg_its(ml, b, tol=1e-8):
    res = []
    x = ml.solve(b, tol=tol, accel="cg", residuals=res, maxiter=300)
    return x, len(res) - 1


@pytest.mark.parametrize("spec", ["poisson3d:20", "anisotropic3d:20", "poisson2d:64"])
@pytest.mark.parametrize("kind", ["sa", "rs"])
def test_iterations_within_1_5x_of_pyamg(spec, kind):
    pyamg = pytest.importorskip("pyamg", reason="PyAMG is not installed: nothing to compare with")
    A = portla.generate(spec)
    b = A @ np.ones(A.shape[0])
    kw = dict(presmoother=JACOBI, postsmoother=JACOBI, max_coarse=10)
    if kind == "sa":
        ours = ppyamg.smoothed_aggregation_solver(A, **kw)
        theirs = pyamg.smoothed_aggregation_solver(A, improve_candidates=None, **kw)
    else:
        ours = ppyamg.ruge_stuben_solver(A, CF="PMIS", **kw)
        theirs = pyamg.ruge_stuben_solver(A, CF="PMIS", **kw)
    x, its = cg_its(ours, b)
    _, their_its = cg_its(theirs, b)
    assert relres(A, x, b) <= 1e-8
    # Measured on this suite's problems (2-core VM, 2026-11-28): portla 10-14, PyAMG 8-19.
    assert its <= 1.5 * their_its, (its, their_its)
    assert len(ours.levels) >= 3
    # The same kind of hierarchy: the coarsening ratios agree within a factor of 2.
    assert 0.5 <= ours.grid_complexity() / theirs.grid_complexity() <= 2.0


@pytest.mark.parametrize(
    "spec,kind",
    [
        ("poisson3d:20", "sa"),
        ("poisson3d:20", "rs"),
        ("anisotropic3d:20", "sa"),
        ("anisotropic3d:20", "rs"),
        ("poisson2d:64", "rs"),
        # Measured (2-core VM, 2026-11-28): 27 cycles against PyAMG's 16; portla's aggregates
        # (roots a distance-2 independent set) differ from PyAMG's greedy ones. Accelerated
        # by CG the two take 10 and 9 iterations.
        pytest.param(
            "poisson2d:64",
            "sa",
            marks=pytest.mark.xfail(strict=True, reason="2-D SA cycles alone: 1.7x PyAMG's"),
        ),
    ],
)
def test_stationary_cycles_within_1_5x_of_pyamg(spec, kind):
    pyamg = pytest.importorskip("pyamg", reason="PyAMG is not installed: nothing to compare with")
    A = portla.generate(spec)
    b = A @ np.ones(A.shape[0])
    kw = dict(presmoother=JACOBI, postsmoother=JACOBI)
    if kind == "sa":
        ours = ppyamg.smoothed_aggregation_solver(A, **kw)
        theirs = pyamg.smoothed_aggregation_solver(A, improve_candidates=None, **kw)
    else:
        ours = ppyamg.ruge_stuben_solver(A, CF="PMIS", **kw)
        theirs = pyamg.ruge_stuben_solver(A, CF="PMIS", **kw)
    mine, their = [], []
    x = ours.solve(b, tol=1e-8, residuals=mine, maxiter=300)
    theirs.solve(b, tol=1e-8, residuals=their, maxiter=300)
    assert relres(A, x, b) < 1e-8
    assert len(mine) <= 1.5 * len(their), (len(mine), len(their))
    assert mine[0] == pytest.approx(np.linalg.norm(b))  # x0 = 0: the first entry is ||b||


def test_pyamg_readme_example_runs_unchanged():
    # PyAMG 5.4's README example, its gallery included.
    code = textwrap.dedent(
        """
        import portla.pyamg as pyamg
        import numpy as np
        A = pyamg.gallery.poisson((500,500), format='csr')  # 2D Poisson problem on 500x500 grid
        ml = pyamg.ruge_stuben_solver(A)                    # construct the multigrid hierarchy
        print(ml)                                           # print hierarchy information
        b = np.random.rand(A.shape[0])                      # pick a random right hand side
        x = ml.solve(b, tol=1e-10)                          # solve Ax=b to a tolerance of 1e-10
        print("residual: ", np.linalg.norm(b-A@x))          # compute norm of residual vector
        """
    )
    scope = {}
    exec(code, scope)
    A, b, x = scope["A"], scope["b"], scope["x"]
    assert np.linalg.norm(b - A @ x) < 1e-10 * np.linalg.norm(b)
    # With PyAMG's classical interpolation the same PMIS hierarchy reduces the residual by
    # 0.90 a cycle (2-core VM, 2026-11-29) and stops at maxiter, short of the tolerance.
    res = []
    pyamg_like = scope["pyamg"].ruge_stuben_solver(A, interpolation="classical")
    pyamg_like.solve(b, tol=1e-10, residuals=res)
    assert len(res) == 101 and res[-1] > 1e-10 * res[0]


def test_blackbox_solve(capsys):
    # PyAMG's docstring example of pyamg.solve, unchanged but for the import.
    code = textwrap.dedent(
        """
        import numpy as np
        from portla.pyamg import solve
        from portla.pyamg.gallery import poisson
        A = poisson((40,40),format='csr')
        b = np.array(np.arange(A.shape[0]), dtype=float)
        x = solve(A,b,verb=False)
        """
    )
    scope = {}
    exec(code, scope)
    A, b, x = scope["A"], scope["b"], scope["x"]
    assert relres(A, x, b) < 1e-5
    assert capsys.readouterr().out == ""  # verb=False prints nothing
    # the hierarchy returned, then reused for another right-hand side: CG for a symmetric A
    x, ml = ppyamg.solve(A, b, tol=1e-8, return_solver=True)
    assert "accel = 'cg'" in capsys.readouterr().out
    res = []
    y = ppyamg.solve(A, 2 * b, tol=1e-8, existing_solver=ml, verb=False, residuals=res)
    assert relres(A, y, 2 * b) <= 1e-8 and len(res) >= 2
    with pytest.raises(TypeError, match="built for a"):
        small = ppyamg.gallery.poisson((10, 10), format="csr")
        ppyamg.solve(small, np.ones(100), existing_solver=ml)
    with pytest.raises(TypeError, match="MultilevelSolver"):
        ppyamg.solve(A, b, existing_solver="ml")
    # upwind convection-diffusion (not symmetric, positive diagonal): GMRES
    T = scipy.sparse.diags([-1.5, 2.5, -1.0], [-1, 0, 1], shape=(30, 30))
    I = scipy.sparse.identity(30)  # noqa: E741
    N = (scipy.sparse.kron(T, I) + scipy.sparse.kron(I, T)).tocsr()
    c = np.ones(N.shape[0])
    z = ppyamg.solve(N, c, tol=1e-8)
    assert "accel = 'gmres'" in capsys.readouterr().out
    assert relres(N, z, c) <= 1e-8


def test_gallery_is_pyamgs():
    # poisson and stencil_grid against PyAMG's (its matrices, formats and dtypes), where
    # installed; the Poisson matrices also against their Kronecker-sum form, everywhere.
    T = lambda n: scipy.sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))  # noqa: E731
    I = lambda n: scipy.sparse.identity(n)  # noqa: E731,E741
    A = ppyamg.gallery.poisson((3, 4), format="csr")
    assert scipy.sparse.issparse(A) and A.format == "csr"
    K = scipy.sparse.kron
    assert (A.toarray() == (K(T(3), I(4)) + K(I(3), T(4))).toarray()).all()
    from portla.pyamg.gallery import poisson, stencil_grid

    want3 = K(K(T(2), I(3)), I(4)) + K(K(I(2), T(3)), I(4)) + K(K(I(2), I(3)), T(4))
    assert (poisson((2, 3, 4)).toarray() == want3.toarray()).all()
    assert poisson((5,)).format == "dia"
    # bilinear elements: 8 on the diagonal, -1 for each of up to 8 neighbours
    fe = poisson((3, 3), type="FE").toarray()
    assert (np.diag(fe) == 8).all() and fe[4].sum() == 0 and (fe[4][fe[4] != 8] == -1).all()
    with pytest.raises(ValueError, match="type must be 'FD' or 'FE'"):
        poisson((3, 3), type="FV")
    with pytest.raises(ValueError, match="at least 1"):
        poisson((0, 3))
    with pytest.raises(ValueError, match="odd"):
        stencil_grid(np.ones((2, 3)), (4, 4))
    with pytest.raises(ValueError, match="2 dimensions and the grid 1"):
        stencil_grid(np.ones((3, 3)), (4,))
    pyamg = pytest.importorskip("pyamg", reason="PyAMG is not installed: nothing to compare with")
    for grid in [(4,), (2, 3), (3, 4, 5)]:
        for kind in ["FD", "FE"]:
            for fmt in [None, "csr"]:
                ours = poisson(grid, type=kind, format=fmt)
                theirs = pyamg.gallery.poisson(grid, type=kind, format=fmt)
                assert ours.format == theirs.format and ours.dtype == theirs.dtype
                assert (ours.toarray() == theirs.toarray()).all(), (grid, kind, fmt)
    S = np.random.rand(3, 5)  # not symmetric: the offsets' direction shows
    theirs = pyamg.gallery.stencil_grid(S, (4, 6))
    assert (stencil_grid(S, (4, 6)).toarray() == theirs.toarray()).all()
    assert poisson((4, 4), dtype=np.float32).dtype == np.float32


def test_pyamg_aspreconditioner_example_runs_unchanged():
    # MultilevelSolver.aspreconditioner's docstring example in PyAMG.
    code = textwrap.dedent(
        """
        from portla.pyamg import smoothed_aggregation_solver
        from scipy.sparse.linalg import cg
        import scipy as sp
        import numpy as np
        A = portla.generate("poisson2d:100")               # matrix
        b = np.random.rand(A.shape[0])                     # random RHS
        ml = smoothed_aggregation_solver(A)                # AMG solver
        M = ml.aspreconditioner(cycle='V')                 # preconditioner
        x, info = cg(A, b, rtol=1e-8, maxiter=30, M=M)     # solve with CG
        """
    )
    scope = {"portla": portla}
    exec(code, scope)
    assert scope["info"] == 0
    assert relres(scope["A"], scope["x"], scope["b"]) <= 1e-8


def count_calls(M):
    calls = [0]
    matvec = M._matvec

    def counted(r):
        calls[0] += 1
        return matvec(r)

    M._matvec = counted
    return calls


def test_auto_backend_follows_the_hierarchy():
    # backend "auto" is cuda on a GPU machine and omp here; a hierarchy built elsewhere (here the
    # reference backend, as omp for a SciPy matrix on a GPU machine) decides where the solve runs.
    A = portla.generate("poisson3d:12")
    b = np.linspace(1.0, 2.0, A.shape[0])
    ml = ppyamg.smoothed_aggregation_solver(A, backend="reference")
    x, info = pscipy.cg(A, b, rtol=1e-8, M=ml.aspreconditioner())
    assert info == 0 and relres(A, x, b) <= 1e-8
    with pytest.raises(ValueError, match="another executor than A"):
        pscipy.cg(A, b, rtol=1e-8, M=ml.aspreconditioner(), backend="omp")


@pytest.mark.parametrize("name", ["cg", "bicgstab", "gmres"])
def test_portla_scipy_applies_the_cycle_in_cpp(name):
    A = portla.generate("poisson3d:16")
    b = np.linspace(1.0, 2.0, A.shape[0])
    ml = ppyamg.ruge_stuben_solver(A)
    M = ml.aspreconditioner()
    calls = count_calls(M)
    x, info = getattr(pscipy, name)(A, b, rtol=1e-8, M=M)
    assert info == 0 and relres(A, x, b) <= 1e-8
    assert calls[0] == 0  # never called back from C++
    # SciPy's solver calls the operator itself, with the same result.
    xs, info = getattr(sla, name)(A, b, rtol=1e-8, M=M)
    assert info == 0 and calls[0] > 0
    assert np.linalg.norm(x - xs) <= 1e-6 * np.linalg.norm(xs)
    # A float32 solve with a float64 hierarchy goes through the operator instead.
    before = calls[0]
    x32, info = pscipy.cg(A.astype(np.float32), b.astype(np.float32), rtol=1e-4, M=M)
    assert info == 0 and calls[0] > before


def test_cg_iterations_agree_between_scipy_and_portla():
    A = portla.generate("anisotropic3d:16")
    b = np.linspace(1.0, 2.0, A.shape[0])
    ml = ppyamg.smoothed_aggregation_solver(A)
    M = ml.aspreconditioner()
    counts = []
    for cg in (sla.cg, pscipy.cg):
        n = [0]
        x, info = cg(A, b, rtol=1e-8, M=M, callback=lambda xk: n.__setitem__(0, n[0] + 1))
        assert info == 0
        counts.append(n[0])
    # The same preconditioned CG up to rounding (SciPy stops on its recurrence residual).
    assert abs(counts[0] - counts[1]) <= 2, counts


def test_levels_hold_the_galerkin_hierarchy():
    A = portla.generate("poisson2d:48")
    for ml, extra in (
        (ppyamg.smoothed_aggregation_solver(A), "AggOp"),
        (ppyamg.ruge_stuben_solver(A), "splitting"),
    ):
        levels = ml.levels
        assert len(levels) >= 3
        assert levels[0].A is not None and (levels[0].A != A).nnz == 0
        for fine, coarse in zip(levels[:-1], levels[1:]):
            P, R = fine.P, fine.R
            assert isinstance(P, scipy.sparse.csr_matrix) and isinstance(R, scipy.sparse.csr_matrix)
            assert P.shape == (fine.A.shape[0], coarse.A.shape[0])
            assert (R != P.T).nnz == 0
            galerkin = (R @ fine.A @ P).toarray()
            scale = abs(galerkin).max()
            assert abs(galerkin - coarse.A.toarray()).max() <= 1e-12 * scale
            e = getattr(fine, extra)
            if extra == "AggOp":
                assert e.shape == P.shape
                assert (e.sum(axis=1) <= 1).all()  # each row in at most one aggregate
            else:
                assert e.dtype == np.uint8 and int(e.sum()) == coarse.A.shape[0]
        with pytest.raises(AttributeError):
            levels[-1].P
        nnz = [lv.A.nnz for lv in levels]
        rows = [lv.A.shape[0] for lv in levels]
        assert ml.operator_complexity() == pytest.approx(sum(nnz) / nnz[0])
        assert ml.grid_complexity() == pytest.approx(sum(rows) / rows[0])
        text = repr(ml)
        assert text.startswith("MultilevelSolver\n")
        assert f"Number of Levels:     {len(levels)}" in text
        assert f"{rows[1]:>11} {nnz[1]:>12}" in text


def test_solve_options():
    A = portla.generate("poisson2d:40")
    b = np.random.default_rng(1).random(A.shape[0])
    ml = ppyamg.ruge_stuben_solver(A, max_coarse=20)
    v, w = [], []
    ml.solve(b, tol=1e-8, residuals=v)
    ml.solve(b, tol=1e-8, residuals=w, cycle="W")
    assert len(w) <= len(v)
    assert v[-1] < 1e-8 * np.linalg.norm(b) and v[-2] >= 1e-8 * np.linalg.norm(b)
    # The W preconditioner is another operator than the V one.
    Mv, Mw = ml.aspreconditioner(), ml.aspreconditioner(cycle="w")
    assert np.linalg.norm(Mv @ b - Mw @ b) > 1e-6 * np.linalg.norm(Mv @ b)
    # The cycle is symmetric positive definite: y.Mx = x.My, x.Mx > 0.
    y = np.cos(np.arange(A.shape[0]))
    assert y @ (Mv @ b) == pytest.approx(b @ (Mv @ y), rel=1e-10)
    assert b @ (Mv @ b) > 0
    # maxiter reached: info is the iteration count; x0 is copied, not written.
    x0 = np.full(A.shape[0], 0.5)
    x, info = ml.solve(b, x0=x0, tol=1e-14, maxiter=3, return_info=True)
    assert info == 3 and (x0 == 0.5).all()
    # callback after each cycle, with the iterate.
    seen, res = [], []
    x = ml.solve(b, tol=1e-8, callback=lambda xk: seen.append(relres(A, xk, b)), residuals=res)
    assert len(seen) == len(res) - 1 and seen[-1] == pytest.approx(relres(A, x, b))
    # Krylov acceleration, portla's and a SciPy-style function.
    for accel in ("cg", "bicgstab", "gmres", sla.cg, pscipy.cg):
        res = []
        x, info = ml.solve(b, tol=1e-8, accel=accel, residuals=res, return_info=True)
        assert info == 0 and relres(A, x, b) <= 1.01e-8, accel
        assert 3 <= len(res) <= 30, (accel, len(res))
    assert not ml.solve(np.zeros(A.shape[0])).any()  # b = 0: x = 0
    # float32 matrices build a float32 hierarchy. 1e-4: in float32 the true residual of CG on
    # this matrix stalls near 1e-4 (CG alone and CG + Jacobi: 1.2e-4 at 1000 iterations), with
    # AMG between 8e-6 and 7e-5 depending on the smoother, so a smaller tolerance would test the
    # rounding, not the hierarchy.
    ml32 = ppyamg.ruge_stuben_solver(A.astype(np.float32))
    x32 = ml32.solve(b.astype(np.float32), tol=1e-4, accel="cg")
    assert x32.dtype == np.float32 and relres(A, x32, b) <= 1e-4


def test_dense_matrix_is_converted_with_a_warning():
    A = portla.generate("poisson2d:12")
    with pytest.warns(scipy.sparse.SparseEfficiencyWarning):
        ml = ppyamg.ruge_stuben_solver(A.toarray())
    b = np.ones(A.shape[0])
    assert relres(A, ml.solve(b, tol=1e-10, maxiter=200), b) < 1e-10


SA = ppyamg.smoothed_aggregation_solver
RS = ppyamg.ruge_stuben_solver


@pytest.mark.parametrize(
    "build,kwargs,keyword",
    [
        (SA, {"strength": "classical"}, "strength"),
        (SA, {"strength": ("evolution", {})}, "strength"),
        (SA, {"strength": ("symmetric", {"theta": -1.0})}, "theta"),
        (SA, {"aggregate": "lloyd"}, "aggregate"),
        (SA, {"smooth": "energy"}, "smooth"),
        (SA, {"smooth": None}, "smooth"),
        (SA, {"smooth": ("jacobi", {"degree": 2})}, "degree"),
        (SA, {"smooth": ("jacobi", {"filter": True})}, "filter"),
        (SA, {"improve_candidates": (("gauss_seidel", {}), None)}, "improve_candidates"),
        (SA, {"B": np.arange(1.0, 1025.0)}, "B"),
        (SA, {"BH": np.ones(1024)}, "BH"),
        (SA, {"symmetry": "nonsymmetric"}, "symmetry"),
        (SA, {"diagonal_dominance": True}, "diagonal_dominance"),
        (SA, {"presmoother": "gauss_seidel", "postsmoother": "gauss_seidel"}, "presmoother"),
        (SA, {"presmoother": ("block_gauss_seidel", {"sweep": "symmetric"})}, "postsmoother"),
        (SA, {"presmoother": "jacobi"}, "postsmoother"),
        (RS, {"CF": "RS"}, "CF"),
        (RS, {"CF": ("PMIS", {"second_pass": True})}, "CF"),
        (RS, {"interpolation": "direct"}, "interpolation"),
        (RS, {"interpolation": "standard"}, "interpolation"),
        (RS, {"interpolation": ("extended+i", {"theta": 0.1})}, "theta"),
        (RS, {"interpolation": ("extended+i", {"max_entries": 2.5})}, "max_entries"),
        (RS, {"interpolation": ("classical", {"trunc_factor": 1.0})}, "truncation"),
        (RS, {"strength": ("classical", {"norm": "min"})}, "norm"),
        (RS, {"strength": "symmetric"}, "strength"),
        (RS, {"coarse_solver": "gauss_seidel"}, "coarse_solver"),
        (RS, {"coarse_solver": ("pinv", {"rcond": 1e-3})}, "coarse_solver"),
        (RS, {"cycles": 2}, "cycles"),
        (RS, {"max_levels": 1.5}, "max_levels"),
        (RS, {"max_coarse": "ten"}, "max_coarse"),
    ],
)
def test_unsupported_keywords_are_named(build, kwargs, keyword):
    A = portla.generate("poisson2d:32")
    with pytest.raises((ValueError, TypeError), match=keyword):
        build(A, **kwargs)


@pytest.mark.parametrize(
    "smoother,option",
    [
        (("jacobi", {"withrho": False}), "withrho"),
        (("chebyshev", {"lower_bound": 0.1}), "lower_bound"),
        (("jacobi", {"sweep": "forward"}), "sweep"),
        (("jacobi", {"omega": 2.5}), "jacobi weight"),
        (("chebyshev", {"degree": 12}), "chebyshev degree"),
    ],
)
def test_bad_smoother_options(smoother, option):
    A = portla.generate("poisson2d:32")
    with pytest.raises(ValueError, match=option):
        RS(A, presmoother=smoother, postsmoother=smoother)


def test_supported_settings_reach_the_hierarchy():
    A = portla.generate("poisson2d:64")
    assert len(SA(A, max_levels=2).levels) == 2
    assert SA(A, max_coarse=500).levels[-1].A.shape[0] <= 500
    # A larger strength threshold drops more connections: a different hierarchy.
    loose = RS(A, strength=("classical", {"theta": 0.25}))
    none = RS(A, strength=None)
    assert loose.info["levels"] != none.info["levels"] or loose.operator_complexity() != none.operator_complexity()
    # Same keywords PyAMG accepts as lists of per-level choices, when every level's is the same.
    ml = SA(A, presmoother=[JACOBI, JACOBI], postsmoother=[JACOBI, JACOBI], coarse_solver="pinv")
    assert relres(A, ml.solve(np.ones(A.shape[0]), tol=1e-8), np.ones(A.shape[0])) < 1e-8
    with pytest.raises(ValueError, match="presmoother"):
        SA(A, presmoother=[JACOBI, "chebyshev"], postsmoother=[JACOBI, "chebyshev"])


def test_bad_input():
    A = portla.generate("poisson2d:16")
    b = np.ones(A.shape[0])
    ml = RS(A)
    with pytest.raises(ValueError, match="cycle"):
        ml.solve(b, cycle="F")
    with pytest.raises(ValueError, match="cycle"):
        ml.aspreconditioner(cycle="AMLI")
    with pytest.raises(ValueError, match="accel"):
        ml.solve(b, accel="minres")
    with pytest.raises(ValueError, match="cycles_per_level"):
        ml.solve(b, cycles_per_level=2)
    with pytest.raises(ValueError, match="dimension mismatch"):
        ml.solve(np.ones(3))
    with pytest.raises(ValueError, match="square"):
        RS(A[:, :-1])
    with pytest.raises(ValueError, match="LinearOperator"):
        SA(sla.aslinearoperator(A))
    Z = A.tolil()
    Z[5, 5] = 0.0
    with pytest.raises(ValueError, match="diagonal"):
        SA(Z.tocsr())
    with pytest.raises(ValueError, match="complex"):
        SA(A.astype(np.complex128))


# ---- GPU: the hierarchy built on the device from the caller's CSR arrays ---------------------


def test_cupy_hierarchy(cupy):
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as csla

    A_host = portla.generate("poisson3d:16")
    b_host = np.linspace(1.0, 2.0, A_host.shape[0])
    A = csp.csr_matrix(A_host)
    b = cupy.asarray(b_host)
    for build in (SA, RS):
        ml = build(A)
        host = build(A_host)
        x = ml.solve(b, tol=1e-8, accel="cg")
        assert isinstance(x, cupy.ndarray) and relres(A_host, cupy.asnumpy(x), b_host) <= 1e-8
        res, host_res = [], []
        ml.solve(b, tol=1e-8, accel="cg", residuals=res)
        host.solve(b_host, tol=1e-8, accel="cg", residuals=host_res)
        assert len(res) <= 1.5 * len(host_res)
        assert len(ml.levels) == len(host.levels)
        assert isinstance(ml.levels[1].A, scipy.sparse.csr_matrix)
        M = ml.aspreconditioner()
        calls = count_calls(M)
        x, info = pscipy.cg(A, b, rtol=1e-8, M=M)
        assert info == 0 and calls[0] == 0 and isinstance(x, cupy.ndarray)
        # CuPy 14 names the tolerance rtol, earlier versions tol
        tol_name = "rtol" if "rtol" in inspect.signature(csla.cg).parameters else "tol"
        x, info = csla.cg(A, b, M=M, **{tol_name: 1e-8})
        assert info == 0 and calls[0] > 0


def test_torch_hierarchy(torch):
    A_host = portla.generate("fem2d:40")
    b_host = np.ones(A_host.shape[0])
    A = torch.sparse_csr_tensor(
        torch.from_numpy(A_host.indptr.astype(np.int64)),
        torch.from_numpy(A_host.indices.astype(np.int64)),
        torch.from_numpy(A_host.data),
        A_host.shape,
    ).cuda()
    b = torch.from_numpy(b_host).cuda()
    ml = RS(A)
    x = ml.solve(b, tol=1e-8)
    assert x.is_cuda and relres(A_host, x.cpu().numpy(), b_host) <= 1e-8
    x, info = pscipy.cg(A, b, rtol=1e-8, M=ml.aspreconditioner())
    assert info == 0 and x.is_cuda
    assert relres(A_host, x.cpu().numpy(), b_host) <= 1e-8


def test_extended_interpolation_takes_fewer_iterations():
    # extended+i (4 weights a row, the default) against PyAMG's default classical
    # interpolation: omp, 2-core VM, 2026-11-28, poisson3d:20: 7 and 9 CG iterations; operator
    # complexity 2.6 and 2.1.
    A = portla.generate("poisson3d:20")
    b = A @ np.ones(A.shape[0])
    classical = ppyamg.ruge_stuben_solver(A, interpolation="classical")
    extended = ppyamg.ruge_stuben_solver(A)
    x, its = cg_its(extended, b)
    assert relres(A, x, b) <= 1e-8
    _, classical_its = cg_its(classical, b)
    assert its < classical_its, (its, classical_its)
    assert extended.operator_complexity() <= 3.0
    # truncated to 2 weights a row: at most 2 entries in each row of P
    two = ppyamg.ruge_stuben_solver(A, interpolation=("extended+i", {"max_entries": 2}))
    P = two.levels[0].P
    assert np.diff(P.indptr).max() <= 2
    assert relres(A, cg_its(two, b)[0], b) <= 1e-8
