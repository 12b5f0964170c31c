#!/usr/bin/env python3
"""Set-up time of a Matrix Market file: `portla solve FILE --max-iters 1` as a whole
process against SciPy's `scipy.io.mmread(FILE).tocsr()` (and `fast_matrix_market.mmread` +
`tocsr()` where that package is installed) in the same run, median of REPS, the order of the
contenders reversed every other repetition. For each: the process's wall and CPU seconds (user +
sys) and peak memory (the maximum resident set, /usr/bin/time), for portla the medians of its
JSON's set-up phases (setup.read_s: the reading alone), and for the Python readers the wall and
CPU seconds of the mmread + tocsr call alone (without the interpreter's start and imports).

usage: bench/setup_bench.py PORTLA FILE [--reps 3] [--json OUT] [--baseline OLD_PORTLA]
       bench/setup_bench.py --make FILE [--points 100] [--symmetric]

--make writes the test file: the 3-D Poisson matrix (Kronecker sum of tridiag(-1, 2, -1), POINTS
per dimension; 100 gives 1e6 rows and 6.94e6 entries) by scipy.io.mmwrite with 16 significant
digits per value ("-1.000000000000000e+00", as a real-valued file holds them; 254 MB), `general`
(every entry) or, with --symmetric, `symmetric` (the lower triangle, 3.97e6 lines, 146 MB).

The peers come from PyPI (they are not portla's dependencies): SciPy is in the project's
.venv; fast_matrix_market, when wanted, from pip into the environment that runs this script.
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
import sys, time
if sys.argv[1] == "scipy":
    import scipy.io as reader
else:
    import fast_matrix_market as reader
wall, cpu = time.perf_counter(), time.process_time()
A = reader.mmread(sys.argv[2]).tocsr()
print("CALL_S %.6f %.6f %d" % (time.perf_counter() - wall, time.process_time() - cpu, A.nnz))
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
    """One run of cmd: wall seconds, CPU seconds (user + sys), peak resident set (kB), and the
    call's own wall and CPU seconds where it prints them (CALL_S)."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "PROCESS %M %U %S"] + cmd,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 2):
        sys.exit("setup_bench: %s failed: %s" % (cmd[0], done.stderr.strip()[-300:]))
    process = [line.split() for line in done.stderr.splitlines() if line.startswith("PROCESS ")]
    call = [line.split() for line in done.stdout.splitlines() if line.startswith("CALL_S ")]
    return {"wall_s": seconds, "cpu_s": float(process[-1][2]) + float(process[-1][3]),
            "peak_rss_kb": int(process[-1][1]),
            "call_wall_s": float(call[-1][1]) if call else None,
            "call_cpu_s": float(call[-1][2]) if call else None,
            "stdout": done.stdout}


def versions():
    """The peers' versions; fast_matrix_market is None where it is not installed."""
    out = {}
    for name in ("scipy", "fast_matrix_market"):
        code = "import %s as m; print(m.__version__)" % name
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        out[name] = done.stdout.strip() if done.returncode == 0 else None
    return out


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
    peers = versions()
    runs["scipy mmread+tocsr"] = [sys.executable, "-c", PEER, "scipy", a.file]
    if peers["fast_matrix_market"]:
        runs["fast_matrix_market mmread+tocsr"] = [sys.executable, "-c", PEER, "fmm", a.file]
    with open(a.file) as f:
        banner = f.readline().strip()
    out = {"file": a.file, "portla": a.portla, "baseline": a.baseline, "banner": banner,
           "bytes": os.path.getsize(a.file), "reps": a.reps,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": "%s, %d cores" % (platform.node(), os.cpu_count()),
           "load_average_before": os.getloadavg(), "versions": peers, "results": {}}
    # Interleaved (one of each per repetition, every other repetition in reverse order), so
    # that a change in the machine's load meets every contender alike.
    samples = {name: [] for name in runs}
    for rep in range(a.reps):
        order = list(runs.items())
        for name, cmd in (order if rep % 2 == 0 else order[::-1]):
            samples[name].append(timed(cmd))
    out["load_average_after"] = os.getloadavg()
    for name, got in samples.items():
        entry = {}
        for key in ("wall_s", "cpu_s", "peak_rss_kb", "call_wall_s", "call_cpu_s"):
            values = [g[key] for g in got if g[key] is not None]
            if values:
                entry[key + "_median"] = statistics.median(values)
                entry[key + "_all"] = values
        call = ""
        if "portla" in name:
            # Each run's set-up phases (the JSON's "setup": read_s, check_s, ...), their medians.
            setups = []
            for g in got:
                try:
                    setups.append(json.loads(g["stdout"]).get("setup") or {})
                except ValueError:
                    pass
            entry["portla_json_setup_all"] = setups
            entry["portla_json_setup_median"] = {
                key: statistics.median(s[key] for s in setups if key in s)
                for key in sorted({k for s in setups for k in s})}
            read = entry["portla_json_setup_median"].get("read_s")
            if read is not None:
                call = "; setup.read_s %.3f s" % read
        out["results"][name] = entry
        if "call_wall_s_median" in entry:
            call = "; the call alone %.3f s wall, %.3f s CPU" % (entry["call_wall_s_median"],
                                                               entry["call_cpu_s_median"])
        print("%-36s process %.3f s wall (%s), %.3f s CPU, peak %.1f MiB%s" % (
            name, entry["wall_s_median"], ", ".join("%.3f" % t for t in entry["wall_s_all"]),
            entry["cpu_s_median"], entry["peak_rss_kb_median"] / 1024, call))
    if a.json:
        tmp = a.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=1)
        os.replace(tmp, a.json)


if __name__ == "__main__":
    main()
