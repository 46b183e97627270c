import FunnelStats

extension SpecSchema {
  /// The primary metric, guardrails and decision settings.
  static func metrics() -> Node {
    let guardrail: Node = [
      "type": "object",
      "properties": [
        "metric": ["enum": metricNames],
        "margin": ["type": "number", "minimum": 0, "description": "Largest acceptable worsening, in the metric's unit."],
      ],
      "required": ["metric", "margin"], "additionalProperties": false,
    ]
    let margin: Node = ["type": "number", "minimum": 0, "exclusiveMaximum": 1]
    return [
      "type": "object",
      "description": "The primary metric, guardrails and decision settings of the experiment.",
      "properties": [
        "primary": nullable([
          "enum": metricNames,
          "description": "The metric the decision is about (default purchaseConversion; completionRate for a flow without a paywall).",
        ]),
        "guardrails": nullable(["type": "array", "items": guardrail]),
        "alpha": nullable([
          "type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.5, "description": "Significance level (default 0.05).",
        ]),
        "correction": nullable([
          "enum": .strings(MultipleTestingCorrection.allCases.map(\.rawValue)),
          "description": "Multiple-testing correction across arms (default holm).",
        ]),
        "equivalenceMargin": nullable(
          margin.with(
            "description",
            """
            Practical-equivalence margin, relative to the control's exact value, below which a true effect is negligible \
            when verdicts are graded (default 0.01 = 1 %).
            """)),
        "equivalenceMargins": nullable([
          "type": "object", "description": "Per-metric relative practical-equivalence margins, overriding equivalenceMargin.",
          "properties": .object(FunnelMetric.allCases.map { ($0.rawValue, margin) }), "additionalProperties": false,
        ]),
      ],
      "additionalProperties": false,
    ]
  }

  /// An expectation checked by `funnellab check`.
  static func expectation() -> Node {
    [
      "type": "object",
      "description": """
      An assumption checked by `funnellab check`: range (exact value in [min, max]; with relativeTo, its difference from \
      that variant, absolute or relative by scale), lift (the exact improvement Δ over the control bounded by atLeast \
      (Δ ≥ x), atMost (Δ ≤ x), costsAtMost (Δ ≥ -x), costsAtLeast (Δ ≤ -x) and within (|Δ| ≤ m); absolute, or relative \
      to the control's value with scale relative), beats (power ≥ power of the z-test at users per arm and the exact \
      rates, at alpha shared by Bonferroni among the variant and among (by default its own comparison alone; grid cells \
      never count); with simulate, an experiment-mode run of those arms must also be significant), best (highest value \
      among the control, the variant and among (default: the declared variants) with probability ≥ probability: exact, \
      or from an experiment-mode run of users per arm), varianceReduction (the exact share of the variant-vs-control \
      difference's variance that method removes, in [min, max]), equivalent (a test of users per arm shows the variant \
      equivalent to the control within ±within by two one-sided tests at alpha with power ≥ power, at the exact rates; \
      with simulate, a seeded run must show it too).
      """,
      "properties": expectationProperties(),
      "required": ["kind", "variant", "metric"],
      "additionalProperties": false,
    ]
  }

  /// The fields of an expectation.
  static func expectationProperties() -> Node {
    let users = FunnelExpectation.usersPerArm
    return [
      "id": nullable(["type": "string", "description": "A name for reports (default: kind variant metric)."]),
      "kind": ["enum": .strings(FunnelExpectation.Kind.allCases.map(\.rawValue))],
      "method": nullable(["enum": .strings(FunnelExpectation.methodNames), "description": "varianceReduction: the adjustment (required)."]),
      "variant": ["type": "string", "minLength": 1],
      "metric": ["enum": metricNames],
      "min": nullable(["type": "number"]),
      "max": nullable(["type": "number"]),
      "atLeast": nullable(["type": "number", "description": "lift: the smallest acceptable improvement (0.02 = 2 points of a rate)."]),
      "costsAtMost": nullable(["type": "number", "minimum": 0, "description": "lift: the largest acceptable worsening."]),
      "atMost": nullable(["type": "number", "description": "lift: the largest acceptable improvement."]),
      "costsAtLeast": nullable([
        "type": "number", "minimum": 0, "description": "lift: the smallest worsening expected (the variant costs at least this).",
      ]),
      "within": nullable([
        "type": "number", "minimum": 0,
        "description": """
        lift: an equivalence margin: the improvement lies in [-within, within]; equivalent: the margin (> 0) a test must \
        show the difference within.
        """,
      ]),
      "scale": nullable([
        "enum": .strings(FunnelExpectation.Scale.allCases.map(\.rawValue)),
        "description": """
        lift, and range with relativeTo: bounds in the metric's unit (absolute, the default) or as a share of the \
        reference's value (relative: 0.05 = 5 %).
        """,
      ]),
      "relativeTo": nullable([
        "type": "string", "minLength": 1,
        "description": "range: a variant whose value is subtracted before min and max apply (usually the control).",
      ]),
      "among": nullable([
        "type": "array", "items": ["type": "string", "minLength": 1], "minItems": 1, "uniqueItems": true,
        "description": """
        beats: the other arms sharing alpha (Bonferroni); best: the other arms ranked (default: every declared variant).
        """,
      ]),
      "users": nullable([
        "type": "integer", "minimum": .integer(users.lowerBound), "maximum": .integer(users.upperBound),
        "description": "Users per arm (beats: required; best: simulate an experiment of this size).",
      ]),
      "power": nullable([
        "type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "description": "beats: least acceptable power (default 0.8).",
      ]),
      "alpha": nullable([
        "type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.5,
        "description": "beats: significance level (default metrics.alpha), for its own comparisons only.",
      ]),
      "simulate": nullable(["type": "boolean", "description": "beats: also run an experiment and require adjusted p < alpha."]),
      "probability": nullable([
        "type": "number", "exclusiveMinimum": 0, "maximum": 1, "description": "best: least acceptable probability to be best.",
      ]),
    ]
  }
}
