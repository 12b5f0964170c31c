#!/usr/bin/env python3
"""Set-up time of a Matrix Market file (issue 17): `portla solve FILE --max-iters 1` as a whole
process against SciPy's `scipy.io.mmread(FILE).tocsr()` and `fast_matrix_market.mmread` +
`tocsr()` in the same run, median of REPS (peak memory: run each under /usr/bin/time -f %M).

usage: bench/setup_bench.py PORTLA FILE [--reps 3] [--json OUT]

The peers come from PyPI into a virtual environment of their own (they are not portla's
dependencies):  python3 -m venv /tmp/venv-bench && /tmp/venv-bench/bin/pip install scipy
fast_matrix_market; run this script with that environment's python.
"""
import argparse
import json
import os
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


def timed(cmd):
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 2):
        sys.exit("setup_bench: %s failed: %s" % (cmd[0], done.stderr.strip()[-300:]))
    return seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("portla")
    ap.add_argument("file")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    runs = {
        "portla solve --max-iters 1": [a.portla, "solve", a.file, "--max-iters", "1",
                                       "--backend", "omp", "--json"],
        "scipy mmread+tocsr": [sys.executable, "-c", PEER, "scipy", a.file],
        "fast_matrix_market mmread+tocsr": [sys.executable, "-c", PEER, "fmm", a.file],
    }
    out = {"file": a.file, "bytes": os.path.getsize(a.file), "reps": a.reps, "results": {}}
    for name, cmd in runs.items():
        times = []
        for _ in range(a.reps):
            times.append(timed(cmd))
        out["results"][name] = {"median_s": statistics.median(times), "all_s": times}
        print("%-34s median %.3f s  (%s)" % (name, statistics.median(times),
                                             ", ".join("%.3f" % t for t in times)))
    if a.json:
        tmp = a.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=1)
        os.replace(tmp, a.json)


if __name__ == "__main__":
    main()
