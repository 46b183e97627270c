#!/usr/bin/env python3
"""Writes experiments/data/klick-daily.csv: a simulated 28-day A/B test of Klick's onboarding,
daily counts per arm, for `funnellab analyze --data … ` over time (docs/guide-real-experiments.md, tests).

The arms' completion rates are the exact engine's (`funnellab exact experiments/klick-onboarding.json`):
control 0.6567352161248938, goalOptional 0.687023344469607. Users per arm a day are Poisson
around 500 (fewer at weekends); completions binomial. Seeded: the file is the same every run.
Run: python3 scripts/make-daily-example.py
"""
import os
import numpy as np

RATES = {"control": 0.6567352161248938, "goalOptional": 0.687023344469607}
rng = np.random.default_rng(20261126)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "experiments", "data", "klick-daily.csv")
with open(out, "w") as f:
    f.write("day,arm,users,conversions\n")
    for day in range(1, 29):
        mean = 500 * (0.7 if day % 7 in (6, 0) else 1.0)
        for arm, p in RATES.items():
            users = int(rng.poisson(mean))
            f.write("%d,%s,%d,%d\n" % (day, arm, users, int(rng.binomial(users, p))))
print("wrote", os.path.normpath(out))
