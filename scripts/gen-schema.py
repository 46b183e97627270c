#!/usr/bin/env python3
"""Generates experiments/schema.json (draft 2020-12) from the Swift model's rules."""
import json, os, sys

KINDS = ["continue", "back", "skip", "jump", "select", "type", "allow", "deny", "purchase", "dismiss", "restore", "quit"]
KIND_DOC = {
    "continue": "Go on to the next listed screen (or \"to\").",
    "back": "Return to the previous listed screen (or \"to\").",
    "skip": "Skip ahead to a named screen (\"to\" is required).",
    "jump": "Jump to any screen, as a page indicator does (\"to\" is required).",
    "select": "Choose an option on a choice screen, then go on.",
    "type": "Type and submit an input; validation may fail and keep the user on the screen.",
    "allow": "Grant a permission prompt.",
    "deny": "Decline a permission prompt (\"Not now\").",
    "purchase": "Buy a plan on a paywall (expanded into one outcome per plan).",
    "dismiss": "Close a paywall without buying (\"Maybe later\", \"Continue with limited version\").",
    "restore": "\"Restore purchases\" on a paywall: a returning subscriber regains access.",
    "quit": "Leave the app: the user is abandoned at this screen (takes no \"to\").",
}
SCREEN_KINDS = {
    "info": ["continue", "back", "skip", "jump", "quit"],
    "choice": ["select", "continue", "back", "skip", "jump", "quit"],
    "input": ["type", "back", "skip", "quit"],
    "slider": ["continue", "back", "skip", "quit"],
    "paywall": ["purchase", "dismiss", "restore", "back", "skip", "quit"],
    "permission": ["allow", "deny", "back", "quit"],
    "task": ["continue", "back", "skip", "quit"],
}
SCREEN_DOC = {
    "info": "A slide of text and pictures (default dwell 5 s).",
    "choice": "A question with options (default dwell 8 s).",
    "input": "A text field whose validation can fail (default dwell 12 s).",
    "slider": "A value picked on a slider (default dwell 6 s).",
    "paywall": "Plans to buy, a default plan, and perhaps a way out (default dwell 12 s + secondsPerFeature per feature).",
    "permission": "A system permission prompt (default dwell 3 s).",
    "task": "Work the app does while the user waits, which can fail (default dwell 10 s).",
}
# name: (min, max, default, unit, meaning)
PARAMS = [
    ("fatiguePerScreen", -20, 20, 0.04, "utility per screen seen", "Added to the utility of quitting for every screen already seen (saturating at screensSeenCap): users tire as the flow grows."),
    ("screensSeenCap", 1, 64, 20, "screens (whole number)", "Screens seen beyond this count no longer add fatigue or investment; it bounds the simulator's state so the flow compiles to a finite chain."),
    ("requiredInputFriction", -20, 20, 0.4, "utility", "Added to the utility of quitting on a required choice or input screen (Continue disabled until answered)."),
    ("optionalSkipShare", 0, 0.99, 0.2, "probability", "On an optional choice or input screen with no explicit skip action, the share of users who skip it (a skip action is added with this share at reference conditions)."),
    ("intentOnQuit", -20, 20, 0.5, "utility per unit of intent", "Multiplies the user's intent trait and is subtracted from the utility of quitting: motivated users quit less."),
    ("intentOnPurchase", -20, 20, 0.8, "utility per unit of intent", "Multiplies the user's intent trait and is added to the utility of every purchase: motivated users buy more."),
    ("investmentPerScreen", -20, 20, 0.05, "utility per screen seen", "Added to the utility of every purchase for each screen seen before the paywall (saturating): users who invested time value the product more."),
    ("personalizationBoost", -20, 20, 0.3, "utility", "Added to the utility of every purchase when the user answered a personalizing question (a goal) before the paywall."),
    ("defaultPlanBias", -20, 20, 0.8, "utility", "Added to the utility of the pre-selected plan: the default effect."),
    ("badgeBoost", -20, 20, 0.3, "utility", "Added to the utility of a plan that carries a badge such as \"Popular\" or \"Best value\"."),
    ("priceSensitivity", -20, 20, 1.0, "utility per unit of ln(price ratio)", "Subtracted from a plan's utility per unit of ln(monthly-equivalent price / referenceMonthlyPrice)."),
    ("referenceMonthlyPrice", 0.01, 1e6, 9.99, "currency per month", "The monthly-equivalent price at which price has no effect on a plan's utility; a paywall's purchase probability is stated at this price."),
    ("lifetimeMonths", 1, 1200, 24, "months", "The months a lifetime (one-time) purchase is taken to cover when turned into a monthly-equivalent price."),
    ("featureUtility", -20, 20, 0.08, "utility per feature listed", "Added to the utility of every purchase per Pro feature a paywall lists."),
    ("secondsPerFeature", 0, 3600, 1.5, "seconds per feature listed", "Added to a paywall's median dwell time per Pro feature it lists."),
    ("dwellSigma", 0, 5, 0.6, "ln-seconds (lognormal sigma)", "The sigma of the lognormal dwell time of a screen that does not state its own."),
]
PERIODS = ["week", "month", "year", "lifetime"]
OPS = ["moveScreen", "setRequired", "setDefaultPlan", "setAction", "removeAction", "setFeatures", "setPlan",
       "setBehavior", "insertScreen", "removeScreen"]
