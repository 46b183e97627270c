#!/usr/bin/env python3
"""Generate the FunnelStats reference fixtures with scipy and statsmodels.

Run from anywhere:  python3 Tests/FunnelStatsTests/Fixtures/make_reference.py [--check]
(needs scipy, statsmodels and mpmath: python3 -m venv venv && venv/bin/pip install statsmodels scipy mpmath).
With --check nothing is written: the script regenerates every file in memory and exits
with status 1 unless each is byte-identical to the committed one.
Deterministic: the same library versions reproduce every file byte for byte
(sorted keys, floats written as repr strings so Swift parses them exactly).
Each case is {"id", "fn", "args", "expected"}; args and expected are lists of strings.
The Swift tests hold one tolerance per `fn` (see FixtureTolerances in the tests).
"""
import json
import os
import sys

import mpmath
import numpy as np
import scipy
import scipy.special as sp
import scipy.stats as st

try:
    import statsmodels
    import statsmodels.stats.proportion as smp
    import statsmodels.stats.power as smpow
    import statsmodels.stats.multitest as smm
    STATSMODELS = statsmodels.__version__
except ImportError:  # pragma: no cover
    sys.exit("statsmodels is required: python3 -m venv venv && venv/bin/pip install statsmodels scipy")

HERE = os.path.dirname(os.path.abspath(__file__))
META = {
    "generator": "Tests/FunnelStatsTests/Fixtures/make_reference.py",
    "mpmath": mpmath.__version__,
    "numpy": np.__version__,
    "python": "%d.%d" % sys.version_info[:2],
    "scipy": scipy.__version__,
    "statsmodels": STATSMODELS,
}


def s(x):
    """A number as a repr string (exact round trip), ints as ints."""
    if isinstance(x, (bool, np.bool_)):
        return "1" if x else "0"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return repr(float(x))


class Cases:
    def __init__(self):
        self.cases = []
        self.ids = {}

    def add(self, fn, args, expected):
        if not isinstance(expected, (list, tuple)):
            expected = [expected]
        n = self.ids.get(fn, 0)
        self.ids[fn] = n + 1
        self.cases.append({
            "id": "%s#%d" % (fn, n),
            "fn": fn,
            "args": [s(a) for a in args],
            "expected": [s(e) for e in expected],
        })


CHECK = "--check" in sys.argv
MISMATCHED = []


def write(name, cases):
    """Writes a fixture file, or with --check compares it with the committed one."""
    path = os.path.join(HERE, name)
    doc = {"meta": META, "cases": cases.cases}
    text = json.dumps(doc, sort_keys=True, indent=1) + "\n"
    if CHECK:
        with open(path) as f:
            same = f.read() == text
        if not same:
            MISMATCHED.append(name)
        print("%-28s %4d cases %s" % (name, len(cases.cases), "identical" if same else "DIFFERS"))
    else:
        with open(path, "w") as f:
            f.write(text)
        print("%-28s %4d cases" % (name, len(cases.cases)))
    return len(cases.cases)


