"""Writes ssrm.json: the anytime-valid sample-ratio test of Lindon & Malek (2022) as
optimizely's ssrm-test 0.1.5 computes it (`sequential_p_values` on batches of users, one
batch per look), for SequentialSampleRatioMismatchTests.

Run with a venv that has ssrm-test and numpy:  python make_ssrm_reference.py
"""
import json
import os

import numpy as np
from ssrm_test import ssrm_test

rng = np.random.default_rng(20261128)
cases = []
for i in range(40):
    k = int(rng.integers(2, 5))
    weights = [int(w) for w in rng.integers(1, 10, size=k)]
    planned = np.array(weights, dtype=float) / sum(weights)
    # Half the cases deliver the planned shares, half shares that drift from them.
    actual = planned if i % 2 == 0 else rng.dirichlet(planned * 200)
    looks = int(rng.integers(1, 9))
    concentration = [10000, 100, 1000000][i % 3]
    batches = [rng.multinomial(int(rng.integers(50, 3000)), actual) for _ in range(looks)]
    p = ssrm_test.sequential_p_values(np.array(batches), planned, dirichlet_concentration=concentration)
    cumulative = np.cumsum(np.array(batches), axis=0)
    cases.append(dict(name=f"case{i}", weights=weights, concentration=concentration,
                      looks=cumulative.tolist(), pValues=[float(x) for x in p]))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ssrm.json"), "w") as f:
    json.dump(dict(source="ssrm-test 0.1.5 sequential_p_values", cases=cases), f, indent=1)
    f.write("\n")
print(sum(1 for c in cases if c["pValues"][-1] < 0.001), "of", len(cases), "end below 0.001")
