#!/usr/bin/env python3
"""SciPy baseline for the SuiteSparse test set in tests/data/suitesparse.

For every tests/data/suitesparse/*.mtx this runs SciPy's iterative solvers
(cg for symmetric matrices only, bicgstab, gmres(restart=30)) with no
preconditioner and with Jacobi (M = diag(1/a_ii)) on A x = b, b = A @ ones,
x0 = 0, rtol 1e-8, atol 0, at most 20000 iterations, and writes the
iteration counts, SciPy's info, the recomputed true relative residual and the
wall time per iteration as JSON.

Needs python3 with numpy and scipy only. Works with SciPy 1.10 (tol=) and
SciPy >= 1.12 (rtol=); the keyword is picked with inspect.

Dev-only: install SciPy locally (e.g. apt-get install python3-scipy); it is
not part of the project's set-up.

Usage: scripts/scipy-baseline.py [--out PATH] [--data-dir DIR] [NAME ...]
"""

import argparse
import glob
import inspect
import json
import math
import os
import platform
import sys
import tempfile
import time

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

RTOL = 1e-8
MAXITER = 20000
RESTART = 30
SYM_TOL = 1e-12

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DATA_DIR = os.path.join(REPO_ROOT, "tests", "data", "suitesparse")


def tol_kwargs(solver):
    """Return {'rtol': RTOL, 'atol': 0.0} or {'tol': RTOL, 'atol': 0.0}."""
    params = inspect.signature(solver).parameters
    key = "rtol" if "rtol" in params else "tol"
    return {key: RTOL, "atol": 0.0}


def tol_keyword():
    return "rtol" if "rtol" in inspect.signature(spla.cg).parameters else "tol"


def is_symmetric(a):
    amax = abs(a).max() if a.nnz else 0.0
    diff = a - a.T
    dmax = abs(diff).max() if diff.nnz else 0.0
    return bool(dmax <= SYM_TOL * amax), float(dmax), float(amax)


def run_one(name, solver, a, b, m):
    """Run one solve; returns a result dict."""
    count = [0]

    def callback(_arg):
        count[0] += 1

    kwargs = dict(tol_kwargs(solver))
    kwargs["x0"] = np.zeros_like(b)
    kwargs["callback"] = callback
    if m is not None:
        kwargs["M"] = m
    if name == "gmres":
        kwargs["restart"] = RESTART
        # gmres's maxiter counts restart cycles: bound inner iterations.
        kwargs["maxiter"] = int(math.ceil(MAXITER / RESTART))
        kwargs["callback_type"] = "pr_norm"
    else:
        kwargs["maxiter"] = MAXITER

    res = {}
    t0 = time.perf_counter()
    try:
        x, info = solver(a, b, **kwargs)
        error = None
    except Exception as exc:  # breakdowns etc.: record, do not abort
        x, info, error = None, None, "%s: %s" % (type(exc).__name__, exc)
    elapsed = time.perf_counter() - t0

    iters = count[0]
    bnorm = float(np.linalg.norm(b))
    if x is not None and np.all(np.isfinite(x)):
        relres = float(np.linalg.norm(b - a @ x) / bnorm)
    else:
        relres = float("nan")
    res["iterations"] = iters
    res["info"] = None if info is None else int(info)
    res["true_relres"] = relres if math.isfinite(relres) else None
    res["converged"] = bool(math.isfinite(relres) and relres <= RTOL)
    res["time_s"] = elapsed
    res["time_per_iter_s"] = elapsed / iters if iters > 0 else None
    if error is not None:
        res["error"] = error
    return res