# ---------------------------------------------------------------- distributions
def distributions():
    c = Cases()
    for x in [0.5, 1, 1.5, 2, 3.7, 10, 25.5, 100, 1e3, 1e6, 1e9, 1e-5]:
        c.add("gammaln", [x], sp.gammaln(x))
    for a, b in [(0.5, 0.5), (1, 1), (3, 4.5), (10, 10), (15, 30), (100, 1e-3), (1e5, 2.5), (1e9, 1e9), (1e6, 3e6),
                 (0.1, 1e8), (7, 13)]:
        c.add("betaln", [a, b], sp.betaln(a, b))
    for v, t in [(1, 0.5), (3, -2.0), (25.5, 1.0), (1e3, 3.0), (1e6, 0.1), (4.5, 40.0)]:
        c.add("t.pdf", [v, t], st.t.pdf(t, v))
    for a, b, x in [(2, 3, 0.3), (0.5, 0.5, 0.01), (100, 300, 0.26), (1e4, 1e4, 0.501)]:
        c.add("beta.pdf", [a, b, x], st.beta.pdf(x, a, b))
    for k, x in [(1, 0.5), (4, 3.0), (30, 25.0), (500, 520.0)]:
        c.add("chi2.pdf", [k, x], st.chi2.pdf(x, k))
    for a, x in [(0.5, 0.1), (0.5, 2), (1, 1), (2.5, 0.3), (2.5, 10), (10, 5), (10, 15),
                 (100, 90), (100, 130), (1000, 1000), (1e4, 1e4 + 300), (3, 200), (0.5, 650)]:
        c.add("gammainc", [a, x], sp.gammainc(a, x))
        c.add("gammaincc", [a, x], sp.gammaincc(a, x))
    for a, b, x in [(0.5, 0.5, 0.1), (1, 1, 0.3), (2, 5, 0.2), (2, 5, 0.9), (10, 3, 0.5),
                    (100, 200, 0.3), (100, 200, 0.45), (0.1, 10, 0.01), (1, 1e6, 1e-5),
                    (1e5, 1e5, 0.499), (50, 50, 0.99), (3, 1e9, 1e-9)]:
        c.add("betainc", [a, b, x], sp.betainc(a, b, x))
        c.add("betaincc", [a, b, x], sp.betaincc(a, b, x))
    for a, b, p in [(0.5, 0.5, 0.2), (2, 5, 0.5), (2, 5, 1e-10), (10, 3, 0.999), (100, 200, 0.05),
                    (0.2, 3, 0.7), (1, 1e6, 0.5), (1e4, 2e4, 0.9)]:
        c.add("betaincinv", [a, b, p], sp.betaincinv(a, b, p))

    zs = [-38.0, -30.0, -20.0, -10.0, -7.5, -5.0, -3.0, -1.959963984540054, -1.0, -0.5, -1e-10,
          0.0, 1e-10, 0.3, 1.0, 1.644853626951472, 2.5, 4.0, 6.0, 8.3, 12.0, 25.0, 37.5]
    for z in zs:
        c.add("normal.cdf", [z], st.norm.cdf(z))
        c.add("normal.sf", [z], st.norm.sf(z))
    for p in [1e-300, 1e-200, 1e-100, 1e-30, 1e-15, 1e-8, 1e-4, 0.001, 0.01, 0.025, 0.05, 0.075,
              0.1, 0.2, 0.3, 0.425, 0.5, 0.6, 0.8, 0.9, 0.925, 0.95, 0.975, 0.99, 0.999999,
              1 - 1e-12]:
        c.add("normal.ppf", [p], st.norm.ppf(p))
    for q in [1e-300, 1e-50, 1e-10, 0.001, 0.05, 0.3]:
        c.add("normal.isf", [q], st.norm.isf(q))
    for mu, sd, x in [(10, 2, 13), (-1, 0.5, -3), (1e6, 1e3, 1.01e6)]:
        c.add("normal(mu,sd).cdf", [mu, sd, x], st.norm(mu, sd).cdf(x))
        c.add("normal(mu,sd).sf", [mu, sd, x], st.norm(mu, sd).sf(x))

    for v in [1, 2, 3.5, 5, 10, 29.7, 100, 1e4, 1e7]:
        for t in [-50.0, -4.0, -1.5, -0.1, 0.0, 0.25, 1.0, 2.2, 8.0, 300.0]:
            c.add("t.cdf", [v, t], st.t.cdf(t, v))
            c.add("t.sf", [v, t], st.t.sf(t, v))
    for v, t in [(1, 1e10), (1, 1e100), (2, 1e50), (5, 1e20), (30, 60), (100, 40)]:
        c.add("t.sf", [v, t], st.t.sf(t, v))
    for v in [2500, 5e4, 1e6]:
        for t in [-0.3, 1.5, 6.0, 25.0]:
            c.add("t.cdf", [v, t], st.t.cdf(t, v))
            c.add("t.sf", [v, t], st.t.sf(t, v))
    for v in [1, 2.5, 10, 100, 2500, 1e5]:
        for p in [1e-100, 1e-20, 1e-6, 0.025, 0.3, 0.5, 0.9, 0.975, 1 - 1e-12]:
            c.add("t.ppf", [v, p], st.t.ppf(p, v))

    for k in [1, 2, 3, 10, 100, 1000, 1e5]:
        for mult in [1e-3, 0.1, 0.5, 1.0, 1.3, 2.0, 5.0]:
            x = k * mult
            c.add("chi2.cdf", [k, x], st.chi2.cdf(x, k))
            c.add("chi2.sf", [k, x], st.chi2.sf(x, k))
    for k, x in [(1, 1300), (1, 80), (2, 1300), (4, 700), (10, 500), (3, 1e-300)]:
        c.add("chi2.sf", [k, x], st.chi2.sf(x, k))
        c.add("chi2.cdf", [k, x], st.chi2.cdf(x, k))
    for k in [1, 2, 4, 10, 100, 5000]:
        for p in [1e-50, 1e-5, 0.05, 0.5, 0.95, 0.999]:
            c.add("chi2.ppf", [k, p], st.chi2.ppf(p, k))
    for k, q in [(1, 1e-300), (2, 1e-100), (10, 1e-20), (3, 1e-6)]:
        c.add("chi2.isf", [k, q], st.chi2.isf(q, k))

    for a, b in [(0.5, 0.5), (1, 1), (2, 5), (10, 3), (121, 881), (151, 851), (1e5, 1e5), (0.1, 10),
                 (1, 1e6)]:
        mean = a / (a + b)
        for x in [mean * 1e-3, mean * 0.5, mean, min(0.999999, mean * 1.5), 1 - (1 - mean) * 1e-3]:
            c.add("beta.cdf", [a, b, x], st.beta.cdf(x, a, b))
            c.add("beta.sf", [a, b, x], st.beta.sf(x, a, b))
        for p in [1e-12, 0.025, 0.5, 0.975, 1 - 1e-9]:
            c.add("beta.ppf", [a, b, p], st.beta.ppf(p, a, b))

    for n, p in [(1, 0.3), (10, 0.5), (100, 0.01), (1000, 0.12), (10**6, 1e-6), (10**6, 0.5),
                 (10**9, 0.1), (10**9, 1e-9), (50, 0.999), (20, 0.0), (20, 1.0)]:
        mean = n * p
        sd = (n * p * (1 - p)) ** 0.5
        ks = sorted(set(int(round(k)) for k in [0, mean - 10 * sd, mean - 3 * sd, mean - sd, mean,
                                                  mean + sd, mean + 3 * sd, mean + 10 * sd, n]
                        if 0 <= round(k) <= n))
        for k in ks:
            c.add("binom.pmf", [n, p, k], st.binom.pmf(k, n, p))
            c.add("binom.cdf", [n, p, k], st.binom.cdf(k, n, p))
            c.add("binom.sf", [n, p, k], st.binom.sf(k, n, p))

    # 50-digit mpmath truth where scipy's binomial is only ~1e-11 accurate (n = 10^9).
    mpmath.mp.dps = 50
    for n, p, k in [(10**9, 0.1, 99905132), (10**9, 0.1, 99971540), (10**9, 0.1, 100000000),
                    (10**9, 0.1, 100094868), (10**9, 0.3, 300010000), (10**9, 1e-9, 3), (10**8, 0.25, 25001000)]:
        P = mpmath.mpf(p)
        pmf = mpmath.binomial(n, k) * P ** k * (1 - P) ** (n - k)
        c.add("binom.pmf.mpmath", [n, p, k], float(pmf))
    for M, K, N, k in [(10**6, 5 * 10**5, 1000, 250), (10**6, 5 * 10**5, 1000, 500), (2 * 10**6, 10**6, 6, 5),
                       (10**7, 3 * 10**6, 5000, 1400)]:
        pmf = lambda j: mpmath.binomial(K, j) * mpmath.binomial(M - K, N - j) / mpmath.binomial(M, N)
        c.add("hypergeom.pmf.mpmath", [M, K, N, k], float(pmf(k)))
        lo = max(0, N - (M - K))
        c.add("hypergeom.cdf.mpmath", [M, K, N, k], float(mpmath.fsum(pmf(j) for j in range(lo, k + 1))))
    mpmath.mp.dps = 15
    for M, K, N in [(20, 7, 12), (100, 30, 50), (1000, 10, 100), (10**6, 5 * 10**5, 1000), (50, 0, 10),
                    (2500, 1200, 2000)]:
        lo, hi = max(0, N - (M - K)), min(K, N)
        mean = N * K / M
        ks = sorted(set(int(round(k)) for k in [lo, (lo + mean) / 2, mean, (mean + hi) / 2, hi]))
        for k in ks:
            c.add("hypergeom.pmf", [M, K, N, k], st.hypergeom.pmf(k, M, K, N))
            c.add("hypergeom.cdf", [M, K, N, k], st.hypergeom.cdf(k, M, K, N))
            c.add("hypergeom.sf", [M, K, N, k], st.hypergeom.sf(k, M, K, N))
    return write("distributions.json", c)

