#!/usr/bin/env python3
"""Klick onboarding, control variant, as a straightforward numpy-vectorised script.

This is the baseline a user would otherwise write: explicit transition probabilities
for every state of the chain, users simulated in batches of arrays, one vectorised
step at a time. The probabilities are not typed in by hand: they are read from
`out/klick-control-chain.json`, which `funnel-baseline export` writes from
FunnelLab's compiled tables (`CompiledFlow.outcomeProbabilities`), so they equal
what FunnelLab's model implies for the control variant, state by state:

    state = (segment, intent bin, screens seen (saturated), personalized flag, screen)

Dwell times are drawn uniformly from the same 1024 equiprobable lognormal quantiles
FunnelLab uses, so mean times are comparable to well within sampling error.

The script then compares its completion rate, conversion rate, plan mix and mean
time to complete with FunnelLab's (`out/klick-control-funnellab.json`, same number
of users, independent random numbers) by z-scores, and reports the throughput ratio
FunnelLab (one thread) / numpy. Exit status 1 when any |z| exceeds 4.

    python3 baseline/klick_numpy.py [--users N] [--runs R] [--batch B] [--out DIR]
"""

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np


def load_chain(path):
    c = json.loads(Path(path).read_text())
    S, B, L, N, K = len(c["segments"]), c["traitBins"], c["seenLevels"], len(c["screens"]), c["stride"]
    p = np.asarray(c["probabilities"], dtype=np.float64).reshape(S * B * L * 2 * N, K)
    cum = np.cumsum(p, axis=1)
    counts = np.array([len(t) for t in c["outcomeTarget"]])
    # The last real outcome of a screen takes everything above the previous threshold.
    screen_of_row = np.tile(np.arange(N), S * B * L * 2)
    last = counts[screen_of_row] - 1
    cum[np.arange(K)[None, :] >= last[:, None]] = 2.0

    def padded(rows, fill, dtype):
        return np.array([r + [fill] * (K - len(r)) for r in rows], dtype=dtype).reshape(-1)

    dwell = np.zeros((N, 1024), dtype=np.float64)
    for i, table in enumerate(c["dwellMillis"]):
        if table:
            dwell[i] = table
    return dict(
        S=S, B=B, L=L, N=N, K=K, cum=cum,
        seg_cum=np.cumsum(c["segmentProbabilities"]),
        target=padded(c["outcomeTarget"], -2, np.int64),
        plan=padded(c["outcomePlan"], -1, np.int64),
        personalizes=padded(c["outcomePersonalizes"], False, np.int64),
        dwell=dwell, start=c["start"], step_limit=c["stepLimit"], plans=c["plans"],
    )


def simulate(ch, users, rng, batch):
    """Walks `users` users; returns completed, purchasers, plan counts and time sums."""
    S, B, L, N, K = ch["S"], ch["B"], ch["L"], ch["N"], ch["K"]
    completed = 0
    plan_counts = np.zeros(len(ch["plans"]), dtype=np.int64)
    sum_s = 0.0
    sum_s2 = 0.0
    done_users = 0
    while done_users < users:
        n = min(batch, users - done_users)
        done_users += n
        seg = np.minimum(np.searchsorted(ch["seg_cum"], rng.random(n), side="right"), S - 1)
        cell = (seg * B + rng.integers(0, B, n)) * L
        seen = np.zeros(n, dtype=np.int64)
        pers = np.zeros(n, dtype=np.int64)
        screen = np.full(n, ch["start"], dtype=np.int64)
        millis = np.zeros(n, dtype=np.float64)
        first_plan = np.full(n, -1, dtype=np.int64)
        for _ in range(ch["step_limit"]):
            m = screen.size
            if m == 0:
                break
            millis += ch["dwell"][screen, rng.integers(0, 1024, m)]
            rows = ((cell + seen) * 2 + pers) * N + screen
            k = (rng.random(m)[:, None] >= ch["cum"][rows]).sum(axis=1)
            o = screen * K + k
            target = ch["target"][o]
            first_plan = np.where(first_plan < 0, ch["plan"][o], first_plan)
            pers |= ch["personalizes"][o]
            done = target < 0
            if done.any():
                finished = target == -1
                completed += int(finished.sum())
                seconds = millis[finished] / 1000.0
                sum_s += float(seconds.sum())
                sum_s2 += float((seconds * seconds).sum())
                bought = first_plan[done]
                plan_counts += np.bincount(bought[bought >= 0], minlength=plan_counts.size)
                keep = ~done
                cell, seen, pers, millis, first_plan = cell[keep], seen[keep], pers[keep], millis[keep], first_plan[keep]
                target = target[keep]
            screen = target
            seen = np.minimum(seen + 1, L - 1)
        # Walks cut at the step limit still count their purchase.
        bought = first_plan[first_plan >= 0]
        plan_counts += np.bincount(bought, minlength=plan_counts.size)
    return dict(users=users, completed=completed, plans=plan_counts, sum_s=sum_s, sum_s2=sum_s2)