def process(path):
    name = os.path.splitext(os.path.basename(path))[0]
    raw = scipy.io.mmread(path)
    a = sp.csr_matrix(raw, dtype=np.float64)
    a.sum_duplicates()
    n_rows, n_cols = a.shape
    sym, dmax, amax = is_symmetric(a)
    diag = a.diagonal()
    zero_diag = bool(np.any(diag == 0.0))

    entry = {
        "file": os.path.relpath(path, REPO_ROOT),
        "rows": int(n_rows),
        "cols": int(n_cols),
        "nnz": int(a.nnz),
        "symmetric": sym,
        "max_abs_asym": dmax,
        "max_abs": amax,
        "zero_diagonal": zero_diag,
        "runs": {},
    }
    if n_rows != n_cols:
        entry["skipped"] = "not square"
        return name, entry

    b = a @ np.ones(n_cols)
    precs = {"none": None}
    if zero_diag:
        precs_skip = "zero diagonal"
    else:
        precs_skip = None
        precs["jacobi"] = sp.diags(1.0 / diag, format="csr")

    solvers = []
    if sym:
        solvers.append(("cg", spla.cg))
    solvers += [("bicgstab", spla.bicgstab), ("gmres", spla.gmres)]

    for sname, solver in solvers:
        for pname in ("none", "jacobi"):
            key = "%s/%s" % (sname, pname)
            if pname not in precs:
                entry["runs"][key] = {"skipped": precs_skip}
                continue
            r = run_one(sname, solver, a, b, precs[pname])
            entry["runs"][key] = r
            print("  %-16s iters=%6d info=%s relres=%.3e conv=%s %.2fs"
                  % (key, r["iterations"], r["info"],
                     r["true_relres"] if r["true_relres"] is not None
                     else float("nan"), r["converged"], r["time_s"]),
                  file=sys.stderr, flush=True)
    return name, entry


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(DEFAULT_DATA_DIR,
                                                  "scipy.json"),
                    help="output JSON (default: %(default)s)")
    ap.add_argument("--data-dir", default=DEFAULT_DATA_DIR,
                    help="folder of .mtx files (default: %(default)s)")
    ap.add_argument("names", nargs="*",
                    help="only these matrices (file stems); default: all")
    args = ap.parse_args()

    paths = sorted(glob.glob(os.path.join(args.data_dir, "*.mtx")))
    if args.names:
        wanted = set(args.names)
        paths = [p for p in paths
                 if os.path.splitext(os.path.basename(p))[0] in wanted]
    if not paths:
        sys.exit("no .mtx files found in %s" % args.data_dir)

    out = {
        "generator": "scripts/scipy-baseline.py",
        "scipy_version": scipy.__version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
        "machine": platform.machine(),
        "settings": {
            "rhs": "b = A @ ones",
            "x0": "zeros",
            "rtol": RTOL,
            "atol": 0.0,
            "tol_keyword": tol_keyword(),
            "maxiter": MAXITER,
            "gmres_restart": RESTART,
            "gmres_maxiter_cycles": int(math.ceil(MAXITER / RESTART)),
            "iterations": "callback count; gmres: callback_type='pr_norm' "
                          "(inner Arnoldi iterations)",
            "converged": "true relative residual ||b - A x|| / ||b|| "
                         "<= rtol (recomputed, not SciPy's info)",
            "jacobi": "M = diag(1/a_ii) as a sparse matrix; skipped when "
                      "a diagonal entry is zero",
            "symmetric": "max|A - A^T| <= 1e-12 * max|A|; cg only then",
            "nnz": "stored entries after mmread + CSR conversion (symmetric "
                   "files expanded; explicit zeros kept)",
        },
        "matrices": {},
    }
    for p in paths:
        print(os.path.basename(p), file=sys.stderr, flush=True)
        name, entry = process(p)
        out["matrices"][name] = entry

    out_path = os.path.abspath(args.out)
    out_dir = os.path.dirname(out_path)
    os.makedirs(out_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".scipy-baseline.", suffix=".json",
                               dir=out_dir)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(out, f, indent=1, sort_keys=False)
            f.write("\n")
        os.replace(tmp, out_path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    print("wrote %s" % out_path, file=sys.stderr)


if __name__ == "__main__":
    main()
