#!/usr/bin/env python3
"""Set-up time of a Matrix Market file: `portla solve FILE --max-iters 1` as a whole
process against SciPy's `scipy.io.mmread(FILE).tocsr()` and `fast_matrix_market.mmread` +
`tocsr()` in the same run, median of REPS, and each one's peak memory (the maximum resident set
of a run under /usr/bin/time -f %M, median over the repetitions).

usage: bench/setup_bench.py PORTLA FILE [--reps 3] [--json OUT] [--baseline OLD_PORTLA]
       bench/setup_bench.py --make FILE [--points 100] [--symmetric]

--make writes the test file: the 3-D Poisson matrix (Kronecker sum of tridiag(-1, 2, -1), POINTS
per dimension; 100 gives 1e6 rows and 6.94e6 entries) by scipy.io.mmwrite with 16 significant
digits per value ("-1.000000000000000e+00", as a real-valued file holds them; 254 MB), `general`
(every entry) or, with --symmetric, `symmetric` (the lower triangle, 3.97e6 lines, 146 MB).

The peers come from PyPI into a virtual environment of their own (they are not portla's
dependencies):  python3 -m venv /tmp/venv-bench && /tmp/venv-bench/bin/pip install scipy
fast_matrix_market; run this script with that environment's python.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

PEER = r"""
import sys
if sys.argv[1] == "scipy":
    import scipy.io
    A = scipy.io.mmread(sys.argv[2]).tocsr()
else:
    import fast_matrix_market as fmm
    A = fmm.mmread(sys.argv[2]).tocsr()
print(A.nnz)
"""


def make(path, points, symmetric):
    import scipy.io
    import scipy.sparse as sp
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(points, points))
    i = sp.identity(points)
    a = (sp.kron(sp.kron(t, i), i) + sp.kron(sp.kron(i, t), i) + sp.kron(sp.kron(i, i), t))
    a = a.tocoo()
    scipy.io.mmwrite(path, a, precision=16, symmetry="symmetric" if symmetric else "general")
    print("wrote %s: %d rows, %d entries (%s)" % (path, a.shape[0], a.nnz,
                                                  "symmetric" if symmetric else "general"))


def timed(cmd):
    """Wall seconds and peak resident set (kB) of one run of cmd."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "PEAK_RSS_KB %M"] + cmd, capture_output=True,
                          text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 2):
        sys.exit("setup_bench: %s failed: %s" % (cmd[0], done.stderr.strip()[-300:]))
    peak = [int(line.split()[1]) for line in done.stderr.splitlines()
            if line.startswith("PEAK_RSS_KB ")]
    return seconds, peak[-1], done.stdout


def versions():
    code = ("import scipy, fast_matrix_market as f; print(scipy.__version__, f.__version__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    scipy_v, fmm_v = out.split()
    return {"scipy": scipy_v, "fast_matrix_market": fmm_v}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("portla", nargs="?")
    ap.add_argument("file")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--baseline", help="an earlier portla binary, run alongside (before/after)")
    ap.add_argument("--make", action="store_true")
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--symmetric", action="store_true")
    a = ap.parse_args()
    if a.make:
        make(a.file, a.points, a.symmetric)
        return
    if a.portla is None:
        sys.exit("setup_bench: give PORTLA FILE")
    solve = ["solve", a.file, "--max-iters", "1", "--backend", "omp", "--json"]
    runs = {"portla solve --max-iters 1": [a.portla] + solve}
    if a.baseline:
        runs["baseline portla solve --max-iters 1"] = [a.baseline] + solve
    runs.update({
        "scipy mmread+tocsr": [sys.executable, "-c", PEER, "scipy", a.file],
        "fast_matrix_market mmread+tocsr": [sys.executable, "-c", PEER, "fmm", a.file],
    })
    with open(a.file) as f:
        banner = f.readline().strip()
    out = {"file": a.file, "portla": a.portla, "baseline": a.baseline, "banner": banner,
           "bytes": os.path.getsize(a.file), "reps": a.reps,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": "%s, %d cores" % (platform.node(), os.cpu_count()),
           "versions": versions(), "results": {}}
    # Interleaved (one of each per repetition), so that a change in the machine's load meets
    # every contender alike.
    samples = {name: [] for name in runs}
    last = {}
    for _ in range(a.reps):
        for name, cmd in runs.items():
            seconds, peak, stdout = timed(cmd)
            samples[name].append((seconds, peak))
            last[name] = stdout
    for name, got in samples.items():
        times = [s for s, _ in got]
        peaks = [p for _, p in got]
        entry = {"median_s": statistics.median(times), "all_s": times,
                 "peak_rss_kb_median": statistics.median(peaks), "peak_rss_kb_all": peaks}
        if "portla" in name:
            try:
                entry["portla_json_setup"] = json.loads(last[name]).get("setup")
            except ValueError:
                pass
        out["results"][name] = entry
        print("%-34s median %.3f s (%s)  peak %.0f MB" % (
            name, statistics.median(times), ", ".join("%.3f" % t for t in times),
            statistics.median(peaks) / 1024))
    if a.json:
        tmp = a.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=1)
        os.replace(tmp, a.json)


if __name__ == "__main__":
    main()
