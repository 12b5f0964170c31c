"""portla.scipy.lsqr / lsmr against SciPy's on SuiteSparse matrices of tests/data/suitesparse:
istop, iterations and the recomputed ||A^T r - damp^2 x|| of each answer (the table of
docs/transpose-solvers.md). b = A 1 + uniform noise in [-0.1, 0.1] (seed 5), atol = btol = 1e-10.

    OMP_NUM_THREADS=2 PYTHONPATH=build/python python scripts/least-squares-vs-scipy.py
"""

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import portla.scipy as pscipy

CASES = [("mahindas", 600), ("cage5", 37), ("arc130", 130), ("west0479", 200)]

print("| matrix | m x n | damp | solver | SciPy istop / iterations / ||A^T r|| "
      "| portla istop / iterations / ||A^T r|| |")
print("| --- | --- | --- | --- | --- | --- |")
for name, cols in CASES:
    A = sp.csc_array(scipy.io.mmread(f"tests/data/suitesparse/{name}.mtx"))[:, :cols].tocsr()
    m, n = A.shape
    b = A @ np.ones(n) + np.random.default_rng(5).uniform(-0.1, 0.1, m)
    for damp in (0.0, 0.5):
        for method in ("lsqr", "lsmr"):
            kw = dict(atol=1e-10, btol=1e-10, damp=damp)
            cells = []
            for f in (getattr(sla, method), getattr(pscipy, method)):
                out = f(A, b, **kw) if f.__module__.startswith("scipy") else f(A, b, backend="omp", **kw)
                x = out[0]
                ar = np.linalg.norm(A.T @ (b - A @ x) - damp**2 * x)
                cells.append(f"{out[1]} / {out[2]} / {ar:.1e}")
            print(f"| {name} | {m} x {n} | {damp} | {method} | {cells[0]} | {cells[1]} |")
