#!/usr/bin/env python3
"""Sums an `ncu --metrics gpu__time_duration.sum --csv` log per kernel, in launch order.

Usage: ncu-kernels.py LOG.csv   (prints each launch's kernel, its time in us, and the total)
"""
import csv
import sys


def main(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if len(r) > 10]
    header, rows = rows[0], rows[1:]
    name = header.index("Kernel Name")
    metric = header.index("Metric Name")
    unit = header.index("Metric Unit")
    value = header.index("Metric Value")
    scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}
    total = 0.0
    for r in rows:
        if r[metric] != "gpu__time_duration.sum":
            continue
        us = float(r[value].replace(",", "")) * scale.get(r[unit], 1.0)
        total += us
        print(f"{us:10.1f} us  {r[name][:110]}")
    print(f"{total:10.1f} us  total")


if __name__ == "__main__":
    main(sys.argv[1])