# ---------------------------------------------------------------- proportions
PAIRS = [  # (x1, n1, x0, n0): treatment, control
    (150, 1000, 120, 1000), (1320, 12000, 1320, 12000), (1400, 12000, 1320, 12000),
    (0, 100, 0, 100), (100, 100, 100, 100), (0, 100, 5, 100), (5, 100, 0, 100),
    (100, 100, 97, 100), (1, 1, 0, 1), (1, 2, 1, 3), (3, 7, 1, 9), (12, 40, 5, 45),
    (10**8, 10**9, 10**8 + 30000, 10**9), (1, 10**9, 3, 10**9), (500, 10**9, 450, 10**9),
    (5, 10**6, 1, 10**6), (48000, 400000, 5400, 44000), (30, 31, 20, 31), (2, 50, 9, 50),
]
SINGLES = [(0, 1), (1, 1), (0, 10), (10, 10), (1, 10), (120, 1000), (5, 7), (1, 10**9), (10**9 - 1, 10**9),
           (5 * 10**8, 10**9), (3, 10**6), (999, 1000), (0, 10**9), (13, 200)]


def proportions():
    c = Cases()
    for x, n in SINGLES:
        for level in [0.95, 0.99, 0.8]:
            lo, hi = smp.proportion_confint(x, n, alpha=1 - level, method="wilson")
            c.add("wilson", [x, n, level], [lo, hi])
            lo, hi = smp.proportion_confint(x, n, alpha=1 - level, method="normal")
            c.add("wald", [x, n, level], [lo, hi])
            lo, hi = smp.proportion_confint(x, n, alpha=1 - level, method="beta")
            c.add("clopper-pearson", [x, n, level], [lo, hi])
            lo, hi = smp.proportion_confint(x, n, alpha=1 - level, method="jeffreys")
            c.add("jeffreys", [x, n, level], [lo, hi])
    for x1, n1, x0, n0 in PAIRS:
        pooled = (x1 + x0) / (n1 + n0)
        if 0 < pooled < 1:
            for alt, name in [("two-sided", "two-sided"), ("larger", "greater"), ("smaller", "less")]:
                z, pv = smp.proportions_ztest([x1, x0], [n1, n0], alternative=alt)
                c.add("ztest." + name, [x1, n1, x0, n0], [z, pv])
            z, pv = smp.proportions_ztest([x1, x0], [n1, n0], value=0.01)
            c.add("ztest.two-sided.value0.01", [x1, n1, x0, n0], [z, pv])
        for level in [0.95, 0.9]:
            lo, hi = smp.confint_proportions_2indep(x1, n1, x0, n0, method="newcomb", compare="diff",
                                                    alpha=1 - level)
            c.add("newcombe", [x1, n1, x0, n0, level], [x1 / n1 - x0 / n0, lo, hi])
            if x1 > 0 and x0 > 0:
                lo, hi = smp.confint_proportions_2indep(x1, n1, x0, n0, method="log", compare="ratio",
                                                        alpha=1 - level)
                c.add("lift", [x1, n1, x0, n0, level], [(x1 / n1) / (x0 / n0) - 1, lo - 1, hi - 1])
        table = np.array([[x1, n1 - x1], [x0, n0 - x0]])
        if (table.sum(axis=0) > 0).all() and (table.sum(axis=1) > 0).all():
            for corr in [True, False]:
                r = st.chi2_contingency(table, correction=corr)
                c.add("chi2_contingency.yates" if corr else "chi2_contingency", table.ravel().tolist() + [2, 2],
                      [r.statistic, r.pvalue, r.dof])
        if n1 + n0 <= 10**7:
            for alt in ["two-sided", "greater", "less"]:
                r = st.fisher_exact(table, alternative=alt)
                c.add("fisher." + alt, table.ravel().tolist(), [r.pvalue])
    for table in [[[10, 20, 30], [15, 25, 20]], [[120, 880], [150, 850], [135, 865]],
                  [[5, 1, 0], [2, 7, 3], [1, 1, 9]], [[1000, 9000], [1100, 8900], [1050, 8950], [990, 9010]],
                  [[3, 4], [5, 6], [7, 8], [9, 10]]]:
        t = np.array(table)
        r = st.chi2_contingency(t, correction=True)
        c.add("chi2_contingency.yates", t.ravel().tolist() + list(t.shape), [r.statistic, r.pvalue, r.dof])
    for table in [[[3, 1], [1, 3]], [[8, 2], [1, 5]], [[0, 5], [5, 0]], [[20, 10], [11, 21]],
                  [[1, 200], [12, 190]], [[7, 7], [7, 7]], [[100, 900], [140, 860]], [[2, 0], [0, 2]]]:
        for alt in ["two-sided", "greater", "less"]:
            r = st.fisher_exact(table, alternative=alt)
            c.add("fisher." + alt, np.ravel(table).tolist(), [r.pvalue])
    return write("proportions.json", c)

