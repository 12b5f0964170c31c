"""portla.scipy as a drop-in for scipy.sparse.linalg: the same call on a SciPy sparse matrix,
solved by portla (on the GPU when one is present), checked against the true residual.

    python scipy_dropin.py [BACKEND]      BACKEND: auto (default), omp, cuda, reference, ...
"""

import sys

import numpy as np
import scipy.sparse as sp

from portla.scipy import cg  # instead of: from scipy.sparse.linalg import cg

backend = sys.argv[1] if len(sys.argv) > 1 else "auto"

# The 2-D Poisson matrix (5-point stencil) on a 64 x 64 grid, as a SciPy CSR matrix.
m = 64
T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
A = (sp.kron(sp.identity(m), T) + sp.kron(T, sp.identity(m))).tocsr()
rng = np.random.default_rng(0)
b = rng.standard_normal(A.shape[0])

iterations = 0


def count(xk):  # SciPy's callback: called after each iteration with the current iterate
    global iterations
    iterations += 1


x, info = cg(A, b, rtol=1e-8, M="jacobi", callback=count, backend=backend)

relres = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
print(f"cg on a {A.shape[0]}-row SciPy matrix ({backend}): info {info}, "
      f"{iterations} iterations, ||b - Ax||/||b|| = {relres:.3e}")
if info != 0 or relres > 2e-8:
    sys.exit("FAILED: the solve did not reach rtol 1e-8")
