#!/usr/bin/env python3
"""Reference values of FunnelStats' Assurance, computed with scipy.

Run from anywhere:  python3 Tests/FunnelStatsTests/Fixtures/make_assurance_reference.py [--check]
Writes assurance.json beside this script in the format of make_reference.py (with --check:
exits 1 unless the committed file is byte-identical). Floats are repr strings so Swift parses
them exactly.

Directional power of the two-sided pooled z-test (Fleiss; statsmodels'
power_proportions_2indep without the far tail), averaged over draws of (p0, p1):
  d > 0: sf((c*s0 - d*sqrt(n)) / s1),  d < 0: cdf((-c*s0 - d*sqrt(n)) / s1),  c = isf(alpha/2).
The users per arm for a target is the smallest integer n whose assurance reaches it.
"""
import json
import math
import os
import sys

import numpy as np
from scipy.stats import norm


def directional(p0, p1, n, alpha):
    if p0 == p1:
        return 0.0
    pbar = (p0 + p1) / 2
    s0 = math.sqrt(pbar * (1 - pbar) * 2)
    s1 = math.sqrt(p1 * (1 - p1) + p0 * (1 - p0))
    c = norm.isf(alpha / 2)
    d = p1 - p0
    if d > 0:
        return float(norm.sf((c * s0 - d * math.sqrt(n)) / s1))
    return float(norm.cdf((-c * s0 - d * math.sqrt(n)) / s1))


def assurance(draws, n, alpha):
    return sum(directional(p0, p1, n, alpha) for p0, p1 in draws) / len(draws)


def users_for(target, draws, alpha):
    lo, hi = 0, 1
    while assurance(draws, hi, alpha) < target:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if assurance(draws, mid, alpha) >= target:
            hi = mid
        else:
            lo = mid
    return hi


def main():
    rng = np.random.default_rng(20)
    sets = {
        "one-draw": [(0.10, 0.12)],
        "one-draw-negative": [(0.30, 0.27)],
        "normal-around-lift": [(0.10, float(x)) for x in np.clip(rng.normal(0.11, 0.006, 50), 0.01, 0.99)],
        "both-uncertain": [(float(a), float(a + b)) for a, b in zip(rng.uniform(0.05, 0.07, 40), rng.normal(0.004, 0.004, 40))],
        "with-a-tie": [(0.2, 0.2), (0.2, 0.22), (0.2, 0.19)],
    }
    cases = []
    for name, draws in sets.items():
        flat = [repr(x) for pair in draws for x in pair]
        for n in (100, 2000, 50000):
            for alpha in (0.05, 0.01):
                cases.append({"id": f"{name}-n{n}-a{alpha}", "fn": "assurance", "args": [repr(alpha), repr(float(n))] + flat,
                              "expected": [repr(assurance(draws, n, alpha))]})
        for target in (0.5, 0.8):
            if name == "with-a-tie" and target == 0.8:
                continue  # the tie caps the assurance near 2/3 for any practical size
            cases.append({"id": f"{name}-{target}", "fn": "usersPerArm", "args": [repr(0.05), repr(target)] + flat,
                          "expected": [repr(users_for(target, draws, 0.05))]})
    meta = {"generator": "make_assurance_reference.py", "scipy": __import__("scipy").__version__,
            "args": "assurance: alpha, n, then (p0, p1) per draw; usersPerArm: alpha, target, then the draws"}
    text = json.dumps({"meta": meta, "cases": cases}, indent=1, sort_keys=True) + "\n"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assurance.json")
    if "--check" in sys.argv:
        sys.exit(0 if open(path).read() == text else 1)
    open(path, "w").write(text)


main()