# ---------------------------------------------------------------- multiple testing and SRM
def multiple_and_srm():
    c = Cases()
    families = [[0.01, 0.04, 0.03, 0.005], [0.5], [0.001, 0.001, 0.2, 0.049, 0.051, 1.0],
                [1e-300, 1e-10, 0.3, 0.8, 0.9], [0.04, 0.04, 0.04], [0.2, 0.1, 0.05, 0.025, 0.0125, 0.9, 0.6],
                [0.0, 1.0, 0.5], [0.012, 0.019, 0.031, 0.041, 0.052, 0.061, 0.071, 0.081, 0.091, 0.1]]
    for pv in families:
        for method, name in [("bonferroni", "bonferroni"), ("holm", "holm"), ("fdr_bh", "benjamini-hochberg")]:
            reject, adj, _, _ = smm.multipletests(pv, alpha=0.05, method=method)
            c.add("multipletests." + name, pv, list(adj))
    for obs, w in [([5000, 5000], [1, 1]), ([5000, 5100], [1, 1]), ([50000, 51000], [1, 1]),
                   ([9000, 1000], [90, 10]), ([9100, 1000], [90, 10]), ([900000, 101000], [0.9, 0.1]),
                   ([333, 333, 334], [1, 1, 1]), ([1000, 1200, 1000, 950], [1, 1, 1, 1]),
                   ([1, 0], [1, 1]), ([10**9, 10**9 + 100000], [1, 1]), ([4000, 2000, 2100], [2, 1, 1])]:
        exp = np.array(w, dtype=float) / sum(w) * sum(obs)
        r = st.chisquare(obs, exp)
        c.add("srm.%d" % len(obs), list(obs) + list(w), [r.statistic, r.pvalue])
    return write("multiple_srm.json", c)

