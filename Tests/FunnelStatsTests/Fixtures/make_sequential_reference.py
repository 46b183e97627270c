#!/usr/bin/env python3
"""Generate sequential_boundaries.json, gsd_plans.json and confidence_sequences.json.

Run from anywhere:  python3 Tests/FunnelStatsTests/Fixtures/make_sequential_reference.py [--check]
(same environment and conventions as make_reference.py, whose helpers it uses, plus gbstats:
python3 -m venv venv && venv/bin/pip install gbstats statsmodels scipy numpy mpmath).
With --check nothing is written: all three files are regenerated in memory and the script exits
with status 1 unless each is byte-identical to the committed one. Deterministic for the
library versions recorded in each file's meta (gbstats included).

sequential_boundaries.json, fn "gsd.boundaries"
    args     [K, spending (0 = O'Brien-Fleming type, 1 = Pocock type), alpha, t_1, ..., t_K]
    expected [c_1, ..., c_K, cumulative alpha_1, ..., cumulative alpha_K]
  Lan-DeMets two-sided symmetric boundaries for a Brownian motion sampled at the information
  fractions t_1 < ... < t_K (Z_k = B(t_k)/sqrt(t_k)), each side spending the one-sided alpha/2:
      O'Brien-Fleming type  alpha(t) = 4 - 4 Phi(Phi^-1(1 - alpha/4) / sqrt(t))
      Pocock type           alpha(t) = alpha log(1 + (e - 1) t)
  (alpha(t) = alpha for t >= 1), c_1 = Phi^-1(1 - alpha(t_1)/2), and c_k (k > 1) solves
      P(|Z_j| < c_j for j < k, |Z_k| >= c_k) = alpha(t_k) - alpha(t_{k-1})    under H0,
  computed here independently of the Swift code by the Armitage-McPherson-Rowe recursion on
  the sub-density of Z_k over the continuation region, integrated with composite
  Gauss-Legendre rules (vectorised numpy), roots by brentq(xtol=1e-13).
  Checks: two grids (panel width 0.4 / 16 nodes and 0.2 / 20 nodes) agree to 1e-9; the
  continuation mass equals 1 - alpha(t_k) to 1e-12; at every design's look 2, adaptive quadrature
  (scipy quad) of the exit probability at the computed c_2 reproduces the spend to 1e-9 relative;
  the K = 5, alpha = 0.05 boundaries match the published ld98/ldbounds table to 1e-4 (its
  O'Brien-Fleming c_2 = 3.3569 to 1.5e-4: the exact value is 3.357012, ld98's coarse grid is off);
  the exit probabilities of three designs match scipy's multivariate normal cdf (Genz) to 5e-7.

gsd_plans.json, fn "gsd.plan"
    args     [K, spending (0 = O'Brien-Fleming type, 1 = Pocock type), alpha, power]
    expected [theta_fixed, power at the fixed size, inflation, expected fraction under the effect,
              expected fraction without effect]
  The design above with K equally spaced looks t_k = k/K, planned against the two-sided fixed-sample
  z-test of the same alpha and power. With z = Phi^-1(1 - alpha/2) and P_theta(crossing) =
  P(|Z_k| >= c_k for some k) when E Z_k = theta sqrt(t_k) (the same Brownian motion, drift theta
  at full information):
      theta_fixed   solves Phi(theta - z) + Phi(-theta - z) = power
      power at the fixed size = P_theta_fixed(crossing)
      theta_gs      solves P_theta_gs(crossing) = power;   inflation = (theta_gs / theta_fixed)^2
      expected fraction = sum_k P(stop at look k) t_k + (1 - sum_k P(stop at look k)),
                          under theta_gs (the effect) and under 0 (no effect)
  The crossing probabilities come from the recursion above carried with the drift (given
  Z_{k-1} = u, Z_k ~ N((u sqrt(t_{k-1}) + theta (t_k - t_{k-1}))/sqrt(t_k), (t_k - t_{k-1})/t_k)),
  roots by brentq(xtol=1e-13). K in {1, 2, 3, 4, 5, 6, 8, 10} x both spendings x alpha in
  {0.01, 0.05, 0.1} x power in {0.8, 0.9}.
  Checks: the two grids agree on every value to 1e-9; exits plus the continuation mass add up to 1
  to 1e-12; without effect the exits equal the spends to 1e-12; K = 1 has inflation 1 and power at
  the fixed size = power to 1e-10; for K <= 4 the crossing probability at theta_fixed and at
  theta_gs matches scipy's multivariate normal cdf (Genz) to 1e-6; the K = 5, alpha = 0.05,
  power 0.8 inflation is near the classical values (O'Brien-Fleming 1.026, Pocock 1.207;
  Jennison & Turnbull 2000, chapter 2): within [1.02, 1.035] and [1.18, 1.24].

confidence_sequences.json, GrowthBook gbstats' SequentialTwoSidedTTest (the asymptotic
confidence sequence of Waudby-Smith et al., arXiv 2103.06476v7):
    fn "gbstats.sequential.proportion"  args [alpha, tuning, relative (1/0), n_a, sum_a, n_b, sum_b]
    fn "gbstats.sequential.mean"        args [alpha, tuning, relative, n_a, sum_a, sum_squares_a,
                                              n_b, sum_b, sum_squares_b]
    expected [point estimate, variance of the estimate (the test's .variance), ci lower,
              ci upper, p-value]
  a = control, b = treatment (ProportionStatistic / SampleMeanStatistic), test value 0.
  Cases gbstats reports as degenerate (error_message set) are skipped. Every case is also
  recomputed here from the formulas in plain math (below) and must agree with gbstats to 1e-12
  relative (the ci bounds relative to |estimate| + half-width, as they are a difference):
      proportions  m = sum/n, v = m(1 - m);  means  m = sum/n, v = (sum_squares - sum^2/n)/(n - 1)
      absolute     d = m_b - m_a,            V = v_a/n_a + v_b/n_b
      relative     d = (m_b - m_a)/m_a,      V = v_b/(m_a^2 n_b) + v_a m_b^2/(m_a^4 n_a)  (delta method)
      N = n_a + n_b,  rho^2 = (-2 ln alpha + ln(1 - 2 ln alpha)) / tuning
      half-width   sqrt(V N) sqrt(2 (N rho^2 + 1) ln(sqrt(N rho^2 + 1)/alpha) / (N rho)^2)
      p-value      min(1, sqrt(N rho^2 + 1) exp(-rho^2 N d^2 / (2 V (N rho^2 + 1))))
  and p < alpha exactly when 0 is outside the interval (checked away from the edge). Data are
  drawn from numpy default_rng(20240611) through rng.random() only; revenue-like mean cases with
  a non-positive sample mean are dropped.
"""
import math
import os
import sys

