#!/usr/bin/env python3
"""Writes Benchmarks/specs/klick-grid-1000.json: Klick onboarding with a 5-factor grid of
1,000 cells (upsell position 5 × goal 2 × yearly price 4 × paywall features 5 × yearly
trial 5), the spec behind the "big grid exactly" benchmark. Run from the repository root:

    python3 Benchmarks/scripts/make-grid-spec.py          # (re)writes the spec
    python3 Benchmarks/scripts/make-grid-spec.py --check  # fails when the spec is stale
"""
import json
import sys

SOURCE = "experiments/klick-onboarding.json"
TARGET = "Benchmarks/specs/klick-grid-1000.json"
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


def main():
    spec = json.load(open(SOURCE))
    spec["$schema"] = "../../experiments/schema.json"
    spec["name"] = "klick-grid-1000"
    spec["description"] = (
        "Klick onboarding with a 5-factor grid of 1,000 cells (Benchmarks/scripts/make-grid-spec.py): "
        "the spec of the exact-grid benchmark."
    )
    spec["variants"] = spec["variants"][:1]
    spec.pop("expectations", None)
    spec["grid"] = {
        "factors": [
            {"id": "upsell", "levels": [upsell_level(k) for k in range(1, 6)]},
            {
                "id": "goal",
                "levels": [
                    {"id": "required"},
                    {"id": "optional", "patches": [{"op": "setRequired", "screen": "personalization", "required": False}]},
                ],
            },
            {
                "id": "yearlyPrice",
                "levels": [
                    {"id": f"{p}", "patches": [{"op": "setPlan", "plan": "yearly", "price": p}]}
                    for p in (19.99, 24.99, 29.99, 34.99)
                ],
            },
            {
                "id": "features",
                "levels": [{"id": f"{n}", "patches": [{"op": "setFeatures", "count": n}]} for n in (2, 3, 4, 5, 6)],
            },
            {
                "id": "trialDays",
                "levels": [
                    {"id": f"{d}", "patches": [{"op": "setPlan", "plan": "yearly", "trialDays": d}]}
                    for d in (0, 3, 5, 7, 14)
                ],
            },
        ]
    }
    text = json.dumps(spec, indent=2, ensure_ascii=False) + "\n"
    if "--check" in sys.argv[1:]:
        if open(TARGET).read() != text:
            sys.exit(f"{TARGET} is stale: run python3 {sys.argv[0]}")
        return
    open(TARGET, "w").write(text)


if __name__ == "__main__":
    main()
