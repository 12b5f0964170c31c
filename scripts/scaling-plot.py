#!/usr/bin/env python3
"""Speed-up plot (SVG, no dependencies) of scripts/scaling-bench.sh's scaling.json files.

usage: scripts/scaling-plot.py OUT.svg SCALING.json [SCALING.json ...]

One bar per (case, path/class, GPUs > 1): the speed-up over one GPU (weak: the ratio of ideal
to measured time, so 1.0 is perfect either way), next to the ideal (GPUs, or 1.0 for weak).
"""
import json
import sys


def bars(paths):
    for path in paths:
        doc = json.load(open(path))
        for s in doc["summary"]:
            if s["gpus"] < 2:
                continue
            ratio = s.get("vs_one_gpu_distributed") or s.get("vs_one_gpu_single_device")
            if ratio is None:
                continue
            label = "%s%s, %d GPUs" % (s["case"], " " + s["class"] if s.get("class") else "",
                                       s["gpus"])
            if s["case"] == "weak":  # time relative to one GPU: efficiency is its inverse
                yield label + " (efficiency)", 1.0 / ratio, 1.0
            else:
                yield label, ratio, float(s["gpus"])


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    rows = list(bars(paths))
    if not rows:
        sys.exit("scaling-plot: no multi-GPU runs in " + " ".join(paths))
    width, row_h, left = 640, 26, 230
    height = 60 + row_h * len(rows)
    top = max(ideal for _, _, ideal in rows)
    scale = (width - left - 60) / top
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<text x="10" y="20" font-size="14">Speed-up over one GPU '
           '(grey: ideal; weak: efficiency)</text>']
    for i, (label, value, ideal) in enumerate(rows):
        y = 40 + i * row_h
        svg.append('<text x="10" y="%d">%s</text>' % (y + 14, label))
        svg.append('<rect x="%d" y="%d" width="%.1f" height="18" fill="#ddd"/>'
                   % (left, y, ideal * scale))
        svg.append('<rect x="%d" y="%d" width="%.1f" height="18" fill="#3572a5"/>'
                   % (left, y + 4, value * scale))
        svg.append('<text x="%.1f" y="%d">%.2f</text>' % (left + max(value, ideal) * scale + 4,
                                                          y + 14, value))
    svg.append('</svg>')
    with open(out + ".tmp", "w") as f:
        f.write("\n".join(svg) + "\n")
    import os
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
