#!/usr/bin/env python3
"""Compares a regression run (scripts/gpu-regress.sh) with the reference numbers of its device.

  scripts/regress-compare.py --new OUT [--out OUT/regress.json] [--threshold 0.03]
                             [--baseline bench/baselines/h100.json]
  scripts/regress-compare.py --check-baseline   # every measurement has a reference number

Each new measurement (a JSON file in OUT, or the median over OUT/NAME.r*.json for repeated
runs) is paired with the reference number of the same name in the baseline file
(bench/baselines/<device>.json: one number per measurement, the newest measurement of the
command, with its date and commit). Ratio: new/old for times, old/new for rates (bandwidth,
GFLOP/s), so > 1 is always slower; > 1 + threshold is flagged. Role "control" rows are vendor
libraries (cuBLAS): if they are slower too, the machine differs (clocks, another H100), not
portla. Exit status: 1 when a portla row is flagged, else 0. Python 3 standard library only.
"""
import argparse
import glob
import json
import os
import statistics
import sys

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BASELINE = os.path.join(REPO, "bench", "baselines", "h100.json")


class Get:
    """A value out of one JSON document, with a description of where it is."""

    def __init__(self, desc, fn):
        self.desc, self.fn = desc, fn

    def __call__(self, j):
        try:
            v = self.fn(j)
        except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
            return None
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def key(k):
    return Get(k, lambda j: j[k])


def bench_point(kernel, backend, n, field):
    def fn(j):
        for p in j["points"]:
            if p["kernel"] == kernel and p["backend"] == backend and p["n"] == n:
                return p[field]
    return Get("points[kernel=%s, backend=%s, n=%d].%s" % (kernel, backend, n, field), fn)


def bench_fit(kernel, backend, field):
    def fn(j):
        for f in j["fits"]:
            if f["kernel"] == kernel and f["backend"] == backend:
                return f[field]
    return Get("fits[kernel=%s, backend=%s].%s" % (kernel, backend, field), fn)


def gemm_points(j):
    pts = j if isinstance(j, list) else j.get("points", [j])
    return [p for p in pts if p.get("backend") == "cuda" and "tile" not in p]


def gemm_point(prec, size, variant, field):
    def fn(j):
        for p in gemm_points(j):
            if p["precision"] == prec and p["m"] == p["n"] == p["k"] == size and p["variant"] == variant:
                return p[field]
    return Get("points[cuda, %s, %d^3, variant=%s].%s" % (prec, size, variant, field), fn)


def batch_label(label, field="time_s"):
    """A merged sweep (batch-bench.sh: results[label]) or one run of `portla batch --json`."""
    def entry(j):
        if "results" not in j:
            return j
        for r in j["results"]:
            if r.get("label") == label:
                return r
    return Get("results[label=%r].%s" % (label, field), lambda j: entry(j)[field])


def eig_run(n, method, variant, field="time_s"):
    def fn(j):
        if "runs" not in j:  # one `portla eig --json`
            ok = j["n"] == n and j["method"] == method and j["variant"] == variant
            return j[field] if ok else None
        for r in j["runs"]:
            if r["n"] == n and r["backend"] == "cuda" and r["method"] == method and r["variant"] == variant:
                return r[field]
    return Get("runs[n=%d, cuda, %s, %s].%s" % (n, method, variant, field), fn)


class M:
    """One measurement: where the new value is, what kind, and the recorded values it is compared with."""

    def __init__(self, group, name, new, get, kind, unit, scale, role="portla", optional=False):
        self.group, self.name, self.new, self.get, self.optional = group, name, new, get, optional
        self.kind, self.unit, self.scale, self.role = kind, unit, scale, role


