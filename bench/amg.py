#!/usr/bin/env python3
"""Smoothed aggregation multigrid: set-up time, solve time, iterations, complexities and the
cycle's distance to its memory floor, against CG + Jacobi and CG + Chebyshev on the same backend
and PyAMG's smoothed aggregation (and Ruge-Stueben) on the CPU, in one run, on the same matrices.

Matrices: portla's generated test problems (include/portla/matrix/generate.hpp): 3-D Poisson
(poisson3d:N, 7 points), anisotropic3d:N (eps = 0.001 in z), contrast3d:N (coefficients jumping
over 6 orders of magnitude) and fem2d:N (P1 elements on a jittered triangulation). b = A 1,
x0 = 0, rtol 1e-8, CG. portla runs through the command-line tool (`portla solve --json`, device
timers on cuda), PyAMG in this process (`ml.solve(b, tol=1e-8, accel="cg")`, set-up and solve
timed separately with a steady clock).

The floor ratio is the solve time over its floor: iterations x (the cycle's bytes, AmgInfo::
cycle_bytes, plus one CG iteration's operator application and vector traffic, 7 vectors) at the
copy bandwidth `--bandwidth` (default 3.03e12 B/s, the H100's measured copy; give the CPU's for
omp).

    PYTHONPATH=build/python .venv/bin/python bench/amg.py --backend omp --sizes 32,48 \
        --bandwidth 27.8e9 --json amg-omp.json
    python3 bench/amg.py --backend cuda --sizes 64,128,256 --no-pyamg --json amg-h100.json
`--variants classical,mixed,aggressive` runs the classical method, the float hierarchy and
classical AMG with one aggressive level beside the default (smoothed aggregation in double).
`--reps N` repeats every contender N times, interleaved, and reports each one's run of median
set-up + solve (a shared machine's load varies from run to run); PyAMG's total is also printed
as a multiple of portla's.
"""

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run_portla(binary, spec, backend, precond, extra=()):
    cmd = [binary, "solve", "--generate", spec, "--backend", backend, "--solver", "cg",
           "--rtol", "1e-8", "--max-iters", "20000", "--precond", precond]
    if spec.startswith("poisson"):
        cmd.append("--assembled")
    cmd += list(extra) + ["--json"]
    # exit 2: not converged, with its JSON still written
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode not in (0, 2):
        raise SystemExit(f"{' '.join(cmd)}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def run_pyamg(spec, method):
    import portla
    import pyamg

    A = portla.generate(spec)
    b = A @ np.ones(A.shape[0])
    build = pyamg.smoothed_aggregation_solver if method == "sa" else pyamg.ruge_stuben_solver
    t0 = time.perf_counter()
    ml = build(A)
    t1 = time.perf_counter()
    residuals = []
    x = ml.solve(b, tol=1e-8, accel="cg", residuals=residuals, maxiter=20000)
    t2 = time.perf_counter()
    relres = float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))
    return {"setup_s": t1 - t0, "solve_s": t2 - t1, "iterations": len(residuals) - 1,
            "relative_residual": relres, "operator_complexity": ml.operator_complexity(),
            "levels": len(ml.levels)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", default=str(ROOT / "build/apps/portla/portla"))
    p.add_argument("--backend", default="omp")
    p.add_argument("--problems", default="poisson3d,anisotropic3d,contrast3d,fem2d")
    p.add_argument("--sizes", default="32,48", help="N of each problem (fem2d: 8 N)")
    p.add_argument("--bandwidth", type=float, default=3.03e12, help="copy bandwidth, B/s")
    p.add_argument("--no-pyamg", action="store_true")
    p.add_argument("--no-krylov", action="store_true", help="skip CG + Jacobi and Chebyshev")
    p.add_argument("--variants", default="",
                   help="AMG variants run beside the default, comma-separated: classical "
                        "(--amg-method classical), mixed (--amg-mixed), classical-mixed, "
                        "aggressive (classical, one aggressive level, multipass+Jacobi "
                        "interpolation), classical-l1 (classical, l1-Jacobi smoother), "
                        "classical-l1-mixed, degree1 and degree2 (the Chebyshev smoother's "
                        "degree), mixed-degree1, mixed-degree2")
    p.add_argument("--reps", type=int, default=1,
                   help="repetitions, portla's and PyAMG's interleaved; each reports the run of "
                        "median set-up + solve")
    p.add_argument("--json", help="write the results here")
    a = p.parse_args()
    if a.reps < 1:
        raise SystemExit("--reps: must be at least 1")
    variant_args = {"classical": ["--amg-method", "classical"], "mixed": ["--amg-mixed"],
                    "classical-mixed": ["--amg-method", "classical", "--amg-mixed"],
                    "aggressive": ["--amg-method", "classical", "--amg-aggressive-levels", "1",
                                   "--amg-aggressive-interp", "multipass-jacobi"],
                    "classical-l1": ["--amg-method", "classical", "--amg-smoother", "l1-jacobi"],
                    "classical-l1-mixed": ["--amg-method", "classical", "--amg-smoother",
                                           "l1-jacobi", "--amg-mixed"],
                    "degree1": ["--amg-degree", "1"], "degree2": ["--amg-degree", "2"],
                    "mixed-degree1": ["--amg-mixed", "--amg-degree", "1"],
                    "mixed-degree2": ["--amg-mixed", "--amg-degree", "2"]}
    variants = [v for v in a.variants.split(",") if v]
    for v in variants:
        if v not in variant_args:
            raise SystemExit(f"--variants: unknown variant {v!r} (expected one of "
                             f"{', '.join(variant_args)})")

    rows = []
    for problem in a.problems.split(","):
        for n in (int(s) for s in a.sizes.split(",")):
            spec = f"{problem}:{8 * n if problem == 'fem2d' else n}"
            row = None
            # (set-up + solve, run) of every repetition of each contender, interleaved so that a
            # busy moment of the machine falls on all of them
            runs = {}
            for _ in range(a.reps):
                for variant in [""] + variants:
                    r = run_portla(a.binary, spec, a.backend, "amg", variant_args.get(variant, []))
                    runs.setdefault(variant, []).append(
                        (r["amg"]["setup_s"] + r["time_s"], r))
                if not a.no_pyamg:
                    try:
                        for method in ("sa", "rs"):
                            r = run_pyamg(spec, method)
                            runs.setdefault("pyamg_" + method, []).append(
                                (r["setup_s"] + r["solve_s"], r))
                    except ImportError as e:
                        print(f"pyamg not available: {e}", file=sys.stderr)
                        a.no_pyamg = True

            def median_run(key):
                ordered = sorted(runs[key], key=lambda t: t[0])
                return ordered[(len(ordered) - 1) // 2][1]

            for variant in [""] + variants:
                amg = median_run(variant)
                info = amg["amg"]
                rows_n = amg["n"]
                vec = 8 if amg.get("precision", "double") == "double" else 4
                per_iteration = info["cycle_bytes"] + amg["nnz"] * (4 + vec) + \
                    (rows_n + 1) * 4 + 7 * rows_n * vec
                floor = amg["iterations"] * per_iteration / a.bandwidth
                if row is None:
                    row = {"problem": spec, "backend": a.backend, "device": amg["device"],
                           "rows": rows_n, "nnz": amg["nnz"]}
                row["amg" + (f"_{variant}" if variant else "")] = {
                    "setup_s": info["setup_s"], "solve_s": amg["time_s"],
                    "iterations": amg["iterations"], "converged": amg["converged"],
                    "operator_complexity": info["operator_complexity"],
                    "grid_complexity": info["grid_complexity"],
                    "levels": len(info["levels"]), "floor_s": floor,
                    "floor_ratio": amg["time_s"] / floor if floor > 0 else None}
            if not a.no_krylov:
                for precond in ("jacobi", "chebyshev"):
                    k = run_portla(a.binary, spec, a.backend, precond)
                    row[precond] = {"solve_s": k["time_s"], "iterations": k["iterations"],
                                    "converged": k["converged"]}
            for key in ("pyamg_sa", "pyamg_rs"):
                if key in runs:
                    row[key] = median_run(key)
            row["reps"] = a.reps
            rows.append(row)
            m = row["amg"]
            line = (f"{spec:18} {a.backend:6} amg {m['iterations']:4d} its setup "
                    f"{1e3 * m['setup_s']:8.1f} ms solve {1e3 * m['solve_s']:8.1f} ms "
                    f"oc {m['operator_complexity']:.2f} floor x{m['floor_ratio']:.2f}")
            for v in variants:
                r = row[f"amg_{v}"]
                line += (f" | {v} {r['iterations']} its {1e3 * r['setup_s']:.1f}"
                         f"+{1e3 * r['solve_s']:.1f} ms floor x{r['floor_ratio']:.2f}")
            for key in ("jacobi", "chebyshev"):
                if key in row:
                    line += f" | cg+{key} {row[key]['iterations']} its {1e3 * row[key]['solve_s']:.1f} ms"
            for key in ("pyamg_sa", "pyamg_rs"):
                if key in row:
                    r = row[key]
                    total = r["setup_s"] + r["solve_s"]
                    line += (f" | {key} {r['iterations']} its {1e3 * total:.1f} ms "
                             f"({total / (m['setup_s'] + m['solve_s']):.2f}x amg's)")
            print(line, flush=True)
    if a.json:
        meta = {"date": datetime.date.today().isoformat(),
                "commit": os.environ.get("PORTLA_COMMIT", ""), "bandwidth": a.bandwidth}
        tmp = a.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"meta": meta, "results": rows}, f, indent=1)
        os.replace(tmp, a.json)


if __name__ == "__main__":
    main()
