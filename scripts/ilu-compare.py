#!/usr/bin/env python3
"""Incomplete factorizations of portla against SciPy's spilu, in one run.

For each named matrix of tests/data/suitesparse (default: the nonsymmetric ones): b = A @ ones,
x0 = 0, rtol 1e-8, atol 0. SciPy: spilu(A, drop_tol=1e-4, fill_factor=10) (SuperLU's threshold
ILU, row pivoting, COLAMD ordering) as M of bicgstab and gmres(restart=30) (inner iterations
counted with callback_type='pr_norm'). portla (`portla solve --json`, omp backend): bicgstab and
gmres (restart 30, left preconditioning as SciPy's) with ilu0, iluk (k = 1, 2) and ilut
(1e-4, 10) with --pivot, with --pivot --matching and with --pivot --matching --rcm. A run counts as converged when the recomputed true relative residual is
<= 1e-8 (portla reports it; for SciPy it is recomputed here). Prints a Markdown table:
iterations, or "✗" with the reason / residual, "–" where the factorization is refused (a zero
diagonal for ilu0 and iluk) with portla's one-line error in a footnote list.

Usage: scripts/ilu-compare.py [--portla build/apps/portla/portla] [--max-iters N] [NAME ...]
Needs numpy and scipy (development only).
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import scipy
import scipy.io
import scipy.sparse.linalg as sla

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "suitesparse")
NONSYMMETRIC = ["arc130", "cage5", "cryg2500", "impcol_a", "mahindas", "nnc1374", "olm1000",
                "watt_2", "west0479"]
PORTLA = [("ilu0", ["--precond", "ilu0"]), ("iluk 1", ["--precond", "iluk", "--level", "1"]),
          ("iluk 2", ["--precond", "iluk", "--level", "2"]),
          ("ilut pivot", ["--precond", "ilut", "--drop-tol", "1e-4", "--fill", "10", "--pivot"]),
          ("ilut pivot matching", ["--precond", "ilut", "--drop-tol", "1e-4", "--fill", "10",
                                   "--pivot", "--matching"]),
          ("ilut pivot matching rcm", ["--precond", "ilut", "--drop-tol", "1e-4", "--fill", "10",
                                       "--pivot", "--matching", "--rcm"])]


def scipy_runs(A, b, max_iters):
    try:
        ilu = sla.spilu(A.tocsc(), drop_tol=1e-4, fill_factor=10)
    except RuntimeError as e:
        return {"bicgstab": f"✗ ({e})", "gmres": f"✗ ({e})"}, None
    M = sla.LinearOperator(A.shape, ilu.solve)
    out = {}
    for method in ("bicgstab", "gmres"):
        count = [0]

        def callback(*_):
            count[0] += 1

        if method == "bicgstab":
            x, _ = sla.bicgstab(A, b, rtol=1e-8, atol=0, maxiter=max_iters, M=M, callback=callback)
        else:
            x, _ = sla.gmres(A, b, rtol=1e-8, atol=0, restart=30, maxiter=max(1, max_iters // 30),
                             M=M, callback=callback, callback_type="pr_norm")
        res = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
        out[method] = f"{count[0]}" if res <= 1e-8 else f"✗ ({res:.0e})"
    return out, ilu.L.nnz + ilu.U.nnz


def portla_run(binary, path, method, args, max_iters):
    cmd = [binary, "solve", path, "--solver", method, "--backend", "omp", "--max-iters",
           str(max_iters), "--json"] + args
    if method == "gmres":
        cmd += ["--restart", "30", "--pc-side", "left"]
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env=dict(os.environ, OMP_WAIT_POLICY="PASSIVE"))
    if p.returncode == 1:
        return "–", None, p.stderr.strip()
    j = json.loads(p.stdout)
    f = j.get("factorization", {})
    nnz = f.get("nnz_lower", 0) + f.get("nnz_upper", 0)
    warn = " ⚠" if not f.get("stable", True) else ""
    if j["converged"]:
        return f"{j['iterations']}{warn}", nnz, None
    return f"✗ {j['reason']} ({j['relative_residual']:.0e}){warn}", nnz, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--portla", default="build/apps/portla/portla")
    ap.add_argument("--max-iters", type=int, default=2000)
    ap.add_argument("names", nargs="*", default=NONSYMMETRIC)
    a = ap.parse_args()
    print(f"SciPy {scipy.__version__}, NumPy {np.__version__}, Python {sys.version.split()[0]}")
    head = ["matrix", "n / nnz", "spilu nnz", "SciPy spilu bicgstab / gmres"]
    head += [f"{name} bicgstab / gmres" for name, _ in PORTLA] + ["ilut nnz (pivot, +matching, +rcm)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    notes = []
    for name in a.names:
        path = os.path.join(DATA, name + ".mtx")
        A = scipy.io.mmread(path).tocsr()
        b = A @ np.ones(A.shape[0])
        sp, sp_nnz = scipy_runs(A, b, a.max_iters)
        row = [f"`{name}`", f"{A.shape[0]} / {A.nnz}", str(sp_nnz or "–"),
               f"{sp['bicgstab']} / {sp['gmres']}"]
        ilut_nnz = []
        for label, args in PORTLA:
            cells = []
            for method in ("bicgstab", "gmres"):
                cell, nnz, err = portla_run(a.portla, path, method, args, a.max_iters)
                if err and method == "bicgstab":
                    notes.append(f"{name} {label}: {err}")
                if label.startswith("ilut") and method == "bicgstab":
                    ilut_nnz.append(str(nnz or "–"))
                cells.append(cell)
            row.append(" / ".join(cells))
        row.append(", ".join(ilut_nnz))
        print("| " + " | ".join(row) + " |")
    for n in notes:
        print(f"- {n}")


if __name__ == "__main__":
    main()
