#!/usr/bin/env python3
"""Generate adjustment.json (Lin's interacted regression adjustment, against statsmodels OLS)
and cuped_gbstats.json (GrowthBook gbstats' CUPED and its unadjusted t test).

Run from anywhere:  python3 Tests/FunnelStatsTests/Fixtures/make_adjustment_reference.py [--check]
(needs numpy, scipy, statsmodels and gbstats 0.8.0:
 python3 -m venv venv && venv/bin/pip install numpy scipy statsmodels gbstats==0.8.0).
With --check nothing is written: both files are regenerated in memory and the script exits
with status 1 unless each is byte-identical to the committed one.
Deterministic: numpy Generators with fixed seeds; the same library versions reproduce both
files byte for byte. Numbers are plain JSON numbers written by Python's json (floats as repr,
so they round-trip exactly); one case per line.

adjustment.json — each case is a two-arm experiment given user by user:
  control/treatment: {"y": [...], "z": [[z_1..z_q], ...]}  (q = 1..3, the same for every user)
  adjusted:   statsmodels OLS(y, X) with X = [1, T, zc_1..zc_q, T*zc_1..T*zc_q], T = 1 in the
              treatment, zc = z - pooled_mean (the mean of z over both arms together);
              difference = the coefficient of T, se_hc0..se_hc3 = its bse under cov_type
              'HC0'..'HC3', se_nonrobust = its bse of the default (nonrobust) fit.
  unadjusted: OLS(y, [1, T]) with the same covariance types (difference = mean_t - mean_c).
  pooled_mean: the z̄ used for centring.   max_leverage: the largest hat value of X (for
  tolerances; HC3 divides by (1 - h)^2).   kind: how the case was drawn.
  Cases whose per-arm design [1, z] is rank deficient, with a leverage >= 1 - 1e-9, with y
  constant within an arm, or whose equilibrated per-arm normal equations have a Cholesky
  pivot below 1e-9 are redrawn. Before writing, every case is recomputed independently in
  numpy from two per-arm regressions on [1, z - pooled_mean] (tau = difference of the
  intercepts; HC_k variance = sum of the arms' intercept sandwich variances, HC1 times
  n/(n - 2(1 + q)); nonrobust = pooled s^2 times the sum of the arms' (Z'Z)^-1[0,0]) and must
  agree with statsmodels to 1e-9 relative.

cuped_gbstats.json — gbstats 0.8.0 regression adjustment (statistic_type "mean_ra") from
  per-arm sufficient statistics drawn from realistic per-user data (pre-period covariate x and
  metric y correlated through a shared latent), n = 200..200,000 per arm:
  inputs:  per arm n, post {type: "proportion" | "mean", sum[, sum_squares]}, pre {same},
           post_pre_sum_of_products (Σxy); alpha.
  outputs: theta (compute_theta, pooled over both arms), reverted (gbstats fell back to the
           unadjusted statistic because theta == 0), per arm the adjusted mean and the
           per-UNIT variance as gbstats defines them, and TwoSidedTTest(difference_type=
           "absolute") results (expected, ci, p_value, uplift_stddev, t, dof, error_message);
           the same test on the unadjusted post statistics ("unadjusted"), and both again with
           difference_type "relative" (extra, for reference).
  gbstats 0.8.0 has no post-stratification (no 'strat' anywhere in its source), so the file's
  "post_stratification" is null.
"""
import json
import os
import sys

import numpy as np
import scipy
import statsmodels
from statsmodels.regression.linear_model import OLS

try:
    import gbstats
    from gbstats.frequentist.tests import FrequentistConfig, TwoSidedTTest
    from gbstats.models.statistics import (
        ProportionStatistic,
        RegressionAdjustedStatistic,
        SampleMeanStatistic,
        compute_theta,
    )
except ImportError:  # pragma: no cover
    sys.exit("gbstats is required: venv/bin/pip install gbstats==0.8.0")

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = "--check" in sys.argv
MISMATCHED = []
VERSIONS = "statsmodels %s, numpy %s, scipy %s, python %d.%d" % (
    (statsmodels.__version__, np.__version__, scipy.__version__) + sys.version_info[:2])
GENERATOR = "Tests/FunnelStatsTests/Fixtures/make_adjustment_reference.py"


