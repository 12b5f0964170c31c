#!/usr/bin/env python3
"""minres, cgs, tfqmr, lgmres and gcrotmk on the SuiteSparse test set (tests/data/suitesparse): SciPy's iteration
counts next to `portla solve --json`'s, b = A 1, x0 = 0, rtol 1e-8, no preconditioner and
Jacobi, at most 20000 iterations. minres on the symmetric matrices only.

SciPy's minres stops on its backward error ||r|| / (||A|| ||x||) <= rtol, not on ||r|| / ||b||:
its count here is the first iteration whose true relative residual (computed in the callback)
is <= 1e-8, with SciPy's own rtol set to 1e-15 so that it runs on. cgs and tfqmr run as they are
(SciPy stops on ||r|| < rtol ||b|| (cgs) and on tau sqrt(m + 1) < rtol ||b|| (tfqmr)); a run
counts as converged when the true relative residual at its end is <= 1e-8.
lgmres (inner_m 30, outer_k 3, SciPy's defaults) counts Arnoldi steps on both sides, with
store_outer_Av=False so that each step is one A x: SciPy's are its A x products less one per
cycle (its callback), portla's are its iterations (portla.scipy.lgmres on the --backend, with
its monitor). gcrotmk (m 20, k 20, SciPy's defaults; Jacobi on the right on both sides, as
SciPy's) counts Arnoldi steps the same way: SciPy's are its A x products less the one recomputing
b - A x when it converges, portla's its iterations. Prints a markdown table.
  usage: scripts/more-solvers-table.py --bin build/apps/portla/portla [--backend omp]
"""
import argparse, json, os, subprocess

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data", "suitesparse")
RTOL, LIMIT = 1e-8, 20000


def arnoldi_counts(solver, backend, A, b, M):
    """lgmres's or gcrotmk's (SciPy's Arnoldi steps, portla's), each "✗" when the true residual
    misses 1e-8."""
    import portla.scipy as pscipy

    bnorm = np.linalg.norm(b)
    products, cycles = [0], [0]

    def matvec(v):
        products[0] += 1
        return A @ v

    op = sla.LinearOperator(A.shape, matvec=matvec, dtype=A.dtype)
    if solver == "lgmres":
        kw = dict(rtol=RTOL, atol=0.0, maxiter=LIMIT // 33 + 1, store_outer_Av=False)
    else:
        kw = dict(rtol=RTOL, atol=0.0, maxiter=LIMIT // 20 + 1)
    x, _ = getattr(sla, solver)(op, b, M=M,
                                callback=lambda xk: cycles.__setitem__(0, cycles[0] + 1), **kw)
    ok = np.linalg.norm(b - A @ x) <= RTOL * bnorm
    recomputed = cycles[0] if solver == "lgmres" else 1
    theirs = products[0] - recomputed if ok else "✗"
    steps = [0]
    x, _ = getattr(pscipy, solver)(A, b, M=M, backend=backend,
                                   monitor=lambda i, r: steps.__setitem__(0, i), **kw)
    ok = np.linalg.norm(b - A @ x) <= RTOL * bnorm
    return theirs, steps[0] if ok else "✗"


def scipy_count(solver, A, b, M):
    bnorm = np.linalg.norm(b)
    state = {"it": 0, "first": None}

    def callback(x):
        state["it"] += 1
        if solver == "minres" and state["first"] is None:
            if np.linalg.norm(b - A @ x) <= RTOL * bnorm:
                state["first"] = state["it"]
                raise StopIteration

    f = getattr(sla, solver)
    try:
        if solver == "minres":
            x, _ = f(A, b, rtol=1e-15, maxiter=LIMIT, M=M, callback=callback)
        else:
            x, _ = f(A, b, rtol=RTOL, atol=0.0, maxiter=LIMIT, M=M, callback=callback)
    except StopIteration:
        return state["first"]
    except Exception as e:  # a breakdown SciPy raises
        return f"✗ ({type(e).__name__})"
    if solver == "minres":
        return state["first"] if state["first"] else "✗"
    ok = np.linalg.norm(b - A @ x) <= RTOL * bnorm
    return state["it"] if ok else "✗"


def portla_count(binary, backend, path, solver, precond):
    cmd = [binary, "solve", path, "--solver", solver, "--precond", precond, "--rtol", str(RTOL),
           "--max-iters", str(LIMIT), "--backend", backend, "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    try:
        j = json.loads(p.stdout)
    except json.JSONDecodeError:
        return "✗ (" + p.stderr.strip().splitlines()[-1][:40] + ")" if p.stderr.strip() else "✗"
    return j["iterations"] if j.get("converged") else f"✗ ({j.get('reason')})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--backend", default="omp")
    ap.add_argument("--solvers", default="minres,cgs,tfqmr,lgmres")
    a = ap.parse_args()
    print("| matrix | solver | SciPy none | portla none | SciPy Jacobi | portla Jacobi |")
    print("|---|---|---|---|---|---|")
    for name in sorted(f[:-4] for f in os.listdir(DATA) if f.endswith(".mtx")):
        path = os.path.join(DATA, name + ".mtx")
        A = sp.csr_matrix(scipy.io.mmread(path)).astype(np.float64)
        b = A @ np.ones(A.shape[0])
        symmetric = abs(A - A.T).max() <= 1e-12 * abs(A).max()
        d = A.diagonal()
        M = sp.diags(1 / d) if np.all(d != 0) else None
        for solver in a.solvers.split(","):
            if solver == "minres" and not symmetric:
                continue
            if solver == "minres" and M is not None and not np.all(d > 0):
                jac = None  # Jacobi is not positive definite: not a MINRES preconditioner
            else:
                jac = M
            if solver in ("lgmres", "gcrotmk"):
                row = [name, solver, *arnoldi_counts(solver, a.backend, A, b, None)]
                row += ["-", "-"] if jac is None else [*arnoldi_counts(solver, a.backend, A, b, jac)]
                print("| " + " | ".join(str(c) for c in row) + " |", flush=True)
                continue
            row = [name, solver, scipy_count(solver, A, b, None),
                   portla_count(a.bin, a.backend, path, solver, "none")]
            if jac is None:
                row += ["-", "-"]
            else:
                row += [scipy_count(solver, A, b, jac),
                        portla_count(a.bin, a.backend, path, solver, "jacobi")]
            print("| " + " | ".join(str(c) for c in row) + " |", flush=True)


if __name__ == "__main__":
    main()