import numpy as np
import scipy.special as sp
import scipy.stats as st
from scipy.integrate import quad
from scipy.optimize import brentq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_reference as ref  # noqa: E402  (helpers: Cases, s, write, META, --check)
from make_reference import Cases, META, s, write  # noqa: E402,F401

try:
    import importlib.metadata
    from gbstats.frequentist.tests import SequentialConfig, SequentialTwoSidedTTest
    from gbstats.models.statistics import ProportionStatistic, SampleMeanStatistic
    GBSTATS = importlib.metadata.version("gbstats")
except ImportError:  # pragma: no cover
    sys.exit("gbstats is required: python3 -m venv venv && venv/bin/pip install gbstats statsmodels scipy mpmath")

# write() serialises make_reference.META, the same dict: record this generator and gbstats.
META["generator"] = "Tests/FunnelStatsTests/Fixtures/make_sequential_reference.py"
META["gbstats"] = GBSTATS


# ---------------------------------------------------------------- group-sequential boundaries
def spent(t, alpha, code):
    """Cumulative two-sided alpha spent by information fraction t."""
    if t >= 1:
        return alpha
    if code == 0:
        # 4 - 4 Phi(z/sqrt(t)) written as 4 Phi(-z/sqrt(t)) so tiny early spends keep their digits.
        return 4 * st.norm.sf(st.norm.isf(alpha / 4) / math.sqrt(t))
    return alpha * math.log1p((math.e - 1) * t)


