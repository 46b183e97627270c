#!/usr/bin/env python3
"""Generate paired.json (FunnelStats' paired inference) and binomial_quantile.json (the
binomial quantile at a normal deviate, used for common random numbers across sample sizes).

Run from anywhere:  python3 Tests/FunnelStatsTests/Fixtures/make_paired_reference.py [--check]
(same environment and conventions as make_reference.py, whose helpers it uses).

- mcnemar: statsmodels `mcnemar(table, exact=False, correction=False)` (chi-square and p).
- tango:   Tango's (1998) score interval for p_treatment − p_control, computed here with
           mpmath at 50 digits by bisection on the score statistic, independently of the
           Swift code; the script first checks that it reproduces the published 95% interval
           of the Cavo et al. (2012) table, −0.1240 to −0.0054 (Fagerland, Lydersen & Laake,
           "Statistical Analysis of Contingency Tables", 2017, ch. 8; the same value is
           asserted by the R package contingencytables' tests).
- pairedt: scipy `ttest_1samp(d, 0)` and the Student t interval of the mean of d, for
           samples of per-user differences drawn with a fixed numpy seed; the case carries
           the sufficient statistics (n, Σd, Σd²) the Swift test feeds to PairedTTest.
- binomial.quantile: scipy `binom.ppf(norm.cdf(z), n, p)` for deviates z drawn with a fixed
           numpy seed, over sizes and rates on both sides of the Cornish-Fisher threshold
           (npq = 25).
"""
import os
import sys

import mpmath
import numpy as np
import scipy.stats as st
from statsmodels.stats.contingency_tables import mcnemar

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference as ref  # noqa: E402  (helpers: Cases, write, --check)

mpmath.mp.dps = 50


def tango_score(b, c, n, delta):
    """Tango's T(Δ) in mpmath (b = treatment only, c = control only, n pairs)."""
    b, c, n, delta = mpmath.mpf(b), mpmath.mpf(c), mpmath.mpf(n), mpmath.mpf(delta)
    w = -b - c + (2 * n - b + c) * delta
    q = (mpmath.sqrt(max(w * w + 8 * n * c * delta * (1 - delta), 0)) - w) / (4 * n)
    var = n * (2 * q + delta * (1 - delta))
    num = b - c - n * delta
    if var <= 0:
        return mpmath.inf if num > 0 else (-mpmath.inf if num < 0 else mpmath.mpf(0))
    return num / mpmath.sqrt(var)


def tango_interval(b, c, n, level):
    z = mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(level))
    est = mpmath.mpf(b - c) / n

    def bisect(lo, hi, target):
        # T decreases in Δ; find T(Δ) = target on [lo, hi].
        for _ in range(200):
            mid = (lo + hi) / 2
            if tango_score(b, c, n, mid) > target:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    lower = mpmath.mpf(-1) if est <= -1 else bisect(mpmath.mpf(-1), est, z)
    upper = mpmath.mpf(1) if est >= 1 else bisect(est, mpmath.mpf(1), -z)
    return float(lower), float(upper)


# The published example must come out right before anything is written.
_cavo = tango_interval(b=6, c=16, n=161, level=0.95)
assert (round(_cavo[0], 4), round(_cavo[1], 4)) == (-0.1240, -0.0054), _cavo

# (neither, treatmentOnly, controlOnly, both)
TABLES = [
    (80, 6, 16, 59),            # Cavo et al. 2012 (published interval above)
    (12, 1, 7, 1),              # Bentur et al. 2009
    (100, 40, 20, 0),           # PropCIs scoreci.mp example: b = 40, c = 20, n = 160
    (500, 0, 0, 500),           # no discordant pairs
    (0, 3, 0, 0),               # every pair discordant one way
    (9000, 30, 12, 958),
    (2_000_000, 1234, 1301, 150_000),
    (5, 0, 2, 3),
]
LEVELS = [0.95, 0.9, 0.99]


def paired():
    ref.META["generator"] = "Tests/FunnelStatsTests/Fixtures/make_paired_reference.py"
    c = ref.Cases()
    for t in TABLES:
        neither, b, cc, both = t
        if b + cc > 0:
            r = mcnemar([[both, cc], [b, neither]], exact=False, correction=False)
            c.add("paired.mcnemar", list(t), [r.statistic, r.pvalue])
        n = sum(t)
        for level in LEVELS:
            lo, hi = tango_interval(b, cc, n, level)
            c.add("paired.tango", list(t) + [level], [(b - cc) / n, lo, hi])
    rng = np.random.default_rng(20261124)
    samples = [
        rng.normal(0.3, 2.0, size=50),
        rng.normal(-0.01, 0.5, size=2000),
        # revenue-like: most differences 0, a few ± prices
        np.round(rng.choice([0.0, 4.99, -4.99, 59.99, -59.99], p=[0.97, 0.012, 0.01, 0.005, 0.003], size=20000), 2),
        rng.exponential(1.0, size=7) - 1.0,
    ]
    for d in samples:
        n = len(d)
        res = st.ttest_1samp(d, 0.0)
        for level in LEVELS:
            lo, hi = st.t.interval(level, n - 1, loc=np.mean(d), scale=st.sem(d))
            c.add("paired.ttest", [n, float(np.sum(d)), float(np.sum(d * d)), level],
                  [np.mean(d), res.statistic, res.pvalue, lo, hi])
    return ref.write("paired.json", c)


def binomial_quantile():
    c = ref.Cases()
    rng = np.random.default_rng(20261125)
    for n in [1, 7, 60, 100, 300, 1000, 5000, 67718, 1000000]:
        for p in [0.001, 0.01, 0.0404, 0.3, 0.5, 0.97]:
            for z in rng.normal(size=40):
                c.add("binomial.quantile", [n, p, z], [st.binom.ppf(st.norm.cdf(z), n, p)])
    return ref.write("binomial_quantile.json", c)


if __name__ == "__main__":
    paired()
    binomial_quantile()
    if ref.MISMATCHED:
        sys.exit("fixtures differ from the committed files: " + ", ".join(ref.MISMATCHED))
