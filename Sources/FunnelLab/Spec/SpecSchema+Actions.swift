extension SpecSchema {
  /// `{"const": name}` for one name, `{"enum": names}` for several.
  static func oneOf(_ names: [String]) -> Node {
    names.count == 1 ? ["const": .string(names[0])] : ["enum": .strings(names)]
  }

  /// The action kinds, each with its ``ActionKind/summary``.
  static func actionKind() -> Node {
    [
      "enum": .strings(ActionKind.allCases.map(\.rawValue)),
      "description": "What a user can do on a screen.",
      "enumDescriptions": .strings(ActionKind.allCases.map(\.summary)),
    ]
  }

  /// The screen kinds, each with its ``ScreenKind/summary`` and default dwell.
  static func screenKind() -> Node {
    let summaries = ScreenKind.allCases.map { kind in
      let extra = kind == .paywall ? " + \(BehaviorParameter.secondsPerFeature.rawValue) per feature" : ""
      return "\(kind.summary) (default dwell \(JSONValue.format(kind.defaultMedianSeconds)) s\(extra))."
    }
    return [
      "enum": .strings(ScreenKind.allCases.map(\.rawValue)),
      "description": "The kind of a screen; it decides which actions it may offer.",
      "enumDescriptions": .strings(summaries),
    ]
  }

  /// The action kinds whose ``ActionKind/target`` is `rule`.
  static func kinds(whoseTargetIs rule: ActionKind.TargetRule) -> [String] {
    ActionKind.allCases.filter { $0.target == rule }.map(\.rawValue)
  }

  /// One action as an object (`{kind, to, probability, label}`), with the target rules of its kind.
  static func action() -> Node {
    let needTarget = kinds(whoseTargetIs: .required)
    let noTarget = kinds(whoseTargetIs: .forbidden)
    let toText = """
      Target screen id, "completed" or "abandoned". Absent: the next listed screen (the previous one for back); \
      required for \(needTarget.joined(separator: " and ")); not allowed on \(noTarget.joined(separator: " and ")).
      """
    let properties: Node = [
      "kind": nullable(ref("actionKind").with("description", "The action's kind; required when the id is not a kind name.")),
      "to": nullable(ref("targetID").with("description", .string(toText))),
      "probability": ref("probability").with(
        "description",
        .string(
          "Probability that a reference user takes this action; a screen's probabilities sum to 1 (tolerance 1e-6).")),
      "label": nullable(["type": "string", "description": "The text on the button, for reports."]),
    ]
    return [
      "type": "object",
      "description": #"""
      One action a screen offers. The object's key in "actions" is its id; the id is also its kind unless "kind" is given.
      """#,
      "properties": properties,
      "required": ["probability"],
      "additionalProperties": false,
      "allOf": [
        [
          "if": ["required": ["kind"], "properties": ["kind": oneOf(needTarget)]],
          "then": ["required": ["to"], "properties": ["to": ["type": "string"]]],
        ],
        [
          "if": ["required": ["kind"], "properties": ["kind": oneOf(noTarget)]],
          "then": ["properties": ["to": ["type": "null"]]],
        ],
      ],
    ]
  }

  /// A screen's `actions` object: bare probabilities under a kind's name, objects otherwise.
  static func actions() -> Node {
    let needTarget = kinds(whoseTargetIs: .required)
    let noTarget = kinds(whoseTargetIs: .forbidden)
    let noKind: Node = ["not": ["required": ["kind"], "properties": ["kind": ["type": "string"]]]]
    let patterns: [(String, Node)] = [
      (pattern(ActionKind.allCases.map(\.rawValue)), ["anyOf": [ref("probability"), ref("action")]]),
      (
        pattern(needTarget),
        [
          "description": .string(#"\#(needTarget.joined(separator: " and ")) need a target: write {"to": …, "probability": …}."#),
          "anyOf": [
            ["type": "object", "required": ["kind"], "properties": ["kind": ["type": "string"]]],
            ["type": "object", "required": ["to"], "properties": ["to": ["type": "string"]]],
          ],
        ]
      ),
      (pattern(noTarget), ["if": (["type": "object"] as Node).merging(noKind), "then": ["properties": ["to": ["type": "null"]]]]),
    ]
    return [
      "type": "object",
      "description": #"""
      The screen's actions keyed by id. The value is a bare probability when the id is a kind ("continue": 0.9), \#
      or an object {kind, to, probability, label}. Probabilities sum to 1.
      """#,
      "minProperties": 1,
      "maxProperties": .integer(Limits.actionsPerScreen),
      "patternProperties": .object(patterns),
      "additionalProperties": [
        "allOf": [ref("action"), ["required": ["kind"], "properties": ["kind": ref("actionKind")]]],
        "description": #"An action whose id is not a kind name: "kind" is required."#,
      ],
    ]
  }

  /// A regular expression matching exactly one of `names`.
  static func pattern(_ names: [String]) -> String {
    names.count == 1 ? "^\(names[0])$" : "^(" + names.joined(separator: "|") + ")$"
  }
}