# ---------------------------------------------------------------- power
def power():
    from statsmodels.stats.power import NormalIndPower, normal_power_het
    c = Cases()
    nip = NormalIndPower()
    alts = [("two-sided", "two-sided"), ("larger", "greater"), ("smaller", "less")]
    designs = [(0.10, 0.11), (0.10, 0.12), (0.05, 0.055), (0.5, 0.52), (0.01, 0.0125), (0.3, 0.25),
               (0.9, 0.95), (0.001, 0.0015)]
    for p0, p1 in designs:
        for ratio in [1.0, 0.25, 3.0]:
            for alt, name in alts:
                if (name == "greater" and p1 < p0) or (name == "less" and p1 > p0):
                    continue
                h = smp.proportion_effectsize(p1, p0)
                for n in [100.0, 2500.0, 40000.0]:
                    c.add("power.arcsine." + name, [p0, p1, n, 0.05, ratio],
                          nip.power(h, n, 0.05, ratio=ratio, alternative=alt))
                    r = smp.power_proportions_2indep(p1 - p0, p0, n, ratio=ratio, alpha=0.05,
                                                     alternative=alt, return_results=True)
                    c.add("power.pooled." + name, [p0, p1, n, 0.05, ratio], r.power)
                    sd = np.sqrt(p1 * (1 - p1) + p0 * (1 - p0) / ratio)
                    c.add("power.unpooled." + name, [p0, p1, n, 0.05, ratio],
                          normal_power_het(p1 - p0, n, 0.05, std_null=sd, std_alternative=sd, alternative=alt))
                c.add("solve_n.arcsine." + name, [p0, p1, 0.05, 0.8, ratio],
                      nip.solve_power(effect_size=h, nobs1=None, alpha=0.05, power=0.8, ratio=ratio,
                                      alternative=alt))
                if name == "two-sided":
                    n1 = smp.samplesize_proportions_2indep_onetail(p1 - p0, p0, 0.8, ratio=ratio, alpha=0.05,
                                                                  alternative=alt)
                    c.add("solve_n.pooled.onetail", [p0, p1, 0.05, 0.8, ratio], n1)
    for h, n, alpha in [(0.1, 1000.0, 0.05), (0.05, 5000.0, 0.01), (-0.2, 300.0, 0.1)]:
        c.add("solve_power.means.two-sided", [h, n, alpha], nip.power(h, n, alpha))
        c.add("solve_effect.means.two-sided", [n, alpha, 0.8],
              nip.solve_power(effect_size=None, nobs1=n, alpha=alpha, power=0.8))
        c.add("solve_alpha.means.two-sided", [abs(h), n, 0.8],
              nip.solve_power(effect_size=abs(h), nobs1=n, alpha=None, power=0.8))
    return write("power.json", c)

