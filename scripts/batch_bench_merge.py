#!/usr/bin/env python3
"""Collects `portla batch --json` runs into one JSON per sweep (stdlib only).

  batch_bench_merge.py add RUNS.jsonl LABEL RC RUN.json [KEY=VALUE ...]
      appends one run: the summary keys of RUN.json (the per-system arrays are reduced to a
      count of reasons and the residual check), the exit status and the KEY=VALUE tags
  batch_bench_merge.py skip RUNS.jsonl LABEL WHY [KEY=VALUE ...]
      records a configuration that was not run, and why
  batch_bench_merge.py finish RUNS.jsonl SWEEP OUT.json
      groups the runs by label (repetitions: the median time), adds device, date and commit
      (PORTLA_COMMIT) at the top, and the same-run ratios the issue's targets are stated in
"""
import datetime
import json
import os
import socket
import statistics
import subprocess
import sys

ARRAYS = ("iterations", "residual_norm", "rhs_norm", "converged", "reason")


def add(runs, label, rc, path, tags):
    entry = {"label": label, "exit": int(rc)}
    entry.update(tags)
    try:
        with open(path) as f:
            j = json.load(f)
    except (OSError, ValueError) as e:
        entry["error"] = "no JSON result: %s" % e
    else:
        for k, v in j.items():
            if k not in ARRAYS:
                entry[k] = v
        counts = {}
        for r in j.get("reason", []):
            counts[r] = counts.get(r, 0) + 1
        entry["reason_counts"] = counts
        # The residual of every converged system checked here, apart from the CLI's summary.
        tol, rel = j.get("tolerance", 0.0), j.get("tolerance_type") == "relative"
        bad = 0
        for c, rn, bn in zip(j.get("converged", []), j.get("residual_norm", []), j.get("rhs_norm", [])):
            if c and (rn is None or rn > (tol * bn if rel and bn > 0 else tol) * (1 + 1e-12)):
                bad += 1
        entry["converged_but_residual_above_tolerance"] = bad if j.get("solver") != "direct" else None
    with open(runs, "a") as f:
        f.write(json.dumps(entry) + "\n")


def device_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
        return out.splitlines()[0] if out else "none"
    except (OSError, subprocess.SubprocessError):
        return "none"


def grouped(runs):
    groups = {}
    for r in runs:
        groups.setdefault(r["label"], []).append(r)
    out = []
    for label, reps in groups.items():
        first = dict(reps[0])
        times = [r["time_s"] for r in reps if isinstance(r.get("time_s"), (int, float))]
        if times:
            first["time_s"] = statistics.median(times)
            first["time_s_all"] = times
            if first.get("num_systems"):
                first["systems_per_second"] = first["num_systems"] / first["time_s"] if first["time_s"] > 0 else None
        first["exit_all"] = [r["exit"] for r in reps if "exit" in r]
        out.append(first)
    return out


def time_of(results, **match):
    for r in results:
        if all(r.get(k) == v for k, v in match.items()) and isinstance(r.get("time_s"), (int, float)):
            return r["time_s"]
    return None


def ratio(a, b):
    return a / b if a and b else None


def ratios(sweep, results):
    """Same-run ratios for the issue's targets (None where a run is missing)."""
    out = []
    if sweep == "stencil_batch":
        for s in ("cg", "bicgstab"):
            t13, t17 = time_of(results, solver=s, num_systems=2**13), time_of(results, solver=s, num_systems=2**17)
            r = ratio(t17, t13)
            out.append({"what": "%s time(2^17) / time(2^13), n = 64" % s, "value": r,
                        "target": "16 +- 20% (12.8 ... 19.2)", "met": None if r is None else 12.8 <= r <= 19.2})
            d17 = time_of(results, solver="direct", num_systems=2**17)
            r = ratio(d17, t17)
            out.append({"what": "cuBLAS batched LU / %s at 2^17, n = 64" % s, "value": r, "target": ">= 5",
                        "met": None if r is None else r >= 5})
    elif sweep == "pelelm":
        for c in sorted({r.get("class") for r in results if r.get("class")}):
            t = time_of(results, solver="bicgstab", num_systems=2**17, **{"class": c})
            d = time_of(results, solver="direct", num_systems=2**17, **{"class": c})
            r = ratio(d, t)
            out.append({"what": "%s: cuBLAS batched LU / BiCGSTAB+Jacobi at 2^17" % c, "value": r,
                        "target": ">= 2", "met": None if r is None else r >= 2})
    elif sweep == "shared_vs_global":
        for s in ("cg", "bicgstab"):
            g = time_of(results, solver=s, placement="global")
            sh = time_of(results, solver=s, placement="shared")
            r = ratio(g, sh)
            out.append({"what": "%s global / shared memory, n = 64, 2^17" % s, "value": r, "target": ">= 2",
                        "met": None if r is None else r >= 2})
    elif sweep == "omp_vs_reference":
        for r in results:
            if r.get("backend") == "omp":
                ref = time_of(results, backend="reference", case=r.get("case"))
                out.append({"what": "%s: reference / omp (%s threads)" % (r.get("case"), r.get("threads")),
                            "value": ratio(ref, r.get("time_s"))})
    return out


def finish(runs_path, sweep, out_path):
    runs = []
    if os.path.exists(runs_path):
        with open(runs_path) as f:
            runs = [json.loads(line) for line in f if line.strip()]
    results = grouped([r for r in runs if not r.get("skipped")])
    doc = {
        "sweep": sweep,
        "device": device_name(),
        "host": socket.gethostname(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": os.environ.get("PORTLA_COMMIT", "unknown"),
        "ratios": ratios(sweep, results),
        "results": results,
        "skipped": [r for r in runs if r.get("skipped")],
    }
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)
    for r in doc["ratios"]:
        v = r.get("value")
        print("  %-60s %8s  target %s%s" % (r["what"], "-" if v is None else "%.2f" % v, r.get("target", "-"),
                                             "" if r.get("met") is None else ("  met" if r["met"] else "  NOT met")))


def tags(args):
    t = {}
    for a in args:
        k, _, v = a.partition("=")
        try:
            t[k] = int(v)
        except ValueError:
            t[k] = v
    return t


def main(argv):
    if len(argv) >= 6 and argv[1] == "add":
        add(argv[2], argv[3], argv[4], argv[5], tags(argv[6:]))
    elif len(argv) >= 5 and argv[1] == "skip":
        entry = {"label": argv[3], "skipped": argv[4]}
        entry.update(tags(argv[5:]))
        with open(argv[2], "a") as f:
            f.write(json.dumps(entry) + "\n")
    elif len(argv) == 5 and argv[1] == "finish":
        finish(argv[2], argv[3], argv[4])
    else:
        sys.stderr.write(__doc__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