INT64_MAX = 9223372036854775807
INT64_MIN = -9223372036854775808
# The bounds of Sources/FunnelLab/Limits/Limits.swift (docs/limits.md); keep in step.
MAX_USERS = 10_000_000_000
MAX_STEP_LIMIT = 10_000
MAX_WEIGHT = 1e12
MAX_SEGMENTS = 100
MAX_VARIANTS = 1000
MAX_OPTIONS = 1000
MAX_ACTIONS = 64


def nullable(schema):
    """A key read with decodeIfPresent: JSON null means 'absent'."""
    if "$ref" in schema or "type" not in schema or isinstance(schema["type"], list):
        return {"anyOf": [schema, {"type": "null"}]}
    s = dict(schema)
    s["type"] = [schema["type"], "null"]
    return s


def ref(name):
    return {"$ref": f"#/$defs/{name}"}


def param_schema(p):
    name, lo, hi, default, unit, meaning = p
    s = {"type": "number", "minimum": lo, "maximum": hi, "default": default,
         "description": f"{meaning} Unit: {unit}. Default {default}; allowed {lo}…{hi}."}
    if name == "screensSeenCap":
        s["multipleOf"] = 1
    return s


defs = {}

defs["probability"] = {"type": "number", "minimum": 0, "maximum": 1,
                       "description": "A probability from 0 to 1 (at reference conditions: intent 0, first screen, no friction)."}
defs["actionKind"] = {"enum": KINDS, "description": "What a user can do on a screen.",
                      "enumDescriptions": [KIND_DOC[k] for k in KINDS]}
defs["screenKind"] = {"enum": list(SCREEN_KINDS), "description": "The kind of a screen; it decides which actions it may offer.",
                      "enumDescriptions": [SCREEN_DOC[k] for k in SCREEN_KINDS]}
defs["targetID"] = {"type": "string", "minLength": 1,
                    "description": "A screen id, or the reserved outcome \"completed\" or \"abandoned\"."}

defs["behaviorOverrides"] = {
    "type": "object",
    "description": "Behavior parameters (name: value) that differ from the defaults. Unknown names are errors.",
    "propertyNames": {"enum": [p[0] for p in PARAMS]},
    "properties": {p[0]: param_schema(p) for p in PARAMS},
    "additionalProperties": False,
}

defs["action"] = {
    "type": "object",
    "description": "One action a screen offers. The object's key in \"actions\" is its id; the id is also its kind unless \"kind\" is given.",
    "properties": {
        "kind": nullable({**ref("actionKind"), "description": "The action's kind; required when the id is not a kind name."}),
        "to": nullable({**ref("targetID"), "description": "Target screen id, \"completed\" or \"abandoned\". Absent: the next listed screen (the previous one for back); required for skip and jump; not allowed on quit."}),
        "probability": {**ref("probability"), "description": "Probability that a reference user takes this action; a screen's probabilities sum to 1 (tolerance 1e-6)."},
        "label": nullable({"type": "string", "description": "The text on the button, for reports."}),
    },
    "required": ["probability"],
    "additionalProperties": False,
    "allOf": [
        {"if": {"required": ["kind"], "properties": {"kind": {"enum": ["skip", "jump"]}}},
         "then": {"required": ["to"], "properties": {"to": {"type": "string"}}}},
        {"if": {"required": ["kind"], "properties": {"kind": {"const": "quit"}}},
         "then": {"properties": {"to": {"type": "null"}}}},
    ],
}

