#!/usr/bin/env python3
"""Generate equivalence.json: TOST for two proportions (TwoProportionEquivalenceTest.swift).

Run from anywhere:  python3 Tests/FunnelStatsTests/Fixtures/make_equivalence_reference.py [--check]
(same environment and conventions as make_reference.py, whose helpers it uses).

- tost.wald:  statsmodels tost_proportions_2indep(x1, n1, x0, n0, low, upp, method="wald"):
              expected [difference, p_low, p_upp, p]; args [x1, n1, x0, n0, low, upp].
- tost.power: statsmodels' normal power of an equivalence z-test, _power_ztost(low, v, upp, v,
              delta, v, alpha, discrete=False) with v the unpooled variance at the true rates
              (floored at 0 where the rejection region is empty); args [p1, p0, n1, n0, low,
              upp, alpha], expected [power].
- tost.montecarlo: the rejection rate of statsmodels' TOST over 200,000 simulated pairs of
              binomial counts (numpy, seed 20261128), with its binomial standard error:
              an independent check that tost.power describes the test; args as tost.power,
              expected [rate, standard error].
"""
import os
import sys
import warnings

import numpy as np
import statsmodels.stats.proportion as smp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reference as ref  # noqa: E402  (helpers: Cases, write, --check)

TABLES = [
    (480, 10000, 500, 10000, -0.01, 0.01),
    (4030, 100000, 4018, 100000, -0.005, 0.005),
    (61, 1000, 39, 1000, -0.02, 0.02),
    (130, 200, 120, 200, -0.1, 0.1),
    (5, 50, 7, 60, -0.05, 0.08),
    (65_000, 100_000, 68_000, 100_000, -0.02, 0.02),
    (1, 3000, 2, 2500, -0.001, 0.001),
]

POWERS = [
    (0.0402, 0.0404, 200_000, 200_000, -0.005, 0.005, 0.05),
    (0.6567, 0.687, 50_000, 50_000, -0.04, 0.04, 0.05),
    (0.6567, 0.66, 20_000, 20_000, -0.02, 0.02, 0.05),
    (0.05, 0.05, 40_000, 48_000, -0.005, 0.005, 0.025),
    (0.05, 0.05, 10_000, 12_000, -0.005, 0.005, 0.025),  # no rejection region
    (0.3, 0.32, 5_000, 5_000, -0.05, 0.03, 0.1),
    (0.5, 0.5, 100, 100, -0.01, 0.01, 0.05),       # no rejection region: power 0
    (0.12, 0.1, 30_000, 30_000, -0.03, 0.03, 0.01),
]


def tost(x1, n1, x0, n0, low, upp):
    r = smp.tost_proportions_2indep(x1, n1, x0, n0, low, upp, method="wald")
    return [r.results_larger.diff, r.results_larger.pvalue, r.results_smaller.pvalue, r.pvalue]


def power(p1, p0, n1, n0, low, upp, alpha):
    v = p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pw, _ = smp._power_ztost(low, v, upp, v, p1 - p0, v, alpha=alpha, discrete=False, nobs=1)  # nobs only scales a continuity term of 0
    return max(0.0, float(pw))


def montecarlo(p1, p0, n1, n0, low, upp, alpha, rng, replicates=200_000):
    x1 = rng.binomial(n1, p1, replicates)
    x0 = rng.binomial(n0, p0, replicates)
    q1, q0 = x1 / n1, x0 / n0
    se = np.sqrt(q1 * (1 - q1) / n1 + q0 * (1 - q0) / n0)
    with np.errstate(divide="ignore", invalid="ignore"):
        from scipy.stats import norm
        p_low = norm.sf((q1 - q0 - low) / se)
        p_upp = norm.cdf((q1 - q0 - upp) / se)
    # A zero standard error: the difference is exact (as the Swift test and statsmodels' wald).
    d = q1 - q0
    p_low = np.where(se > 0, p_low, np.where(d > low, 0.0, 1.0))
    p_upp = np.where(se > 0, p_upp, np.where(d < upp, 0.0, 1.0))
    rate = float(np.mean(np.maximum(p_low, p_upp) < alpha))
    return [rate, float(np.sqrt(max(rate * (1 - rate), 1 / replicates) / replicates))]


def main():
    c = ref.Cases()
    for t in TABLES:
        c.add("tost.wald", list(t), tost(*t))
    rng = np.random.default_rng(20261128)
    for p in POWERS:
        c.add("tost.power", list(p), [power(*p)])
        c.add("tost.montecarlo", list(p), montecarlo(*p, rng))
    ref.write("equivalence.json", c)
    if ref.MISMATCHED:
        sys.exit(1)


if __name__ == "__main__":
    main()
