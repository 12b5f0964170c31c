import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
hdr = None
data = collections.OrderedDict()
for r in rows:
    if r and r[0] == "ID":
        hdr = r; continue
    if not hdr or len(r) != len(hdr): continue
    d = dict(zip(hdr, r))
    key = d["ID"]
    name = d["Kernel Name"].split("(")[0].replace("void ", "")[:60]
    data.setdefault(key, {"name": name})[d["Metric Name"]] = d["Metric Value"]
short = {"gpu__time_duration.sum": "us", "dram__bytes_read.sum": "dramMB", "lts__t_sector_op_read_hit_rate.pct": "L2hit",
         "l1tex__t_sector_hit_rate.pct": "L1hit", "lts__t_sectors_op_read.sum": "L2sectM", "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram%",
         "lts__throughput.avg.pct_of_peak_sustained_elapsed": "lts%", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed": "l1%",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "occ%", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": "lsb",
         "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue%", "launch__registers_per_thread": "regs", "launch__grid_size": "grid", "launch__block_size": "blk"}
for k, d in data.items():
    out = [d["name"]]
    for m, s in short.items():
        if m in d:
            v = d[m].replace(",", "")
            try:
                f = float(v)
                if m == "gpu__time_duration.sum": f = f / 1e3
                if m == "dram__bytes_read.sum": f = f / 1e6
                if m == "lts__t_sectors_op_read.sum": f = f / 1e6
                v = f"{f:.3g}"
            except ValueError: pass
            out.append(f"{s}={v}")
    print(" ".join(out))
