#!/usr/bin/env python3
"""Benchmark of `portla eig` on Hilbert matrices in float, EPS = 1e-3 (the published setting).

For N = 128, 256, ..., 8192: every method (similarity, fused, power) in every reduction
variant on cuda, every method on omp (the CPU ignores the variant), each solve repeated after a
warm-up (median reported), and every kernel in every variant timed on its own (--time-kernels).
Writes one JSON file: device, date, commit, the published round counts, and per run n, backend,
method, variant, iterations, time_s, time_per_iteration_s, floor_s, floor_per_iteration_s.

  scripts/bench-eig.py --bin build/apps/portla/portla --out eig.json [--backends cuda,omp]

The memory floor is bytes / bandwidth: 3030 GB/s on cuda (H100 copy, docs/PERFORMANCE), and on
the CPU the copy bandwidth measured by `portla bench copy` at 2^27 doubles in the same run.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

PUBLISHED = {128: 9, 256: 10, 512: 12, 1024: 13, 2048: 14, 4096: 15, 8192: 17}


def run(cmd, timeout):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode not in (0, 2):
        sys.stderr.write(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
        return None
    return json.loads(p.stdout)


def cpu_copy_bandwidth(binary):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "copy.json")
        subprocess.run([binary, "bench", "copy", "--backend", "omp", "--sizes", "2^27",
                        "--reps", "10", "--quiet", "--json", path], check=True,
                       capture_output=True, timeout=300)
        with open(path) as f:
            return json.load(f)["points"][0]["bandwidth_gbs"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/apps/portla/portla")
    ap.add_argument("--out", required=True)
    ap.add_argument("--backends", default="cuda,omp")
    ap.add_argument("--sizes", default=",".join(str(n) for n in PUBLISHED))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--kernel-sizes", default="1024,8192", help="sizes at which every kernel is timed")
    ap.add_argument("--wg", default="256", help="cuda work-group sizes for the kernel timings")
    args = ap.parse_args()

    result = {"benchmark": "portla eig, Hilbert, float, eps 1e-3",
              "date": datetime.date.today().isoformat(),
              "commit": os.environ.get("PORTLA_COMMIT", "unknown"),
              "published_rounds": PUBLISHED, "runs": [], "kernels": []}
    for backend in args.backends.split(","):
        extra = []
        if backend == "omp":
            bw = cpu_copy_bandwidth(args.bin)
            result["omp_copy_bandwidth_gbs"] = bw
            extra = ["--bandwidth", str(bw)]
        variants = ["atomic", "subgroup", "local"] if backend == "cuda" else ["local"]
        for n in [int(x) for x in args.sizes.split(",")]:
            for method in ["similarity", "fused", "power"]:
                for variant in variants:
                    j = run([args.bin, "eig", "--generate", f"hilbert:{n}", "--precision", "float",
                             "--eps", "1e-3", "--backend", backend, "--method", method,
                             "--variant", variant, "--repeat", str(args.repeat), "--json"] + extra,
                            timeout=300)
                    if j is None:
                        continue
                    result.setdefault("device_" + backend, j["device"])
                    keep = ["n", "backend", "method", "variant", "iterations", "converged",
                            "eigenvalue", "max_difference", "residual", "time_s",
                            "time_per_iteration_s", "times_s", "bytes", "bandwidth_gbs",
                            "floor_s", "floor_per_iteration_s", "floor_bandwidth_gbs"]
                    row = {k: j.get(k) for k in keep}
                    row["published_rounds"] = PUBLISHED.get(n)
                    if j.get("floor_s"):
                        row["time_over_floor"] = j["time_s"] / j["floor_s"]
                    result["runs"].append(row)
                    save(args.out, result)  # partial results survive a time limit
                    print(f"{backend} n={n} {method:10s} {variant:8s} it={j['iterations']:3d} "
                          f"time={j['time_s'] * 1e3:9.3f} ms  per it={j['time_per_iteration_s'] * 1e6:9.1f} us"
                          f"  x floor={row.get('time_over_floor', float('nan')):.2f}", flush=True)
            if str(n) not in args.kernel_sizes.split(","):
                continue
            # every kernel in every variant
            for wg in args.wg.split(",") if backend == "cuda" else ["0"]:
                j = run([args.bin, "eig", "--generate", f"hilbert:{n}", "--precision", "float",
                         "--backend", backend, "--time-kernels", "--wg", wg, "--json"] + extra,
                        timeout=300)
                if j is None:
                    continue
                for k in j["kernels"]:
                    k["backend"] = backend
                    k["wg"] = j["wg"]
                    result["kernels"].append(k)
                    print(f"  kernel {backend} n={n} wg={j['wg']} {k['kernel']:26s} {k['variant']:8s} "
                          f"{k['time_s'] * 1e6:10.1f} us {k['bandwidth_gbs']:8.1f} GB/s", flush=True)
                save(args.out, result)
    save(args.out, result)


def save(path, result):
    with open(path, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
