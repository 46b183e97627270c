extension SpecSchema {
  /// A plan on a paywall.
  static func plan() -> Node {
    [
      "type": "object",
      "description": "A product offered on a paywall.",
      "properties": [
        "id": ["type": "string"],
        "label": nullable(["type": "string"]),
        "price": [
          "type": "number", "exclusiveMinimum": 0, "maximum": 1_000_000,
          "description": "Price per period (or once, for lifetime), in currency.",
        ],
        "currency": nullable(["type": "string", "description": #"Default "USD"."#]),
        "period": ["enum": .strings(BillingPeriod.allCases.map(\.rawValue)), "description": "How often the plan bills."],
        "trialDays": nullable([
          "type": "integer", "minimum": 0, "maximum": 3650, "description": "Free-trial length in days (default 0).",
        ]),
        "badge": nullable(["type": "string", "description": #"A badge such as "Popular" or "Best value" (adds badgeBoost)."#]),
        "utility": nullable([
          "type": "number", "minimum": -20, "maximum": 20,
          "description": "Extra utility on top of price, default and badge effects (default 0).",
        ]),
        "introPrice": nullable([
          "type": "number", "minimum": 0, "maximum": 1_000_000,
          "description": "Intro offer: price of each of the first introPeriods paid periods.",
        ]),
        "introPeriods": nullable([
          "type": "integer", "minimum": 0, "maximum": 1000, "description": "Intro offer: paid periods at introPrice (default 0).",
        ]),
        "renewalProbability": nullable([
          "type": "number", "minimum": 0, "maximum": 1,
          "description": "This plan's renewal probability per period (default: revenue settings for its period).",
        ]),
      ],
      "required": ["id", "price", "period"],
      "additionalProperties": false,
    ]
  }

  /// A segment of the population.
  static func segment() -> Node {
    let intent: Node = [
      "type": "object", "description": "The intent trait: normal with this mean and sd.",
      "properties": [
        "mean": nullable(["type": "number", "minimum": -20, "maximum": 20, "description": "Default 0."]),
        "sd": nullable(["type": "number", "minimum": 0, "maximum": 20, "description": "Default 1."]),
      ],
      "additionalProperties": false,
    ]
    return [
      "type": "object",
      "description": """
      A group of users sharing a weight, an intent distribution, behavior overrides and optionally their own action \
      probabilities.
      """,
      "properties": [
        "id": ["type": "string"],
        "weight": nullable([
          "type": "number", "minimum": 0, "maximum": .number(Limits.weight),
          "description": "Relative weight (default 1; need not sum to 1).",
        ]),
        "intent": nullable(intent),
        "behavior": ref("behaviorOverrides"),
        "screens": [
          "type": "object",
          "description": """
          Per screen id, per action id: the probability this segment uses instead of the screen's (the screen must \
          still sum to 1).
          """,
          "additionalProperties": ["type": "object", "additionalProperties": ref("probability")],
        ],
        "observable": nullable([
          "type": "boolean",
          "description": """
          Known at assignment (an acquisition channel, a platform): results are broken down by it and adjustments may \
          stratify on it; the segments that are not observable form one stratum, "other" (default false).
          """,
        ]),
        "covariateMean": nullable([
          "type": "number", "exclusiveMinimum": 0, "maximum": .number(Limits.covariateMean),
          "description": """
          This segment's mean of the pre-period covariate at intent 0, instead of population.covariate.mean (needs \
          population.covariate).
          """,
        ]),
      ],
      "required": ["id"],
      "additionalProperties": false,
    ]
  }

  /// The population: a mixture of segments and an optional pre-period covariate.
  static func population() -> Node {
    let covariate: Node = [
      "type": "object",
      "description": """
      A count known for every user before the experiment (e.g. app opens in the week before): Poisson with mean \
      mean·exp(intentEffect·intent), the segment's covariateMean replacing mean; each user's count comes from a stream \
      of its own.
      """,
      "properties": [
        "name": nullable([
          "type": "string", "minLength": 1, "maxLength": 64, "description": "Its name in reports (default prePeriodCount).",
        ]),
        "mean": nullable([
          "type": "number", "exclusiveMinimum": 0, "maximum": .number(Limits.covariateMean),
          "description": "Mean count of a user of intent 0 (default 5).",
        ]),
        "intentEffect": nullable([
          "type": "number", "minimum": .number(-Limits.covariateIntentEffect), "maximum": .number(Limits.covariateIntentEffect),
          "description": "Log-mean change per unit of intent (default 0.5).",
        ]),
      ],
      "additionalProperties": false,
    ]
    return [
      "type": "object",
      "description": "A mixture of segments.",
      "properties": [
        "segments": ["type": "array", "items": ref("segment"), "minItems": 1, "maxItems": .integer(Limits.segments)],
        "covariate": nullable(covariate),
      ],
      "required": ["segments"],
      "additionalProperties": false,
    ]
  }

  /// The mock purchase layer.
  static func store() -> Node {
    [
      "type": "object",
      "description": "How the mock purchase layer behaves (per purchase attempt).",
      "properties": [
        "cancelProbability": probabilityField("The payment sheet is dismissed (default 0.12)."),
        "failureProbability": probabilityField("The purchase fails (default 0.02)."),
        "retryProbability": probabilityField("After a failure, the user tries again (default 0.5)."),
        "maximumAttempts": nullable(["type": "integer", "minimum": 1, "maximum": 10, "description": "Attempts per tap (default 3)."]),
        "pendingProbability": probabilityField("Ask to Buy: approval needed (default 0.01)."),
        "approvalProbability": probabilityField("A pending purchase is approved later (default 0.6)."),
        "approvalDelayDays": nullable([
          "type": "number", "minimum": 0, "maximum": 365, "description": "Days until approval (default 1).",
        ]),
        "restoreSuccessProbability": probabilityField("Restore purchases finds an entitlement (default 0.7)."),
        "latencySeconds": nullable(["type": "number", "minimum": 0, "maximum": 600, "description": "Seconds per attempt (default 2)."]),
      ],
      "additionalProperties": false,
    ]
  }

  /// Trials, renewals, refunds and the revenue horizon.
  static func revenue() -> Node {
    [
      "type": "object",
      "description": "Trials, renewals, refunds, fee, revenue horizon and analysis day.",
      "properties": [
        "horizonMonths": nullable([
          "type": "number", "exclusiveMinimum": 0, "maximum": 120, "description": "Months of revenue counted (default 12).",
        ]),
        "analysisDay": nullable(["type": "number", "minimum": 0, "maximum": 3650, "description": "Day the test is read (default 14)."]),
        "storeFee": probabilityField("Share of each payment the store keeps (default 0.15)."),
        "trialConversion": probabilityField("A free trial converts to paid (default 0.45)."),
        "weeklyRenewal": probabilityField("Weekly renewal probability (default 0.75)."),
        "monthlyRenewal": probabilityField("Monthly renewal probability (default 0.85)."),
        "yearlyRenewal": probabilityField("Yearly renewal probability (default 0.55)."),
        "refundProbability": probabilityField("The first payment is refunded (default 0.02)."),
      ],
      "additionalProperties": false,
    ]
  }

  /// Settings of the simulation itself.
  static func simulation() -> Node {
    [
      "type": "object",
      "description": "Settings of the simulation itself.",
      "properties": [
        "stepLimit": nullable([
          "type": "integer", "minimum": .integer(Limits.stepLimit.lowerBound), "maximum": .integer(Limits.stepLimit.upperBound),
          "description": """
          Steps after which a walk is cut off and counted as abandoned (default 500; at most 10000, also the exact \
          engine's ceiling on iterations).
          """,
        ]),
        "traitBins": nullable([
          "type": "integer", "minimum": .integer(Limits.traitBins.lowerBound), "maximum": .integer(Limits.traitBins.upperBound),
          "description": "Equiprobable bins of the intent trait (default 32).",
        ]),
      ],
      "additionalProperties": false,
    ]
  }

  /// One arm of the experiment.
  static func variant() -> Node {
    [
      "type": "object",
      "description": "One arm of the experiment; the first variant is the control.",
      "properties": [
        "id": ["type": "string", "minLength": 1],
        "description": nullable(["type": "string"]),
        "patches": nullable(["type": "array", "items": ref("patch")]),
      ],
      "required": ["id"],
      "additionalProperties": false,
    ]
  }

  /// How experiment mode assigns users to arms.
  static func design() -> Node {
    [
      "type": "object",
      "description": "How experiment mode assigns users to arms.",
      "properties": [
        "salt": nullable([
          "type": "string",
          "description": """
          Mixed into the assignment hash (default: the experiment's name, so that two experiments split users \
          independently).
          """,
        ]),
        "allocation": nullable([
          "type": "object", "additionalProperties": ["type": "number", "minimum": 0, "maximum": .number(Limits.weight)],
          "description": "Relative weight per variant id (missing: 1; not all 0).",
        ]),
      ],
      "additionalProperties": false,
    ]
  }

  /// Factors crossed into variants.
  static func grid() -> Node {
    let level: Node = [
      "type": "object",
      "properties": ["id": ["type": "string"], "patches": nullable(["type": "array", "items": ref("patch")])],
      "required": ["id"], "additionalProperties": false,
    ]
    let factor: Node = [
      "type": "object",
      "properties": ["id": ["type": "string"], "levels": ["type": "array", "minItems": 1, "items": level]],
      "required": ["id", "levels"], "additionalProperties": false,
    ]
    return [
      "type": "object",
      "description": "Factors crossed into variants named factor=level,...",
      "properties": ["factors": ["type": "array", "minItems": 1, "items": factor]],
      "required": ["factors"],
      "additionalProperties": false,
    ]
  }
}
