"""What a Python operator returns is checked, never cast; integer keywords are range-checked by
name; empty batched systems are refused."""

import numpy as np
import pytest

import portla


class _Operator:
    """A matrix-free operator as duck typing sees it (shape, dtype, matvec), unchecked by SciPy."""

    def __init__(self, n, matvec):
        self.shape = (n, n)
        self.dtype = np.dtype(np.float64)
        self.matvec = matvec


def _system(n=12):
    rng = np.random.default_rng(7)
    d = rng.uniform(2.0, 3.0, n)
    return np.diag(d), rng.uniform(-1.0, 1.0, n)


@pytest.mark.parametrize(
    "result, fragment",
    [
        (lambda A, x: (A @ x).astype(np.complex128), "complex"),
        (lambda A, x: np.append(A @ x, 1.0), "shape (13,)"),
        (lambda A, x: (A @ x)[:-1], "shape (11,)"),
        (lambda A, x: np.outer(A @ x, [1.0, 1.0]), "shape (12, 2)"),
        (lambda A, x: np.array(["a"] * len(x)), "dtype <U1"),
        (lambda A, x: np.array([object()] * len(x)), "dtype object"),
    ],
)
@pytest.mark.parametrize("solver", ["cg", "bicgstab", "gmres"])
def test_wrong_matvec_result_is_a_value_error_naming_it(result, fragment, solver):
    A, b = _system()
    op = _Operator(12, lambda x: result(A, x))
    with pytest.raises(ValueError, match="A.matvec") as e:
        portla.solve(op, b, solver, backend="omp")
    assert fragment in str(e.value)
    M = _Operator(12, lambda r: result(np.eye(12), r))
    with pytest.raises(ValueError, match="M.matvec") as e:
        portla.solve(A, b, solver, precond=M, backend="omp")
    assert fragment in str(e.value)


@pytest.mark.skipif(not hasattr(ValueError(), "add_note"), reason="exception notes: Python 3.11")
@pytest.mark.parametrize("solver", ["cg", "bicgstab", "gmres"])
def test_scipy_linear_operator_shape_errors_name_the_operator(solver):
    """SciPy's LinearOperator refuses a wrongly sized result itself, naming no operator: the
    error reaches the caller as it was, noted with the operator that raised it."""
    sla = pytest.importorskip("scipy.sparse.linalg")
    A, b = _system()
    short = sla.LinearOperator(A.shape, matvec=lambda x: (A @ x)[:-1], dtype=np.float64)
    with pytest.raises(ValueError, match="cannot reshape") as e:
        portla.solve(short, b, solver, backend="omp")
    assert "(raised by A.matvec)" in getattr(e.value, "__notes__", [])
    with pytest.raises(ValueError, match="cannot reshape") as e:
        portla.solve(A, b, solver, precond=short, backend="omp")
    assert "(raised by M.matvec)" in getattr(e.value, "__notes__", [])


def test_column_results_are_taken():
    A, b = _system()
    op = _Operator(12, lambda x: (A @ x).reshape(-1, 1))
    r = portla.solve(op, b, "cg", backend="omp", rtol=1e-10)
    assert r.converged
    assert np.linalg.norm(b - A @ r.x) <= 1e-10 * np.linalg.norm(b) * 1.01


@pytest.mark.parametrize("key", ["max_iters", "restart", "block_size", "residual_replacement"])
@pytest.mark.parametrize("value", [2**31, 2**40, 1e12, -(2**31) - 1])
def test_integer_keywords_out_of_range_name_the_keyword(key, value):
    A, b = _system()
    with pytest.raises(OverflowError, match=f"^{key}: "):
        portla.solve(A, b, "gmres", backend="omp", **{key: value})


@pytest.mark.parametrize("value", [2.5, float("nan"), float("inf"), "10", True])
def test_integer_keywords_that_are_not_integers_name_the_keyword(value):
    A, b = _system()
    with pytest.raises((ValueError, TypeError), match="^max_iters: "):
        portla.solve(A, b, backend="omp", max_iters=value)


def test_integral_float_keywords_are_taken():
    A, b = _system()
    assert portla.solve(A, b, "gmres", backend="omp", max_iters=1e3, restart=10.0).converged


def test_batch_integer_keywords_and_empty_systems():
    A = np.stack([np.eye(3) * 4 + 1, np.eye(3) * 5 + 1])
    b = np.ones((2, 3))
    for key, value in (("restart", 2**40), ("maxiter", 1e12), ("block_size", 2**33)):
        with pytest.raises(OverflowError, match=f"^{key}: "):
            portla.batch.solve(A, b, backend="omp", **{key: value})
    with pytest.raises(ValueError, match="size 0"):
        portla.batch.solve(np.zeros((3, 0, 0)), np.zeros((3, 0)), backend="omp")
    empty_csr = (np.array([0]), np.array([], dtype=np.int32), np.zeros((2, 0)))
    with pytest.raises(ValueError, match="size 0"):
        portla.batch.solve(empty_csr, np.zeros((2, 0)), backend="omp")


def test_gmres_basis_beyond_memory_is_refused_before_allocating():
    # 10^5 rows, restart 10^5: a 80 GB basis and Hessenberg matrix, refused by the estimate.
    import scipy.sparse as sp

    n = 100_000
    A = sp.diags([np.full(n, 4.0)], [0]).tocsr()
    with pytest.raises(MemoryError, match="gmres.*restart 100000.*needs"):
        portla.solve(A, np.ones(n), "gmres", restart=100_000, backend="omp")