def measurements():
    ms = []
    # (a) CG per iteration, poisson3d:128 (portla solve ... --json) and `portla bench cg cg-host`
    # (cg-host: CG with Settings::device_loop = false, unfused steps, state read every iteration).
    tpi = key("time_per_iteration_s")
    ms.append(M("cg", "solve poisson3d:128 cuda matrix-free", "cg_solve_cuda.r*.json", tpi, "time", "ms/it", 1e3))
    ms.append(M("cg", "solve poisson3d:128 cuda --assembled CSR", "cg_solve_cuda_csr.r*.json", tpi, "time", "ms/it",
                1e3))
    for kernel, n in [("cg", 2097152), ("cg-host", 2097152), ("cg", 134217728), ("cg-host", 134217728)]:
        g = bench_point(kernel, "cuda", n, "time_s")
        ms.append(M("cg", "bench %s cuda n=%d" % (kernel, n), "cg_bench.json", g, "time", "us/it", 1e6))
    # (b) vector kernels at large sizes, bandwidth per point.
    for kernel in ["axpby", "dot", "fused-cg"]:
        for backend in (["cuda", "cublas"] if kernel != "fused-cg" else ["cuda"]):
            role = "portla" if backend == "cuda" else "control"
            for e in range(24, 28):
                g = bench_point(kernel, backend, 1 << e, "bandwidth_gbs")
                ms.append(M("blas1", "bench %s %s n=2^%d" % (kernel, backend, e), "blas1.json", g, "rate", "GB/s", 1,
                            role))
    # (c) batched solvers (batch-bench.sh or one `portla batch --json` per run).
    for s in ["cg", "bicgstab"]:
        g = batch_label("%s B=2^17" % s)
        ms.append(M("batch", "batch stencil3pt:64 %s 2^17" % s, "batch_stencil64_%s_2e17.r*.json" % s, g, "time", "ms",
                    1e3))
    for c in ["drm19", "gri12", "gri30", "dodecane_lu", "isooctane"]:
        g = batch_label("%s bicgstab B=2^18" % c)
        ms.append(M("batch", "batch pelelm %s bicgstab+jacobi 2^18" % c, "batch_pelelm_%s_2e18.r*.json" % c, g, "time",
                    "ms", 1e3))
    # (d) GEMM 4096^3 (portla gemm --variant fast,vendor --reps 20 --json).
    for prec in ["double", "float"]:
        for variant in ["fast", "vendor"]:
            g = gemm_point(prec, 4096, variant, "gflops")
            ms.append(M("gemm", "gemm %s %s 4096^3" % (variant, prec), "gemm_%s_4096.json" % prec, g, "rate", "GFLOP/s",
                        1, "portla" if variant == "fast" else "control"))
    # (e) eig Hilbert 8192 float (portla eig ... --variant local --repeat 3 --json).
    for method in ["similarity", "fused", "power"]:
        g = eig_run(8192, method, "local")
        ms.append(M("eig", "eig hilbert:8192 float %s local" % method, "eig_hilbert8192_float_%s.json" % method, g,
                    "time", "ms", 1e3))
    return ms


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write("regress-compare: cannot read %s: %s\n" % (path, e))
        return None


def load_baseline(path):
    doc = load(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("measurements"), list):
        sys.exit("regress-compare: %s holds no list of measurements" % path)
    return doc, {m["name"]: m for m in doc["measurements"]}


def new_values(m, new_dir):
    vals, used = [], []
    for f in sorted(glob.glob(os.path.join(new_dir, m.new))):
        j = load(f)
        v = m.get(j) if j is not None else None
        if v is not None:
            vals.append(v)
            used.append(os.path.basename(f))
    return vals, used


def meta_of(new_dir):
    """device from the measurements (portla names it), date and commit of the run (meta.json)."""
    meta = {}
    p = os.path.join(new_dir, "meta.json")
    m = load(p) if os.path.isfile(p) else None
    if isinstance(m, dict):
        meta.update({k: v for k, v in m.items() if k in ("date", "commit", "nvidia_smi", "groups") and v})
    for f in sorted(glob.glob(os.path.join(new_dir, "*.json"))):
        if os.path.basename(f) in ("meta.json", "regress.json"):
            continue
        j = load(f)
        first = j[0] if isinstance(j, list) and j else j
        if not isinstance(first, dict):
            continue
        for k in ("device", "date", "commit"):
            if k not in meta and isinstance(first.get(k), str):
                meta[k] = first[k]
    if "device" not in meta and isinstance(m, dict) and m.get("device"):
        meta["device"] = m["device"]
    return meta


def compare(new_dir, base, threshold, groups):
    rows, missing = [], []
    ran = set(groups) if isinstance(groups, list) else None  # gpu-regress.sh's groups ("all": None)
    for m in measurements():
        vals, used = new_values(m, new_dir)
        if not vals:
            if not m.optional and (ran is None or m.group in ran):
                missing.append({"name": m.name, "group": m.group, "new_file": m.new})
            continue
        new = statistics.median(vals)
        ref = base.get(m.name, {})
        old = ref.get("value")
        row = {"group": m.group, "name": m.name, "role": m.role, "kind": m.kind, "unit": m.unit, "old": old,
               "new": new, "new_all": vals, "new_files": used, "new_key": m.get.desc,
               "old_date": ref.get("date"), "old_commit": ref.get("commit")}
        if old and new:
            row["ratio"] = new / old if m.kind == "time" else old / new
            row["slower"] = row["ratio"] > 1 + threshold
        else:
            row["ratio"], row["slower"] = None, None
        row["flag"] = flag_of(row, threshold)
        rows.append(row)
    return rows, missing