_LEGENDRE = {}


def nodes(c, width, order):
    """Composite Gauss-Legendre nodes and weights on [-c, c], panels no wider than `width`."""
    if order not in _LEGENDRE:
        _LEGENDRE[order] = np.polynomial.legendre.leggauss(order)
    x, w = _LEGENDRE[order]
    panels = max(4, int(math.ceil(2 * c / width)))
    edges = np.linspace(-c, c, panels + 1)
    half = (edges[1:] - edges[:-1]) / 2
    mid = (edges[1:] + edges[:-1]) / 2
    return (mid[:, None] + half[:, None] * x[None, :]).ravel(), (half[:, None] * w[None, :]).ravel()


def boundaries(fractions, alpha, code, width, order):
    """Boundaries and cumulative alpha by the Armitage-McPherson-Rowe recursion.

    After look k the sub-density of Z_k on (-c_k, c_k) is held at Gauss-Legendre nodes u_i as
    mass[i] = weight_i * f_k(u_i). Given Z_{k-1} = u, Z_k ~ N(u sqrt(t_{k-1}/t_k), (t_k - t_{k-1})/t_k).
    """
    cs, cum = [], []
    prev_t, prev_spent = 0.0, 0.0
    u = mass = None
    for t in fractions:
        a_t = spent(t, alpha, code)
        inc = a_t - prev_spent
        assert inc > 0, (fractions, alpha, code)
        if u is None:
            c = st.norm.isf(inc / 2)
            z, w = nodes(c, width, order)
            new_mass = w * np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
        else:
            sd = math.sqrt((t - prev_t) / t)
            m = u * math.sqrt(prev_t / t)

            def excess(x):
                return float(np.dot(mass, sp.ndtr((-x - m) / sd) + sp.ndtr((-x + m) / sd))) - inc

            lo, hi = 0.0, 60.0
            assert excess(lo) > 0 and excess(hi) < 0
            c = brentq(excess, lo, hi, xtol=1e-13, rtol=4 * np.finfo(float).eps, maxiter=500)
            z, w = nodes(c, width, order)
            r = (z[:, None] - m[None, :]) / sd
            new_mass = w * (np.exp(-0.5 * r * r) @ mass) / (sd * math.sqrt(2 * math.pi))
        # The mass left in the continuation region is 1 - alpha(t_k).
        assert abs(new_mass.sum() - (1 - a_t)) < 1e-12, (fractions, alpha, code, new_mass.sum(), 1 - a_t)
        u, mass = z, new_mass
        cs.append(float(c))
        cum.append(float(a_t))
        prev_t, prev_spent = t, a_t
    return cs, cum


COARSE = (0.4, 16)
FINE = (0.2, 20)

PUBLISHED = {  # K = 5 equally spaced, alpha = 0.05, as printed by ldbounds / ld98 (Reboussin et al. 2000)
    0: [4.8769, 3.3569, 2.6803, 2.2898, 2.0310],
    1: [2.4380, 2.4268, 2.4101, 2.3966, 2.3859],
}
# ld98 integrates on a coarse grid (step h = 0.05), good to about 1e-4: its O'Brien-Fleming c_2 is
# 1.1e-4 below the exact 3.35701192 (confirmed by adaptive quadrature, look2_check), so that one
# entry is held to 1.5e-4; every other entry to 1e-4.
PUBLISHED_TOLERANCE = {(0, 1): 1.5e-4}


UNEQUAL = [  # (fractions, spending, alpha): observed-information looks, early looks, interim designs
    ([0.13, 0.41, 0.77, 1.0], 0, 0.05),
    ([0.13, 0.41, 0.77, 1.0], 1, 0.05),
    ([0.05, 0.1, 0.5, 1.0], 0, 0.05),
    ([0.05, 0.1, 0.5, 1.0], 1, 0.01),
    ([k / 28 for k in range(1, 29)], 0, 0.05),
    ([k / 28 for k in range(1, 29)], 1, 0.05),
    ([k / 28 for k in range(1, 29)], 0, 0.01),
    ([0.2, 0.45, 0.7], 0, 0.05),
    ([0.2, 0.45, 0.7], 1, 0.1),
    ([0.25, 0.5], 0, 0.05),
    ([0.07, 0.31, 0.58, 0.93], 1, 0.05),
    ([0.6], 0, 0.05),
    ([1.0], 1, 0.05),
    ([0.9, 0.95, 1.0], 0, 0.1),
    ([0.01, 1.0], 0, 0.05),
    ([0.3, 0.35, 0.62, 0.64, 0.97, 1.0], 1, 0.01),
]


