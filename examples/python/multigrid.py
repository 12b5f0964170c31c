"""Algebraic multigrid through portla.pyamg (PyAMG's calls): a diffusion problem whose
coefficient jumps over six orders of magnitude, solved by CG with one smoothed-aggregation
V-cycle per iteration, against CG with Jacobi; then, where CuPy and a GPU are present, the same
hierarchy built and solved in place on the GPU from a CuPy matrix. Checks the true residuals.

    python multigrid.py [N]      N^3 cells (default 24)
"""

import sys

import numpy as np

import portla
import portla.pyamg as pyamg
from portla.scipy import cg

n = int(sys.argv[1]) if len(sys.argv) > 1 else 24
A = portla.generate(f"contrast3d:{n}")  # a SciPy CSR matrix, symmetric positive definite
b = np.random.default_rng(0).standard_normal(A.shape[0])


def relres(x):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


ml = pyamg.smoothed_aggregation_solver(A)  # the hierarchy, built by portla on the CPU
residuals = []
x = ml.solve(b, tol=1e-8, maxiter=200, accel="cg", residuals=residuals)
amg_its = len(residuals) - 1
print(f"{A.shape[0]} rows, {len(ml.levels)} levels, operator complexity "
      f"{ml.operator_complexity():.2f}: CG + AMG {amg_its} iterations, "
      f"||b - Ax||/||b|| = {relres(x):.2e}")

jacobi_its = 0


def count(xk):
    global jacobi_its
    jacobi_its += 1


xj, info = cg(A, b, rtol=1e-8, maxiter=20000, M="jacobi", callback=count, backend="omp")
print(f"CG + Jacobi: {jacobi_its} iterations, ||b - Ax||/||b|| = {relres(xj):.2e}")

# The tolerance is on the recurrence residual of CG; the true residual may differ by rounding.
if relres(x) > 2e-8 or info != 0 or relres(xj) > 2e-8:
    sys.exit("FAILED: a solve did not reach rtol 1e-8")
if 3 * amg_its > jacobi_its:
    sys.exit("FAILED: multigrid should take far fewer iterations than Jacobi here")

try:
    import cupy
    import cupyx.scipy.sparse as cusp

    gpu = bool(portla.info()["cuda_devices"]) and cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # no CuPy, or no GPU it can use
    gpu = False
if gpu:
    Ag = cusp.csr_matrix(A)  # on the GPU; portla reads its arrays in place
    bg = cupy.asarray(b)
    mlg = pyamg.smoothed_aggregation_solver(Ag)
    residuals = []
    xg = mlg.solve(bg, tol=1e-8, maxiter=200, accel="cg", residuals=residuals)
    rg = float(cupy.linalg.norm(bg - Ag @ xg) / cupy.linalg.norm(bg))
    print(f"on the GPU (CuPy): CG + AMG {len(residuals) - 1} iterations, "
          f"||b - Ax||/||b|| = {rg:.2e}")
    if rg > 2e-8:
        sys.exit("FAILED: the GPU solve did not reach rtol 1e-8")
else:
    print("no GPU with CuPy here: the GPU part was not run")
