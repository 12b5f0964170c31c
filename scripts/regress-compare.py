#!/usr/bin/env python3
"""Compares a regression run (scripts/gpu-regress.sh) with the recorded H100 results.

  scripts/regress-compare.py --new OUT [--out OUT/regress.json] [--threshold 0.03] [--strict]
  scripts/regress-compare.py --self-test      # old files against themselves: every ratio 1.000

Each new measurement (a JSON file in OUT, or the median over OUT/NAME.r*.json for repeated
runs) is paired with the recorded numbers it reproduces: the file and key are named in every
row. The recorded files are looked up under bench/results/ and docs/results/ (the directory may
move), then by file name anywhere below them, or under --old DIR. Ratio: new/old for times,
old/new for rates (bandwidth, GFLOP/s), so > 1 is always slower; > 1 + threshold is flagged.

Rows: "primary" pairs a measurement with the latest recorded run of the same command and
parameters; "older" rows compare with earlier recorded runs or the figure docs/performance.md
quotes when that came from an earlier run (shown, counted apart, and fatal only with --strict).
Role "control" rows are vendor libraries (cuBLAS): if they are slower too, the machine differs
(clocks, another H100), not portla; "info" rows (fits over fewer sizes, same-run fractions) are
shown but never flagged. Exit status: 1 when a primary portla row is flagged (or any portla row
with --strict), else 0. Python 3 standard library only.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import sys
import tempfile

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ROOTS = ["bench/results", "docs/results"]
H = "h100-2026-11-21/"


class Get:
    """A value out of one JSON document, with a description of where it is."""

    def __init__(self, desc, fn, fake=None):
        self.desc, self.fn, self.fake = desc, fn, fake

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


def gemm_fraction(prec, size):
    fast, vendor = gemm_point(prec, size, "fast", "gflops"), gemm_point(prec, size, "vendor", "gflops")
    return Get("gflops(fast) / gflops(vendor), %s %d^3" % (prec, size), lambda j: fast(j) / vendor(j))


def batch_label(label, field="time_s"):
    """A merged sweep (batch-bench.sh: results[label]) or one run of `portla batch --json`."""
    def entry(j):
        if "results" not in j:
            return j
        for r in j["results"]:
            if r.get("label") == label:
                return r
    return Get("results[label=%r].%s" % (label, field), lambda j: entry(j)[field], fake=entry)


def eig_run(n, method, variant, field="time_s"):
    def fn(j):
        if "runs" not in j:  # one `portla eig --json`
            ok = j["n"] == n and j["method"] == method and j["variant"] == variant
            return j[field] if ok else None
        for r in j["runs"]:
            if r["n"] == n and r["backend"] == "cuda" and r["method"] == method and r["variant"] == variant:
                return r[field]
    return Get("runs[n=%d, cuda, %s, %s].%s" % (n, method, variant, field), fn)


class Ref:
    def __init__(self, path, get, primary=True, note=""):
        self.path, self.get, self.primary, self.note = path, get, primary, note


class M:
    """One measurement: where the new value is, what kind, and the recorded values it is compared with."""

    def __init__(self, group, name, new, get, kind, unit, scale, refs, role="portla", optional=False):
        self.group, self.name, self.new, self.get, self.optional = group, name, new, get, optional
        self.kind, self.unit, self.scale, self.refs, self.role = kind, unit, scale, refs, role


def measurements():
    ms = []
    # (a) CG per iteration, poisson3d:128 (gpu-check.sh: portla solve ... --json;
    # docs/performance.md "CG time per iteration" and the `portla bench cg` table).
    tpi = key("time_per_iteration_s")
    ms.append(M("cg", "solve poisson3d:128 cuda matrix-free", "cg_solve_cuda.r*.json", tpi, "time", "ms/it", 1e3, [
        Ref(H + "cg_poisson3d_128_cuda.json", tpi, note="74bf9ae device loop, doc 0.093 ms"),
        Ref("cg_poisson3d_128_cuda_h100_2026-11-21.json", tpi, False, "b62eaa8 host loop, doc 0.109 ms")]))
    ms.append(M("cg", "solve poisson3d:128 cuda --assembled CSR", "cg_solve_cuda_csr.r*.json", tpi, "time", "ms/it", 1e3, [
        Ref(H + "cg_poisson3d_128_cuda_csr.json", tpi, note="latest recorded run"),
        Ref("cg_poisson3d_128_cuda_csr_h100_2026-11-21.json", tpi, False, "b62eaa8, the doc's 0.212 ms")]))
    # cg-host: the host-driven loop when recorded; since issue 11 CG with device_loop = false
    # (unfused steps, state read every iteration): the same role, a different implementation.
    for kernel, n, doc in [("cg", 2097152, "76.6 us"), ("cg-host", 2097152, "104.7 us"),
                           ("cg", 134217728, "4.437 ms"), ("cg-host", 134217728, "5.002 ms")]:
        g = bench_point(kernel, "cuda", n, "time_s")
        ms.append(M("cg", "bench %s cuda n=%d" % (kernel, n), "cg_bench.json", g, "time", "us/it", 1e6, [
            Ref(H + "gpu_cg.json", g, note="ddf86bc, doc " + doc)]))
    # (b) vector kernels at large sizes (gpu-bench.sh gpu_blas1; bandwidth per point).
    for kernel in ["axpby", "dot", "fused-cg"]:
        for backend in (["cuda", "cublas"] if kernel != "fused-cg" else ["cuda"]):
            role = "portla" if backend == "cuda" else "control"
            for e in range(24, 28):
                g = bench_point(kernel, backend, 1 << e, "bandwidth_gbs")
                ms.append(M("blas1", "bench %s %s n=2^%d" % (kernel, backend, e), "blas1.json", g, "rate", "GB/s", 1,
                            [Ref(H + "gpu_blas1.json", g, note="74bf9ae")], role))
            g = bench_fit(kernel, backend, "wa_gbs")
            ms.append(M("blas1", "fit W_a %s %s (new: 2^24..2^27 only)" % (kernel, backend), "blas1.json", g, "rate",
                        "GB/s", 1, [Ref(H + "gpu_blas1.json", g, note="fit over 2^10..2^27")], "info"))
    # (c) batched solvers (batch-bench.sh; one run per point was recorded).
    for s in ["cg", "bicgstab"]:
        g = batch_label("%s B=2^17" % s)
        ms.append(M("batch", "batch stencil3pt:64 %s 2^17" % s, "batch_stencil64_%s_2e17.r*.json" % s, g, "time", "ms",
                    1e3, [Ref(H + "batch_stencil_batch.json", g, note="bf06afd")]))
    for c in ["drm19", "gri12", "gri30", "dodecane_lu", "isooctane"]:
        for e, f, commit in [(18, "batch_pelelm_2e14_2e16_2e18.json", "c267f10"), (17, "batch_pelelm.json", "bf06afd")]:
            g = batch_label("%s bicgstab B=2^%d" % (c, e))
            ms.append(M("batch", "batch pelelm %s bicgstab+jacobi 2^%d" % (c, e), "batch_pelelm_%s_2e%d.r*.json" % (c, e),
                        g, "time", "ms", 1e3, [Ref(H + f, g, note=commit)], optional=e != 18))
    # (d) GEMM 4096^3 (gemm-bench.sh: portla gemm --variant ... --reps 20 --json).
    for prec in ["double", "float"]:
        for variant in ["fast", "vendor"]:
            g = gemm_point(prec, 4096, variant, "gflops")
            ms.append(M("gemm", "gemm %s %s 4096^3" % (variant, prec), "gemm_%s_4096.json" % prec, g, "rate", "GFLOP/s",
                        1, [Ref(H + "gemm_cuda_d5a2a2f.json", g,
                                note="d5a2a2f" + (", 64x64 DMMA tile" if prec == "double" else "")),
                            Ref(H + "gemm_cuda.json", g, False, "d1295a7")],
                        "portla" if variant == "fast" else "control"))
        g = gemm_fraction(prec, 4096)
        ms.append(M("gemm", "gemm fast/cuBLAS %s 4096^3" % prec, "gemm_%s_4096.json" % prec, g, "rate", "x", 1,
                    [Ref(H + "gemm_cuda_d5a2a2f.json", g, note="same-run fraction")], "info"))
    # (e) eig Hilbert 8192 float (portla eig ... --variant local --repeat 3 --json).
    for method, doc in [("similarity", "5.38"), ("fused", "3.84"), ("power", "2.19")]:
        g = eig_run(8192, method, "local")
        ms.append(M("eig", "eig hilbert:8192 float %s local" % method, "eig_hilbert8192_float_%s.json" % method, g,
                    "time", "ms", 1e3, [
                        Ref(H + "eig_hilbert8192_float_%s_b1a72f3.json" % method, g, note="b1a72f3, doc %s ms" % doc),
                        Ref(H + "eig_hilbert_float.json", g, False, "d03c23d, repeat 2")]))
    return ms


def find_old(rel, old_dirs, repo):
    """The recorded file REL under the old roots (first match), else by name below them."""
    roots = list(old_dirs) + [os.path.join(repo, r) for r in ROOTS]
    for root in roots:
        p = os.path.join(root, rel)
        if os.path.isfile(p):
            return p
    base, parent = os.path.basename(rel), os.path.basename(os.path.dirname(rel))
    hits = []
    for root in roots:
        for dirpath, _, files in os.walk(root):
            if base in files:
                hits.append(os.path.join(dirpath, base))
    # a file of the same name in a directory of the same name first (h100-2026-11-21/...)
    hits.sort(key=lambda p: (os.path.basename(os.path.dirname(p)) != parent, p))
    return hits[0] if hits else None


_cache = {}


def load(path):
    if path not in _cache:
        try:
            with open(path) as f:
                _cache[path] = json.load(f)
        except (OSError, ValueError) as e:
            sys.stderr.write("regress-compare: cannot read %s: %s\n" % (path, e))
            _cache[path] = None
    return _cache[path]


def new_values(m, new_dir):
    files = sorted(glob.glob(os.path.join(new_dir, m.new)))
    vals, used = [], []
    for f in files:
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
        meta.update({k: v for k, v in m.items() if k in ("date", "commit", "nvidia_smi") and v})
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


def compare(new_dir, old_dirs, repo, threshold):
    rows, missing = [], []
    p = os.path.join(new_dir, "meta.json")
    meta = load(p) if os.path.isfile(p) else None
    groups = meta.get("groups") if isinstance(meta, dict) else None
    ran = set(groups) if isinstance(groups, list) else None  # gpu-regress.sh's groups ("all": None)
    for m in measurements():
        vals, used = new_values(m, new_dir)
        if not vals:
            if not m.optional and (ran is None or m.group in ran):
                missing.append({"name": m.name, "group": m.group, "new_file": m.new})
            continue
        new = statistics.median(vals)
        for ref in m.refs:
            path = find_old(ref.path, old_dirs, repo)
            j = load(path) if path else None
            old = ref.get(j) if j is not None else None
            row = {"group": m.group, "name": m.name, "role": m.role, "reference": "primary" if ref.primary else "older",
                   "kind": m.kind, "unit": m.unit, "old": old, "new": new, "new_all": vals, "new_files": used,
                   "new_key": m.get.desc,
                   "old_file": os.path.relpath(path, repo) if path else ref.path + " (not found)",
                   "old_key": ref.get.desc, "old_commit": j.get("commit") if isinstance(j, dict) else None,
                   "note": ref.note}
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
        return "no old value"
    if row["role"] == "info":
        return ""
    if r > 1 + threshold:
        if row["role"] == "control":
            return "vendor slower: machine?"
        return "SLOWER" if row["reference"] == "primary" else "slower than older run"
    if r < 1 - threshold:
        return "faster"
    return "ok"


def fmt(v, scale):
    if v is None:
        return "-"
    x = v * scale
    return "%.4g" % x if abs(x) < 1e4 else "%.0f" % x


def print_table(rows, missing, meta, threshold, out=sys.stdout):
    w = max([len(r["name"]) for r in rows] + [20])
    out.write("regression check: new %s, commit %s, %s; threshold %.0f%% (ratio > %.2f is slower)\n" % (
        meta.get("device", "?"), meta.get("commit", "?"), meta.get("date", "?"), 100 * threshold, 1 + threshold))
    out.write("%-6s %-*s %-7s %10s %10s %-7s %6s  %-22s %s\n" % (
        "group", w, "name", "ref", "old", "new", "unit", "ratio", "flag", "old file: key (note)"))
    scales = {m.name: m.scale for m in measurements()}
    for r in rows:
        s = scales.get(r["name"], 1)
        out.write("%-6s %-*s %-7s %10s %10s %-7s %6s  %-22s %s: %s (%s)\n" % (
            r["group"], w, r["name"], r["reference"], fmt(r["old"], s), fmt(r["new"], s), r["unit"],
            "%.3f" % r["ratio"] if r["ratio"] is not None else "-", r["flag"], r["old_file"], r["old_key"],
            r["note"]))
    for mi in missing:
        out.write("%-6s %-*s not measured (no %s in the new results)\n" % (mi["group"], w, mi["name"], mi["new_file"]))
    prim = [r for r in rows if r["role"] == "portla" and r["reference"] == "primary" and r["ratio"] is not None]
    bad = [r for r in prim if r["slower"]]
    older = [r for r in rows if r["role"] == "portla" and r["reference"] == "older" and r["slower"]]
    ctl = [r for r in rows if r["role"] == "control" and r["slower"]]
    out.write("summary: %d of %d portla measurements more than %.0f%% slower than the latest recorded run%s; "
              "%d slower than an older recorded figure; %d vendor (control) rows slower; %d not measured\n" % (
                  len(bad), len(prim), 100 * threshold,
                  (" (" + ", ".join(r["name"] for r in bad) + ")") if bad else "", len(older), len(ctl), len(missing)))
    if ctl and bad:
        out.write("note: cuBLAS is slower too: compare the SM clock (meta.json) before blaming the code\n")
    return bad, older


def self_test(repo, old_dirs, threshold):
    """Fakes a new run from the primary recorded files and checks that every ratio is 1."""
    tmp = tempfile.mkdtemp(prefix="regress-selftest-")
    try:
        for m in measurements():
            ref = m.refs[0]
            path = find_old(ref.path, old_dirs, repo)
            if not path:
                print("self-test: %s not found" % ref.path)
                return 1
            j = load(path)
            doc = ref.get.fake(j) if ref.get.fake else j
            with open(os.path.join(tmp, m.new.replace("*", "1")), "w") as f:
                json.dump(doc, f)
        rows, missing = compare(tmp, old_dirs, repo, threshold)
        print_table(rows, missing, {"device": "self-test", "commit": "-", "date": "-"}, threshold)
        prim = [r for r in rows if r["reference"] == "primary"]
        wrong = [r for r in prim if r["ratio"] is None or abs(r["ratio"] - 1) > 1e-12]
        ok = not wrong and not missing and len(prim) == len(measurements())
        print("self-test: %d primary rows, %d with ratio != 1, %d not measured: %s" % (
            len(prim), len(wrong), len(missing), "PASS" if ok else "FAIL"))
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--new", help="directory written by scripts/gpu-regress.sh")
    ap.add_argument("--out", help="write the table as JSON here")
    ap.add_argument("--old", action="append", default=[],
                    help="extra directory holding the recorded results (searched first; repeatable)")
    ap.add_argument("--repo", default=REPO, help="repository root (default: this script's)")
    ap.add_argument("--threshold", type=float, default=0.03, help="slower by more than this fraction is flagged")
    ap.add_argument("--strict", action="store_true", help="exit 1 also when slower than an older recorded run")
    ap.add_argument("--self-test", action="store_true", help="compare the recorded files with themselves")
    args = ap.parse_args()
    if args.self_test:
        return self_test(args.repo, args.old, args.threshold)
    if not args.new:
        ap.error("--new DIR is required (or --self-test)")
    if not os.path.isdir(args.new):
        ap.error("no such directory: %s" % args.new)
    rows, missing = compare(args.new, args.old, args.repo, args.threshold)
    meta = meta_of(args.new)
    bad, older = print_table(rows, missing, meta, args.threshold)
    old_devices = sorted({load(os.path.join(args.repo, r["old_file"])).get("device")
                          for r in rows if os.path.isfile(os.path.join(args.repo, r["old_file"]))
                          and isinstance(load(os.path.join(args.repo, r["old_file"])), dict)} - {None})
    if meta.get("device") and old_devices and meta["device"] not in old_devices:
        print("warning: new device %r differs from the recorded %s: ratios compare machines" % (
            meta["device"], ", ".join(old_devices)))
    if args.out:
        doc = {"device": meta.get("device"), "date": meta.get("date"), "commit": meta.get("commit"),
               "nvidia_smi": meta.get("nvidia_smi"), "recorded_devices": old_devices,
               "threshold": args.threshold, "ratio": "new/old for times, old/new for rates: > 1 is slower",
               "slower_primary": [r["name"] for r in bad], "slower_than_older": [r["name"] for r in older],
               "rows": rows, "not_measured": missing}
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
        print("wrote %s" % args.out)
    fail = bad or (args.strict and older)
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
