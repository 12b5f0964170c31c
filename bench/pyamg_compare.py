"""portla.pyamg against PyAMG on the same problems, in one process: set-up and CG-accelerated
solve (tol 1e-8, b = A 1) with each package's defaults, and with the settings both define alike
(damped Jacobi 4/3, 2 sweeps; classical with PMIS and classical interpolation). Prints a
Markdown table.

    OMP_WAIT_POLICY=PASSIVE PYTHONPATH=build/python .venv/bin/python bench/pyamg_compare.py
"""

import argparse
import time

import numpy as np

import portla
import portla.pyamg as ppyamg
import pyamg

JACOBI = ("jacobi", {"omega": 4.0 / 3.0, "iterations": 2})


def run(module, kind, A, b, same):
    kw = {}
    if same:
        kw = dict(presmoother=JACOBI, postsmoother=JACOBI)
        if kind == "rs":
            kw["CF"] = "PMIS"
            kw["interpolation"] = "classical"
        elif module is pyamg:
            kw["improve_candidates"] = None
    build = module.ruge_stuben_solver if kind == "rs" else module.smoothed_aggregation_solver
    start = time.perf_counter()
    ml = build(A, **kw)
    setup = time.perf_counter() - start
    res = []
    start = time.perf_counter()
    x = ml.solve(b, tol=1e-8, accel="cg", residuals=res, maxiter=500)
    solve = time.perf_counter() - start
    relres = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    assert relres <= 1e-8 * 1.01, relres
    return setup, solve, len(res) - 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--problems", default="poisson3d:48,anisotropic3d:48")
    p.add_argument("--repeat", type=int, default=2, help="best of this many runs")
    args = p.parse_args()
    print("| problem | method | settings | package | set-up s | solve s | total s | CG its |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    for spec in args.problems.split(","):
        A = portla.generate(spec)
        b = A @ np.ones(A.shape[0])
        for kind in ("sa", "rs"):
            for same in (False, True):
                for name, module in (("portla.pyamg", ppyamg), ("PyAMG 5.4.1", pyamg)):
                    best = min(
                        (run(module, kind, A, b, same) for _ in range(args.repeat)),
                        key=lambda r: r[0] + r[1],
                    )
                    s, t, its = best
                    label = "Jacobi 4/3 x2" + (", PMIS" if kind == "rs" else "") if same else "defaults"
                    print(
                        f"| {spec} | {kind} | {label} | {name} | {s:.2f} | {t:.2f} | {s + t:.2f} | {its} |"
                    )


if __name__ == "__main__":
    main()