def num(x):
    """A JSON-ready number: ints stay ints, everything else a Python float (repr round trip)."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    x = float(x)
    assert np.isfinite(x), x
    return x


def column(values, integral):
    return [int(v) for v in values] if integral else [float(v) for v in values]


def rows(z, ints):
    """Per-user covariate vectors; integer columns written as ints."""
    return [[int(v) if ints[j] else float(v) for j, v in enumerate(r)] for r in z]


def write(name, header, cases, trailer=None):
    """One case per line; with --check compare against the committed file instead."""
    lines = [json.dumps(c, sort_keys=True, separators=(",", ":")) for c in cases]
    text = "{%s,\n\"cases\": [\n%s\n]" % (json.dumps(header, sort_keys=True)[1:-1], ",\n".join(lines))
    if trailer:
        text += ",\n" + json.dumps(trailer, sort_keys=True)[1:-1]
    text += "}\n"
    json.loads(text)  # well-formed
    path = os.path.join(HERE, name)
    if CHECK:
        with open(path) as f:
            same = f.read() == text
        if not same:
            MISMATCHED.append(name)
        print("%-22s %4d cases %8d bytes %s" % (name, len(cases), len(text), "identical" if same else "DIFFERS"))
    else:
        with open(path, "w") as f:
            f.write(text)
        print("%-22s %4d cases %8d bytes" % (name, len(cases), len(text)))


# ================================================================ Lin's adjustment
def logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


def stratum(rng, n, levels):
    """A stratum label per user; every level at least twice, the rest at uneven rates."""
    rates = rng.dirichlet(np.full(levels, 3.0))
    lab = np.concatenate([np.repeat(np.arange(levels), 2), rng.choice(levels, size=n - 2 * levels, p=rates)])
    rng.shuffle(lab)
    return lab


def dummies(lab, levels):
    return np.stack([(lab == k).astype(np.int64) for k in range(1, levels)], axis=1)


def draw_z(rng, kind, n, p):
    """Covariates for one arm of n users; p holds the case's fixed distribution parameters.
    Returns (z as float array n x q, integral flag per column)."""
    cols, ints = [], []
    if kind == "poisson":
        for m in p["means"][:p["q"]]:
            cols.append(rng.poisson(m, size=n)); ints.append(True)
    elif kind == "normal":
        for mu, sd in p["normals"][:p["q"]]:
            cols.append(np.round(rng.normal(mu, sd, size=n), 4)); ints.append(False)
    elif kind == "poisson+normal":
        cols.append(rng.poisson(p["means"][0], size=n)); ints.append(True)
        mu, sd = p["normals"][0]
        cols.append(np.round(rng.normal(mu, sd, size=n), 4)); ints.append(False)
        if p["q"] == 3:
            cols.append(rng.poisson(p["means"][1], size=n)); ints.append(True)
    elif kind == "strata":
        d = dummies(stratum(rng, n, p["levels"]), p["levels"])
        cols.extend(d.T); ints.extend([True] * d.shape[1])
    elif kind == "strata+poisson":
        d = dummies(stratum(rng, n, 3), 3)
        cols.extend(d.T); ints.extend([True, True])
        cols.append(rng.poisson(p["means"][0], size=n)); ints.append(True)
    elif kind == "large":
        # magnitudes 1e3..1e4: a Poisson count and/or a rounded normal
        cols.append(rng.poisson(p["big"], size=n)); ints.append(True)
        if p["q"] >= 2:
            cols.append(np.round(rng.normal(p["big2"], 0.2 * p["big2"], size=n), 1)); ints.append(False)
    elif kind == "collinear":
        base = rng.normal(0.0, 1.0, size=n)
        if p["variant"] == 0:     # two normals, z2 = z1 + tiny noise
            z1 = np.round(base, 6)
            z2 = np.round(base + p["eps"] * rng.normal(size=n), 6)
            cols += [z1, z2]; ints += [False, False]
        elif p["variant"] == 1:   # integer: a count and the count plus a rare extra
            z1 = rng.poisson(p["means"][0], size=n)
            z2 = z1 + (rng.random(size=n) < 0.08)
            cols += [z1, z2]; ints += [True, True]
        else:                      # three normals, z3 = z1 + z2 + tiny noise
            z1 = np.round(base, 6)
            z2 = np.round(rng.normal(2.0, 0.5, size=n), 6)
            z3 = np.round(z1 + z2 + p["eps"] * rng.normal(size=n), 6)
            cols += [z1, z2, z3]; ints += [False, False, False]
    else:
        raise ValueError(kind)
    z = np.stack([np.asarray(c, dtype=float) for c in cols], axis=1)
    assert z.shape[1] == p["q"], (kind, z.shape)
    return z, ints


def draw_y(rng, ykind, s, treat, p):
    n = len(s)
    eff = p["effect"] * treat
    if ykind == "binary":
        return rng.binomial(1, logistic(p["a"] + s + eff)).astype(np.int64), True
    if ykind == "revenue":  # zero-inflated lognormal, in cents
        buy = rng.random(size=n) < logistic(p["a"] + 0.7 * s + eff)
        amount = np.exp(p["mu"] + 0.4 * s + p["sigma"] * rng.normal(size=n))
        return np.round(np.where(buy, amount, 0.0), 2), False
    if ykind == "lognormal":
        return np.round(np.exp(p["mu"] + 0.5 * s + eff + p["sigma"] * rng.normal(size=n)), 2), False
    if ykind == "normal":
        return np.round(p["mu"] + p["slope"] * s + eff + p["sigma"] * rng.normal(size=n), 4), False
    if ykind == "count":
        return rng.poisson(np.exp(p["a"] + 0.5 * s + 0.3 * eff)).astype(np.int64), True
    if ykind == "large":  # y ~ 1e2
        return np.round(100.0 + 8.0 * s + 3.0 * eff + p["sigma"] * rng.normal(size=n), 3), False
    raise ValueError(ykind)


def equilibrated_min_pivot(a):
    """The smallest Cholesky pivot of D^-1 A D^-1, D = diag(sqrt(a_ii)) (what a careful
    double-precision solver sees)."""
    d = np.sqrt(np.diag(a))
    m = a / np.outer(d, d)
    l = np.linalg.cholesky(m)
    return float(np.min(np.diag(l)) ** 2)


def lin_numpy(yc, zc, yt, zt, zbar):
    """Lin's estimator and its standard errors from two per-arm regressions (independent of
    statsmodels)."""
    q = zc.shape[1]
    n = len(yc) + len(yt)
    k = 2 * (1 + q)
    per = []
    for y, z in ((yc, zc), (yt, zt)):
        Z = np.column_stack([np.ones(len(y)), z - zbar])
        bread = np.linalg.inv(Z.T @ Z)
        beta = bread @ (Z.T @ y)
        e = y - Z @ beta
        h = np.einsum("ij,jk,ik->i", Z, bread, Z)
        row = bread[0] @ Z.T  # the intercept's row of (Z'Z)^-1 Z'
        per.append(dict(b0=beta[0], ssr=float(e @ e), b00=bread[0, 0],
                        v0=float(np.sum(row ** 2 * e ** 2)),
                        v2=float(np.sum(row ** 2 * e ** 2 / (1 - h))),
                        v3=float(np.sum(row ** 2 * e ** 2 / (1 - h) ** 2))))
    c, t = per
    s2 = (c["ssr"] + t["ssr"]) / (n - k)
    return dict(difference=t["b0"] - c["b0"],
                se_hc0=np.sqrt(c["v0"] + t["v0"]),
                se_hc1=np.sqrt(n / (n - k) * (c["v0"] + t["v0"])),
                se_hc2=np.sqrt(c["v2"] + t["v2"]),
                se_hc3=np.sqrt(c["v3"] + t["v3"]),
                se_nonrobust=np.sqrt(s2 * (c["b00"] + t["b00"])))


def ols_summary(y, X, col, with_nonrobust):
    out = {"difference": float(OLS(y, X).fit().params[col])}
    for ct in ("HC0", "HC1", "HC2", "HC3"):
        out["se_" + ct.lower()] = float(OLS(y, X).fit(cov_type=ct).bse[col])
    if with_nonrobust:
        out["se_nonrobust"] = float(OLS(y, X).fit().bse[col])
    return out


def lin_specs(rng):
    """The list of (zkind, ykind, params) of every case, in order."""
    specs = []
    zkinds = [("poisson", 1), ("normal", 1), ("poisson+normal", 2), ("poisson+normal", 3),
              ("strata", 2), ("strata", 1), ("strata", 3), ("strata+poisson", 3),
              ("poisson", 2), ("normal", 3), ("poisson", 3), ("normal", 2)]
    other = ["revenue", "normal", "count", "lognormal"]
    for i in range(256):
        zkind, q = zkinds[i % len(zkinds)]
        ykind = "binary" if i % 2 == 0 else other[(i // 2) % len(other)]
        specs.append((zkind, q, ykind))
    # conditioning: large magnitudes, near-collinear columns
    for i in range(10):
        specs.append(("large", 1 + i % 2, "large" if i % 3 else "binary"))
    for i in range(12):
        specs.append(("collinear", [2, 2, 3][i % 3], ["normal", "binary", "count", "revenue"][i % 4]))
    order = rng.permutation(len(specs))
    return [specs[j] for j in order]


def case_params(rng, zkind, q, ykind, i):
    p = {"q": q}
    p["means"] = list(np.exp(rng.uniform(np.log(0.5), np.log(30.0), size=3)))
    p["normals"] = [(rng.uniform(-5, 5), rng.uniform(0.3, 4.0)) for _ in range(3)]
    p["levels"] = q + 1
    p["big"] = rng.uniform(1e3, 1e4)
    p["big2"] = rng.uniform(1e3, 1e4)
    p["variant"] = {2: i % 2, 3: 2}[q] if zkind == "collinear" else 0
    p["eps"] = 10.0 ** rng.uniform(-3.0, -2.0)
    p["b"] = rng.normal(0.0, 0.8, size=q)
    p["a"] = rng.uniform(-2.0, 0.5) if ykind != "count" else rng.uniform(-0.5, 2.0)
    p["effect"] = rng.normal(0.0, 0.3)
    p["mu"] = rng.uniform(1.0, 4.0)
    p["sigma"] = rng.uniform(0.3, 1.2) if ykind in ("revenue", "lognormal") else rng.uniform(0.5, 10.0)
    p["slope"] = rng.uniform(-3.0, 3.0)
    return p


def arm_sizes(rng, zkind, q):
    lo = 6
    if zkind == "strata":
        lo = max(6, 2 * (q + 1))
    if zkind in ("large", "collinear"):
        lo = 10
    def one():
        if rng.random() < 0.25:
            return int(rng.integers(lo, 16))
        return int(rng.integers(max(lo, 16), 151))
    return one(), one()


def lin_cases():
    rng = np.random.default_rng(20261201)
    specs = lin_specs(rng)
    cases = []
    worst = dict(rel=0.0, pivot=1.0, leverage=0.0, redraws=0)
    for i, (zkind, q, ykind) in enumerate(specs):
        p = case_params(rng, zkind, q, ykind, i)
        while True:
            n_c, n_t = arm_sizes(rng, zkind, q)
            zc, ints = draw_z(rng, zkind, n_c, p)
            zt, _ = draw_z(rng, zkind, n_t, p)
            z = np.vstack([zc, zt])
            sd = z.std(axis=0)
            if np.any(sd == 0):
                worst["redraws"] += 1
                continue
            s = ((z - z.mean(axis=0)) / sd) @ p["b"]
            yc, yint = draw_y(rng, ykind, s[:n_c], 0, p)
            yt, _ = draw_y(rng, ykind, s[n_c:], 1, p)
            if np.ptp(yc) == 0 or np.ptp(yt) == 0:
                worst["redraws"] += 1
                continue
            ok = True
            zbar = z.mean(axis=0)
            pivots = []
            for za in (zc, zt):
                for Z in (np.column_stack([np.ones(len(za)), za]), np.column_stack([np.ones(len(za)), za - zbar])):
                    if np.linalg.matrix_rank(Z) < 1 + q:
                        ok = False
                        break
                    pivots.append(equilibrated_min_pivot(Z.T @ Z))
                if not ok:
                    break
            if not ok or min(pivots) < 1e-9:
                worst["redraws"] += 1
                continue
            T = np.concatenate([np.zeros(n_c), np.ones(n_t)])
            y = np.concatenate([yc, yt]).astype(float)
            centred = z - zbar
            X = np.column_stack([np.ones(n_c + n_t), T, centred, T[:, None] * centred])
            Q, _ = np.linalg.qr(X)
            lev = np.sum(Q * Q, axis=1)
            if lev.max() >= 1 - 1e-9:
                worst["redraws"] += 1
                continue
            break
        adjusted = ols_summary(y, X, 1, True)
        unadjusted = ols_summary(y, np.column_stack([np.ones(n_c + n_t), T]), 1, False)
        # independent recomputation
        mine = lin_numpy(yc.astype(float), zc, yt.astype(float), zt, zbar)
        for key, v in mine.items():
            rel = abs(v - adjusted[key]) / max(abs(adjusted[key]), 1e-300)
            if key == "difference":
                rel = abs(v - adjusted[key]) / max(abs(adjusted[key]), adjusted["se_hc0"])
            worst["rel"] = max(worst["rel"], rel)
            assert rel < 1e-9, (i, key, v, adjusted[key])
        # unadjusted: HC0 is the plug-in (biased) variance, HC2 is Welch's s^2/n
        v0 = np.var(yc) / n_c + np.var(yt) / n_t
        v2 = np.var(yc, ddof=1) / n_c + np.var(yt, ddof=1) / n_t
        assert abs(np.sqrt(v0) / unadjusted["se_hc0"] - 1) < 1e-10
        assert abs(np.sqrt(v2) / unadjusted["se_hc2"] - 1) < 1e-10
        assert abs(yt.mean() - yc.mean() - unadjusted["difference"]) <= 1e-10 * max(1.0, abs(yt.mean()))
        worst["pivot"] = min(worst["pivot"], min(pivots))
        worst["leverage"] = max(worst["leverage"], float(lev.max()))
        cases.append({
            "name": "lin-%04d" % (i + 1),
            "kind": "%s/%s/q%d" % (zkind, ykind, q),
            "control": {"y": column(yc, yint), "z": rows(zc, ints)},
            "treatment": {"y": column(yt, yint), "z": rows(zt, ints)},
            "unadjusted": {k: num(v) for k, v in unadjusted.items()},
            "adjusted": {k: num(v) for k, v in adjusted.items()},
            "pooled_mean": [num(v) for v in zbar],
            "max_leverage": num(lev.max()),
        })
    print("lin: %d cases, %d redraws; numpy vs statsmodels max rel diff %.3g; min equilibrated pivot %.3g; "
          "max leverage %.12g" % (len(cases), worst["redraws"], worst["rel"], worst["pivot"], worst["leverage"]))
    header = {"generator": "%s (%s)" % (GENERATOR, VERSIONS)}
    write("adjustment.json", header, cases)
    return cases


# ================================================================ gbstats CUPED
def base_stat(kind, s, ss, n):
    if kind == "proportion":
        return ProportionStatistic(n=n, sum=s)
    return SampleMeanStatistic(n=n, sum=s, sum_squares=ss)


def arm_inputs_to_stats(arm, post_kind, pre_kind):
    n = arm["n"]
    post = base_stat(post_kind, arm["post"]["sum"], arm["post"].get("sum_squares"), n)
    pre = base_stat(pre_kind, arm["pre"]["sum"], arm["pre"].get("sum_squares"), n)
    return post, pre


def run_test(a, b, difference_type, alpha):
    test = TwoSidedTTest(a, b, FrequentistConfig(difference_type=difference_type, alpha=alpha))
    res = test.compute_result()
    out = {"expected": num(res.expected), "ci": [num(res.ci[0]), num(res.ci[1])], "p_value": num(res.p_value),
           "uplift_stddev": num(res.uplift.stddev), "error_message": res.error_message}
    if res.error_message is None:
        out["t"] = num(test.critical_value)
        out["dof"] = num(test.dof)
        out["variance"] = num(test.variance)
    return test, out


def gb_draw(rng, spec, n, treat):
    """Per-user (x, y) for one arm; x pre-period covariate, y metric."""
    yk, xk, p = spec["y"], spec["x"], spec["p"]
    u = rng.normal(size=n)  # shared latent (user propensity)
    if xk == "poisson":
        x = rng.poisson(p["xmean"] * np.exp(p["rho"] * u - 0.5 * p["rho"] ** 2))
    elif xk == "binary":
        x = rng.binomial(1, logistic(p["xa"] + 1.5 * p["rho"] * u))
    elif xk == "revenue":
        x = np.round(np.where(rng.random(n) < logistic(p["xa"] + 1.5 * p["rho"] * u),
                              np.exp(p["mu"] + 0.5 * u + 0.8 * rng.normal(size=n)), 0.0), 2)
    elif xk == "zero":
        x = np.zeros(n, dtype=np.int64)
    elif xk == "one":
        x = np.ones(n, dtype=np.int64)
    else:
        raise ValueError(xk)
    eff = p["effect"] * treat
    if yk in ("binary", "binary-as-mean"):
        y = rng.binomial(1, logistic(p["ya"] + p["beta"] * u + eff))
    elif yk == "revenue":
        buy = rng.random(n) < logistic(p["ya"] + p["beta"] * u + eff)
        y = np.round(np.where(buy, np.exp(p["mu"] + 0.5 * u + 0.8 * rng.normal(size=n)), 0.0), 2)
    elif yk == "count":
        y = rng.poisson(np.exp(p["ya"] + 0.5 * p["beta"] * u + 0.3 * eff))
    elif yk == "zero":
        y = np.zeros(n, dtype=np.int64)
    else:
        raise ValueError(yk)
    return x, y


def sums(v):
    if v.dtype.kind in "iu":
        return int(v.sum()), int((v * v).sum())
    return float(v.sum()), float((v * v).sum())


def gb_cases():
    rng = np.random.default_rng(20261202)
    combos = [("binary", "poisson"), ("binary", "binary"), ("revenue", "poisson"), ("revenue", "revenue"),
              ("count", "poisson"), ("binary-as-mean", "poisson"), ("binary", "revenue"), ("count", "count")]
    specs = []
    for i in range(88):
        yk, xk = combos[i % len(combos)]
        if xk == "count":
            xk = "poisson"
        specs.append({"y": yk, "x": xk})
    # edge cases: no covariate variance (theta = 0, gbstats falls back to the plain test),
    # a zero baseline (gbstats' default output)
    specs += [{"y": "binary", "x": "zero"}, {"y": "revenue", "x": "one"},
              {"y": "count", "x": "zero"}, {"y": "zero", "x": "poisson"}]
    cases = []
    for i, spec in enumerate(specs):
        spec["p"] = {
            "xmean": float(np.exp(rng.uniform(np.log(0.5), np.log(30.0)))),
            "rho": rng.uniform(0.5, 1.5), "xa": rng.uniform(-3.0, 0.5),
            "ya": rng.uniform(-4.0, 0.0) if spec["y"] != "count" else rng.uniform(-1.0, 1.5),
            "beta": rng.uniform(0.8, 2.5), "mu": rng.uniform(1.5, 4.0),
        }
        post_kind = "proportion" if spec["y"] in ("binary", "zero") else "mean"
        pre_kind = "proportion" if spec["x"] == "binary" else "mean"
        if spec["y"] == "zero":
            sizes = (int(rng.integers(200, 400)), int(rng.integers(200, 400)))
        else:
            n_c = int(round(np.exp(rng.uniform(np.log(200), np.log(200_000)))))
            ratio = float(np.exp(rng.uniform(np.log(0.5), np.log(2.0)))) if rng.random() < 0.7 else 1.0
            n_t = int(min(200_000, max(200, round(n_c * ratio))))
            sizes = (n_c, n_t)
        # the effect (on the latent scale) mostly within a few standard errors; every
        # seventh case a large one (tiny p-values, some exactly 0: gbstats takes 2(1 - cdf))
        if i % 7 == 6:
            spec["p"]["effect"] = rng.choice([-1.0, 1.0]) * rng.uniform(0.15, 0.4)
        else:
            spec["p"]["effect"] = rng.normal(0.0, 1.5) * 6.0 / np.sqrt(sizes[0])
        arms = []
        for treat, n in enumerate(sizes):
            x, y = gb_draw(rng, spec, n, treat)
            sy, syy = sums(y)
            sx, sxx = sums(x)
            if x.dtype.kind in "iu" and y.dtype.kind in "iu":
                sxy = int((x * y).sum())
            else:
                sxy = float((x.astype(float) * y.astype(float)).sum())
            post = {"type": post_kind, "sum": sy}
            if post_kind == "mean":
                post["sum_squares"] = syy
            pre = {"type": pre_kind, "sum": sx}
            if pre_kind == "mean":
                pre["sum_squares"] = sxx
            arms.append({"n": n, "post": post, "pre": pre, "post_pre_sum_of_products": sxy})
        alpha = 0.05

        def ra_pair():
            out = []
            for arm in arms:
                post, pre = arm_inputs_to_stats(arm, post_kind, pre_kind)
                out.append(RegressionAdjustedStatistic(n=arm["n"], post_statistic=post, pre_statistic=pre,
                                                       post_pre_sum_of_products=arm["post_pre_sum_of_products"],
                                                       theta=0))
            return out

        a, b = ra_pair()
        theta = compute_theta(a, b)
        test, adj = run_test(a, b, "absolute", alpha)
        reverted = not isinstance(test.stat_a, RegressionAdjustedStatistic)
        adj["reverted"] = reverted
        for label, st_ in (("control", test.stat_a), ("treatment", test.stat_b)):
            adj[label] = {"mean": num(st_.mean), "variance": num(st_.variance),
                          "unadjusted_mean": num(st_.unadjusted_mean)}
        a, b = ra_pair()
        _, adj_rel = run_test(a, b, "relative", alpha)
        pa, pb = (arm_inputs_to_stats(arm, post_kind, pre_kind)[0] for arm in arms)
        test_u, unadj = run_test(pa, pb, "absolute", alpha)
        for label, st_ in (("control", test_u.stat_a), ("treatment", test_u.stat_b)):
            unadj[label] = {"mean": num(st_.mean), "variance": num(st_.variance)}
        pa, pb = (arm_inputs_to_stats(arm, post_kind, pre_kind)[0] for arm in arms)
        _, unadj_rel = run_test(pa, pb, "relative", alpha)
        for d in (adj_rel, unadj_rel):
            for k in ("t", "dof", "variance"):
                d.pop(k, None)
        cases.append({
            "name": "cuped-%04d" % (i + 1),
            "kind": "y %s / x %s" % (spec["y"], spec["x"]),
            "alpha": alpha,
            "control": arms[0], "treatment": arms[1],
            "theta": num(theta),
            "adjusted": adj, "unadjusted": unadj,
            "adjusted_relative": adj_rel, "unadjusted_relative": unadj_rel,
        })
    header = {"generator": "%s (gbstats %s, %s)" % (GENERATOR, gbstats.__version__, VERSIONS),
              "difference_type": "absolute (the *_relative keys: relative)",
              "variance": "per arm: gbstats Statistic.variance, the variance of ONE unit (divide by n for the mean)"}
    trailer = {"post_stratification": None,
               "notes": "gbstats %s has no post-stratification (no 'strat' in its source)." % gbstats.__version__}
    write("cuped_gbstats.json", header, cases, trailer)
    print("cuped: %d cases (%d reverted to unadjusted, %d with an error message)" % (
        len(cases), sum(c["adjusted"]["reverted"] for c in cases),
        sum(c["adjusted"]["error_message"] is not None for c in cases)))
    return cases


# ================================================================ Cochran's Q

def heterogeneity_cases():
    """Cochran's Q across strata: statsmodels combine_effects (fixed effect)."""
    from statsmodels.stats.meta_analysis import combine_effects
    from scipy.stats import chi2 as scipy_chi2
    rng = np.random.default_rng(20261126)
    cases = []
    for i in range(60):
        k = int(rng.integers(2, 9))
        se = rng.uniform(0.001, 0.05, k) * (10.0 ** rng.integers(-2, 3))
        spread = [0.0, 0.5, 1.0, 3.0][i % 4]
        effects = rng.normal(0.01, 1, k) * se * spread + rng.normal(0, 1, k) * se
        res = combine_effects(effects, se ** 2, method_re="chi2")
        q = float(res.q)
        cases.append({"name": "q-%03d" % (i + 1), "effects": [num(e) for e in effects], "se": [num(x) for x in se],
                      "q": num(q), "df": k - 1, "p": num(float(scipy_chi2.sf(q, k - 1))), "i2": num(float(res.i2)),
                      "pooled": num(float(res.mean_effect_fe)), "pooled_se": num(float(np.sqrt(res.var_eff_w_fe)))})
    import statsmodels
    write("heterogeneity.json", {"generator": "statsmodels %s combine_effects; scipy chi2.sf" % statsmodels.__version__}, cases)
    return cases


if __name__ == "__main__":
    lin_cases()
    gb_cases()
    heterogeneity_cases()
    if MISMATCHED:
        sys.exit("fixtures differ from the committed files: " + ", ".join(MISMATCHED))
