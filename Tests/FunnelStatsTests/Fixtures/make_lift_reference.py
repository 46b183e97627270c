#!/usr/bin/env python3
"""Generate lift.json: relative lifts with Fieller intervals (RelativeLift+Fieller.swift).

Run from anywhere:  python3 Tests/FunnelStatsTests/Fixtures/make_lift_reference.py [--check]
(same environment and conventions as make_reference.py, whose helpers it uses).

Each interval is the set of ratios rho with (m1 - rho m0)^2 <= k^2 (v11 - 2 rho v10 + rho^2 v00),
solved here as the plain quadratic in rho with mpmath at 50 digits, from the raw data (numpy
arrays or 2x2 tables), independently of the Swift code, which solves a re-centred form in
doubles from sufficient statistics. Lift = rho - 1.

- lift.paired:      2x2 tables of paired outcomes with discordant pairs (without them the
                    Swift code uses Tango's interval, tested there); v11 = x1, v00 = x0, v10 = both (McNemar's
                    variance under the null), k = z_{1-a/2}.
- lift.welch:       two independent samples; v = s^2/n, v10 = 0, k = scipy t.ppf with the
                    Welch-Satterthwaite degrees of freedom (scipy ttest_ind equal_var=False's).
- lift.pairedmean:  paired samples; v11, v00, v10 = np.cov(y1, y0) / n, k = t_{n-1}.
Each case carries the sufficient statistics the Swift test feeds in.
"""
import os
import sys

import mpmath
import numpy as np
import scipy.stats as st

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference as ref  # noqa: E402  (helpers: Cases, write, --check)

mpmath.mp.dps = 50


def fieller(m1, m0, v11, v00, v10, k):
    """The lift's Fieller interval from the quadratic in rho, or None when unbounded."""
    m1, m0, v11, v00, v10, k = (mpmath.mpf(float(x)) for x in (m1, m0, v11, v00, v10, k))
    a = m0 * m0 - k * k * v00
    b = m1 * m0 - k * k * v10
    c = m1 * m1 - k * k * v11
    if a <= 0:
        return None
    disc = mpmath.sqrt(max(b * b - a * c, 0))
    return float(m1 / m0 - 1), float((b - disc) / a - 1), float((b + disc) / a - 1)


LEVELS = [0.95, 0.9, 0.99]
# (neither, treatmentOnly, controlOnly, both)
TABLES = [
    (80, 6, 16, 59),
    (12, 1, 7, 1),
    (100, 40, 20, 0),
    (500, 1, 0, 499),                  # one discordant pair
    (9000, 30, 12, 958),
    (2_000_000, 1234, 1301, 150_000),
    (150_000, 1900, 1700, 46_000),    # truth-mode-like: most users agree
    (42_700, 3, 0, 157_097),           # nearly identical arms
    (5, 0, 2, 3),
]


def z_of(level):
    return mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(level))


def stats(x):
    return [len(x), float(np.sum(x)), float(np.sum(x * x))]


def lifts():
    ref.META["generator"] = "Tests/FunnelStatsTests/Fixtures/make_lift_reference.py"
    c = ref.Cases()
    for t in TABLES:
        neither, b, cc, both = t
        x1, x0 = both + b, both + cc
        for level in LEVELS:
            r = fieller(x1, x0, x1, x0, both, z_of(level))
            if r is not None:
                c.add("lift.paired", list(t) + [level], list(r))
    rng = np.random.default_rng(20261125)
    prices = [0.0, 4.99, 39.99, 79.99]
    pairs = [
        (rng.normal(10.3, 2.0, size=60), rng.normal(10.0, 2.5, size=80)),
        (rng.choice(prices, p=[0.95, 0.02, 0.02, 0.01], size=20000),
         rng.choice(prices, p=[0.955, 0.02, 0.017, 0.008], size=21000)),
        (rng.exponential(50.0, size=3000), rng.exponential(52.0, size=2900)),
        (rng.normal(1.0, 3.0, size=9), rng.normal(0.8, 3.0, size=12)),
    ]
    for y1, y0 in pairs:
        n1, n0 = len(y1), len(y0)
        v1, v0 = np.var(y1, ddof=1) / n1, np.var(y0, ddof=1) / n0
        df = (v1 + v0) ** 2 / (v1 ** 2 / (n1 - 1) + v0 ** 2 / (n0 - 1))
        for level in LEVELS:
            k = st.t.ppf(1 - (1 - level) / 2, df)
            r = fieller(np.mean(y1), np.mean(y0), v1, v0, 0.0, k)
            if r is not None:
                c.add("lift.welch", stats(y1) + stats(y0) + [level], list(r))
    for n, share in [(50, 0.3), (5000, 0.05), (40000, 0.01)]:
        y0 = rng.choice(prices, p=[0.95, 0.02, 0.02, 0.01], size=n)
        change = rng.random(n) < share
        y1 = np.where(change, rng.choice(prices, p=[0.9, 0.04, 0.04, 0.02], size=n), y0)
        cov = np.cov(y1, y0, ddof=1) / n
        for level in LEVELS:
            k = st.t.ppf(1 - (1 - level) / 2, n - 1)
            r = fieller(np.mean(y1), np.mean(y0), cov[0, 0], cov[1, 1], cov[0, 1], k)
            if r is not None:
                c.add("lift.pairedmean", stats(y1) + stats(y0) + stats(y1 - y0) + [level], list(r))
    return ref.write("lift.json", c)


if __name__ == "__main__":
    lifts()
    if ref.MISMATCHED:
        sys.exit("fixtures differ from the committed files: " + ", ".join(ref.MISMATCHED))
