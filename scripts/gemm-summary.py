#!/usr/bin/env python3
"""Collects the JSON of `portla gemm` runs (scripts/gemm-bench.sh) into summary files:
GFLOP/s and fraction of the vendor library per point, the same-run ratios at 4096^3, and a text
table.  usage: gemm-summary.py RESULTS_DIR OUT_DIR"""
import glob
import json
import os
import sys

src, out = sys.argv[1], sys.argv[2]


def load(pattern):
    points = []
    for path in sorted(glob.glob(os.path.join(src, pattern))):
        data = json.load(open(path))
        points += data if isinstance(data, list) else [data]
    return points


def with_fraction(points):
    vendor = {(p["precision"], p["m"], p["n"], p["k"]): p["gflops"]
              for p in points if p["variant"] == "vendor"}
    for p in points:
        v = vendor.get((p["precision"], p["m"], p["n"], p["k"]))
        p["fraction_of_vendor"] = p["gflops"] / v if v else None
    return points


def header(points):
    p = points[0]
    return {"device": p["device"], "date": p["date"], "commit": p["commit"]}


cuda = with_fraction(load("cuda_*.json"))
omp = with_fraction(load("omp_*.json"))
# tile names from the file names (the JSON does not carry the forced tile)
tiles = []
for path in sorted(glob.glob(os.path.join(src, "tile_*.json"))):
    p = json.load(open(path))
    p["tile"] = "large" if path.endswith("_large.json") else "small"
    tiles.append(p)

def find(points, prec, s, variant):
    for p in points:
        if p["precision"] == prec and p["m"] == s and p["variant"] == variant:
            return p
    return None

targets = []
def target(name, value, goal, met):
    targets.append({"target": name, "measured": value, "goal": goal, "met": bool(met)})

f4 = find(cuda, "float", 4096, "fast")
if f4:
    target("fast SGEMM / cuBLAS (pedantic fp32), 4096^3", f4["fraction_of_vendor"], ">= 0.85",
           f4["fraction_of_vendor"] >= 0.85)
f1 = find(cuda, "float", 1024, "fast")
if f1:
    target("fast SGEMM 1024^3 time (ms)", f1["time_s"] * 1e3, "<= 0.1", f1["time_s"] <= 1e-4)
for size in (4096, 8192):
    d = find(cuda, "double", size, "fast")
    if d:
        target(f"fast DGEMM / cuBLAS DGEMM, {size}^3", d["fraction_of_vendor"], ">= 0.90",
               d["fraction_of_vendor"] is not None and d["fraction_of_vendor"] >= 0.9)
o4 = find(omp, "float", 4096, "fast")
if o4:
    target("omp blocked SGEMM / OpenBLAS, 4096^3, all cores", o4["fraction_of_vendor"], ">= 0.50",
           o4["fraction_of_vendor"] >= 0.5)
bad = [p for p in cuda + omp + tiles if not (p["relative_error"] <= (1e-5 if p["precision"] == "float" else 1e-13))]

os.makedirs(out, exist_ok=True)
def dump(name, obj):
    with open(os.path.join(out, name), "w") as f:
        json.dump(obj, f, indent=1)

if cuda:
    dump("gemm_cuda.json", {**header(cuda), "vendor": "cuBLAS cublasGemmEx, CUBLAS_COMPUTE_*_PEDANTIC",
                            "targets": targets, "points": cuda})
if tiles:
    dump("gemm_cuda_tiles.json", {**header(tiles), "points": tiles})
if omp:
    dump("gemm_omp.json", {**header(omp), "vendor": "OpenBLAS cblas_?gemm",
                           "threads": os.environ.get("OMP_NUM_THREADS"), "points": omp})

lines = []
lines.append("%-7s %-6s %6s %10s %11s %9s %10s" % ("backend", "prec", "size", "variant", "GFLOP/s", "x vendor", "rel.err"))
for p in cuda + omp:
    fr = p["fraction_of_vendor"]
    lines.append("%-7s %-6s %6d %10s %11.1f %9s %10.2e" % (p["backend"], p["precision"], p["m"], p["variant"],
                 p["gflops"], "%.3f" % fr if fr else "-", p["relative_error"]))
lines.append("tiles (fast, GFLOP/s):")
for p in tiles:
    lines.append("  %-6s %5d %-5s %9.1f" % (p["precision"], p["m"], p["tile"], p["gflops"]))
lines.append("targets:")
for t in targets:
    lines.append("  %-55s %10.4g  goal %-8s %s" % (t["target"], t["measured"], t["goal"], "met" if t["met"] else "NOT MET"))
lines.append("results with a large relative error: %d" % len(bad))
for p in bad:
    lines.append("  %s %s %d %s %.3e" % (p["backend"], p["precision"], p["m"], p["variant"], p["relative_error"]))
text = "\n".join(lines)
open(os.path.join(out, "gemm_summary.txt"), "w").write(text + "\n")
print(text)
sys.exit(1 if bad else 0)
