#!/usr/bin/env python3
"""A power-law SPD matrix for the irregular-row SpMV and CG measurements.

M = L + I, L the Laplacian of a Chung-Lu random graph whose expected degrees follow Zipf's law
(w_i ~ (i + offset)^-alpha, scaled to the asked average degree): symmetric, diagonally dominant
(M_ii = degree_i + 1, off-diagonal -1), so SPD. Written as Matrix Market (integer symmetric,
lower triangle) and as a SciPy .npz for the vendor timings (--cupy).

    python3 bench/powerlaw_matrix.py OUT.mtx [--rows 3000000] [--degree 10] [--alpha 0.8]
        [--offset 10] [--seed 1] [--keep-order] [--rhs B.mtx] [--cupy JSON]

Prints the row-length statistics as one JSON line. Needs NumPy and SciPy (and CuPy for
--cupy: cuSPARSE's SpMV through cupyx and cupyx's CG, timed with CUDA events). The matrix is
built where it is measured (hundreds of MB: never committed).
"""
import argparse
import json
import sys
import time

import numpy as np
import scipy.sparse as sp


def build(rows, degree, alpha, offset, seed, shuffle=True):
    rng = np.random.default_rng(seed)
    w = (np.arange(rows, dtype=np.float64) + offset) ** -alpha
    w *= degree * rows / w.sum()
    cdf = np.cumsum(w)
    cdf /= cdf[-1]
    edges = int(rows * degree / 2)
    u = np.searchsorted(cdf, rng.random(edges))
    v = np.searchsorted(cdf, rng.random(edges))
    keep = u != v
    u, v = u[keep], v[keep]
    # shuffle the ids so the long rows are spread over the matrix, not its first rows
    if shuffle:
        perm = rng.permutation(rows)
        u, v = perm[u], perm[v]
    A = sp.coo_matrix((np.ones(u.size), (u, v)), shape=(rows, rows)).tocsr()
    A = A + A.T
    A.data[:] = 1.0
    A.eliminate_zeros()
    deg = np.asarray(A.sum(axis=1)).ravel()
    M = (sp.diags(deg + 1.0) - A).tocsr()
    M.sort_indices()
    return M


def stats(M):
    lengths = np.diff(M.indptr)
    avg = M.nnz / M.shape[0]
    lanes = 1
    while lanes < 32 and lanes < -(-M.nnz // (2 * M.shape[0])):
        lanes *= 2
    return {
        "rows": int(M.shape[0]),
        "nnz": int(M.nnz),
        "average_row": avg,
        "longest_row": int(lengths.max()),
        "longest_over_average": float(lengths.max() / avg),
        "lanes_by_average": lanes,
        "rows_over_32_lanes": int((lengths > 32 * lanes).sum()),
        "entries_in_those_rows": int(lengths[lengths > 32 * lanes].sum()),
        "rows_over_4096": int((lengths > 4096).sum()),
    }


def write_mtx(M, path):
    L = sp.tril(M).tocoo()
    order = np.lexsort((L.row, L.col))  # by column, then row: any order is valid
    r, c, v = L.row[order] + 1, L.col[order] + 1, L.data[order].astype(np.int64)
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate integer symmetric\n")
        f.write(f"% Chung-Lu power-law graph Laplacian + I (bench/powerlaw_matrix.py)\n")
        f.write(f"{M.shape[0]} {M.shape[1]} {L.nnz}\n")
        chunk = 200000
        data = np.stack([r, c, v], axis=1)
        for k in range(0, data.shape[0], chunk):
            part = data[k : k + chunk]
            f.write(("%d %d %d\n" * part.shape[0]) % tuple(part.ravel().tolist()))


def rhs_values(n, seed=2):
    """The right-hand side of the timings: uniform in [0.5, 1.5]. (portla solve's default
    b = A (1, ..., 1) is b = 1 here, an eigenvector of L + I: CG stops after one iteration.)"""
    return np.random.default_rng(seed).uniform(0.5, 1.5, n)


def write_rhs(n, path):
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix array real general\n")
        f.write(f"{n} 1\n")
        f.write("\n".join(f"{v:.17g}" for v in rhs_values(n)))
        f.write("\n")


def cupy_times(M, out):
    import cupy as cp
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as csl

    A = csp.csr_matrix(M.astype(np.float64))
    n = M.shape[0]
    x = cp.random.default_rng(1).random(n)
    y = A @ x
    start, end = cp.cuda.Event(), cp.cuda.Event()
    reps = 50
    start.record()
    for _ in range(reps):
        y = A @ x
    end.record()
    end.synchronize()
    spmv = cp.cuda.get_elapsed_time(start, end) / reps * 1e-3
    bytes_spmv = 12 * M.nnz + 4 * (n + 1) + 16 * n
    b = cp.asarray(rhs_values(n))

    def cg_seconds(iters):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        try:  # CuPy 14 follows SciPy's rtol; older ones take tol
            csl.cg(A, b, rtol=0.0, atol=0.0, maxiter=iters)  # exactly `iters` iterations
        except TypeError:
            csl.cg(A, b, tol=0.0, atol=0.0, maxiter=iters)
        cp.cuda.Device().synchronize()
        return time.perf_counter() - t0

    cg_seconds(5)
    best = min((cg_seconds(300) - cg_seconds(100)) / 200 for _ in range(2))
    res = {
        "cusparse_spmv_ms": spmv * 1e3,
        "cusparse_spmv_GBps_at_12nnz_4n_16n": bytes_spmv / spmv / 1e9,
        "cupy_cg_ms_per_iteration": best * 1e3,
        "cupy": cp.__version__,
    }
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps(res))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--rows", type=int, default=3000000)
    p.add_argument("--degree", type=float, default=10.0)
    p.add_argument("--alpha", type=float, default=0.8)
    p.add_argument("--offset", type=float, default=10.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep-order", action="store_true", help="hubs first (no shuffle of the ids)")
    p.add_argument("--rhs", help="write a right-hand side (Matrix Market array) to this file")
    p.add_argument("--cupy", help="write cuSPARSE SpMV / CuPy CG timings to this JSON")
    a = p.parse_args()
    t0 = time.time()
    M = build(a.rows, a.degree, a.alpha, a.offset, a.seed, not a.keep_order)
    s = stats(M)
    s["build_seconds"] = time.time() - t0
    write_mtx(M, a.out)
    if a.rhs:
        write_rhs(M.shape[0], a.rhs)
    s["written_seconds"] = time.time() - t0
    print(json.dumps(s))
    sys.stdout.flush()
    if a.cupy:
        cupy_times(M, a.cupy)


if __name__ == "__main__":
    main()
