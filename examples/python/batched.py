"""Many small systems sharing one sparsity pattern, solved by one batched call
(portla.batch.solve), each checked against its own true residual.

    python batched.py [BACKEND]      BACKEND: auto (default), omp, cuda, reference, ...
"""

import sys

import numpy as np

import portla.batch

backend = sys.argv[1] if len(sys.argv) > 1 else "auto"

# 5000 tridiagonal systems of 16 rows: one CSR pattern, a row of values per system.
B, n = 5000, 16
rng = np.random.default_rng(1)
indptr, indices = [0], []
for i in range(n):
    indices += [j for j in (i - 1, i, i + 1) if 0 <= j < n]
    indptr.append(len(indices))
indptr = np.asarray(indptr, dtype=np.int32)
indices = np.asarray(indices, dtype=np.int32)
diag = indices == np.repeat(np.arange(n), np.diff(indptr))
values = np.where(diag, 2.0 + rng.random((B, indices.size)), -1.0)  # diagonally dominant
b = rng.standard_normal((B, n))

r = portla.batch.solve((indptr, indices, values), b, solver="bicgstab", precond="jacobi",
                       rtol=1e-8, backend=backend)

# Check every system on the host: A_s x_s from the CSR arrays.
rows = np.repeat(np.arange(n), np.diff(indptr))
Ax = np.zeros((B, n))
np.add.at(Ax, (slice(None), rows), values * r.x[:, indices])
relres = np.linalg.norm(b - Ax, axis=1) / np.linalg.norm(b, axis=1)
print(f"{B} systems of {n} rows ({r.backend}): {int(r.converged.sum())} converged, "
      f"at most {int(r.iterations.max())} iterations, worst ||b - Ax||/||b|| = {relres.max():.3e}")
if not r.converged.all() or relres.max() > 2e-8:
    sys.exit("FAILED: not every system reached rtol 1e-8")