def mvn_exits(fractions, cs):
    """Per-look exit probabilities under H0 from scipy's multivariate normal cdf (Genz)."""
    t = np.array(fractions)
    b = np.array(cs)
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    cum = []
    for k in range(1, len(t) + 1):
        mvn = st.multivariate_normal(mean=np.zeros(k), cov=cov[:k, :k], maxpts=10**7, abseps=1e-11, releps=1e-11)
        cum.append(1 - mvn.cdf(b[:k], lower_limit=-b[:k], rng=np.random.default_rng(12345)))
    return [cum[0]] + [cum[k] - cum[k - 1] for k in range(1, len(cum))]


def look2_check(fractions, alpha, code, cs):
    """Look 2's exit probability at the computed c_2 by adaptive quadrature (scipy quad), which must
    equal alpha(t_2) - alpha(t_1): P(|Z_1| < c_1, |Z_2| >= c_2) = int_{-c_1}^{c_1} phi(u)
    [Phi((-c_2 sqrt(t_2) - u sqrt(t_1))/sqrt(D)) + Phi((-c_2 sqrt(t_2) + u sqrt(t_1))/sqrt(D))] du."""
    t1, t2 = fractions[:2]
    s1, s2, sd = math.sqrt(t1), math.sqrt(t2), math.sqrt(t2 - t1)
    c1, c2 = cs[:2]

    def integrand(u):
        return st.norm.pdf(u) * (sp.ndtr((-c2 * s2 - u * s1) / sd) + sp.ndtr((-c2 * s2 + u * s1) / sd))

    inc = spent(t2, alpha, code) - spent(t1, alpha, code)
    # The integrand peaks near |u| = c_1 when c_1 is large: split there so quad sees the peaks.
    pts = sorted({-c1, -min(c1, 8.0), 0.0, min(c1, 8.0), c1})
    got = sum(quad(integrand, a, b, epsabs=0, epsrel=1e-13, limit=500)[0] for a, b in zip(pts[:-1], pts[1:]) if b > a)
    return abs(got - inc) / inc


def group_sequential():
    c = Cases()
    designs = []
    for code in (0, 1):
        for alpha in (0.01, 0.05, 0.1):
            for k in range(2, 11):
                designs.append(([j / k for j in range(1, k + 1)], code, alpha))
    designs += UNEQUAL
    grid_gap = 0.0
    published_gap = 0.0
    quad_gap = 0.0
    mvn_gap = 0.0
    for fractions, code, alpha in designs:
        coarse, cum0 = boundaries(fractions, alpha, code, *COARSE)
        fine, cum = boundaries(fractions, alpha, code, *FINE)
        assert cum0 == cum
        gap = max(abs(a - b) for a, b in zip(coarse, fine))
        assert gap < 1e-9, (fractions, code, alpha, gap)
        grid_gap = max(grid_gap, gap)
        if len(fractions) >= 2:
            q = look2_check(fractions, alpha, code, fine)
            assert q < 1e-9, (fractions, code, alpha, q)
            quad_gap = max(quad_gap, q)
        if alpha == 0.05 and fractions == [0.2, 0.4, 0.6, 0.8, 1.0]:
            for k, (a, b) in enumerate(zip(fine, PUBLISHED[code])):
                assert abs(a - b) <= PUBLISHED_TOLERANCE.get((code, k), 1e-4), (code, k, a, b)
                published_gap = max(published_gap, abs(a - b))
        if (alpha == 0.05 and fractions == [0.2, 0.4, 0.6, 0.8, 1.0]) or (fractions == [0.13, 0.41, 0.77, 1.0]):
            exits = mvn_exits(fractions, fine)
            spends = [cum[0]] + [cum[k] - cum[k - 1] for k in range(1, len(cum))]
            gap = max(abs(a - b) for a, b in zip(exits, spends))
            assert gap < 5e-7, (fractions, code, exits, spends)
            mvn_gap = max(mvn_gap, gap)
        c.add("gsd.boundaries", [len(fractions), code, alpha] + list(fractions), fine + cum)
    print("  max grid-size disagreement %.1e; max deviation from the published K=5 table %.1e; look 2 by "
          "adaptive quadrature: max relative error of the spend %.1e; multivariate normal (Genz) exits: "
          "max |exit - spend| %.1e" % (grid_gap, published_gap, quad_gap, mvn_gap))
    return write("sequential_boundaries.json", c)


