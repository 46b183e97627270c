"""Writes experiments/data/betfree-users.csv (a generated per-user export of a BetFree
paywall test) and users-reference.json: what `funnellab analyze --users-file` must report
on it, computed independently:

- Welch's t-test and CUPED's adjusted difference directly from the per-user values with
  numpy (theta = cov(y, x)/var(x) over all users pooled);
- Lin's interacted regression with statsmodels OLS(y, [1, T, x - mean, T(x - mean)]),
  cov_type HC1, the coefficient of T;
- the ratio revenue/purchases by the delta method, directly from the per-user values;
- the sample-ratio check: scipy.stats.chisquare, and the anytime-valid test of Lindon &
  Malek (2022) with optimizely's ssrm-test 0.1.5 (sequential_p_values, one batch per day,
  dirichlet_concentration 10000).

Run with a venv that has numpy, scipy, statsmodels and ssrm-test:
    python make_users_reference.py
"""
import json
import os

import numpy as np
import scipy.stats as st
import statsmodels.api as sm
from ssrm_test import ssrm_test

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
rng = np.random.default_rng(20261128)

ARMS = ["control", "defaultLifetime"]
N = {"control": 3000, "defaultLifetime": 3040}
PRICES = {"monthly": 9.99, "yearly": 39.99, "lifetime": 79.99}

rows = []
user = 0
for arm in ARMS:
    for _ in range(N[arm]):
        user += 1
        day = int(rng.integers(1, 15))
        pre = int(rng.poisson(rng.gamma(2.0, 3.0)))
        engaged = 1 / (1 + np.exp(-(-4.6 + 0.3 * pre)))
        buys = rng.random() < engaged
        if arm == "control":
            mix = [0.30, 0.55, 0.15]
        else:
            mix = [0.22, 0.38, 0.40]
        revenue = 0.0
        purchases = 0
        if buys:
            plan = rng.choice(["monthly", "yearly", "lifetime"], p=mix)
            revenue = PRICES[plan]
            purchases = 1
            if plan == "monthly" and rng.random() < 0.5:
                revenue += PRICES["monthly"]
                purchases += 1
        rows.append((user, day, arm, pre, purchases, round(revenue, 2)))

order = rng.permutation(len(rows))
rows = [rows[i] for i in order]
path = os.path.join(ROOT, "experiments", "data", "betfree-users.csv")
with open(path, "w") as f:
    f.write("user,day,arm,pre_sessions,purchases,revenue\n")
    for r in rows:
        f.write(f"u{r[0]},{r[1]},{r[2]},{r[3]},{r[4]},{r[5]:.2f}\n")

arm = np.array([r[2] for r in rows])
day = np.array([r[1] for r in rows])
x = np.array([r[3] for r in rows], dtype=float)
k = np.array([r[4] for r in rows], dtype=float)
y = np.array([r[5] for r in rows], dtype=float)
c, t = arm == "control", arm == "defaultLifetime"

ref = {}
# Welch
d = y[t].mean() - y[c].mean()
v1, v0 = y[t].var(ddof=1) / t.sum(), y[c].var(ddof=1) / c.sum()
se = np.sqrt(v1 + v0)
df = (v1 + v0) ** 2 / (v1**2 / (t.sum() - 1) + v0**2 / (c.sum() - 1))
q = st.t.ppf(0.975, df)
ref["welch"] = dict(difference=d, standardError=se, degreesOfFreedom=df, pValue=2 * st.t.sf(abs(d / se), df),
                    lower=d - q * se, upper=d + q * se)
# CUPED, directly
theta = np.cov(y, x, ddof=1)[0, 1] / np.var(x, ddof=1)
adj = y - theta * x
d = adj[t].mean() - adj[c].mean()
v1, v0 = adj[t].var(ddof=1) / t.sum(), adj[c].var(ddof=1) / c.sum()
se = np.sqrt(v1 + v0)
df = (v1 + v0) ** 2 / (v1**2 / (t.sum() - 1) + v0**2 / (c.sum() - 1))
q = st.t.ppf(0.975, df)
ref["cuped"] = dict(theta=theta, difference=d, standardError=se, degreesOfFreedom=df,
                    pValue=2 * st.t.sf(abs(d / se), df), lower=d - q * se, upper=d + q * se)
# Lin, statsmodels OLS HC1
T = t.astype(float)
xc = x - x.mean()
X = np.column_stack([np.ones_like(y), T, xc, T * xc])
fit = sm.OLS(y, X).fit(cov_type="HC1")
ci = fit.conf_int(0.05)[1]
ref["lin"] = dict(difference=fit.params[1], standardError=fit.bse[1], pValue=fit.pvalues[1], lower=ci[0], upper=ci[1],
                  standardErrorType="HC1")
# Ratio revenue/purchases, delta method
def ratio_arm(m):
    n = m.sum()
    mx, my = y[m].mean(), k[m].mean()
    cov = np.cov(y[m], k[m], ddof=1)
    r = mx / my
    return r, (cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / (n * my * my), n
r0, var0, n0 = ratio_arm(c)
r1, var1, n1 = ratio_arm(t)
se = np.sqrt(var0 + var1)
df = (var0 + var1) ** 2 / (var1**2 / (n1 - 1) + var0**2 / (n0 - 1))
q = st.t.ppf(0.975, df)
ref["ratio"] = dict(control=r0, treatment=r1, difference=r1 - r0, standardError=se, degreesOfFreedom=df,
                    pValue=2 * st.t.sf(abs((r1 - r0) / se), df), lower=r1 - r0 - q * se, upper=r1 - r0 + q * se)
# Sample ratio: chi-square and the sequential test by day
counts = [int(c.sum()), int(t.sum())]
ref["srm"] = dict(chiSquare=st.chisquare(counts).statistic, pValue=st.chisquare(counts).pvalue)
daily = np.array([[int(((day == dd) & c).sum()), int(((day == dd) & t).sum())] for dd in range(1, 15)])
seq = ssrm_test.sequential_p_values(daily, np.array([0.5, 0.5]), dirichlet_concentration=10000)
ref["srm"]["sequentialPValues"] = [float(p) for p in seq]
ref = json.loads(json.dumps(ref, default=float))
with open(os.path.join(HERE, "users-reference.json"), "w") as f:
    json.dump(ref, f, indent=1, sort_keys=True)
    f.write("\n")
print(json.dumps(ref, indent=1))
