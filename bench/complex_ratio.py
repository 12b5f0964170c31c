#!/usr/bin/env python3
"""Complex against real time per iteration: CG, BiCGSTAB and GMRES in complex128 on n unknowns
against the same solver in float64 on 2n unknowns, the same vector bytes (a complex128 value is
16 bytes, two doubles) and about the same matrix bytes (the target: complex within 1.2x of real).

Matrices (5-point stencils, CSR with int32 indices, built with SciPy on the host and copied to
the backend before the timed solve):
  complex, n = m^2 rows on an m x m grid: CG the Hermitian positive definite Laplacian with an
    antisymmetric coupling i/2 along x (diagonal 5); BiCGSTAB and GMRES the damped Helmholtz
    matrix -Lap - k^2 (1 + 0.1 i), k^2 = 0.5. nnz_c = 5 m^2 - 4 m.
  real, 2n rows on an m x 2m grid: CG the Laplacian plus the identity (diagonal 5); BiCGSTAB
    and GMRES -Lap - 0.5. nnz_r = 10 m^2 - 6 m (2 nnz_c + 2 m).
One SpMV reads the complex matrix's nnz_c (16 + 4) + 4 (n + 1) bytes and the real one's
nnz_r (8 + 4) + 4 (2n + 1): the real matrix moves 4 nnz_c bytes more, for its twice as many
column indices; every vector (x, y of the SpMV and the solver's vectors) the same 16 n bytes.

Each solve runs exactly --iters iterations (rtol = atol = 0: run to max_iters; GMRES restart
30), after one untimed warm-up solve; the time is the C++ solver call alone as the extension
reports it (SolveInfo.time_s: steady clock around the solve, the device synchronised), the best
of --repeats. Prints a table and writes JSON (--json) whole (a temporary file, then renamed).

    PYTHONPATH=build/python .venv/bin/python bench/complex_ratio.py --backend cuda \
        --sizes 512,1024,2048 --json complex-ratio-h200.json
"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess

import numpy as np
import scipy.sparse as sp

import portla
import portla._core as core

ROOT = pathlib.Path(__file__).resolve().parent.parent


def grid5(mx, my, diag, west, east, dtype):
    """5 points on an mx x my grid (x fastest): diag, west / east along x, -1 along y."""
    tx = sp.diags_array([west, diag, east], offsets=[-1, 0, 1], shape=(mx, mx), dtype=dtype)
    ty = sp.diags_array([-1.0, -1.0], offsets=[-1, 1], shape=(my, my), dtype=dtype)
    eye_x, eye_y = sp.identity(mx, dtype=dtype), sp.identity(my, dtype=dtype)
    return (sp.kron(eye_y, tx) + sp.kron(ty, eye_x)).tocsr()


def systems(solver, m):
    """(complex A on m x m, real A on m x 2m) for `solver`."""
    if solver == "cg":
        return (grid5(m, m, 5.0, -1.0 - 0.5j, -1.0 + 0.5j, np.complex128),
                grid5(m, 2 * m, 5.0, -1.0, -1.0, np.float64))
    k2 = 0.5
    return (grid5(m, m, 4 - k2 * (1 + 0.1j), -1.0, -1.0, np.complex128),
            grid5(m, 2 * m, 4 - k2, -1.0, -1.0, np.float64))


def ms_per_iteration(solver, A, backend, iters, repeats):
    rng = np.random.default_rng(1)
    b = rng.standard_normal(A.shape[0])
    if A.dtype.kind == "c":
        b = b + 1j * rng.standard_normal(A.shape[0])
    kw = dict(backend=backend, rtol=0.0, atol=0.0, restart=30, record_history=False)
    core.run(solver, A, b, max_iters=2, **kw)  # warm-up: kernels loaded, scratch allocated
    best = None
    for _ in range(repeats):
        _, info = core.run(solver, A, b, max_iters=iters, **kw)
        its = info.iterations
        if its != iters:
            raise SystemExit(f"{solver} {A.dtype} n={A.shape[0]}: {its} iterations, not {iters}")
        ms = 1e3 * info.time_s / its
        best = ms if best is None else min(best, ms)
    return best


def matrix_bytes(A):
    return A.nnz * (A.dtype.itemsize + 4) + 4 * (A.shape[0] + 1)


def commit():
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", default="cuda")
    p.add_argument("--sizes", default="512,1024,2048", help="grid sides m (complex n = m^2)")
    p.add_argument("--solvers", default="cg,bicgstab,gmres")
    p.add_argument("--iters", type=int, default=200, help="iterations per timed solve")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", help="write the results here")
    args = p.parse_args()
    if args.iters < 1 or args.repeats < 1:
        raise SystemExit("--iters and --repeats must be at least 1")
    sizes = [int(s) for s in args.sizes.split(",")]
    if any(m < 2 for m in sizes):
        raise SystemExit("--sizes: every grid side must be at least 2")

    rows = []
    print(f"{'solver':9} {'m':>5} {'n':>9} {'ms/it complex':>14} {'ms/it real':>11} {'ratio':>6}")
    for solver in args.solvers.split(","):
        for m in sizes:
            Ac, Ar = systems(solver, m)
            tc = ms_per_iteration(solver, Ac, args.backend, args.iters, args.repeats)
            tr = ms_per_iteration(solver, Ar, args.backend, args.iters, args.repeats)
            rows.append({
                "solver": solver, "m": m,
                "complex": {"dtype": "complex128", "n": Ac.shape[0], "nnz": Ac.nnz,
                            "matrix_bytes": matrix_bytes(Ac), "ms_per_iteration": tc},
                "real": {"dtype": "float64", "n": Ar.shape[0], "nnz": Ar.nnz,
                         "matrix_bytes": matrix_bytes(Ar), "ms_per_iteration": tr},
                "ratio": tc / tr,
            })
            print(f"{solver:9} {m:5d} {Ac.shape[0]:9d} {tc:14.4f} {tr:11.4f} {tc / tr:6.3f}")

    info = portla.info()
    result = {
        "benchmark": "complex_ratio",
        "backend": args.backend,
        "cuda_devices": info["cuda_devices"] if args.backend.startswith("cuda") else None,
        "host": platform.node(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": commit(),
        "iterations": args.iters,
        "results": rows,
    }
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, args.json)


if __name__ == "__main__":
    main()
