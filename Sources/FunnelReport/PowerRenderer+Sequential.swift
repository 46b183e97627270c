import FunnelLab
import FunnelStats

/// A planned group-sequential design (`power --looks K`) in every format: per look the users,
/// the boundary, the nominal p-value and α spent, and the chance to stop there; then what the
/// looks cost (the inflation of the maximum size) and save (the expected size).
extension PowerRenderer {
  /// The title line of the section.
  static func sequentialTitle(_ p: GroupSequentialPlan) -> String {
    let looks = p.design.boundaries.count
    return "Group-sequential design · \(Vocabulary.plural(looks, "look")) · \(p.design.spending.rawValue) spending · "
      + "two-sided α = \(JSONValue.format(p.design.alpha))"
  }

  static let sequentialHeaders = [
    "look", "users, treatment", "information", "|z| boundary", "nominal p", "α spent", "P(stop) if real", "P(stop) if none",
  ]

  /// A probability with 5 decimals, `<0.00001` below them (never a bare 0.00000).
  static func small(_ p: Double) -> String { p < 0.000005 ? "<0.00001" : NumberText.fixed(p, 5) }

  static func sequentialCells(_ p: GroupSequentialPlan) -> [[String]] {
    p.design.informationFractions.indices.map { k in
      [
        String(k + 1), NumberText.grouped(p.maxUsersPerArm * p.design.informationFractions[k], rounding: .up),
        NumberText.percent(p.design.informationFractions[k], decimals: 0), NumberText.fixed(p.design.boundaries[k], 3),
        small(p.design.nominalPValues[k]), small(p.design.cumulativeAlpha[k]),
        NumberText.percent(p.stopProbabilities[safe: k], decimals: 1),
        NumberText.percent(p.stopProbabilitiesWithoutEffect[safe: k], decimals: 2),
      ]
    }
  }

  /// What the design costs and saves, one sentence each.
  static func sequentialSentences(_ p: GroupSequentialPlan) -> [String] {
    let fixed = NumberText.grouped(p.fixedUsersPerArm, rounding: .up)
    return [
      "At most \(NumberText.grouped(p.maxUsersPerArm, rounding: .up)) users in treatment: ×\(NumberText.fixed(p.inflation, 3)) the fixed test's "
        + "\(fixed), for the same \(NumberText.percent(p.power, decimals: 1)) power.",
      "Expected \(NumberText.grouped(p.expectedUsersPerArm, rounding: .up)) if the effect is real (it often stops early); "
        + "\(NumberText.grouped(p.expectedUsersPerArmWithoutEffect, rounding: .up)) if there is none.",
      "Looking \(p.design.boundaries.count) times at the fixed size (\(fixed)) instead: power \(NumberText.percent(p.powerAtFixedSize, decimals: 1)).",
      "Control users are the treatment's × the ratio at every look; stop at a look when |z| ≥ its boundary.",
    ]
  }

  static func sequentialTable(_ p: GroupSequentialPlan) -> String {
    var table = TextTable(sequentialHeaders, alignments: sequentialHeaders.indices.map { $0 == 0 ? .left : .right })
    for row in sequentialCells(p) { table.add(row) }
    return "\n" + sequentialTitle(p) + "\n" + table.render() + sequentialSentences(p).map { "  \($0)\n" }.joined()
  }

  static func sequentialMarkdown(_ p: GroupSequentialPlan) -> String {
    var out = "\n## \(sequentialTitle(p))\n\n" + RunMarkdownRenderer.header(sequentialHeaders, right: Set(1..<sequentialHeaders.count))
    for row in sequentialCells(p) { out += RunMarkdownRenderer.row(row) }
    return out + "\n" + sequentialSentences(p).map { "- \($0)\n" }.joined()
  }

  static func sequentialHTML(_ p: GroupSequentialPlan, into doc: inout HTMLDocument) {
    doc.heading(2, sequentialTitle(p))
    doc.table(sequentialHeaders, sequentialCells(p), right: Set(1..<sequentialHeaders.count), caption: "Looks")
    for sentence in sequentialSentences(p) { doc.paragraph(sentence) }
  }

  /// CSV rows `quantity,value,solved` of the design (`groupSequential.…`, per look `[k]`).
  static func sequentialCSVRows(_ p: GroupSequentialPlan) -> [[String]] {
    var rows: [[String]] = [
      ["groupSequential.looks", String(p.design.boundaries.count)], ["groupSequential.spending", p.design.spending.rawValue],
      ["groupSequential.inflation", JSONValue.format(p.inflation)],
      ["groupSequential.maxTreatmentUsers", JSONValue.format(p.maxUsersPerArm)],
      ["groupSequential.expectedTreatmentUsers", JSONValue.format(p.expectedUsersPerArm)],
      ["groupSequential.expectedTreatmentUsersWithoutEffect", JSONValue.format(p.expectedUsersPerArmWithoutEffect)],
      ["groupSequential.powerAtFixedSize", JSONValue.format(p.powerAtFixedSize)],
    ]
    for k in p.design.boundaries.indices {
      rows.append(["groupSequential.informationFraction[\(k + 1)]", JSONValue.format(p.design.informationFractions[k])])
      rows.append(["groupSequential.boundary[\(k + 1)]", JSONValue.format(p.design.boundaries[k])])
      rows.append(["groupSequential.alphaSpent[\(k + 1)]", JSONValue.format(p.design.cumulativeAlpha[k])])
      rows.append(["groupSequential.nominalPValue[\(k + 1)]", JSONValue.format(p.design.nominalPValues[k])])
      rows.append(["groupSequential.treatmentUsers[\(k + 1)]", JSONValue.format(p.maxUsersPerArm * p.design.informationFractions[k])])
      rows.append(["groupSequential.stopProbability[\(k + 1)]", JSONValue.format(p.stopProbabilities[safe: k] ?? 0)])
      rows.append(
        ["groupSequential.stopProbabilityWithoutEffect[\(k + 1)]", JSONValue.format(p.stopProbabilitiesWithoutEffect[safe: k] ?? 0)])
    }
    return rows.map { $0 + ["false"] }
  }

  /// The `groupSequential` object of the formula JSON.
  static func sequentialJSON(_ p: GroupSequentialPlan) -> JSONValue {
    .object([
      ("looks", .integer(p.design.boundaries.count)), ("spending", .string(p.design.spending.rawValue)),
      ("method", .string(p.design.method)), ("inflation", .number(p.inflation)), ("maxTreatmentUsers", .number(p.maxUsersPerArm)),
      ("expectedTreatmentUsers", .number(p.expectedUsersPerArm)),
      ("expectedTreatmentUsersWithoutEffect", .number(p.expectedUsersPerArmWithoutEffect)),
      ("powerAtFixedSize", .number(p.powerAtFixedSize)),
      (
        "perLook",
        .array(
          p.design.informationFractions.indices.map { k in
            .object([
              ("informationFraction", .number(p.design.informationFractions[k])), ("boundary", .number(p.design.boundaries[k])),
              ("nominalPValue", .number(p.design.nominalPValues[k])), ("alphaSpent", .number(p.design.cumulativeAlpha[k])),
              ("stopProbability", .number(p.stopProbabilities[safe: k] ?? 0)),
              ("stopProbabilityWithoutEffect", .number(p.stopProbabilitiesWithoutEffect[safe: k] ?? 0)),
            ])
          })
      ),
    ])
  }
}