# ---------------------------------------------------------------- group-sequential plans
def crossings(fractions, cs, theta, width, order):
    """Per-look exit probabilities P_theta(|Z_j| < c_j for j < k, |Z_k| >= c_k) for the drifted
    Brownian motion (E Z_k = theta sqrt(t_k)), by the same Armitage-McPherson-Rowe recursion as
    boundaries(): given Z_{k-1} = u, Z_k ~ N((u sqrt(t_{k-1}) + theta (t_k - t_{k-1}))/sqrt(t_k),
    (t_k - t_{k-1})/t_k). The exits and the final continuation mass add up to 1 (checked)."""
    exits = []
    prev_t = 0.0
    u = mass = None
    for t, c in zip(fractions, cs):
        z, w = nodes(c, width, order)
        if u is None:
            m0 = theta * math.sqrt(t)
            exits.append(float(sp.ndtr(-c - m0) + sp.ndtr(-c + m0)))
            new_mass = w * np.exp(-0.5 * (z - m0) ** 2) / math.sqrt(2 * math.pi)
        else:
            sd = math.sqrt((t - prev_t) / t)
            m = (u * math.sqrt(prev_t) + theta * (t - prev_t)) / math.sqrt(t)
            exits.append(float(np.dot(mass, sp.ndtr((-c - m) / sd) + sp.ndtr((-c + m) / sd))))
            r = (z[:, None] - m[None, :]) / sd
            new_mass = w * (np.exp(-0.5 * r * r) @ mass) / (sd * math.sqrt(2 * math.pi))
        u, mass = z, new_mass
        prev_t = t
    assert abs(sum(exits) + mass.sum() - 1) < 1e-12, (fractions, cs, theta, sum(exits), mass.sum())
    return exits


def plan(K, code, alpha, power, width, order):
    """[theta_fixed, power_at_fixed_size, inflation, expected_fraction_effect, expected_fraction_null],
    plus (fractions, boundaries, theta_gs, exits under theta_gs, exits under 0) for the checks."""
    fractions = [j / K for j in range(1, K + 1)]
    cs, cum = boundaries(fractions, alpha, code, width, order)
    z = st.norm.isf(alpha / 2)

    def fixed(theta):
        return float(sp.ndtr(theta - z) + sp.ndtr(-theta - z)) - power

    theta = brentq(fixed, 0.0, 20.0, xtol=1e-13, rtol=4 * np.finfo(float).eps, maxiter=500)

    def gs(th):
        return sum(crossings(fractions, cs, th, width, order)) - power

    assert gs(theta) <= 1e-12, (K, code, alpha, power)  # the looks cost power at the same size
    theta_gs = brentq(gs, theta, 2 * theta, xtol=1e-13, rtol=4 * np.finfo(float).eps, maxiter=500)
    effect = crossings(fractions, cs, theta_gs, width, order)
    null = crossings(fractions, cs, 0.0, width, order)
    # Under H0 the exits are exactly the spends alpha(t_k) - alpha(t_{k-1}).
    spends = [cum[0]] + [cum[k] - cum[k - 1] for k in range(1, K)]
    assert max(abs(a - b) for a, b in zip(null, spends)) < 1e-12, (K, code, alpha, null, spends)

    def expected(exits):
        return sum(e * t for e, t in zip(exits, fractions)) + (1 - sum(exits))

    values = [theta, sum(crossings(fractions, cs, theta, width, order)), (theta_gs / theta) ** 2,
              expected(effect), expected(null)]
    return values, (fractions, cs, theta_gs, effect, null)


