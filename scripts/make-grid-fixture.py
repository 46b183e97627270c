#!/usr/bin/env python3
"""Writes Tests/FunnelLabCLITests/Fixtures/klick-grid-adjusted.json: the raw p-values of
`funnellab grid --users 20000` on the built-in Klick grid, with the Holm and Benjamini-Hochberg
adjustments that statsmodels' multipletests gives for them. The Swift test checks that the
grid report's adjusted p-values match (and that the raw ones are the same run).

Needs statsmodels (python3 -m venv .venv && .venv/bin/pip install statsmodels) and a built
funnellab (swift build). Run: python3 scripts/make-grid-fixture.py [path/to/funnellab]"""
import json, os, subprocess, sys
import statsmodels
from statsmodels.stats.multitest import multipletests

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
tool = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build", "debug", "funnellab")
out = subprocess.run([tool, "grid", "--users", "20000", "--format", "json"], check=True, capture_output=True, text=True).stdout
cells = [c for c in json.loads(out)["cells"] if not c["control"]]
ids = [c["id"] for c in cells]
raw = [c["pValue"] for c in cells]
holm = multipletests(raw, method="holm")[1]
bh = multipletests(raw, method="fdr_bh")[1]
fixture = {
    "source": "funnellab grid --users 20000 --format json (built-in Klick grid), statsmodels.stats.multitest.multipletests",
    "statsmodels": statsmodels.__version__,
    "cells": [{"id": i, "pValue": p, "holm": float(h), "benjaminiHochberg": float(b)} for i, p, h, b in zip(ids, raw, holm, bh)],
}
path = os.path.join(root, "Tests", "FunnelLabCLITests", "Fixtures", "klick-grid-adjusted.json")
with open(path, "w") as f:
    json.dump(fixture, f, indent=2, sort_keys=True)
    f.write("\n")
print("wrote", path)
