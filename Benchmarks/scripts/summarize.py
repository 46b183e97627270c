#!/usr/bin/env python3
"""Medians over several `swift package benchmark` text outputs.

    python3 scripts/summarize.py run1.txt run2.txt run3.txt

For every benchmark and metric it prints the p50 of each run and the median of
those p50s. Timed benchmarks do 10^6 units (users, draws or streams) per iteration
and report µs per iteration, so the median also reads as M units/s = 10^6 / µs.
"""

import re
import statistics
import sys
from collections import defaultdict


def parse(path):
    results = {}
    name = None
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if "ETA:" in line:
            continue
        if line and not line.startswith(("│", "╒", "╞", "├", "╘", "=", " ")) and "│" not in line:
            name = line.strip()
            continue
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if name and len(cells) == 9 and cells[0] != "Metric":
            results[(name, cells[0])] = float(cells[3].replace(",", "").replace("K", "e3").replace("M", "e6"))
    return results


runs = [parse(p) for p in sys.argv[1:]]
keys = []
for r in runs:
    keys += [k for k in r if k not in keys]
by_benchmark = defaultdict(list)
for k in keys:
    by_benchmark[k[0]].append(k[1])
for name in sorted(by_benchmark):
    print(name)
    for metric in by_benchmark[name]:
        values = [r[(name, metric)] for r in runs if (name, metric) in r]
        m = statistics.median(values)
        extra = ""
        if metric.startswith("Time (wall clock) (μs)") or metric.startswith("Time (wall clock) (us)"):
            extra = f"   -> {1e6 / m:.2f} M units/s" if m else ""
        print(f"  {metric:<34} p50s {', '.join(f'{v:g}' for v in values):<32} median {m:g}{extra}")