def mvn_crossing(fractions, cs, theta):
    """P_theta(|Z_k| >= c_k for some k) from scipy's multivariate normal cdf (Genz)."""
    t = np.array(fractions)
    b = np.array(cs)
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    # abseps 1e-8 is ample for the 1e-6 check (1e-11, as in mvn_exits, costs minutes here).
    mvn = st.multivariate_normal(mean=theta * np.sqrt(t), cov=cov, maxpts=10**7, abseps=1e-8, releps=1e-8)
    return 1 - mvn.cdf(b, lower_limit=-b, rng=np.random.default_rng(12345))


LITERATURE = {  # K = 5, alpha = 0.05, power 0.8: (low, high) for the inflation factor
    0: (1.02, 1.035),  # Lan-DeMets O'Brien-Fleming type (classical O'Brien-Fleming: 1.026)
    1: (1.18, 1.24),   # Lan-DeMets Pocock type (classical Pocock: 1.207)
}


def gsd_plans():
    c = Cases()
    grid_gap = 0.0
    mvn_gap = 0.0
    shown = {}
    for code in (0, 1):
        for alpha in (0.01, 0.05, 0.1):
            for power in (0.8, 0.9):
                for K in (1, 2, 3, 4, 5, 6, 8, 10):
                    fine, (fractions, cs, theta_gs, effect, null) = plan(K, code, alpha, power, *FINE)
                    coarse, _ = plan(K, code, alpha, power, *COARSE)
                    gap = max(abs(a - b) for a, b in zip(coarse, fine))
                    assert gap < 1e-9, (K, code, alpha, power, coarse, fine)
                    grid_gap = max(grid_gap, gap)
                    theta, at_fixed, inflation, e_effect, e_null = fine
                    assert at_fixed <= power + 1e-12 and inflation >= 1 - 1e-12 and e_effect <= 1 and e_null <= 1
                    if K == 1:
                        assert abs(inflation - 1) < 1e-10 and abs(at_fixed - power) < 1e-10, (code, alpha, power, fine)
                        assert e_effect == 1 and e_null == 1
                    else:
                        assert abs(sum(null) - alpha) < 1e-12 and abs(sum(effect) - power) < 1e-11
                    if K <= 4:
                        for th, p in ((theta, at_fixed), (theta_gs, power)):
                            gap = abs(mvn_crossing(fractions, cs, th) - p)
                            assert gap < 1e-6, (K, code, alpha, power, th, gap)
                            mvn_gap = max(mvn_gap, gap)
                    if alpha == 0.05 and K == 5 and power == 0.8:
                        lo, hi = LITERATURE[code]
                        assert lo <= inflation <= hi, (code, inflation)
                    if alpha == 0.05 and 2 <= K <= 5:
                        shown[(code, power, K)] = inflation
                    c.add("gsd.plan", [K, code, alpha, power], fine)
    for code, name in ((0, "O'Brien-Fleming type"), (1, "Pocock type")):
        for power in (0.8, 0.9):
            print("  inflation, %s, alpha 0.05, power %.1f, K = 2..5: %s" % (
                name, power, " ".join("%.6f" % shown[(code, power, K)] for K in range(2, 6))))
    print("  max grid-size disagreement %.1e; multivariate normal (Genz) crossing probability, K <= 4: "
          "max disagreement %.1e" % (grid_gap, mvn_gap))
    return write("gsd_plans.json", c)


# ---------------------------------------------------------------- gbstats confidence sequences
def formula(alpha, tuning, relative, n_a, m_a, v_a, n_b, m_b, v_b):
    """[estimate, variance, lower, upper, p] written out from the formulas in the docstring."""
    if relative:
        d = (m_b - m_a) / m_a
        var = v_b / (m_a * m_a * n_b) + v_a * m_b * m_b / (m_a ** 4 * n_a)
    else:
        d = m_b - m_a
        var = v_a / n_a + v_b / n_b
    n = n_a + n_b
    rho2 = (-2 * math.log(alpha) + math.log(1 - 2 * math.log(alpha))) / tuning
    g = n * rho2 + 1
    # sqrt(V N) sqrt(2 g ln(sqrt(g)/alpha) / (N rho)^2), rearranged
    half = math.sqrt(var * 2 * g / (n * rho2) * (0.5 * math.log(g) - math.log(alpha)))
    p = min(1.0, math.exp(0.5 * math.log(g) - rho2 * n * d * d / (2 * var * g)))
    return [d, var, d - half, d + half, p], half