# ---------------------------------------------------------------- means, ranks, generator
REVENUE = [  # value -> count maps (treatment, control)
    ({0.0: 9500, 4.99: 300, 9.99: 150, 49.99: 50}, {0.0: 9600, 4.99: 280, 9.99: 100, 49.99: 20}),
    ({0.0: 90, 1.0: 10}, {0.0: 95, 1.0: 5}),
    ({1.0: 3, 2.0: 4, 3.0: 5}, {2.0: 2, 3.0: 6, 4.0: 1}),
    ({0.0: 1, 100.0: 1}, {0.0: 2, 5.0: 1}),
    ({10.0: 1000, 12.5: 1000}, {10.0: 1000, 12.5: 1000}),
    ({0.0: 49000, 29.99: 700, 59.99: 250, 119.99: 50}, {0.0: 49200, 29.99: 600, 59.99: 180, 119.99: 20}),
    ({3.5: 7, 4.25: 9, 8.0: 2, 15.0: 1}, {1.0: 4, 3.5: 8, 4.25: 3}),
    ({0.0: 5, 1.0: 5}, {0.0: 5, 1.0: 5}),
    ({2.0: 1, 5.0: 1}, {1.0: 1, 3.0: 1}),
]


def expand(m):
    return np.repeat(np.array(sorted(m), dtype=float), [m[k] for k in sorted(m)])


