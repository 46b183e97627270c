#!/usr/bin/env python3
"""2-thread scaling of the Monte Carlo engine, measured in pairs.

    flock /tmp/swift-build.lock python3 scripts/scaling.py [--users N] [--pairs P] [--only NAME]

For each seed flow's control variant (and Klick's explicit flow) it runs
`funnel-baseline run` at 1 and then 2 threads, P times, and prints each pair's
users/s and ratio and the medians. Pairs share the machine's state, so the ratio is
less disturbed by a noisy neighbour than two separately-taken medians. A pair during
which other processes used more than 5 % of a core (busy time in /proc/stat beyond
this script's children) is marked `*` and left out of the medians: the machine is
shared, and a 2-thread run beside someone else's work measures them, not us. Build
first: `swift build -c release --product funnel-baseline`.
"""

import argparse
import os
import re
import statistics
import subprocess
from pathlib import Path

binary = Path(__file__).resolve().parent.parent / ".build" / "release" / "funnel-baseline"
parser = argparse.ArgumentParser()
parser.add_argument("--users", type=int, default=20_000_000)
parser.add_argument("--pairs", type=int, default=5)
parser.add_argument("--only", default=None, help="run only cases whose name contains this (e.g. klick-onboarding control)")
args = parser.parse_args()


def busy_seconds():
    """CPU seconds the whole machine has been busy, and this script's children's share."""
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    busy = sum(fields) - fields[3] - fields[4]  # all but idle and iowait
    t = os.times()
    return busy / os.sysconf("SC_CLK_TCK"), t.children_user + t.children_system


def rate(flow, threads, explicit):
    cmd = [str(binary), "run", "--flow", flow, "--users", str(args.users), "--threads", str(threads), "--seed", "20261121"]
    if explicit:
        cmd.append("--explicit")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return float(re.search(r"([\d.]+) M users/s", out).group(1))


cases = [(f, False) for f in ["klick-onboarding", "betfree-onboarding", "urbannest-onboarding", "ncdb-first-launch"]]
cases.append(("klick-onboarding", True))
print(f"{args.users:,} users a run, {args.pairs} pairs (1 thread, then 2 threads)")
for flow, explicit in cases:
    if args.only and args.only not in flow + (" explicit" if explicit else " control"):
        continue
    one, two, marks = [], [], []
    for _ in range(args.pairs):
        busy0, own0 = busy_seconds()
        t0 = os.times().elapsed
        a, b = rate(flow, 1, explicit), rate(flow, 2, explicit)
        busy1, own1 = busy_seconds()
        others = ((busy1 - busy0) - (own1 - own0)) / max(os.times().elapsed - t0, 1e-9)
        one.append(a)
        two.append(b)
        marks.append(others > 0.05)
    ratios = [b / a for a, b in zip(one, two)]
    clean = [i for i in range(len(ratios)) if not marks[i]] or list(range(len(ratios)))
    name = flow + (" explicit" if explicit else " control")
    pairs = ", ".join(f"{a:.2f}/{b:.2f}={r:.2f}{'*' if m else ''}" for a, b, r, m in zip(one, two, ratios, marks))
    print(f"{name:<28} 1 thread {statistics.median([one[i] for i in clean]):6.2f} M/s  "
          f"2 threads {statistics.median([two[i] for i in clean]):6.2f} M/s  "
          f"scaling {statistics.median([ratios[i] for i in clean]):.2f}x  ({len(clean)} clean pairs: {pairs})")