no_kind = {"not": {"required": ["kind"], "properties": {"kind": {"type": "string"}}}}  # kind absent or null: kind = id
kind_pattern = "^(" + "|".join(KINDS) + ")$"
defs["actions"] = {
    "type": "object",
    "description": "The screen's actions keyed by id. The value is a bare probability when the id is a kind (\"continue\": 0.9), or an object {kind, to, probability, label}. Probabilities sum to 1.",
    "minProperties": 1,
    "maxProperties": MAX_ACTIONS,
    "patternProperties": {
        kind_pattern: {"anyOf": [ref("probability"), ref("action")]},
        "^(skip|jump)$": {
            "description": "skip and jump need a target: write {\"to\": …, \"probability\": …}.",
            "anyOf": [{"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"}}},
                      {"type": "object", "required": ["to"], "properties": {"to": {"type": "string"}}}],
        },
        "^quit$": {"if": {"type": "object", **no_kind}, "then": {"properties": {"to": {"type": "null"}}}},
    },
    "additionalProperties": {
        "allOf": [ref("action"), {"required": ["kind"], "properties": {"kind": ref("actionKind")}}],
        "description": "An action whose id is not a kind name: \"kind\" is required.",
    },
}

defs["dwell"] = {
    "type": "object",
    "description": "Time spent on the screen: lognormal with this median and sigma of ln-seconds.",
    "properties": {
        "medianSeconds": {"type": "number", "minimum": 0, "maximum": 86400, "description": "Seconds a typical user spends here."},
        "sigma": nullable({"type": "number", "minimum": 0, "maximum": 5, "description": "Sigma of ln-seconds; default: the behavior parameter dwellSigma."}),
    },
    "required": ["medianSeconds"],
    "additionalProperties": False,
}

defs["option"] = {
    "description": "An option of a choice screen: an id, or {\"id\": …, \"weight\": …}.",
    "anyOf": [
        {"type": "string"},
        {"type": "object",
         "properties": {"id": {"type": "string"},
                        "weight": nullable({"type": "number", "exclusiveMinimum": 0, "maximum": MAX_WEIGHT, "description": "Relative weight with which users pick it (default 1)."})},
         "required": ["id"], "additionalProperties": False},
    ],
}

defs["plan"] = {
    "type": "object",
    "description": "A product offered on a paywall.",
    "properties": {
        "id": {"type": "string"},
        "label": nullable({"type": "string"}),
        "price": {"type": "number", "exclusiveMinimum": 0, "maximum": 1000000, "description": "Price per period (or once, for lifetime), in currency."},
        "currency": nullable({"type": "string", "description": "Default \"USD\"."}),
        "period": {"enum": PERIODS, "description": "How often the plan bills."},
        "trialDays": nullable({"type": "integer", "minimum": 0, "maximum": 3650, "description": "Free-trial length in days (default 0)."}),
        "badge": nullable({"type": "string", "description": "A badge such as \"Popular\" or \"Best value\" (adds badgeBoost)."}),
        "utility": nullable({"type": "number", "minimum": -20, "maximum": 20, "description": "Extra utility on top of price, default and badge effects (default 0)."}),
        "introPrice": nullable({"type": "number", "minimum": 0, "maximum": 1000000, "description": "Intro offer: price of each of the first introPeriods paid periods."}),
        "introPeriods": nullable({"type": "integer", "minimum": 0, "maximum": 1000, "description": "Intro offer: paid periods at introPrice (default 0)."}),
        "renewalProbability": nullable({"type": "number", "minimum": 0, "maximum": 1, "description": "This plan's renewal probability per period (default: revenue settings for its period)."}),
    },
    "required": ["id", "price", "period"],
    "additionalProperties": False,
}

