extension SpecSchema {
  /// The bounds of `parameter` (``BehaviorParameter/range``, whole numbers only when
  /// ``BehaviorParameter/isWholeNumber``).
  static func bounds(of parameter: BehaviorParameter) -> [(String, Node)] {
    var members: [(String, Node)] = [
      ("minimum", .number(parameter.range.lowerBound)), ("maximum", .number(parameter.range.upperBound)),
    ]
    if parameter.isWholeNumber { members.append(("multipleOf", 1)) }
    return members
  }

  /// One behavior parameter's value: its range, default, unit and meaning.
  static func behaviorValue(_ parameter: BehaviorParameter) -> Node {
    let range = parameter.range
    let text = """
      \(parameter.meaning) Unit: \(parameter.unit). Default \(JSONValue.format(parameter.defaultValue)); \
      allowed \(JSONValue.format(range.lowerBound))…\(JSONValue.format(range.upperBound)).
      """
    var members: [(String, Node)] = [
      ("type", "number"), ("minimum", .number(range.lowerBound)), ("maximum", .number(range.upperBound)),
      ("default", .number(parameter.defaultValue)), ("description", .string(text)),
    ]
    if parameter.isWholeNumber { members.append(("multipleOf", 1)) }
    return .object(members)
  }

  /// The names of the behavior parameters.
  static var behaviorNames: Node { .strings(BehaviorParameter.allCases.map(\.rawValue)) }

  /// `behavior` of a spec or a segment: overrides of the defaults, by name.
  static func behaviorOverrides() -> Node {
    [
      "type": "object",
      "description": "Behavior parameters (name: value) that differ from the defaults. Unknown names are errors.",
      "propertyNames": ["enum": behaviorNames],
      "properties": .object(BehaviorParameter.allCases.map { ($0.rawValue, behaviorValue($0)) }),
      "additionalProperties": false,
    ]
  }

  /// `parameterUncertainty`: distributions of the parameters that can be drawn (not the whole-number ones).
  static func parameterUncertainty() -> Node {
    let drawn: Node = .strings(BehaviorParameter.allCases.filter { !$0.isWholeNumber }.map(\.rawValue))
    let distribution: Node = [
      "oneOf": [
        [
          "type": "object", "properties": ["mean": ["type": "number"], "sd": ["type": "number", "exclusiveMinimum": 0]],
          "required": ["mean", "sd"], "additionalProperties": false,
        ],
        [
          "type": "object", "properties": ["low": ["type": "number"], "high": ["type": "number"]],
          "required": ["low", "high"], "additionalProperties": false,
        ],
      ]
    ]
    let correlation: Node = [
      "type": "object",
      "properties": [
        "between": ["type": "array", "items": ["enum": drawn], "minItems": 2, "maxItems": 2],
        "rho": ["type": "number", "exclusiveMinimum": -1, "exclusiveMaximum": 1],
      ],
      "required": ["between", "rho"], "additionalProperties": false,
    ]
    return [
      "type": "object",
      "description": """
      What is uncertain about the behavior parameters: drawn by `run`/`exact`/`power --parameter-uncertainty`, each draw \
      solved exactly. `calibrate --variants -o` writes it from a fit.
      """,
      "properties": [
        "description": nullable(["type": "string"]),
        "draws": nullable([
          "type": "integer", "minimum": .integer(Limits.parameterDraws.lowerBound),
          "maximum": .integer(Limits.parameterDraws.upperBound), "description": "Draws (default 200).",
        ]),
        "parameters": [
          "type": "object", "minProperties": 1,
          "description": #"Per parameter: {"mean", "sd"} (normal, truncated to the range) or {"low", "high"} (uniform)."#,
          "propertyNames": ["enum": drawn],
          "additionalProperties": distribution,
        ],
        "correlations": nullable([
          "type": "array", "items": correlation,
          "description": "Correlations between normal parameters; pairs not listed are independent.",
        ]),
      ],
      "required": ["parameters"],
      "additionalProperties": false,
    ]
  }

  /// One patch: `op` names a ``Patch/Operation``, whose fields follow.
  static func patch() -> Node {
    let rules = Patch.Operation.allCases.map { operation in
      let (properties, required, extra) = patchFields(operation)
      var then: Node = [
        "description": .string(operation.summary),
        "properties": (["op": ["const": .string(operation.rawValue)]] as Node).merging(properties),
        "required": .strings(["op"] + required),
        "additionalProperties": false,
      ]
      then = then.merging(extra)
      let condition: Node = ["required": ["op"], "properties": ["op": ["const": .string(operation.rawValue)]]]
      return ["if": condition, "then": then] as Node
    }
    return [
      "type": "object",
      "description": "One change a variant makes to the base experiment; patches apply in order.",
      "properties": ["op": ["enum": .strings(Patch.operations)]],
      "required": ["op"],
      "allOf": .array(rules),
    ]
  }

  /// The fields of `operation` (as the decoder reads them), the required ones, and extra rules.
  static func patchFields(_ operation: Patch.Operation) -> (Node, [String], Node) {
    let paywall = nullable(["type": "string", "description": "The paywall's id; may be omitted when the flow has one paywall."])
    let anchor: Node = [
      "oneOf": [
        ["required": ["after"], "properties": ["after": ["type": "string"]]],
        ["required": ["before"], "properties": ["before": ["type": "string"]]],
      ]
    ]
    let placed: Node = ["after": nullable(["type": "string"]), "before": nullable(["type": "string"])]
    switch operation {
    case .moveScreen: return ((["screen": ["type": "string"]] as Node).merging(placed), ["screen"], anchor)
    case .setRequired: return (["screen": ["type": "string"], "required": ["type": "boolean"]], ["screen", "required"], [:])
    case .setDefaultPlan: return (["screen": paywall, "plan": ["type": "string"]], ["plan"], [:])
    case .setAction:
      let fields: Node = [
        "screen": ["type": "string"], "action": ["type": "string"], "kind": nullable(ref("actionKind")),
        "probability": nullable(ref("probability")), "to": nullable(ref("targetID")),
      ]
      return (fields, ["screen", "action"], [:])
    case .removeAction: return (["screen": ["type": "string"], "action": ["type": "string"]], ["screen", "action"], [:])
    case .setFeatures: return (["screen": paywall, "count": ["type": "integer", "minimum": 0, "maximum": 100]], ["count"], [:])
    case .setPlan:
      let fields: Node = [
        "screen": paywall, "plan": ["type": "string"], "price": nullable(["type": "number", "exclusiveMinimum": 0]),
        "badge": nullable(["type": "string", "description": "An empty string removes the badge."]),
        "trialDays": nullable(["type": "integer", "minimum": 0, "maximum": 3650]),
      ]
      return (fields, ["plan"], [:])
    case .setBehavior:
      let fields: Node = ["parameter": ["enum": behaviorNames], "value": ["type": "number"], "segment": nullable(["type": "string"])]
      let ranges = BehaviorParameter.allCases.map { parameter -> Node in
        [
          "if": ["properties": ["parameter": ["const": .string(parameter.rawValue)]]],
          "then": ["properties": ["value": .object(bounds(of: parameter))]],
        ]
      }
      return (fields, ["parameter", "value"], ["allOf": .array(ranges)])
    case .insertScreen: return ((["screen": ref("screen")] as Node).merging(placed), ["screen"], anchor)
    case .removeScreen: return (["screen": ["type": "string"]], ["screen"], [:])
    }
  }
}
