"""CuPy arrays (or PyTorch CUDA tensors) solved in place on the GPU: A's CSR arrays, b and x0
are read and written where they are, with no copy to the host. Skips, with the reason, when no
GPU, no cuda backend or neither CuPy nor PyTorch is present (exit status 77).

    python gpu_arrays.py
"""

import sys

import numpy as np

import portla
from portla.scipy import cg

SKIP = 77


def skip(reason):
    print(f"skipped: {reason}")
    sys.exit(SKIP)


if not portla.info()["cuda_devices"]:
    skip("no GPU visible to portla's cuda backend (or cuda not compiled in)")

m = 128  # 2-D Poisson on a 128 x 128 grid, assembled on the host as CSR arrays
n = m * m
rows, cols, vals = [], [], []
for j in range(m):
    for i in range(m):
        r = j * m + i
        for c, v in ((r - m, -1.0), (r - 1, -1.0), (r, 4.0), (r + 1, -1.0), (r + m, -1.0)):
            if (c == r - 1 and i == 0) or (c == r + 1 and i == m - 1) or not 0 <= c < n:
                continue
            rows.append(r)
            cols.append(c)
            vals.append(v)
indptr = np.searchsorted(rows, np.arange(n + 1)).astype(np.int32)
indices = np.asarray(cols, dtype=np.int32)
values = np.asarray(vals)
b_host = np.ones(n)

try:
    import cupy
    import cupyx.scipy.sparse

    A = cupyx.scipy.sparse.csr_matrix(
        (cupy.asarray(values), cupy.asarray(indices), cupy.asarray(indptr)), shape=(n, n))
    b = cupy.asarray(b_host)
    x0 = cupy.zeros(n)
    to_host = cupy.asnumpy
    where = "CuPy"
except ImportError:
    try:
        import torch
    except ImportError:
        skip("neither CuPy nor PyTorch is installed")
    if not torch.cuda.is_available():
        skip("PyTorch sees no GPU")
    A = torch.sparse_csr_tensor(torch.from_numpy(indptr), torch.from_numpy(indices),
                                torch.from_numpy(values), size=(n, n), device="cuda")
    b = torch.from_numpy(b_host).cuda()
    x0 = torch.zeros(n, dtype=torch.float64, device="cuda")
    to_host = lambda t: t.cpu().numpy()  # noqa: E731
    where = "PyTorch"

x, info = cg(A, b, x0=x0, rtol=1e-8, M="jacobi")  # x is x0, overwritten on the GPU
assert x is x0, "x0 is updated in place"

# Check on the host, with the CSR arrays written out.
xh = to_host(x)
Ax = np.add.reduceat(values * xh[indices], indptr[:-1])
relres = np.linalg.norm(b_host - Ax) / np.linalg.norm(b_host)
print(f"cg on {where} arrays ({n} rows, on the GPU): info {info}, ||b - Ax||/||b|| = {relres:.3e}")
if info != 0 or relres > 2e-8:
    sys.exit("FAILED: the solve did not reach rtol 1e-8")