screen_props = {
    "id": {"type": "string", "minLength": 1, "not": {"enum": ["completed", "abandoned"]},
           "description": "Unique screen id (\"completed\" and \"abandoned\" are reserved)."},
    "kind": ref("screenKind"),
    "title": nullable({"type": "string"}),
    "actions": ref("actions"),
    "dwell": nullable(ref("dwell")),
    "required": nullable({"type": "boolean", "description": "choice, input: whether the user must answer to go on (default true). A required screen cannot offer skip (nor continue, on a choice)."}),
    "options": nullable({"type": "array", "items": ref("option"), "maxItems": MAX_OPTIONS, "description": "choice: the options offered."}),
    "multiSelect": nullable({"type": "boolean", "description": "choice: several options may be selected."}),
    "personalizes": nullable({"type": "boolean", "description": "choice, slider: answering sets the personalized state, which raises purchase utility."}),
    "validationFailureProbability": nullable({"type": "number", "minimum": 0, "exclusiveMaximum": 1, "description": "input: probability that a submitted value fails validation (the user stays)."}),
    "range": nullable({"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2, "description": "slider: [min, max] with min ≤ max."}),
    "failureProbability": nullable({"type": "number", "minimum": 0, "exclusiveMaximum": 1, "description": "task: probability that the work fails (the user sees the screen again)."}),
    "plans": nullable({"type": "array", "items": ref("plan"), "description": "paywall: plans in display order."}),
    "defaultPlan": nullable({"type": "string", "description": "paywall: the pre-selected plan's id."}),
    "features": nullable({"type": "integer", "minimum": 0, "maximum": 100, "description": "paywall: how many Pro features it lists."}),
    "permission": nullable({"type": "string", "description": "permission: what is asked for."}),
}
def actions_rule(kind, allowed, note=""):
    disallowed = [k for k in KINDS if k not in allowed]
    return {"properties": {"actions": {
        "patternProperties": {
            "^(" + "|".join(disallowed) + ")$": {
                "type": "object", "required": ["kind"], "properties": {"kind": {"enum": allowed}},
                "description": f"Actions allowed on {note}{kind} screens: {', '.join(allowed)}."}},
        "additionalProperties": {"properties": {"kind": {"enum": allowed + [None]}}},
    }}}


# Kind-specific fields: on another kind they must keep their default (validation reports them otherwise).
FIELD_OWNERS = [
    ("options", ["choice"], {"anyOf": [{"type": "null"}, {"type": "array", "maxItems": 0}]}),
    ("multiSelect", ["choice"], {"enum": [None, False]}),
    ("personalizes", ["choice", "slider"], {"enum": [None, False]}),
    ("validationFailureProbability", ["input"], {"enum": [None, 0]}),
    ("range", ["slider"], {"type": "null"}),
    ("failureProbability", ["task"], {"enum": [None, 0]}),
    ("plans", ["paywall"], {"anyOf": [{"type": "null"}, {"type": "array", "maxItems": 0}]}),
    ("defaultPlan", ["paywall"], {"type": "null"}),
    ("features", ["paywall"], {"enum": [None, 0]}),
    ("permission", ["permission"], {"type": "null"}),
    ("required", ["choice", "input"], {"enum": [None, True]}),
]
is_optional = {"required": ["required"], "properties": {"required": {"const": False}}}
kind_rules = []
for kind, allowed in SCREEN_KINDS.items():
    rule = {"properties": {f: {**schema, "description": f"{f} is only for {' and '.join(owners)} screens."}
                           for f, owners, schema in FIELD_OWNERS if kind not in owners}}
    if kind == "choice":
        rule["required"] = ["options"]
        rule["properties"]["options"] = {"type": "array", "minItems": 1, "description": "A choice screen needs options."}
    if kind == "paywall":
        rule["required"] = ["plans"]
        rule["properties"]["plans"] = {"type": "array", "minItems": 1, "description": "A paywall needs at least one plan."}
    if kind in ("choice", "input"):
        required_allowed = [k for k in allowed if k not in (("skip", "continue") if kind == "choice" else ("skip",))]
        rule["if"] = is_optional
        rule["then"] = actions_rule(kind, allowed, "optional ")
        rule["else"] = actions_rule(kind, required_allowed, "required ")
    else:
        rule["allOf"] = [actions_rule(kind, allowed)]
    kind_rules.append({"if": {"required": ["kind"], "properties": {"kind": {"const": kind}}}, "then": rule})
defs["screen"] = {
    "type": "object",
    "description": "One screen of a flow. Kind-specific fields set on another kind are reported by validation.",
    "properties": screen_props,
    "required": ["id", "kind", "actions"],
    "additionalProperties": False,
    "allOf": kind_rules,
}

defs["flow"] = {
    "type": "object",
    "description": "Screens in display order: \"next\" and \"previous\" are positions in this list.",
    "properties": {
        "start": nullable({"type": "string", "description": "The first screen's id (default: the first listed)."}),
        "screens": {"type": "array", "items": ref("screen"), "minItems": 1, "maxItems": 63},
    },
    "required": ["screens"],
    "additionalProperties": False,
}

defs["segment"] = {
    "type": "object",
    "description": "A group of users sharing a weight, an intent distribution, behavior overrides and optionally their own action probabilities.",
    "properties": {
        "id": {"type": "string"},
        "weight": nullable({"type": "number", "minimum": 0, "maximum": MAX_WEIGHT, "description": "Relative weight (default 1; need not sum to 1)."}),
        "intent": nullable({
            "type": "object", "description": "The intent trait: normal with this mean and sd.",
            "properties": {"mean": nullable({"type": "number", "minimum": -20, "maximum": 20, "description": "Default 0."}),
                           "sd": nullable({"type": "number", "minimum": 0, "maximum": 20, "description": "Default 1."})},
            "additionalProperties": False}),
        "behavior": ref("behaviorOverrides"),
        "screens": {
            "type": "object",
            "description": "Per screen id, per action id: the probability this segment uses instead of the screen's (the screen must still sum to 1).",
            "additionalProperties": {"type": "object", "additionalProperties": ref("probability")},
        },
        "observable": nullable({"type": "boolean", "description": "Known at assignment (an acquisition channel, a platform): results are broken down by it and adjustments may stratify on it; the segments that are not observable form one stratum, \"other\" (default false)."}),
        "covariateMean": nullable({"type": "number", "exclusiveMinimum": 0, "maximum": 1000, "description": "This segment's mean of the pre-period covariate at intent 0, instead of population.covariate.mean (needs population.covariate)."}),
    },
    "required": ["id"],
    "additionalProperties": False,
}

defs["population"] = {
    "type": "object",
    "description": "A mixture of segments.",
    "properties": {
        "segments": {"type": "array", "items": ref("segment"), "minItems": 1, "maxItems": MAX_SEGMENTS},
        "covariate": nullable({
            "type": "object",
            "description": "A count known for every user before the experiment (e.g. app opens in the week before): Poisson with mean mean·exp(intentEffect·intent), the segment's covariateMean replacing mean; each user's count comes from a stream of its own.",
            "properties": {
                "name": nullable({"type": "string", "minLength": 1, "maxLength": 64, "description": "Its name in reports (default prePeriodCount)."}),
                "mean": nullable({"type": "number", "exclusiveMinimum": 0, "maximum": 1000, "description": "Mean count of a user of intent 0 (default 5)."}),
                "intentEffect": nullable({"type": "number", "minimum": -3, "maximum": 3, "description": "Log-mean change per unit of intent (default 0.5)."}),
            },
            "additionalProperties": False}),
    },
    "required": ["segments"],
    "additionalProperties": False,
}

def probability_field(text):
    return nullable({"type": "number", "minimum": 0, "maximum": 1, "description": text})

defs["store"] = {
    "type": "object",
    "description": "How the mock purchase layer behaves (per purchase attempt).",
    "properties": {
        "cancelProbability": probability_field("The payment sheet is dismissed (default 0.12)."),
        "failureProbability": probability_field("The purchase fails (default 0.02)."),
        "retryProbability": probability_field("After a failure, the user tries again (default 0.5)."),
        "maximumAttempts": nullable({"type": "integer", "minimum": 1, "maximum": 10, "description": "Attempts per tap (default 3)."}),
        "pendingProbability": probability_field("Ask to Buy: approval needed (default 0.01)."),
        "approvalProbability": probability_field("A pending purchase is approved later (default 0.6)."),
        "approvalDelayDays": nullable({"type": "number", "minimum": 0, "maximum": 365, "description": "Days until approval (default 1)."}),
        "restoreSuccessProbability": probability_field("Restore purchases finds an entitlement (default 0.7)."),
        "latencySeconds": nullable({"type": "number", "minimum": 0, "maximum": 600, "description": "Seconds per attempt (default 2)."}),
    },
    "additionalProperties": False,
}

defs["revenue"] = {
    "type": "object",
    "description": "Trials, renewals, refunds, fee, revenue horizon and analysis day.",
    "properties": {
        "horizonMonths": nullable({"type": "number", "exclusiveMinimum": 0, "maximum": 120, "description": "Months of revenue counted (default 12)."}),
        "analysisDay": nullable({"type": "number", "minimum": 0, "maximum": 3650, "description": "Day the test is read (default 14)."}),
        "storeFee": probability_field("Share of each payment the store keeps (default 0.15)."),
        "trialConversion": probability_field("A free trial converts to paid (default 0.45)."),
        "weeklyRenewal": probability_field("Weekly renewal probability (default 0.75)."),
        "monthlyRenewal": probability_field("Monthly renewal probability (default 0.85)."),
        "yearlyRenewal": probability_field("Yearly renewal probability (default 0.55)."),
        "refundProbability": probability_field("The first payment is refunded (default 0.02)."),
    },
    "additionalProperties": False,
}

defs["simulation"] = {
    "type": "object",
    "description": "Settings of the simulation itself.",
    "properties": {
        "stepLimit": nullable({"type": "integer", "minimum": 1, "maximum": MAX_STEP_LIMIT, "description": "Steps after which a walk is cut off and counted as abandoned (default 500; at most 10000, also the exact engine's ceiling on iterations)."}),
        "traitBins": nullable({"type": "integer", "minimum": 1, "maximum": 4096, "description": "Equiprobable bins of the intent trait (default 32)."}),
    },
    "additionalProperties": False,
}

anchor = {"oneOf": [{"required": ["after"], "properties": {"after": {"type": "string"}}},
                    {"required": ["before"], "properties": {"before": {"type": "string"}}}],
          "description": "Give exactly one of \"after\" and \"before\"."}
opt_paywall = nullable({"type": "string", "description": "The paywall's id; may be omitted when the flow has one paywall."})
patch_ops = {
    "moveScreen": ({"screen": {"type": "string"}, "after": nullable({"type": "string"}), "before": nullable({"type": "string"})},
                   ["screen"], "Move a screen to just after (or before) another.", anchor),
    "setRequired": ({"screen": {"type": "string"}, "required": {"type": "boolean"}}, ["screen", "required"],
                    "Make a choice or input screen required or optional.", None),
    "setDefaultPlan": ({"screen": opt_paywall, "plan": {"type": "string"}}, ["plan"], "Pre-select another plan on a paywall.", None),
    "setAction": ({"screen": {"type": "string"}, "action": {"type": "string"}, "kind": nullable(ref("actionKind")),
                   "probability": nullable(ref("probability")), "to": nullable(ref("targetID"))},
                  ["screen", "action"], "Change (or add) an action: its kind, probability and/or target. Adding an action whose id is not a kind name needs \"kind\".", None),
    "removeAction": ({"screen": {"type": "string"}, "action": {"type": "string"}}, ["screen", "action"], "Remove an action from a screen.", None),
    "setFeatures": ({"screen": opt_paywall, "count": {"type": "integer", "minimum": 0, "maximum": 100}}, ["count"],
                    "Change how many Pro features a paywall lists.", None),
    "setPlan": ({"screen": opt_paywall, "plan": {"type": "string"}, "price": nullable({"type": "number", "exclusiveMinimum": 0}),
                 "badge": nullable({"type": "string", "description": "An empty string removes the badge."}),
                 "trialDays": nullable({"type": "integer", "minimum": 0, "maximum": 3650})},
                ["plan"], "Change a plan's price, badge or trial.", None),
    "setBehavior": ({"parameter": {"enum": [p[0] for p in PARAMS]}, "value": {"type": "number"}, "segment": nullable({"type": "string"})},
                    ["parameter", "value"], "Override a behavior parameter for everyone or for one segment.", None),
    "insertScreen": ({"screen": ref("screen"), "after": nullable({"type": "string"}), "before": nullable({"type": "string"})},
                     ["screen"], "Insert a new screen just after (or before) another.", anchor),
    "removeScreen": ({"screen": {"type": "string"}}, ["screen"], "Remove a screen (actions that targeted it must be retargeted by other patches).", None),
}
patch_rules = []
for op, (props, required, doc, extra) in patch_ops.items():
    then = {"description": doc, "properties": {"op": {"const": op}, **props}, "required": ["op"] + required,
            "additionalProperties": False}
    if extra:
        then["oneOf"] = extra["oneOf"]
    if op == "setBehavior":
        then["allOf"] = [{"if": {"properties": {"parameter": {"const": p[0]}}},
                          "then": {"properties": {"value": {"minimum": p[1], "maximum": p[2], **({"multipleOf": 1} if p[0] == "screensSeenCap" else {})}}}}
                         for p in PARAMS]
    patch_rules.append({"if": {"required": ["op"], "properties": {"op": {"const": op}}}, "then": then})
defs["patch"] = {
    "type": "object",
    "description": "One change a variant makes to the base experiment; patches apply in order.",
    "properties": {"op": {"enum": OPS}},
    "required": ["op"],
    "allOf": patch_rules,
}

defs["variant"] = {
    "type": "object",
    "description": "One arm of the experiment; the first variant is the control.",
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "description": nullable({"type": "string"}),
        "patches": nullable({"type": "array", "items": ref("patch")}),
    },
    "required": ["id"],
    "additionalProperties": False,
}

METRICS = ['completionRate', 'abandonmentRate', 'skipRate', 'paywallViewRate', 'purchaseConversion', 'purchaseConversionOfViewers', 'trialStartRate', 'trialToPaid', 'personalizationRate', 'timeToFinish', 'revenuePerUser', 'revenuePerPayingUser', 'revenuePerPaywallViewer', 'realizedRevenuePerUser']
defs["metrics"] = {
    "type": "object",
    "description": "The primary metric, guardrails and decision settings of the experiment.",
    "properties": {
        "primary": nullable({"enum": METRICS, "description": "The metric the decision is about (default purchaseConversion; completionRate for a flow without a paywall)."}),
        "guardrails": nullable({"type": "array", "items": {
            "type": "object",
            "properties": {"metric": {"enum": METRICS}, "margin": {"type": "number", "minimum": 0, "description": "Largest acceptable worsening, in the metric's unit."}},
            "required": ["metric", "margin"], "additionalProperties": False}}),
        "alpha": nullable({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.5, "description": "Significance level (default 0.05)."}),
        "correction": nullable({"enum": ["none", "bonferroni", "holm", "benjamini-hochberg"], "description": "Multiple-testing correction across arms (default holm)."}),
        "equivalenceMargin": nullable({"type": "number", "minimum": 0, "exclusiveMaximum": 1, "description": "Practical-equivalence margin, relative to the control's exact value, below which a true effect is negligible when verdicts are graded (default 0.01 = 1 %)."}),
        "equivalenceMargins": nullable({"type": "object", "description": "Per-metric relative practical-equivalence margins, overriding equivalenceMargin.",
            "properties": {m: {"type": "number", "minimum": 0, "exclusiveMaximum": 1} for m in METRICS}, "additionalProperties": False}),
    },
    "additionalProperties": False,
}

defs["design"] = {
    "type": "object",
    "description": "How experiment mode assigns users to arms.",
    "properties": {
        "salt": nullable({"type": "string", "description": "Mixed into the assignment hash (default: the experiment's name, so that two experiments split users independently)."}),
        "allocation": nullable({"type": "object", "additionalProperties": {"type": "number", "minimum": 0, "maximum": MAX_WEIGHT},
                                "description": "Relative weight per variant id (missing: 1; not all 0)."}),
    },
    "additionalProperties": False,
}

defs["grid"] = {
    "type": "object",
    "description": "Factors crossed into variants named factor=level,...",
    "properties": {
        "factors": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "levels": {"type": "array", "minItems": 1, "items": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "patches": nullable({"type": "array", "items": ref("patch")})},
                    "required": ["id"], "additionalProperties": False}},
            },
            "required": ["id", "levels"], "additionalProperties": False}},
    },
    "required": ["factors"],
    "additionalProperties": False,
}

