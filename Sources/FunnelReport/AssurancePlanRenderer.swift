import FunnelLab

/// The assurance section of a plan (`power <spec> --parameter-uncertainty`) in every format
/// of ``PlanningRenderer``.
enum AssurancePlanRenderer {
  static func intro(_ a: AssurancePlan) -> String {
    "Assurance: the chance the test is significant (α = \(JSONValue.format(a.alpha)) two-sided) in the direction of the true"
      + " effect, averaged over \(a.draws) draws of the uncertain behavior parameters, each solved exactly."
      + " Power assumes the spec's values are right; assurance does not."
  }

  static func headers(_ a: AssurancePlan, level: String) -> [String] {
    [
      "variant", "users/arm", "assurance", "P(beat)", "\(level) predictive interval of Δ",
      "users/arm for \(NumberText.percent(a.target, decimals: 0)) assurance",
    ]
  }

  static func rows(_ a: AssurancePlan) -> [[String]] {
    a.variants.map { v in
      [
        v.variant, NumberText.grouped(v.usersPerArm), NumberText.percent(v.assurance),
        v.probabilityToBeatControl.map { NumberText.percent($0) } ?? "n/a",
        v.effectInterval.map { "[\(NumberText.points($0.lowerBound, decimals: 2)), \(NumberText.points($0.upperBound, decimals: 2))]" }
          ?? "n/a",
        v.usersPerArmForTarget.map { NumberText.grouped($0) } ?? "not reachable",
      ]
    }
  }

  /// Why a size reads "not reachable", when one does.
  static func unreachableNote(_ a: AssurancePlan) -> String? {
    guard a.variants.contains(where: { $0.usersPerArmForTarget == nil }) else { return nil }
    return "Not reachable: too many draws lie near no effect for any size up to 10¹² users per arm to reach the target."
  }

  static func text(_ a: AssurancePlan, level: String) -> String {
    var out = "\n" + intro(a) + "\n"
    var t = TextTable(headers(a, level: level), alignments: [.left, .right, .right, .right, .right, .right])
    for row in rows(a) { t.add(row) }
    out += t.render()
    if let note = unreachableNote(a) { out += "  (\(note))\n" }
    return out
  }

  static func markdown(_ a: AssurancePlan, level: String) -> String {
    var out = "\n### Assurance over uncertain assumptions\n\n" + intro(a) + "\n\n"
    let h = headers(a, level: level)
    out += RunMarkdownRenderer.header(h, right: Set(1..<h.count))
    for row in rows(a) { out += RunMarkdownRenderer.row(row) }
    if let note = unreachableNote(a) { out += "\n" + note + "\n" }
    return out
  }

  static func html(_ a: AssurancePlan, level: String, into doc: inout HTMLDocument) {
    doc.heading(2, "Assurance over uncertain assumptions")
    doc.paragraph(intro(a), cssClass: "note")
    let h = headers(a, level: level)
    doc.table(h, rows(a), right: Set(1..<h.count))
    if let note = unreachableNote(a) { doc.paragraph(note, cssClass: "note") }
  }

  static func json(_ a: AssurancePlan?) -> JSONValue {
    guard let a else { return .null }
    return .object([
      ("target", .number(a.target)), ("draws", .integer(a.draws)), ("alpha", .number(a.alpha)),
      (
        "variants",
        .array(
          a.variants.map { v in
            .object([
              ("id", .string(v.variant)), ("usersPerArm", .integer(v.usersPerArm)), ("assurance", .number(v.assurance)),
              ("probabilityToBeatControl", v.probabilityToBeatControl.map { .number($0) } ?? .null),
              ("effectInterval", v.effectInterval.map { .array([.number($0.lowerBound), .number($0.upperBound)]) } ?? .null),
              ("usersPerArmForTarget", v.usersPerArmForTarget.map { .integer($0) } ?? .null),
            ])
          })
      ),
    ])
  }
}