def map_args(t, c):
    args = [len(t)]
    for k in sorted(t):
        args += [k, t[k]]
    args.append(len(c))
    for k in sorted(c):
        args += [k, c[k]]
    return args


def splitmix64(seed):
    mask = (1 << 64) - 1
    state = seed & mask
    while True:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        yield z ^ (z >> 31)


def xoshiro(seed):
    mask = (1 << 64) - 1
    sm = splitmix64(seed)
    s = [next(sm) for _ in range(4)]
    rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & mask
    while True:
        result = (rotl((s[1] * 5) & mask, 7) * 9) & mask
        t = (s[1] << 17) & mask
        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t
        s[3] = rotl(s[3], 45)
        yield result


def means():
    c = Cases()
    for t, ctl in REVENUE:
        x, y = expand(t), expand(ctl)
        args = map_args(t, ctl)
        if x.var() > 0 or y.var() > 0:
            for alt, name in [("two-sided", "two-sided"), ("greater", "greater"), ("less", "less")]:
                r = st.ttest_ind(x, y, equal_var=False, alternative=alt)
                c.add("welch." + name, args, [r.statistic, r.pvalue, r.df])
            r = st.ttest_ind(x, y, equal_var=False)
            ci = r.confidence_interval(0.95)
            c.add("welch.ci95", args, [ci.low, ci.high])
        for alt in ["two-sided", "greater", "less"]:
            r = st.mannwhitneyu(x, y, use_continuity=True, alternative=alt, method="asymptotic")
            c.add("mannwhitney." + alt, args, [r.statistic, r.pvalue])
    for seed in [0, 1, 0x5EED, 2**64 - 1]:
        g = splitmix64(seed)
        c.add("splitmix64", [seed], [next(g) for _ in range(5)])
        g = xoshiro(seed)
        c.add("xoshiro256starstar", [seed], [next(g) for _ in range(5)])
    return write("means.json", c)