defs["expectation"] = {
    "type": "object",
    "description": "An assumption checked by `funnellab check`: range (exact value in [min, max]; with relativeTo, its difference from that variant, absolute or relative by scale), lift (the exact improvement Δ over the control bounded by atLeast (Δ ≥ x), atMost (Δ ≤ x), costsAtMost (Δ ≥ -x), costsAtLeast (Δ ≤ -x) and within (|Δ| ≤ m); absolute, or relative to the control's value with scale relative), beats (power ≥ power of the z-test at users per arm and the exact rates, at alpha shared by Bonferroni among the variant and among (by default its own comparison alone; grid cells never count); with simulate, an experiment-mode run of those arms must also be significant), best (highest value among the control, the variant and among (default: the declared variants) with probability ≥ probability: exact, or from an experiment-mode run of users per arm), varianceReduction (the exact share of the variant-vs-control difference's variance that method removes, in [min, max]), equivalent (a test of users per arm shows the variant equivalent to the control within ±within by two one-sided tests at alpha with power ≥ power, at the exact rates; with simulate, a seeded run must show it too).",
    "properties": {
        "id": nullable({"type": "string", "description": "A name for reports (default: kind variant metric)."}),
        "kind": {"enum": ["range", "lift", "beats", "best", "varianceReduction", "equivalent"]},
        "method": nullable({"enum": ["postStratified", "cuped", "regression"], "description": "varianceReduction: the adjustment (required)."}),
        "variant": {"type": "string", "minLength": 1},
        "metric": {"enum": METRICS},
        "min": nullable({"type": "number"}),
        "max": nullable({"type": "number"}),
        "atLeast": nullable({"type": "number", "description": "lift: the smallest acceptable improvement (0.02 = 2 points of a rate)."}),
        "costsAtMost": nullable({"type": "number", "minimum": 0, "description": "lift: the largest acceptable worsening."}),
        "atMost": nullable({"type": "number", "description": "lift: the largest acceptable improvement."}),
        "costsAtLeast": nullable({"type": "number", "minimum": 0, "description": "lift: the smallest worsening expected (the variant costs at least this)."}),
        "within": nullable({"type": "number", "minimum": 0, "description": "lift: an equivalence margin: the improvement lies in [-within, within]; equivalent: the margin (> 0) a test must show the difference within."}),
        "scale": nullable({"enum": ["absolute", "relative"], "description": "lift, and range with relativeTo: bounds in the metric's unit (absolute, the default) or as a share of the reference's value (relative: 0.05 = 5 %)."}),
        "relativeTo": nullable({"type": "string", "minLength": 1, "description": "range: a variant whose value is subtracted before min and max apply (usually the control)."}),
        "among": nullable({"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "uniqueItems": True, "description": "beats: the other arms sharing alpha (Bonferroni); best: the other arms ranked (default: every declared variant)."}),
        "users": nullable({"type": "integer", "minimum": 2, "maximum": 100000000, "description": "Users per arm (beats: required; best: simulate an experiment of this size)."}),
        "power": nullable({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "description": "beats: least acceptable power (default 0.8)."}),
        "alpha": nullable({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.5, "description": "beats: significance level (default metrics.alpha), for its own comparisons only."}),
        "simulate": nullable({"type": "boolean", "description": "beats: also run an experiment and require adjusted p < alpha."}),
        "probability": nullable({"type": "number", "exclusiveMinimum": 0, "maximum": 1, "description": "best: least acceptable probability to be best."}),
    },
    "required": ["kind", "variant", "metric"],
    "additionalProperties": False,
}

drawn = [p for p in PARAMS if p[0] != "screensSeenCap"]
defs["parameterUncertainty"] = {
    "type": "object",
    "description": "What is uncertain about the behavior parameters: drawn by `run`/`exact`/`power --parameter-uncertainty`, each draw solved exactly. `calibrate --variants -o` writes it from a fit.",
    "properties": {
        "description": nullable({"type": "string"}),
        "draws": nullable({"type": "integer", "minimum": 2, "maximum": 10000, "description": "Draws (default 200)."}),
        "parameters": {
            "type": "object", "minProperties": 1,
            "description": "Per parameter: {\"mean\", \"sd\"} (normal, truncated to the range) or {\"low\", \"high\"} (uniform).",
            "propertyNames": {"enum": [p[0] for p in drawn]},
            "additionalProperties": {
                "oneOf": [
                    {"type": "object", "properties": {"mean": {"type": "number"}, "sd": {"type": "number", "exclusiveMinimum": 0}},
                     "required": ["mean", "sd"], "additionalProperties": False},
                    {"type": "object", "properties": {"low": {"type": "number"}, "high": {"type": "number"}},
                     "required": ["low", "high"], "additionalProperties": False},
                ]
            },
        },
        "correlations": nullable({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "between": {"type": "array", "items": {"enum": [p[0] for p in drawn]}, "minItems": 2, "maxItems": 2},
                    "rho": {"type": "number", "exclusiveMinimum": -1, "exclusiveMaximum": 1},
                },
                "required": ["between", "rho"], "additionalProperties": False,
            },
            "description": "Correlations between normal parameters; pairs not listed are independent.",
        }),
    },
    "required": ["parameters"],
    "additionalProperties": False,
}

