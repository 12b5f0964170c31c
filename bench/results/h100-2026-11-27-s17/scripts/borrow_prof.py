# Session 17: where does portla.scipy.cg spend its fixed cost on the power-law matrix (borrowed
# cupyx CSR)? Times maxiter = 1, 2, 50 for portla and CuPy.
import sys
import time

import cupy as cp
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as csl

sys.path.insert(0, "bench")
from powerlaw_matrix import build, rhs_values  # noqa: E402

import portla.scipy as ps  # noqa: E402

M = build(int(sys.argv[1]) if len(sys.argv) > 1 else 3000000, 10.0, 0.8, 10.0, 1)
A = csp.csr_matrix(M)
b = cp.asarray(rhs_values(M.shape[0]))


def t(f):
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    f()
    cp.cuda.Device().synchronize()
    return (time.perf_counter() - t0) * 1e3


for rep in range(3):
    for it in (1, 2, 50):
        p = t(lambda: ps.cg(A, b, rtol=0.0, atol=0.0, maxiter=it))
        c = t(lambda: csl.cg(A, b, rtol=0.0, atol=0.0, maxiter=it))
        print(f"rep {rep} maxiter {it:3d}: portla {p:8.2f} ms  cupy {c:8.2f} ms", flush=True)
