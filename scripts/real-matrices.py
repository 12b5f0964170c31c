#!/usr/bin/env python3
"""Every solver and preconditioner of `portla solve` on the SuiteSparse test set
(tests/data/suitesparse), on the given backends, next to SciPy's iterations (scipy.json):
b = A 1, x0 = 0, rtol 1e-8, GMRES(30) (with a preconditioner: left, as SciPy, and right).
Writes JSON (--out) and a markdown table (--table), each whole (temporary file, rename).
  usage: scripts/real-matrices.py --bin build/apps/portla/portla --backends omp,cuda \
             --out real.json --table real.md
"""
import argparse, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data", "suitesparse")
PRECONDS = ["none", "jacobi", "block-jacobi", "ilu0", "ic0", "chebyshev"]


def write_whole(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def runs_for(symmetric, preconds):
    for solver in ["cg", "bicgstab", "gmres"]:
        if solver == "cg" and not symmetric:
            continue
        for p in preconds:
            if solver == "cg" and p == "ilu0":
                continue
            if p == "ic0" and not symmetric:
                continue
            sides = ["left", "right"] if solver == "gmres" and p != "none" else [None]
            for side in sides:
                yield solver, p, side


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--backends", default="omp")
    ap.add_argument("--out", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--preconds", default=",".join(PRECONDS), help="subset, e.g. none,jacobi,ic0")
    a = ap.parse_args()
    scipy = json.load(open(os.path.join(DATA, "scipy.json")))
    results = {"scipy_version": scipy.get("scipy_version"), "commit": os.environ.get("PORTLA_COMMIT", ""),
               "matrices": {}}
    backends = a.backends.split(",")
    for name, entry in scipy["matrices"].items():
        path = os.path.join(DATA, name + ".mtx")
        out = results["matrices"].setdefault(name, {"rows": entry["rows"], "nnz": entry["nnz"],
                                                     "symmetric": entry["symmetric"], "runs": {}})
        for solver, p, side in runs_for(entry["symmetric"], a.preconds.split(",")):
            key = f"{solver}/{p}" + (f"/{side}" if side else "")
            ref = entry["runs"].get(f"{solver}/{p}", {})
            scipy_ok = bool(ref.get("converged")) if isinstance(ref.get("converged"), bool) else False
            limit = 20000 if scipy_ok else 3000
            row = {"scipy_iterations": ref.get("iterations") if scipy_ok else None}
            for b in backends:
                cmd = [a.bin, "solve", path, "--solver", solver, "--precond", p, "--backend", b,
                       "--rtol", "1e-8", "--max-iters", str(limit), "--json"]
                if side:
                    cmd += ["--pc-side", side]
                try:
                    r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
                except subprocess.TimeoutExpired:
                    row[b] = {"error": "timeout"}
                    continue
                if r.returncode in (0, 2) and r.stdout.strip():
                    j = json.loads(r.stdout)
                    row[b] = {k: j[k] for k in ["iterations", "reason", "relative_residual",
                                                "time_per_iteration_s", "time_s"]}
                else:
                    row[b] = {"error": (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]}
            out["runs"][key] = row
            print(name, key, {b: row[b].get("iterations", row[b].get("error")) for b in backends},
                  "scipy", row["scipy_iterations"], flush=True)
    write_whole(a.out, json.dumps(results, indent=1) + "\n")

    def cell(r):
        if "error" in r:
            return "refused" if "timeout" not in r["error"] else "timeout"
        its = r["iterations"]
        mark = "" if r["reason"] == "converged" else " (%s)" % r["reason"]
        return "%d%s, %.1f us" % (its, mark, 1e6 * r["time_per_iteration_s"])

    lines = ["| matrix | solver/precond[/side] | SciPy its | " + " | ".join(
        f"{b}: its, time/it" for b in backends) + " |",
             "|---|---|---:|" + "---:|" * len(backends)]
    for name, m in results["matrices"].items():
        for key, row in m["runs"].items():
            s = row["scipy_iterations"]
            lines.append(f"| {name} | {key} | {s if s is not None else '-'} | " +
                         " | ".join(cell(row[b]) for b in backends) + " |")
    write_whole(a.table, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
