/// The JSON Schema (draft 2020-12) of an experiment spec, `experiments/schema.json`, built from the
/// model's own declarations: the action kinds (``ActionKind/summary``, ``ActionKind/target``), the
/// screen kinds (``ScreenKind/allowedActions``, ``ScreenKind/actionsSkippingAnswer``, the fields each
/// kind owns), the behavior parameters (``BehaviorParameter/range``, ``BehaviorParameter/unit``,
/// ``BehaviorParameter/meaning``), the billing periods, the patch operations (``Patch/Operation``),
/// the metrics and the bounds of ``Limits``. `funnellab schema` writes it; a test fails when the
/// committed file differs.
///
/// The schema matches the decoder key for key (unknown keys are errors; JSON null on an optional key
/// means absent) plus the validator's per-value ranges; cross-field rules stay with
/// ``Experiment/validationErrors()``.
package enum SpecSchema {
  /// The schema as written to `experiments/schema.json`: ``document()`` by ``JSONWriter``.
  package static var text: String { JSONWriter.write(document()) }

  /// The schema document.
  package static func document() -> JSONValue {
    let root: Node = [
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "title": "FunnelLab experiment",
      "description": """
      An experiment spec for FunnelLab, matching the Swift decoder key for key (unknown keys are errors; JSON null on an \
      optional key means absent) plus the validator's per-value ranges and the action kinds each screen kind allows. \
      Cross-field rules (probabilities summing to 1, targets naming screens, required screens offering no skip, \
      reachability, patch results) are checked by `funnellab validate`.
      """,
      "type": "object",
      "properties": rootProperties(),
      "required": ["name", "flow", "variants"],
      "additionalProperties": false,
      "$defs": .object(definitions()),
    ]
    return root.json
  }

  /// The top-level keys of a spec.
  static func rootProperties() -> Node {
    [
      "$schema": ["description": #"The schema this file follows, e.g. "./schema.json" (ignored by FunnelLab)."#],
      "name": ["type": "string", "minLength": 1],
      "description": nullable(["type": "string"]),
      "source": nullable(["type": "string", "description": "Where the flow comes from (a design document)."]),
      "seed": nullable([
        "type": "integer", "minimum": 0, "maximum": .integer(UInt64.max), "description": "Random seed (default 1).",
      ]),
      "users": nullable([
        "type": "integer", "minimum": .integer(Limits.users.lowerBound), "maximum": .integer(Limits.users.upperBound),
        "description": "Users simulated per variant (default 100000; at most 10^10).",
      ]),
      "behavior": ref("behaviorOverrides"),
      "population": nullable(ref("population")),
      "flow": ref("flow"),
      "variants": ["type": "array", "items": ref("variant"), "minItems": 1, "maxItems": .integer(Limits.variants)],
      "simulation": nullable(ref("simulation")),
      "store": nullable(ref("store")),
      "revenue": nullable(ref("revenue")),
      "expectations": nullable([
        "type": "array", "items": ref("expectation"), "description": "Assumptions checked by `funnellab check`.",
      ]),
      "metrics": nullable(ref("metrics")),
      "design": nullable(ref("design")),
      "grid": nullable(ref("grid")),
      "parameterUncertainty": nullable(ref("parameterUncertainty")),
    ]
  }

  /// The `$defs`, in the order the file lists them.
  static func definitions() -> [(String, Node)] {
    [
      ("probability", probability), ("actionKind", actionKind()), ("screenKind", screenKind()),
      ("targetID", targetID), ("behaviorOverrides", behaviorOverrides()), ("action", action()),
      ("actions", actions()), ("dwell", dwell()), ("option", option()), ("plan", plan()), ("screen", screen()),
      ("flow", flow()), ("segment", segment()), ("population", population()), ("store", store()),
      ("revenue", revenue()), ("simulation", simulation()), ("patch", patch()), ("variant", variant()),
      ("metrics", metrics()), ("design", design()), ("grid", grid()), ("expectation", expectation()),
      ("parameterUncertainty", parameterUncertainty()),
    ]
  }

  /// A reference to the definition `name`.
  static func ref(_ name: String) -> Node { ["$ref": .string("#/$defs/\(name)")] }

  /// `schema` or JSON null: a key read with `decodeIfPresent`, where null means absent. A
  /// single `type` becomes `[type, "null"]`; a reference, or a schema without one type, an `anyOf`.
  static func nullable(_ schema: Node) -> Node {
    guard case .string(let type)? = schema["type"]?.json.kind, schema["$ref"] == nil else {
      return ["anyOf": [schema, ["type": "null"]]]
    }
    return schema.with("type", [.string(type), "null"])
  }

  /// An optional probability with its description.
  static func probabilityField(_ text: String) -> Node {
    nullable(["type": "number", "minimum": 0, "maximum": 1, "description": .string(text)])
  }

  /// A probability at reference conditions.
  static let probability: Node = [
    "type": "number", "minimum": 0, "maximum": 1,
    "description": "A probability from 0 to 1 (at reference conditions: intent 0, first screen, no friction).",
  ]

  /// A screen id or a reserved outcome.
  static let targetID: Node = [
    "type": "string", "minLength": 1, "description": #"A screen id, or the reserved outcome "completed" or "abandoned"."#,
  ]

  /// The names of the metrics a spec may name.
  static var metricNames: Node { .strings(FunnelMetric.allCases.map(\.rawValue)) }
}
