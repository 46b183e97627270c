#!/usr/bin/env python3
"""Validates the experiment files against experiments/schema.json, then compares the schema's verdict with
`funnellab validate` on a set of mutated copies (written under /tmp, never into the repo). With --tool,
a case where the schema and `funnellab validate` disagree fails too (CI runs it so)."""
import copy, json, os, subprocess, sys, tempfile
import jsonschema

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
schema = json.load(open(f"{ROOT}/experiments/schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
V = jsonschema.Draft202012Validator(schema)
FILES = ["klick-onboarding", "betfree-onboarding", "urbannest-onboarding", "ncdb-first-launch"]
TOOL = f"{ROOT}/.build/debug/funnellab"
have_tool = os.path.exists(TOOL) and "--tool" in sys.argv

ok = True
for name in FILES:
    doc = json.load(open(f"{ROOT}/experiments/{name}.json"))
    errs = sorted(V.iter_errors(doc), key=lambda e: list(e.absolute_path))
    print(f"schema  {name}: {'valid' if not errs else 'INVALID'}")
    for e in errs[:5]:
        print("   ", "/".join(map(str, e.absolute_path)), e.message[:200])
    ok &= not errs


def tool_verdict(doc):
    path = os.path.join(tempfile.gettempdir(), "funnellab-schema-case.json")
    with open(path, "w") as f: json.dump(doc, f, indent=1)
    r = subprocess.run([TOOL, "validate", path], capture_output=True, text=True)
    return r.returncode == 0, (r.stdout + r.stderr).strip().replace("\n", " | ")[:240]


def s(doc, sid):
    return next(x for x in doc["flow"]["screens"] if x["id"] == sid)


base = json.load(open(f"{ROOT}/experiments/betfree-onboarding.json"))
ncdb = json.load(open(f"{ROOT}/experiments/ncdb-first-launch.json"))
CASES = [
    # (description, doc, mutate, expected-valid)
    ("typo top-level key 'varaints'", base, lambda d: d.update(varaints=d.pop("variants")), False),
    ("extra top-level key 'seeds'", base, lambda d: d.update(seeds=1), False),
    ("typo screen key 'titel'", base, lambda d: s(d, "welcome").update(titel="x"), False),
    ("typo action key 'probablity'", base, lambda d: s(d, "welcome")["actions"]["skip"].update(probablity=0.09), False),
    ("typo plan key 'badgee'", base, lambda d: s(d, "paywall")["plans"][0].update(badgee="x"), False),
    ("typo dwell key 'median'", base, lambda d: s(d, "welcome")["dwell"].update(median=3), False),
    ("typo patch key 'screeen'", base, lambda d: d["variants"][1]["patches"][0].update(screeen="paywall"), False),
    ("key of another op in a patch", base, lambda d: d["variants"][1]["patches"][0].update(price=3), False),
    ("typo behavior parameter", base, lambda d: d["behavior"].update(fatiguePerScren=0.1), False),
    ("typo segment key 'wieght'", base, lambda d: d["population"]["segments"][0].update(wieght=1), False),
    ("typo intent key", base, lambda d: d["population"]["segments"][0]["intent"].update(mu=1), False),
    ("typo simulation key", base, lambda d: d.update(simulation={"stepLimt": 10}), False),
    ("typo variant key 'descripton'", base, lambda d: d["variants"][0].update(descripton="x"), False),
    ("typo flow key 'screen'", base, lambda d: d["flow"].update(screen=[]), False),
    ("unknown screen kind", base, lambda d: s(d, "welcome").update(kind="slide"), False),
    ("unknown period", base, lambda d: s(d, "paywall")["plans"][0].update(period="monthly"), False),
    ("unknown action id as bare number", base, lambda d: s(d, "welcome")["actions"].update(contineu=0.0), False),
    ("custom id without kind", base, lambda d: s(d, "welcome")["actions"].update(foo={"probability": 0}), False),
    ("custom id with kind null", base, lambda d: s(d, "welcome")["actions"].update(foo={"kind": None, "probability": 0}), False),
    ("bare skip without target", base, lambda d: s(d, "welcome")["actions"].update(skip=0.09), False),
    ("jump kind without to", base, lambda d: s(d, "welcome")["actions"].update(j={"kind": "jump", "probability": 0}), False),
    ("quit with a target", base, lambda d: s(d, "welcome")["actions"].update(quit={"to": "paywall", "probability": 0.06}), False),
    ("info screen offers select", base, lambda d: s(d, "welcome")["actions"].update(select=0.0), False),
    ("info key with kind purchase", base, lambda d: s(d, "welcome")["actions"].update(buy={"kind": "purchase", "probability": 0}), False),
    ("required choice offers continue", base, lambda d: s(d, "motivation")["actions"].update(**{"continue": 0.0}), False),
    ("required input offers skip", base, lambda d: s(d, "name")["actions"].update(skip={"to": "dailyGoal", "probability": 0.0}), False),
    ("probability above 1", base, lambda d: s(d, "welcome")["actions"].update(quit=1.5), False),
    ("action object without probability", base, lambda d: s(d, "welcome")["actions"]["skip"].pop("probability"), False),
    ("range with one number", base, lambda d: s(d, "dailyGoal").update(range=[1]), False),
    ("range on an info screen", base, lambda d: s(d, "welcome").update(range=[1, 2]), False),
    ("options on a slider", base, lambda d: s(d, "dailyGoal").update(options=["a"]), False),
    ("required false on info", base, lambda d: s(d, "welcome").update(required=False), False),
    ("choice without options", base, lambda d: s(d, "motivation").pop("options"), False),
    ("option as a number", base, lambda d: s(d, "motivation")["options"].append(3), False),
    ("option weight 0", base, lambda d: s(d, "motivation")["options"].append({"id": "z", "weight": 0}), False),
    ("behavior null", base, lambda d: d.update(behavior=None), False),
    ("behavior value out of range", base, lambda d: d["behavior"].update(optionalSkipShare=1.0), False),
    ("screensSeenCap not whole", base, lambda d: d["behavior"].update(screensSeenCap=20.5), False),
    ("users 0", base, lambda d: d.update(users=0), False),
    ("users 1.5", base, lambda d: d.update(users=1.5), False),
    ("seed negative", base, lambda d: d.update(seed=-1), False),
    ("patch op unknown", base, lambda d: d["variants"][1]["patches"][0].update(op="setDefault"), False),
    ("patch without op", base, lambda d: d["variants"][1]["patches"][0].pop("op"), False),
    ("moveScreen with after and before", base, lambda d: d["variants"][1]["patches"].append({"op": "moveScreen", "screen": "name", "after": "welcome", "before": "paywall"}), False),
    ("moveScreen with neither", base, lambda d: d["variants"][1]["patches"].append({"op": "moveScreen", "screen": "name"}), False),
    ("setBehavior value out of range", base, lambda d: d["variants"][1]["patches"].append({"op": "setBehavior", "parameter": "dwellSigma", "value": 9}), False),
    ("empty variants", base, lambda d: d.update(variants=[]), False),
    ("reserved screen id", base, lambda d: s(d, "welcome").update(id="completed"), False),
    ("segment screens value not a number", base, lambda d: d["population"]["segments"][0].update(screens={"welcome": {"quit": "x"}}), False),
    ("segment behavior typo", base, lambda d: d["population"]["segments"][0].update(behavior={"priceSensitvity": 1}), False),
    ("plan price 0", base, lambda d: s(d, "paywall")["plans"][0].update(price=0), False),
    ("validationFailureProbability 1", base, lambda d: s(d, "name").update(validationFailureProbability=1), False),
    # accepted by both
    ("$schema any value", base, lambda d: d.update({"$schema": 42}), True),
    ("null optional keys", base, lambda d: (s(d, "welcome").update(title=None, dwell=None, required=None, options=None, plans=None),
                                           d.update(description=None, source=None, simulation=None),
                                           s(d, "welcome")["actions"]["skip"].update(label=None, kind=None)), True),
    ("population null", base, lambda d: d.update(population=None), True),
    ("option as object and string mix", base, lambda d: s(d, "motivation")["options"].__setitem__(0, "saveMoney"), True),
    ("custom id with kind", base, lambda d: (s(d, "welcome")["actions"].update(tapLogo={"kind": "continue", "probability": 0.01}),
                                            s(d, "welcome")["actions"].update(quit=0.05)), True),
    ("skip key with kind continue, no to", base, lambda d: s(d, "welcome")["actions"].update(
        skip={"kind": "continue", "probability": 0.09}), True),
    ("integer-valued float for users", base, lambda d: d.update(users=1000.0), True),
    ("zero defaults on foreign fields", base, lambda d: s(d, "welcome").update(features=0, multiSelect=False, required=True, failureProbability=0), True),
    ("segment screens override", base, lambda d: d["population"]["segments"][0].update(screens={"welcome": {"quit": 0.04, "continue": 0.87}}), True),
    ("setAction adding a jump", ncdb, lambda d: d["variants"][1]["patches"].append({"op": "setAction", "screen": "welcome", "action": "j", "kind": "jump", "to": "ready", "probability": 0}), True),
    ("insertScreen", ncdb, lambda d: d["variants"][1]["patches"].append({"op": "insertScreen", "screen": {"id": "x", "kind": "info", "actions": {"continue": 1}}, "after": "welcome"}), True),
]

agree = 0
for desc, src, mutate, expected in CASES:
    d = copy.deepcopy(src)
    mutate(d)
    sv = V.is_valid(d)
    line = f"  {'ok ' if sv == expected else 'BAD'} schema={'valid' if sv else 'reject'}"
    if have_tool:
        tv, msg = tool_verdict(d)
        line += f" tool={'valid' if tv else 'reject'}{'' if tv == sv else ' MISMATCH'}"
        agree += tv == sv
        ok &= tv == sv
        if tv != sv or tv != expected: line += f"  [{msg}]"
    ok &= sv == expected
    print(f"{line}  {desc}")
if have_tool:
    print(f"schema and funnellab validate agree on {agree}/{len(CASES)} cases")
print("ALL OK" if ok else "FAILURES")
sys.exit(0 if ok else 1)