def z_proportion(x1, n1, x2, n2):
    p = (x1 + x2) / (n1 + n2)
    se = math.sqrt(max(p * (1 - p), 1e-300) * (1 / n1 + 1 / n2))
    return (x1 / n1 - x2 / n2) / se


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = Path(__file__).resolve().parent
    parser.add_argument("--out", default=str(here / "out"))
    parser.add_argument("--users", type=int, default=None, help="default: FunnelLab's users")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()

    chain = load_chain(Path(args.out) / "klick-control-chain.json")
    fl = json.loads((Path(args.out) / "klick-control-funnellab.json").read_text())
    users = args.users or fl["users"]

    rng = np.random.default_rng(args.seed)
    times = []
    result = None
    for _ in range(args.runs):
        t0 = time.perf_counter()
        result = simulate(chain, users, rng, args.batch)
        times.append(time.perf_counter() - t0)
    np_rate = users / statistics.median(times)

    n1, n2 = fl["users"], result["users"]
    purchasers = int(result["plans"].sum())
    c1, c2 = fl["completed"], result["completed"]
    mean2 = result["sum_s"] / c2
    sd2 = math.sqrt(max(result["sum_s2"] / c2 - mean2 * mean2, 0) * c2 / (c2 - 1))
    mean1, sd1 = fl["completionMeanSeconds"], fl["completionStandardDeviationSeconds"]
    rows = [
        ("completion rate", c1 / n1, c2 / n2, z_proportion(c1, n1, c2, n2)),
        ("conversion rate", fl["purchasers"] / n1, purchasers / n2, z_proportion(fl["purchasers"], n1, purchasers, n2)),
    ]
    for j, name in enumerate(chain["plans"]):
        x1, x2 = fl["planPurchases"][j], int(result["plans"][j])
        rows.append((f"plan mix {name}", x1 / fl["purchasers"], x2 / purchasers, z_proportion(x1, fl["purchasers"], x2, purchasers)))
    rows.append(("mean time to complete (s)", mean1, mean2, (mean1 - mean2) / math.sqrt(sd1**2 / c1 + sd2**2 / c2)))

    print(f"Klick onboarding, control: FunnelLab {n1:,} users (seed {fl['seed']}) vs numpy {n2:,} users (seed {args.seed})")
    print(f"{'metric':<34}{'FunnelLab':>12}{'numpy':>12}{'z':>8}")
    for name, a, b, z in rows:
        print(f"{name:<34}{a:>12.6f}{b:>12.6f}{z:>8.2f}")
    fl_rate = fl["engine"]["medianUsersPerSecond"]
    print(f"numpy: {users:,} users x {args.runs} runs, median {statistics.median(times):.3f} s, {np_rate / 1e6:.3f} M users/s "
          f"(runs: {', '.join(f'{t:.3f}' for t in times)} s; numpy {np.__version__})")
    print(f"FunnelLab, 1 thread: {fl_rate / 1e6:.2f} M users/s (median of {len(fl['engine']['runs'])} runs)")
    print(f"ratio FunnelLab (1 core) / numpy: {fl_rate / np_rate:.1f}x")
    worst = max(abs(z) for *_, z in rows)
    print(f"agreement: largest |z| = {worst:.2f} ({'within' if worst < 4 else 'OUTSIDE'} sampling error, |z| < 4)")
    return 0 if worst < 4 else 1


if __name__ == "__main__":
    sys.exit(main())
