extension SpecSchema {
  /// One screen: the fields every screen has, each kind's own fields, and per kind which actions
  /// it may offer and which fields must keep their default.
  static func screen() -> Node {
    [
      "type": "object",
      "description": "One screen of a flow. Kind-specific fields set on another kind are reported by validation.",
      "properties": .object(Screen.CodingKeys.allCases.map { ($0.rawValue, screenField($0)) }),
      "required": ["id", "kind", "actions"],
      "additionalProperties": false,
      "allOf": .array(ScreenKind.allCases.map(kindRule)),
    ]
  }

  /// The schema of one field of a screen.
  static func screenField(_ key: Screen.CodingKeys) -> Node {
    switch key {
    case .id:
      [
        "type": "string", "minLength": 1, "not": ["enum": .strings([Flow.completed, Flow.abandoned])],
        "description": .string(#"Unique screen id ("\#(Flow.completed)" and "\#(Flow.abandoned)" are reserved)."#),
      ]
    case .kind: ref("screenKind")
    case .title: nullable(["type": "string"])
    case .actions: ref("actions")
    case .dwell: nullable(ref("dwell"))
    case .required:
      ownedField(
        key, ["type": "boolean"],
        "whether the user must answer to go on (default true). A required screen cannot offer skip (nor continue, on a choice).")
    case .options:
      ownedField(key, ["type": "array", "items": ref("option"), "maxItems": .integer(Limits.optionsPerChoice)], "the options offered.")
    case .multiSelect: ownedField(key, ["type": "boolean"], "several options may be selected.")
    case .personalizes:
      ownedField(key, ["type": "boolean"], "answering sets the personalized state, which raises purchase utility.")
    case .validationFailureProbability:
      ownedField(
        key, ["type": "number", "minimum": 0, "exclusiveMaximum": 1],
        "probability that a submitted value fails validation (the user stays).")
    case .range:
      ownedField(key, ["type": "array", "items": ["type": "number"], "minItems": 2, "maxItems": 2], "[min, max] with min ≤ max.")
    case .failureProbability:
      ownedField(
        key, ["type": "number", "minimum": 0, "exclusiveMaximum": 1], "probability that the work fails (the user sees the screen again).")
    case .plans: ownedField(key, ["type": "array", "items": ref("plan")], "plans in display order.")
    case .defaultPlan: ownedField(key, ["type": "string"], "the pre-selected plan's id.")
    case .features: ownedField(key, ["type": "integer", "minimum": 0, "maximum": 100], "how many Pro features it lists.")
    case .permission: ownedField(key, ["type": "string"], "what is asked for.")
    }
  }

  /// A kind-specific field: `schema`, nullable, described as "choice, input: `text`" after its
  /// ``Screen/CodingKeys/owners``.
  static func ownedField(_ key: Screen.CodingKeys, _ schema: Node, _ text: String) -> Node {
    let owners = (key.owners ?? ScreenKind.allCases).map(\.rawValue).joined(separator: ", ")
    return nullable(schema.with("description", .string("\(owners): \(text)")))
  }

  /// The value a kind-specific field must keep on a kind that does not own it (its default, or null).
  static func defaultValue(of key: Screen.CodingKeys) -> Node {
    switch key {
    case .options, .plans: ["anyOf": [["type": "null"], ["type": "array", "maxItems": 0]]]
    case .multiSelect, .personalizes: ["enum": [nil, false]]
    case .validationFailureProbability, .failureProbability, .features: ["enum": [nil, 0]]
    case .range, .defaultPlan, .permission: ["type": "null"]
    case .required: ["enum": [nil, true]]
    case .id, .kind, .title, .actions, .dwell: [:]
    }
  }

  /// The rule for screens of `kind`: other kinds' fields keep their defaults, the fields it needs
  /// are present, and its actions are those it allows (fewer when it is required).
  static func kindRule(_ kind: ScreenKind) -> Node {
    var properties: [(String, Node)] = Screen.CodingKeys.allCases.compactMap { key in
      guard let owners = key.owners, !owners.contains(kind) else { return nil }
      let text = "\(key.rawValue) is only for \(key.ownersInWords) screens."
      return (key.rawValue, defaultValue(of: key).with("description", .string(text)))
    }
    var required: [String] = []
    switch kind {
    case .choice:
      required = ["options"]
      properties.append(("options", ["type": "array", "minItems": 1, "description": "A choice screen needs options."]))
    case .paywall:
      required = ["plans"]
      properties.append(("plans", ["type": "array", "minItems": 1, "description": "A paywall needs at least one plan."]))
    case .info, .input, .slider, .permission, .task: break
    }
    var rule: Node = ["properties": .object(properties)]
    if !required.isEmpty { rule = rule.with("required", .strings(required)) }
    let allowed = ActionKind.allCases.filter(kind.allowedActions.contains)
    if kind.actionsSkippingAnswer.isEmpty {
      rule = rule.with("allOf", [actionsRule(kind, allowed: allowed, note: "")])
    } else {
      let whenRequired = allowed.filter { !kind.actionsSkippingAnswer.contains($0) }
      rule = rule.merging([
        ("if", ["required": ["required"], "properties": ["required": ["const": false]]]),
        ("then", actionsRule(kind, allowed: allowed, note: "optional ")),
        ("else", actionsRule(kind, allowed: whenRequired, note: "required ")),
      ])
    }
    return ["if": ["required": ["kind"], "properties": ["kind": ["const": .string(kind.rawValue)]]], "then": rule]
  }

  /// The `actions` of a screen of `kind` may only be of the kinds `allowed`: a key naming another
  /// kind needs an allowed `kind`, and a custom key's `kind` must be allowed.
  static func actionsRule(_ kind: ScreenKind, allowed: [ActionKind], note: String) -> Node {
    let names = allowed.map(\.rawValue)
    let others = ActionKind.allCases.filter { !allowed.contains($0) }.map(\.rawValue)
    let text = "Actions allowed on \(note)\(kind.rawValue) screens: \(names.joined(separator: ", "))."
    let patterns: Node = [
      pattern(others): [
        "type": "object", "required": ["kind"], "properties": ["kind": ["enum": .strings(names)]], "description": .string(text),
      ]
    ]
    let additional: Node = ["properties": ["kind": ["enum": .array(names.map(Node.string) + [nil])]]]
    return ["properties": ["actions": ["patternProperties": patterns, "additionalProperties": additional]]]
  }

  /// A screen's dwell time.
  static func dwell() -> Node {
    let sigma = BehaviorParameter.dwellSigma
    return [
      "type": "object",
      "description": "Time spent on the screen: lognormal with this median and sigma of ln-seconds.",
      "properties": [
        "medianSeconds": [
          "type": "number", "minimum": .number(Limits.dwellSeconds.lowerBound), "maximum": .number(Limits.dwellSeconds.upperBound),
          "description": "Seconds a typical user spends here.",
        ],
        "sigma": nullable([
          "type": "number", "minimum": .number(sigma.range.lowerBound), "maximum": .number(sigma.range.upperBound),
          "description": .string("Sigma of ln-seconds; default: the behavior parameter \(sigma.rawValue)."),
        ]),
      ],
      "required": ["medianSeconds"],
      "additionalProperties": false,
    ]
  }

  /// An option of a choice screen.
  static func option() -> Node {
    [
      "description": #"An option of a choice screen: an id, or {"id": …, "weight": …}."#,
      "anyOf": [
        ["type": "string"],
        [
          "type": "object",
          "properties": [
            "id": ["type": "string"],
            "weight": nullable([
              "type": "number", "exclusiveMinimum": 0, "maximum": .number(Limits.weight),
              "description": "Relative weight with which users pick it (default 1).",
            ]),
          ],
          "required": ["id"], "additionalProperties": false,
        ],
      ],
    ]
  }

  /// The flow: its screens in display order.
  static func flow() -> Node {
    [
      "type": "object",
      "description": #"Screens in display order: "next" and "previous" are positions in this list."#,
      "properties": [
        "start": nullable(["type": "string", "description": "The first screen's id (default: the first listed)."]),
        "screens": ["type": "array", "items": ref("screen"), "minItems": 1, "maxItems": .integer(Limits.screens)],
      ],
      "required": ["screens"],
      "additionalProperties": false,
    ]
  }
}
