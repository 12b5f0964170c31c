#!/usr/bin/env python3
# Raw CSR binaries of the power-law matrix for the standalone SpMV bench (session 16).
import sys, numpy as np
sys.path.insert(0, "bench")
from powerlaw_matrix import build
out, shuffle = sys.argv[1], sys.argv[2] == "shuffle"
if sys.argv[2] == "poisson":
    import scipy.sparse as sp
    m = 128
    T = sp.diags([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])
    I = sp.identity(m)
    M = (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)).tocsr()
    M.sort_indices()
else:
    import time
    M = build(3000000, 10.0, 0.8, 10.0, 1, shuffle=sys.argv[2] != "keep")
    if sys.argv[2] == "rcm":
        from scipy.sparse.csgraph import reverse_cuthill_mckee
        t0 = time.time()
        perm = reverse_cuthill_mckee(M, symmetric_mode=True)
        M = M[perm][:, perm].tocsr()
        M.sort_indices()
        print("rcm seconds", round(time.time() - t0, 2), flush=True)
M.indptr.astype(np.int32).tofile(out + ".ptr")
M.indices.astype(np.int32).tofile(out + ".col")
M.data.astype(np.float64).tofile(out + ".val")
print(out, M.shape[0], M.nnz, flush=True)
