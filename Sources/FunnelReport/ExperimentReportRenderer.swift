package import FunnelLab
import FunnelStats

/// Renders an ``ExperimentReport``: the observed A/B test beside the truth.
package enum ExperimentReportRenderer {
  /// The `schemaVersion` written by ``json(_:)`` (docs/json-output.md); raised when a key is removed or renamed.
  package static let schemaVersion = 1

  static func value(_ x: Double?, _ metric: FunnelMetric, decimals: Int = 2) -> String {
    guard let x else { return "n/a" }
    return metric.isProportion ? NumberText.percent(x, decimals: decimals) : NumberText.fixed(x, decimals)
  }

  static func difference(_ x: Double?, _ metric: FunnelMetric) -> String {
    guard let x else { return "" }
    return metric.isProportion ? NumberText.points(x, decimals: 2) : NumberText.signed(x, 3)
  }

  static func interval(_ i: ConfidenceInterval?, _ metric: FunnelMetric) -> String {
    guard let i else { return "" }
    if metric.isProportion { return "[\(NumberText.bound(i.lower * 100, 2)), \(NumberText.bound(i.upper * 100, 2))]" }
    return "[\(NumberText.bound(i.lower, 3)), \(NumberText.bound(i.upper, 3))]"
  }

  static func p(_ x: Double?) -> String {
    guard let x else { return "" }
    return x < 0.0001 ? "<0.0001" : NumberText.fixed(x, 4)
  }

  static func metricTable(_ m: MetricResult, alpha: Double) -> String {
    let ci = "\(NumberText.level(alpha: alpha)) CI"
    var t = TextTable(
      [
        "arm", "n", m.metric.label, ci, "lift [\(ci)]", "Δ vs control", ci, "p", "adj. p", "P(beat)", "P(best)", "true lift",
        "true Δ", "verdict",
      ],
      alignments: Array(repeating: .right, count: 13) + [.left])
    t.alignments[0] = .left
    for a in m.arms {
      t.add([
        a.arm, NumberText.grouped(a.estimate.n), value(a.estimate.estimate, m.metric), interval(a.estimate.interval, m.metric),
        a.comparison == nil ? "" : NumberText.lift(a.relativeLift),
        difference(a.comparison?.difference?.estimate, m.metric), interval(a.comparison?.difference?.interval, m.metric),
        p(a.comparison?.test?.pValue), p(a.adjustedPValue),
        a.probabilityToBeatControl.map { NumberText.percent($0) } ?? "", a.probabilityToBeBest.map { NumberText.percent($0) } ?? "",
        a.comparison == nil ? "" : NumberText.lift(a.trueRelativeLift), difference(a.trueDifference, m.metric),
        a.verdict.map(Vocabulary.toned) ?? "",
      ])
    }
    return t.render()
  }

  /// The terminal report: the sample-ratio check (when computed), the primary metric's table per arm with the
  /// exact true difference beside the estimate, each guardrail with its margin and status, the secondary
  /// metrics, and each arm's ship decision with the rule that made it.
  package static func table(_ r: ExperimentReport, overTime: AnalysisRenderer.OverTime? = nil) -> String {
    var out = "\(r.experiment) · experiment mode · seed \(r.seed) · \(Vocabulary.plural(r.armUsers.reduce(0, +), "user")) assigned by hash"
    out += " · " + settings(r) + "\n\n"
    out += DecisionSummaryRenderer.lead(DecisionSummary(r), overTime: overTime) + "\n"
    guard r.comparesArms else { return out + controlTable(r) + lifecycleText(r) }
    if let srm = r.sampleRatio {
      out +=
        "Sample ratio: "
        + zip(r.arms, zip(r.armUsers, r.plannedShares)).map { arm, x in
          "\(arm) \(NumberText.grouped(x.0)) (planned \(NumberText.percent(x.1)))"
        }.joined(separator: " · ")
      out += "\n  χ² = \(NumberText.fixed(srm.test.statistic, 2)), p = \(p(srm.test.pValue))"
      out +=
        srm.mismatch ? " — SAMPLE RATIO MISMATCH: the split is broken; do not trust the comparisons\n\n" : " — consistent with the plan\n\n"
    }
    out += "Primary metric: \(r.spec.primary.label) (true Δ: the exact difference, no sampling noise; verdicts graded against it"
    out +=
      " with effects within ±\(NumberText.percent(r.spec.equivalenceMargin(for: r.spec.primary, control: 1), decimals: 1)) of the control's value negligible)\n"
    out += metricTable(r.primary, alpha: r.spec.alpha)
    for g in r.guardrails {
      let margin =
        g.guardrail.metric.isProportion ? NumberText.fixed(g.guardrail.margin * 100, 2) + " pp" : JSONValue.format(g.guardrail.margin)
      out += "\nGuardrail: \(g.guardrail.metric.label) must not worsen by more than \(margin)\n"
      out += metricTable(g.result, alpha: r.spec.alpha)
      out +=
        "  status: " + g.result.arms.dropFirst().map { "\($0.arm) \(g.status[$0.arm]?.rawValue ?? "n/a")" }.joined(separator: " · ") + "\n"
    }
    for m in r.secondary {
      out += "\nAlso: \(m.metric.label)\n" + metricTable(m, alpha: r.spec.alpha)
    }
    let margin = NumberText.percent(r.spec.relativeMargin(for: r.spec.primary), decimals: 1)
    out += "\nDecision (ship when \(r.spec.primary.label) is significantly better \(Vocabulary.afterCorrection(r.spec.correction))"
    out += " by more than the ±\(margin) margin and no guardrail is violated or inconclusive; do not ship when it is significantly"
    out += " worse by more than the margin or a guardrail is violated; docs/decision-rule.md)\n"
    for d in r.decisions { out += "  \(d.arm): \(Vocabulary.toned(d.decision))\n" }
    if let segments = r.segments { out += SegmentRenderer.text(segments) }
    out += lifecycleText(r)
    if let overTime { out += SequentialRenderer.table(overTime.report, context: overTime.context) }
    return out
  }

  /// The test's settings: `α = 0.05 (Holm, 2 arms)`, `α = 0.05 (no correction, 5 arms)`, or
  /// `only the control` when there is nothing to compare (no correction, no test).
  static func settings(_ r: ExperimentReport) -> String {
    guard r.comparesArms else { return "only the control" }
    return "α = \(JSONValue.format(r.spec.alpha)) (\(Vocabulary.name(r.spec.correction)), \(Vocabulary.plural(r.arms.count - 1, "arm")))"
  }

  /// A report with only the control: each metric's value in the control with its interval,
  /// one row per metric, instead of comparison tables with no arm to compare.
  static func controlRows(_ r: ExperimentReport) -> [[String]] {
    sections(r).compactMap { _, m in
      m.arms.first.map { a in
        [m.metric.label, value(a.estimate.estimate, m.metric), interval(a.estimate.interval, m.metric), value(a.trueValue, m.metric)]
      }
    }
  }

  /// The header of ``controlRows(_:)``.
  static func controlHeader(_ r: ExperimentReport) -> [String] {
    ["metric", r.control, "\(NumberText.level(alpha: r.spec.alpha)) CI", "exact"]
  }

  /// ``controlRows(_:)`` as a terminal table.
  static func controlTable(_ r: ExperimentReport) -> String {
    var t = TextTable(controlHeader(r), alignments: [.left, .right, .right, .right])
    for row in controlRows(r) { t.add(row) }
    return "The control's metrics (exact: the exact engine's value)\n" + t.render()
  }

  /// The realized-revenue and renewal tables as terminal text, with a blank line before; empty
  /// for a flow that sells nothing.
  static func lifecycleText(_ r: ExperimentReport) -> String {
    let lifecycle = lifecycleTables(r)
    return lifecycle.isEmpty ? "" : "\n" + LifecycleRenderer.text(lifecycle)
  }

  /// The realized-revenue and renewal tables of the arms, one column per arm.
  static func lifecycleTables(_ r: ExperimentReport) -> [LifecycleRenderer.Table] {
    LifecycleRenderer.tables(
      r.arms.indices.map { (r.arms[$0], r.lifecycles.indices.contains($0) ? r.lifecycles[$0] : nil) }, alpha: r.spec.alpha)
  }

  static func json(_ i: ConfidenceInterval?) -> JSONValue {
    guard let i else { return .null }
    return .object([("lower", .number(i.lower)), ("upper", .number(i.upper))])
  }

  static func optional(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }

  static func json(_ m: MetricResult) -> JSONValue {
    .object([
      ("metric", .string(m.metric.rawValue)),
      (
        "arms",
        .array(
          m.arms.map { a in
            .object([
              ("arm", .string(a.arm)), ("n", .integer(a.estimate.n)), ("estimate", optional(a.estimate.estimate)),
              ("interval", json(a.estimate.interval)), ("relativeLift", optional(a.relativeLift?.estimate)),
              ("relativeLiftInterval", json(a.relativeLift?.interval)), ("difference", optional(a.comparison?.difference?.estimate)),
              ("differenceInterval", json(a.comparison?.difference?.interval)),
              ("test", a.comparison?.test.map { .string($0.method) } ?? .null),
              ("pValue", optional(a.comparison?.test?.pValue)), ("adjustedPValue", optional(a.adjustedPValue)),
              ("significant", .bool(a.significant)), ("probabilityToBeatControl", optional(a.probabilityToBeatControl)),
              ("probabilityToBeBest", optional(a.probabilityToBeBest)), ("trueValue", optional(a.trueValue)),
              ("trueRelativeLift", optional(a.trueRelativeLift)), ("trueDifference", optional(a.trueDifference)),
              ("equivalenceMargin", optional(a.equivalenceMargin)),
              ("verdict", a.verdict.map { .string($0.rawValue) } ?? .null),
            ])
          })
      ),
    ])
  }

  /// The report as pretty-printed JSON (`command` `"run"`, `mode` `"experiment"`): the arms' users and planned
  /// shares, the sample-ratio check (`null` when not computed), each metric per arm with its interval,
  /// adjusted p-value, true value and verdict, the guardrails' status and the decisions by arm.
  package static func json(_ r: ExperimentReport, overTime: AnalysisRenderer.OverTime? = nil) -> String {
    let srm: JSONValue =
      r.sampleRatio.map { s in
        .object([("statistic", .number(s.test.statistic)), ("pValue", .number(s.test.pValue)), ("mismatch", .bool(s.mismatch))])
      } ?? .null
    let guardrails: JSONValue = .array(
      r.guardrails.map { g in
        .object([
          ("metric", .string(g.guardrail.metric.rawValue)), ("margin", .number(g.guardrail.margin)), ("result", json(g.result)),
          ("status", .object(g.result.arms.dropFirst().map { ($0.arm, .string(g.status[$0.arm]?.rawValue ?? "inconclusive")) })),
        ])
      })
    let head = JSONReportHead(schemaVersion: schemaVersion, command: "run", experiment: r.experiment, mode: "experiment", seed: r.seed)
    var body: [(String, JSONValue)] = [
      ("summary", DecisionSummaryRenderer.json(DecisionSummary(r), overTime: overTime?.report)),
      ("control", .string(r.control)),
      ("alpha", .number(r.spec.alpha)),
      ("confidenceLevel", .number(1 - r.spec.alpha)),
      ("correction", .string(r.spec.correction.rawValue)),
      ("truth", .string("exact")),
      (
        "arms",
        .array(
          r.arms.indices.map { i in
            .object([
              ("id", .string(r.arms[i])), ("users", .integer(r.armUsers.indices.contains(i) ? r.armUsers[i] : 0)),
              ("plannedShare", .number(r.plannedShares.indices.contains(i) ? r.plannedShares[i] : 0)),
              ("lifecycle", LifecycleRenderer.json(r.lifecycles.indices.contains(i) ? r.lifecycles[i] : nil)),
            ])
          })
      ),
      ("sampleRatioMismatch", srm),
      ("primary", json(r.primary)),
      ("guardrails", guardrails),
      ("secondary", .array(r.secondary.map(json))),
      ("decisions", .object(r.decisions.map { ($0.arm, .string($0.decision.rawValue)) })),
      ("segments", r.segments.map(SegmentRenderer.json) ?? .null),
    ]
    if let overTime { body.append(("overTime", SequentialRenderer.json(overTime.report, context: overTime.context))) }
    return JSONWriter.write(head.document(body))
  }
}
