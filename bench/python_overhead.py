#!/usr/bin/env python3
"""Per-call overhead of portla.scipy.cg over the C++ solve it runs (the target: at most 20 us
per solve). A tiny SPD matrix and maxiter=1, so the C++ solve is short; each call of
portla.scipy.cg is timed from Python, and the C++ solver call (solver::cg, synchronised, as the
extension reports it in SolveInfo.time_s) from one equal call through portla._core.run. The
overhead is the difference of the medians: argument checks, the CSR copy into the operator, the
executor, the Settings, x back as a NumPy array. Prints JSON.

    PYTHONPATH=build/python .venv/bin/python bench/python_overhead.py [--calls N] [--n N]
"""

import argparse
import datetime
import json
import platform
import statistics
import time

import numpy as np
import scipy.sparse as sp

import portla
import portla._core as core
import portla.scipy as pscipy


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--n", type=int, default=16, help="rows of the 1-D Poisson matrix")
    p.add_argument("--backend", default="auto")
    args = p.parse_args()

    A = sp.diags_array([-1.0, 2.0, -1.0], offsets=[-1, 0, 1], shape=(args.n, args.n)).tocsr()
    b = np.linspace(1.0, 2.0, args.n)
    kw = dict(rtol=1e-12, maxiter=1, backend=args.backend)
    for _ in range(100):  # warm-up: the executor's runtime, caches
        pscipy.cg(A, b, **kw)

    wall, cxx, wall_core = [], [], []
    for _ in range(args.calls):
        t0 = time.perf_counter()
        pscipy.cg(A, b, **kw)
        t1 = time.perf_counter()
        _, info = core.run("cg", A, b, backend=args.backend, rtol=1e-12, max_iters=1)
        t2 = time.perf_counter()
        wall.append(t1 - t0)
        wall_core.append(t2 - t1)
        cxx.append(info.time_s)

    us = lambda xs: 1e6 * statistics.median(xs)  # noqa: E731
    result = {
        "benchmark": "python_overhead",
        "function": "portla.scipy.cg",
        "matrix": f"poisson1d:{args.n} (csr, {A.nnz} nnz)",
        "iterations": 1,
        "calls": args.calls,
        "backend": info.backend,
        "python_call_median_us": us(wall),
        "cxx_solve_median_us": us(cxx),
        "overhead_median_us": us(wall) - us(cxx),
        "overhead_core_run_median_us": us(wall_core) - us(cxx),
        "python_call_p90_us": 1e6 * statistics.quantiles(wall, n=10)[-1],
        "target_overhead_us": 20,
        "portla_version": portla.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_threads": portla.info()["omp_threads"],
        "date": datetime.date.today().isoformat(),
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