def gb(stat_a, stat_b, alpha, tuning, relative):
    test = SequentialTwoSidedTTest(stat_a, stat_b, SequentialConfig(
        alpha=alpha, sequential_tuning_parameter=tuning, difference_type="relative" if relative else "absolute"))
    res = test.compute_result()
    if res.error_message:
        return None
    assert res.expected == test.point_estimate and res.uplift.stddev == np.sqrt(test.variance)
    return [float(res.expected), float(test.variance), float(res.ci[0]), float(res.ci[1]), float(res.p_value)]


COMBOS = [(a, tu, r) for a in (0.05, 0.01, 0.1) for tu in (5000.0, 100.0, 1e5) for r in (1, 0)]


class Sequences:
    def __init__(self):
        self.c = Cases()
        self.skipped = 0
        self.worst = 0.0
        self.worst_bound = 0.0
        self.worst_plain = 0.0
        self.dual = 0

    def add(self, fn, args, ours, half, got):
        alpha = args[0]
        for i in (0, 1, 4):
            rel = abs(ours[i] - got[i]) / max(abs(ours[i]), abs(got[i]), 1e-300)
            assert rel <= 1e-12, (fn, args, i, ours, got, rel)
            self.worst = max(self.worst, rel)
        scale = abs(ours[0]) + half
        for i in (2, 3):
            rel = abs(ours[i] - got[i]) / scale
            assert rel <= 1e-12, (fn, args, i, ours, got, rel)
            self.worst_bound = max(self.worst_bound, rel)
            self.worst_plain = max(self.worst_plain, abs(ours[i] - got[i]) / max(abs(got[i]), 1e-300))
        # The interval and the p-value are dual: p < alpha exactly when 0 is outside the interval.
        if abs(abs(got[0]) - half) > 1e-9 * scale:
            assert (got[4] < alpha) == (got[2] > 0 or got[3] < 0), (fn, args, got)
            self.dual += 1
        self.c.add(fn, args, got)

    def proportion(self, alpha, tuning, relative, n_a, x_a, n_b, x_b):
        got = gb(ProportionStatistic(n=n_a, sum=float(x_a)), ProportionStatistic(n=n_b, sum=float(x_b)),
                 alpha, tuning, relative)
        if got is None:
            self.skipped += 1
            return
        m_a, m_b = x_a / n_a, x_b / n_b
        ours, half = formula(alpha, tuning, relative, n_a, m_a, m_a * (1 - m_a), n_b, m_b, m_b * (1 - m_b))
        self.add("gbstats.sequential.proportion", [alpha, tuning, relative, n_a, x_a, n_b, x_b], ours, half, got)

    def mean(self, alpha, tuning, relative, n_a, s_a, q_a, n_b, s_b, q_b):
        got = gb(SampleMeanStatistic(n=n_a, sum=s_a, sum_squares=q_a),
                 SampleMeanStatistic(n=n_b, sum=s_b, sum_squares=q_b), alpha, tuning, relative)
        if got is None:
            self.skipped += 1
            return
        v_a = (q_a - s_a * s_a / n_a) / (n_a - 1)
        v_b = (q_b - s_b * s_b / n_b) / (n_b - 1)
        ours, half = formula(alpha, tuning, relative, n_a, s_a / n_a, v_a, n_b, s_b / n_b, v_b)
        self.add("gbstats.sequential.mean", [alpha, tuning, relative, n_a, s_a, q_a, n_b, s_b, q_b], ours, half, got)


def log_uniform(rng, lo, hi):
    return math.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * rng.random())


def normal(rng):
    """A standard normal from one uniform (only rng.random(), whose stream numpy keeps stable)."""
    return float(sp.ndtri(rng.random() * (1 - 2e-12) + 1e-12))


