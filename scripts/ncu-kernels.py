#!/usr/bin/env python3
"""Reads an `ncu --csv --metrics gpu__time_duration.sum[,...]` log.

Usage:
  ncu-kernels.py LOG.csv            each launch's kernel and its time in us, in launch order, and
                                    the total
  ncu-kernels.py --by-kernel LOG.csv [TOP]
                                    per kernel (the functor it runs), the TOP (default 8) that took
                                    most time: their time over their launches, and, weighted by
                                    time, the lanes active a warp instruction, warps active (% of
                                    the SM's most), SM and DRAM throughput (% of peak) and L2 hit
                                    rate, where the log has them (scripts/gpu-goal-profiles.sh)
"""
import collections
import csv
import re
import sys

METRICS = {
    "smsp__thread_inst_executed_per_inst_executed.ratio": "lanes",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "warps %",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM %",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM %",
    "lts__t_sector_hit_rate.pct": "L2 hit %",
}
SCALE = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}


def launches(path):
    """The log's launches in order, each {"name", "us", and the METRICS it has}."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if len(r) > 10]
    header, rows = rows[0], rows[1:]
    col = {k: header.index(k) for k in ("ID", "Kernel Name", "Metric Name", "Metric Unit",
                                         "Metric Value")}
    found = {}
    for r in rows:
        launch = found.setdefault(r[col["ID"]], {"name": r[col["Kernel Name"]]})
        value = float(r[col["Metric Value"]].replace(",", "") or 0)
        if r[col["Metric Name"]] == "gpu__time_duration.sum":
            launch["us"] = value * SCALE.get(r[col["Metric Unit"]], 1.0)
        elif r[col["Metric Name"]] in METRICS:
            launch[METRICS[r[col["Metric Name"]]]] = value
    return list(found.values())


def functor(name):
    """A kernel's name without its template arguments' detail: the functor it runs."""
    inner = re.search(r"<\s*granray::[\w:]*?(\w+)\s*[<,>]", name)
    return (inner.group(1) if inner else name)[:60]


def in_launch_order(path):
    total = 0.0
    for launch in launches(path):
        us = launch.get("us", 0.0)
        total += us
        print(f"{us:10.1f} us  {launch['name'][:110]}")
    print(f"{total:10.1f} us  total")


def by_kernel(path, top):
    kernels = collections.defaultdict(lambda: collections.defaultdict(float))
    total = 0.0
    for launch in launches(path):
        k = kernels[functor(launch["name"])]
        us = launch.get("us", 0.0)
        total += us
        k["us"] += us
        k["launches"] += 1
        for m in METRICS.values():
            k[m] += us * launch.get(m, 0.0)
    print(f"{'us':>9} {'share':>6} {'n':>3} " + " ".join(f"{m:>8}" for m in METRICS.values()) +
          "  kernel")
    for name, k in sorted(kernels.items(), key=lambda kv: -kv[1]["us"])[:top]:
        us = k["us"] or 1.0
        print(f"{k['us']:9.1f} {100 * k['us'] / (total or 1.0):5.1f}% {int(k['launches']):3d} " +
              " ".join(f"{k[m] / us:8.1f}" for m in METRICS.values()) + f"  {name}")
    print(f"{total:9.1f} us in all")


if __name__ == "__main__":
    if sys.argv[1] == "--by-kernel":
        by_kernel(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 8)
    else:
        in_launch_order(sys.argv[1])