def flag_of(row, threshold):
    r = row["ratio"]
    if r is None:
        return "no reference"
    if r > 1 + threshold:
        return "vendor slower: machine?" if row["role"] == "control" else "SLOWER"
    if r < 1 - threshold:
        return "faster"
    return "ok"


def fmt(v, scale):
    if v is None:
        return "-"
    x = v * scale
    return "%.4g" % x if abs(x) < 1e4 else "%.0f" % x


def print_table(rows, missing, meta, baseline_path, threshold, out=sys.stdout):
    w = max([len(r["name"]) for r in rows] + [20])
    out.write("regression check: new %s, commit %s, %s; reference %s; threshold %.0f%% (ratio > %.2f is slower)\n" % (
        meta.get("device", "?"), meta.get("commit", "?"), meta.get("date", "?"), os.path.relpath(baseline_path, REPO),
        100 * threshold, 1 + threshold))
    out.write("%-6s %-*s %10s %10s %-7s %6s  %-24s %s\n" % (
        "group", w, "name", "reference", "new", "unit", "ratio", "flag", "reference measured"))
    scales = {m.name: m.scale for m in measurements()}
    for r in rows:
        s = scales.get(r["name"], 1)
        out.write("%-6s %-*s %10s %10s %-7s %6s  %-24s %s %s\n" % (
            r["group"], w, r["name"], fmt(r["old"], s), fmt(r["new"], s), r["unit"],
            "%.3f" % r["ratio"] if r["ratio"] is not None else "-", r["flag"], r["old_date"] or "-",
            r["old_commit"] or ""))
    for mi in missing:
        out.write("%-6s %-*s not measured (no %s in the new results)\n" % (mi["group"], w, mi["name"], mi["new_file"]))
    prim = [r for r in rows if r["role"] == "portla" and r["ratio"] is not None]
    bad = [r for r in prim if r["slower"]]
    ctl = [r for r in rows if r["role"] == "control" and r["slower"]]
    out.write("summary: %d of %d portla measurements more than %.0f%% slower than the reference%s; "
              "%d vendor (control) rows slower; %d not measured\n" % (
                  len(bad), len(prim), 100 * threshold,
                  (" (" + ", ".join(r["name"] for r in bad) + ")") if bad else "", len(ctl), len(missing)))
    if ctl and bad:
        out.write("note: cuBLAS is slower too: compare the SM clock (meta.json) before blaming the code\n")
    return bad


def check_baseline(base, path):
    names = [m.name for m in measurements()]
    lacking = [n for n in names if not isinstance(base.get(n, {}).get("value"), (int, float))]
    unused = sorted(set(base) - set(names))
    for n in lacking:
        print("no reference number for: %s" % n)
    for n in unused:
        print("reference number no measurement uses: %s" % n)
    print("%s: %d measurements, %d without a reference, %d unused: %s" % (
        os.path.relpath(path, REPO), len(names), len(lacking), len(unused), "PASS" if not lacking else "FAIL"))
    return 0 if not lacking else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--new", help="directory written by scripts/gpu-regress.sh")
    ap.add_argument("--out", help="write the table as JSON here")
    ap.add_argument("--baseline", default=BASELINE, help="reference numbers (default: bench/baselines/h100.json)")
    ap.add_argument("--threshold", type=float, default=0.03, help="slower by more than this fraction is flagged")
    ap.add_argument("--check-baseline", action="store_true", help="check that every measurement has a reference")
    args = ap.parse_args()
    doc, base = load_baseline(args.baseline)
    if args.check_baseline:
        return check_baseline(base, args.baseline)
    if not args.new:
        ap.error("--new DIR is required (or --check-baseline)")
    if not os.path.isdir(args.new):
        ap.error("no such directory: %s" % args.new)
    meta = meta_of(args.new)
    rows, missing = compare(args.new, base, args.threshold, meta.get("groups"))
    bad = print_table(rows, missing, meta, args.baseline, args.threshold)
    if meta.get("device") and doc.get("device") and meta["device"] != doc["device"]:
        print("warning: new device %r differs from the reference's %r: ratios compare machines" % (
            meta["device"], doc["device"]))
    if args.out:
        out = {"device": meta.get("device"), "date": meta.get("date"), "commit": meta.get("commit"),
               "nvidia_smi": meta.get("nvidia_smi"), "reference": os.path.relpath(args.baseline, REPO),
               "reference_device": doc.get("device"), "threshold": args.threshold,
               "ratio": "new/old for times, old/new for rates: > 1 is slower",
               "slower": [r["name"] for r in bad], "rows": rows, "not_measured": missing}
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
        print("wrote %s" % args.out)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