schema = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "FunnelLab experiment",
    "description": "An experiment spec for FunnelLab, matching the Swift decoder key for key (unknown keys are errors; JSON null on an optional key means absent) plus the validator's per-value ranges and the action kinds each screen kind allows. Cross-field rules (probabilities summing to 1, targets naming screens, required screens offering no skip, reachability, patch results) are checked by `funnellab validate`.",
    "type": "object",
    "properties": {
        "$schema": {"description": "The schema this file follows, e.g. \"./schema.json\" (ignored by FunnelLab)."},
        "name": {"type": "string", "minLength": 1},
        "description": nullable({"type": "string"}),
        "source": nullable({"type": "string", "description": "Where the flow comes from (a design document)."}),
        "seed": nullable({"type": "integer", "minimum": 0, "maximum": 18446744073709551615, "description": "Random seed (default 1)."}),
        "users": nullable({"type": "integer", "minimum": 1, "maximum": MAX_USERS, "description": "Users simulated per variant (default 100000; at most 10^10)."}),
        "behavior": ref("behaviorOverrides"),
        "population": nullable(ref("population")),
        "flow": ref("flow"),
        "variants": {"type": "array", "items": ref("variant"), "minItems": 1, "maxItems": MAX_VARIANTS},
        "simulation": nullable(ref("simulation")),
        "store": nullable(ref("store")),
        "revenue": nullable(ref("revenue")),
        "expectations": nullable({"type": "array", "items": ref("expectation"), "description": "Assumptions checked by `funnellab check`."}),
        "metrics": nullable(ref("metrics")),
        "design": nullable(ref("design")),
        "grid": nullable(ref("grid")),
        "parameterUncertainty": nullable(ref("parameterUncertainty")),
    },
    "required": ["name", "flow", "variants"],
    "additionalProperties": False,
    "$defs": defs,
}

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "experiments", "schema.json")
with open(out, "w") as f:
    json.dump(schema, f, indent=2, ensure_ascii=False)
    f.write("\n")