def confidence_sequences():
    q = Sequences()
    # Hand-picked: identical arms (p capped at 1), a large effect, small and unbalanced arms,
    # degenerate arms gbstats refuses (zero conversions, all converted: skipped).
    for alpha, tuning, relative in [(0.05, 5000.0, 1), (0.05, 5000.0, 0), (0.1, 100.0, 1)]:
        q.proportion(alpha, tuning, relative, 10000, 500, 10000, 500)
        q.proportion(alpha, tuning, relative, 2_000_000, 100_000, 2_000_000, 103_000)
        q.proportion(alpha, tuning, relative, 50, 3, 73, 11)
        q.proportion(alpha, tuning, relative, 400, 0, 400, 5)
        q.proportion(alpha, tuning, relative, 60, 60, 60, 50)
    q.mean(0.05, 5000.0, 1, 1000, 2500.0, 20000.0, 1000, 2500.0, 20000.0)
    q.mean(0.05, 5000.0, 0, 1, 3.0, 9.0, 10, 20.0, 100.0)  # n = 1: zero variance, skipped

    rng = np.random.default_rng(20240611)
    for i in range(160):
        alpha, tuning, relative = COMBOS[i % len(COMBOS)]
        n_a = int(round(log_uniform(rng, 50, 2_000_000)))
        n_b = max(50, int(round(n_a * log_uniform(rng, 0.8, 1.25))))
        p_a = log_uniform(rng, 0.005, 0.6)
        se = math.sqrt((1 - p_a) / p_a * (1 / n_a + 1 / n_b))
        p_b = min(0.95, max(1e-4, p_a * (1 + (-7 + 14 * rng.random()) * se)))
        x_a = min(n_a, max(0, int(round(n_a * p_a + math.sqrt(n_a * p_a * (1 - p_a)) * normal(rng)))))
        x_b = min(n_b, max(0, int(round(n_b * p_b + math.sqrt(n_b * p_b * (1 - p_b)) * normal(rng)))))
        q.proportion(alpha, tuning, relative, n_a, x_a, n_b, x_b)

    for i in range(110):
        alpha, tuning, relative = COMBOS[(i + 5) % len(COMBOS)]
        n_a = int(round(log_uniform(rng, 50, 2_000_000)))
        n_b = max(50, int(round(n_a * log_uniform(rng, 0.8, 1.25))))
        mu_a = log_uniform(rng, 0.5, 200)
        sd_a = mu_a * log_uniform(rng, 0.3, 4)
        sd_b = sd_a * log_uniform(rng, 0.8, 1.25)
        se = math.sqrt(sd_a ** 2 / n_a + sd_b ** 2 / n_b)
        mu_b = mu_a + (-7 + 14 * rng.random()) * se
        stats = []
        for n, mu, sd in ((n_a, mu_a, sd_a), (n_b, mu_b, sd_b)):
            mean = mu + sd / math.sqrt(n) * normal(rng)
            var = (sd * (1 + 0.1 * normal(rng) / math.sqrt(n / 50))) ** 2
            total = n * mean
            stats += [n, total, (n - 1) * var + total * total / n]
        if stats[1] <= 0 or stats[4] <= 0:  # revenue-like data: a non-positive mean is not realistic
            q.skipped += 1
            continue
        q.mean(alpha, tuning, relative, *stats)

    print("  gbstats vs formula: max relative difference %.1e (estimate, variance, p), %.1e (ci bounds, "
          "relative to |estimate| + half-width; %.1e relative to the bound itself); %d skipped; duality checked "
          "on %d cases" % (q.worst, q.worst_bound, q.worst_plain, q.skipped, q.dual))
    counts = {}
    for case in q.c.cases:
        counts[case["fn"]] = counts.get(case["fn"], 0) + 1
    print("  " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    return write("confidence_sequences.json", q.c)


if __name__ == "__main__":
    total = group_sequential() + gsd_plans() + confidence_sequences()
    print("total %d cases" % total)
    if ref.MISMATCHED:
        sys.exit("fixtures differ from the committed files: " + ", ".join(ref.MISMATCHED))