# ---------------------------------------------------------------- Bayesian (mpmath references)
def bayesian():
    mp = mpmath
    mp.mp.dps = 30
    c = Cases()

    def beat_exact(xt, nt, xc, nc, a0=1, b0=1):
        at, bt = a0 + xt, b0 + nt - xt
        ac, bc = a0 + xc, b0 + nc - xc
        total = mp.mpf(0)
        for i in range(at):
            total += mp.exp(mp.log(mp.beta(ac + i, bc + bt)) - mp.log(bt + i) - mp.log(mp.beta(1 + i, bt))
                            - mp.log(mp.beta(ac, bc)))
        return total

    for xt, nt, xc, nc in [(150, 1000, 120, 1000), (12, 100, 10, 100), (0, 10, 0, 10), (10, 10, 9, 10),
                           (1, 1, 0, 1), (30, 400, 45, 400), (200, 2000, 200, 2000), (5, 50, 1, 60),
                           (12, 100, 100000, 1000000), (1500, 10000, 1400, 10000), (0, 5000, 3, 5000)]:
        c.add("beta.beat", [xt, nt, xc, nc], [beat_exact(xt, nt, xc, nc)])

    def pdf(a, b):
        return lambda x: x ** (a - 1) * (1 - x) ** (b - 1) / mp.beta(a, b)

    def cdf(a, b):
        return lambda x: mp.betainc(a, b, 0, x, regularized=True)

    for arms in [[(120, 1000), (150, 1000), (135, 1000)], [(5, 40), (9, 41), (7, 39), (2, 45)]]:
        post = [(1 + x, 1 + n - x) for x, n in arms]
        probs = []
        for j, (a, b) in enumerate(post):
            f = pdf(a, b)
            others = [cdf(aa, bb) for k, (aa, bb) in enumerate(post) if k != j]
            def integrand(x, f=f, others=others):
                v = f(x)
                for g in others:
                    v *= g(x)
                return v
            probs.append(mp.quad(integrand, [0, 0.05, 0.1, 0.12, 0.14, 0.16, 0.2, 0.3, 1]))
        args = []
        for x, n in arms:
            args += [x, n]
        c.add("beta.best", args, probs)

    for xt, nt, xc, nc in [(12, 100, 10, 100), (150, 1000, 120, 1000), (3, 30, 6, 30)]:
        at, bt = 1 + xt, 1 + nt - xt
        ac, bc = 1 + xc, 1 + nc - xc
        ft, fc = pdf(at, bt), pdf(ac, bc)
        mc = mp.mpf(ac) / (ac + bc)
        # E[(pc - y)+] = mc * (1 - I_y(ac+1, bc)) - y * (1 - I_y(ac, bc)), integrated against f_t
        inner = lambda y: mc * mp.betainc(ac + 1, bc, y, 1, regularized=True) - y * mp.betainc(ac, bc, y, 1, regularized=True)
        loss = mp.quad(lambda y: ft(y) * inner(y), [0, 0.05, 0.1, 0.15, 0.2, 0.3, 1])
        c.add("beta.loss", [xt, nt, xc, nc], [loss])
    return write("bayesian.json", c)

# ---------------------------------------------------------------- group-sequential crossing
def sequential():
    """Per-look crossing probabilities of given two-sided boundaries for Brownian motion with
    drift, from scipy's multivariate normal cdf (Genz), an independent check of the
    Armitage-McPherson-Rowe recursion."""
    c = Cases()
    designs = [
        ([0.2, 0.4, 0.6, 0.8, 1.0], [4.8769, 3.3569, 2.6803, 2.2898, 2.0310]),
        ([0.2, 0.4, 0.6, 0.8, 1.0], [2.4380, 2.4268, 2.4101, 2.3966, 2.3859]),
        ([0.3, 0.6, 1.0], [3.2, 2.5, 2.0]),
        ([0.5, 1.0], [2.7967, 1.9773]),
    ]
    for t, b in designs:
        t = np.array(t)
        b = np.array(b)
        cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
        for drift in [0.0, 1.5, 2.8]:
            cum = []
            for k in range(1, len(t) + 1):
                mvn = st.multivariate_normal(mean=drift * np.sqrt(t[:k]), cov=cov[:k, :k], maxpts=10**7,
                                             abseps=1e-11, releps=1e-11)
                cum.append(1 - mvn.cdf(b[:k], lower_limit=-b[:k], rng=np.random.default_rng(12345)))
            exits = [cum[0]] + [cum[k] - cum[k - 1] for k in range(1, len(cum))]
            c.add("gsd.exit", [len(t)] + list(t) + list(b) + [drift], exits)
    return write("sequential.json", c)


if __name__ == "__main__":
    total = 0
    total += distributions()
    total += proportions()
    total += multiple_and_srm()
    total += power()
    total += means()
    total += bayesian()
    total += sequential()
    print("total %d cases" % total)
    if MISMATCHED:
        sys.exit("fixtures differ from the committed files: " + ", ".join(MISMATCHED))
