"""portla.batch.solve against NumPy's dense solve, system by system."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import portla
import portla.batch


def dominant_batch(num_systems, n, seed=5, symmetric=False, density=0.4):
    """Diagonally dominant systems sharing one random pattern (the diagonal always stored)."""
    rng = np.random.default_rng(seed)
    pattern = rng.random((n, n)) < density
    if symmetric:
        pattern |= pattern.T
    np.fill_diagonal(pattern, True)
    A = rng.uniform(-1.0, 1.0, (num_systems, n, n)) * pattern
    if symmetric:
        A = 0.5 * (A + A.transpose(0, 2, 1))
    A[:, np.arange(n), np.arange(n)] = np.abs(A).sum(axis=2) + rng.uniform(0.5, 1.5, (num_systems, n))
    b = rng.uniform(0.5, 1.5, (num_systems, n))
    return A, b, pattern


def csr_of(A, pattern):
    rows, cols = np.nonzero(pattern)  # row-major: sorted columns within each row
    indptr = np.concatenate([[0], np.cumsum(pattern.sum(axis=1))])
    return indptr, cols, A[:, rows, cols]


@pytest.mark.parametrize(
    "solver,precond",
    [("bicgstab", "none"), ("bicgstab", "jacobi"), ("gmres", "ilu0"), ("cg", "block-jacobi"),
     ("cg", "none"), ("direct", "none")],
)
@pytest.mark.parametrize("given", ["dense", "csr"])
def test_batch_matches_numpy(solver, precond, given):
    A, b, pattern = dominant_batch(7, 12, symmetric=solver == "cg")
    exact = np.linalg.solve(A, b[..., None])[..., 0]
    if given == "csr" and solver != "direct":
        A_in = csr_of(A, pattern)
    else:
        A_in = A
        if precond == "ilu0":  # ILU(0) is for the csr format
            with pytest.raises(ValueError, match="ilu0"):
                portla.batch.solve(A_in, b, solver=solver, precond=precond, backend="omp")
            return
    r = portla.batch.solve(A_in, b, solver=solver, precond=precond, rtol=1e-10, backend="omp")
    assert r.x.shape == b.shape and r.x.dtype == np.float64
    assert r.converged.all() and (r.reason == "converged").all(), r.reason
    assert r.iterations.shape == (7,) and r.residual_norm.shape == (7,)
    np.testing.assert_allclose(r.rhs_norm, np.linalg.norm(b, axis=1), rtol=1e-12)
    true = np.linalg.norm(b - np.einsum("sij,sj->si", A, r.x), axis=1)
    np.testing.assert_allclose(r.residual_norm, true, rtol=1e-6, atol=1e-14)
    assert (r.relative_residual <= 1e-10 * (1 + 1e-6)).all()
    # cond(A_s) is small (diagonally dominant): x agrees with the dense solve to ~1e-9.
    np.testing.assert_allclose(r.x, exact, rtol=1e-8, atol=1e-10)
    assert r.backend == "omp" and r.time_s >= 0


def test_reference_backend_float32_and_combined_tolerance():
    A, b, pattern = dominant_batch(4, 9, seed=11)
    exact = np.linalg.solve(A, b[..., None])[..., 0]
    r = portla.batch.solve(
        A.astype(np.float32), b.astype(np.float32), rtol=1e-5, atol=1e-30, backend="reference"
    )
    assert r.x.dtype == np.float32 and r.converged.all() and r.backend == "reference"
    np.testing.assert_allclose(r.x, exact, rtol=1e-4, atol=1e-5)
    # rtol 0: an absolute tolerance.
    r = portla.batch.solve(csr_of(A, pattern), b, rtol=0.0, atol=1e-9, backend="omp")
    assert r.converged.all() and (r.residual_norm <= 1e-9).all()


def test_failed_system_does_not_stop_the_others():
    A, b, _ = dominant_batch(3, 6, seed=2)
    A[1, 2, 2] = np.nan
    r = portla.batch.solve(A, b, maxiter=3, rtol=1e-14, backend="omp")
    assert r.reason[1] == "non_finite" and not r.converged[1]
    assert r.reason[0] in ("converged", "max_iterations")
    assert r.iterations[0] <= 3


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda A, b: portla.batch.solve(A[:, :, :-1], b), "shape"),
        (lambda A, b: portla.batch.solve(A, b[:, :-1]), "b: expected shape"),
        (lambda A, b: portla.batch.solve(A, b, solver="minres"), "minres"),
        (lambda A, b: portla.batch.solve(A, b, precond="ic7"), "preconditioner"),
        (lambda A, b: portla.batch.solve(A, b, format="coo"), "coo"),
        (lambda A, b: portla.batch.solve(A, b, solver="direct", precond="jacobi"), "direct"),
        (lambda A, b: portla.batch.solve(A, b, rtol=-1.0), "rtol"),
        (lambda A, b: portla.batch.solve(A, b, block_size=40), "block_size"),
        (lambda A, b: portla.batch.solve(A, b, backend="tpu"), "tpu"),
        (lambda A, b: portla.batch.solve(A + 1j, b), "complex"),
        (lambda A, b: portla.batch.solve((np.array([0, 2, 1]), np.array([0, 1]),
                                          np.ones((2, 2))), np.ones((2, 2))), "monotone"),
        (lambda A, b: portla.batch.solve((np.array([0, 2, 4]), np.array([1, 0, 0, 1]),
                                          np.ones((2, 4))), np.ones((2, 2))), "ascending"),
        (lambda A, b: portla.batch.solve((np.array([0, 1]), np.array([0]), np.ones(1)),
                                         np.ones((1, 1))), "values must have shape"),
    ],
)
def test_batch_bad_input_is_value_error(call, match):
    A, b, _ = dominant_batch(2, 5)
    with pytest.raises(ValueError, match=match):
        call(A, b)


def test_stop_reason_names():
    assert portla._portla.stop_reasons[0] == "converged"
    assert "singular_preconditioner" in portla._portla.stop_reasons


def test_a_failed_system_is_reported_and_the_others_solved():
    # NaN and Inf in b_s, a b_s too small for double's squared norms, an Inf in A_s: each such
    # system is reported failed with its index and reason, the others are solved.
    A, b, pattern = dominant_batch(8, 10, seed=11)
    b[2, 3] = np.nan
    b[3, 0] = np.inf
    b[4] *= 1e-160  # rtol 1e-8: a stopping threshold near 1e-168, below 2^-498
    A[6, 0, 0] = np.inf
    for solver, precond in (("bicgstab", "none"), ("gmres", "jacobi"), ("direct", "none")):
        r = portla.batch.solve(A, b, solver=solver, precond=precond, rtol=1e-8, backend="omp")
        failed = [2, 3, 6] if solver == "direct" else [2, 3, 4, 6]  # LU has no scale limit
        assert list(np.flatnonzero(~r.converged)) == failed, (solver, r.reason)
        assert list(r.failed) == failed
        assert list(r.reason[[2, 3]]) == ["non_finite", "non_finite"]
        assert r.reason[4] == ("converged" if solver == "direct" else "bad_scale")
        assert r.reason[6] in ("non_finite", "singular_preconditioner")
        good = [0, 1, 5, 7]
        exact = np.linalg.solve(A[good], b[good][..., None])[..., 0]
        np.testing.assert_allclose(r.x[good], exact, rtol=1e-6, atol=1e-9)


def test_an_empty_batch_is_refused():
    with pytest.raises(ValueError, match="no systems"):
        portla.batch.solve(np.zeros((0, 3, 3)), np.zeros((0, 3)), backend="omp")
    csr = (np.array([0, 1, 2]), np.array([0, 1]), np.zeros((0, 2)))
    with pytest.raises(ValueError, match="no systems"):
        portla.batch.solve(csr, np.zeros((0, 2)), solver="gmres", backend="omp")


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name == "nt",
                    reason="needs POSIX signals (os.kill of SIGINT to this process)")
def test_ctrl_c_interrupts_a_long_batch_solve():
    # Cyclic shifts of 16 rows: GMRES(4) never converges on them (b = e_1), so each system runs
    # all 5000 iterations, about 0.35 ms a system and core: 20 000 systems on 2 cores take about
    # 7 s, and the batch grows with the cores (up to 32) so that it outlasts the 0.3 s before
    # SIGINT anywhere.
    B, n = 10_000 * min(max(os.cpu_count() or 2, 2), 32), 16
    indptr = np.arange(n + 1)
    indices = (np.arange(n) + 1) % n
    values = np.ones((B, n))
    b = np.zeros((B, n))
    b[:, 0] = 1.0
    sent = []

    def interrupt():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.3, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            portla.batch.solve((indptr, indices, values), b, solver="gmres", restart=4,
                               maxiter=5000, backend="omp")
        assert sent, "the solve ended before the signal was sent"
        assert time.perf_counter() - sent[0] < 2.0
    finally:
        timer.cancel()
    # The interpreter and the library are fine afterwards.
    r = portla.batch.solve((indptr, indices, values[:4]), b[:4], solver="gmres", restart=4,
                           maxiter=10, backend="omp")
    assert (r.reason == "max_iterations").all()
