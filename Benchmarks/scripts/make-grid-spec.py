#!/usr/bin/env python3
"""Writes the Klick grid specs of the exact-grid benchmarks (`funnellab grid --exact`):

- Benchmarks/specs/klick-grid-1000.json: upsell position 5 × goal 2 × yearly price 4 ×
  paywall features 5 × yearly trial 5 = 1,000 cells;
- Benchmarks/specs/klick-grid-10000.json: upsell position 5 × goal 2 × yearly price 10 ×
  paywall features 5 × yearly trial 10 × default plan 2 = 10,000 cells (issue 62's grid);
- Benchmarks/specs/klick-grid-100000.json: the same × monthly price 10 = 100,000 cells.

Only the trial lengths leave the walk alone (cells that differ in them share one walk), so the
10,000-cell grid takes 1,000 walks and the 100,000-cell grid 10,000. Run from the repository root:

    python3 Benchmarks/scripts/make-grid-spec.py          # (re)writes the specs
    python3 Benchmarks/scripts/make-grid-spec.py --check  # fails when a spec is stale
"""
import json
import sys

SOURCE = "experiments/klick-onboarding.json"
SLIDES = ["welcome", "composition", "posing", "editing", "achievement"]


def upsell_level(after):
    """The Pro upsell moved after slide `after` (1-based); later slides skip to the goal question."""
    if after == len(SLIDES):
        return {"id": f"after{after}"}
    patches = [{"op": "moveScreen", "screen": "proUpsell", "after": SLIDES[after - 1]}]
    patches += [
        {"op": "setAction", "screen": s, "action": "skip", "to": "personalization"} for s in SLIDES[after:]
    ]
    return {"id": f"after{after}", "patches": patches}


def factor(fid, op_levels):
    return {"id": fid, "levels": op_levels}


def price_levels(plan, prices):
    return [{"id": f"{p}", "patches": [{"op": "setPlan", "plan": plan, "price": p}]} for p in prices]


def trial_levels(days):
    return [{"id": f"{d}", "patches": [{"op": "setPlan", "plan": "yearly", "trialDays": d}]} for d in days]


def spec_with(name, description, factors):
    spec = json.load(open(SOURCE))
    spec["$schema"] = "../../experiments/schema.json"
    spec["name"] = name
    spec["description"] = description
    spec["variants"] = spec["variants"][:1]
    spec.pop("expectations", None)
    spec["grid"] = {"factors": factors}
    return spec


def specs():
    upsell = factor("upsell", [upsell_level(k) for k in range(1, 6)])
    goal = factor(
        "goal",
        [
            {"id": "required"},
            {"id": "optional", "patches": [{"op": "setRequired", "screen": "personalization", "required": False}]},
        ],
    )
    features = factor("features", [{"id": f"{n}", "patches": [{"op": "setFeatures", "count": n}]} for n in (2, 3, 4, 5, 6)])
    small = spec_with(
        "klick-grid-1000",
        "Klick onboarding with a 5-factor grid of 1,000 cells (Benchmarks/scripts/make-grid-spec.py): "
        "the spec of the exact-grid benchmark.",
        [
            upsell,
            goal,
            factor("yearlyPrice", price_levels("yearly", (19.99, 24.99, 29.99, 34.99))),
            features,
            factor("trialDays", trial_levels((0, 3, 5, 7, 14))),
        ],
    )
    default = factor(
        "default",
        [
            {"id": "yearly", "patches": [{"op": "setDefaultPlan", "plan": "yearly"}]},
            {"id": "monthly", "patches": [{"op": "setDefaultPlan", "plan": "monthly"}]},
        ],
    )
    ten = [
        upsell,
        goal,
        factor("yearlyPrice", price_levels("yearly", tuple(round(19.99 + 5 * k, 2) for k in range(10)))),
        features,
        factor("trialDays", trial_levels((0, 1, 2, 3, 5, 7, 10, 14, 21, 30))),
        default,
    ]
    medium = spec_with(
        "klick-grid-10000",
        "Klick onboarding with a 6-factor grid of 10,000 cells (Benchmarks/scripts/make-grid-spec.py): "
        "the spec of the 10^4-cell exact-grid benchmark.",
        ten,
    )
    large = spec_with(
        "klick-grid-100000",
        "Klick onboarding with a 7-factor grid of 100,000 cells (Benchmarks/scripts/make-grid-spec.py): "
        "the spec of the 10^5-cell exact-grid benchmark.",
        ten + [factor("monthlyPrice", price_levels("monthly", tuple(round(2.99 + 0.5 * k, 2) for k in range(10))))],
    )
    return {
        "Benchmarks/specs/klick-grid-1000.json": small,
        "Benchmarks/specs/klick-grid-10000.json": medium,
        "Benchmarks/specs/klick-grid-100000.json": large,
    }


def main():
    for target, spec in specs().items():
        text = json.dumps(spec, indent=2, ensure_ascii=False) + "\n"
        if "--check" in sys.argv[1:]:
            if open(target).read() != text:
                sys.exit(f"{target} is stale: run python3 {sys.argv[0]}")
            continue
        open(target, "w").write(text)


if __name__ == "__main__":
    main()
