package import FunnelLab
import FunnelStats

/// Renders a ``SegmentReport`` in every format: the primary metric by observable
/// stratum with the exact per-stratum values, the heterogeneity test per arm, and the
/// overall difference by each adjustment with the variance it removed. The text,
/// Markdown and HTML forms share one set of rows.
package enum SegmentRenderer {
  typealias E = ExperimentReportRenderer

  /// The by-stratum table: headers and rows (control first, stratum by stratum).
  static func strataTable(_ s: SegmentReport) -> (headers: [String], rows: [[String]]) {
    let ci = "\(NumberText.level(alpha: s.alpha)) CI"
    let truth = hasTruth(s)
    let headers =
      ["arm", "stratum", "users", s.label] + (truth ? ["true value"] : []) + ["Δ vs control", ci, "p", "adj. p"] + (truth ? ["true Δ"] : [])
    let rows = s.cells.map { c in
      [
        c.arm, s.strata.indices.contains(c.stratum) ? s.strata[c.stratum] : "?", NumberText.grouped(UInt64(max(c.users, 0))),
        E.value(c.estimate, s.metric),
      ] + (truth ? [E.value(c.trueValue, s.metric)] : [])
        + [
          E.difference(c.difference?.estimate, s.metric), E.interval(c.difference?.interval, s.metric), E.p(c.pValue),
          E.p(c.adjustedPValue),
        ] + (truth ? [c.difference == nil ? "" : E.difference(c.trueDifference, s.metric)] : [])
    }
    return (headers, rows)
  }

  /// Whether the report carries exact values (a simulation), not observed data alone.
  static func hasTruth(_ s: SegmentReport) -> Bool { s.cells.contains { $0.trueValue != nil } }

  /// The adjustment table: per arm, per method.
  static func adjustedTable(_ s: SegmentReport) -> (headers: [String], rows: [[String]]) {
    let ci = "\(NumberText.level(alpha: s.alpha)) CI"
    let truth = hasTruth(s)
    let headers =
      ["arm", "method", "Δ vs control", ci, "SE", "variance removed", "p", "adj. p"] + (truth ? ["true Δ", "covers", "verdict"] : [])
    let rows = s.adjusted.map { a in
      [
        a.arm, a.method.rawValue, E.difference(a.difference.estimate, s.metric), E.interval(a.difference.interval, s.metric),
        s.metric.isProportion ? NumberText.fixed(a.standardError * 100, 3) + " pp" : NumberText.fixed(a.standardError, 4),
        a.method == .unadjusted ? "" : NumberText.percent(a.varianceReduction), E.p(a.pValue), E.p(a.adjustedPValue),
      ]
        + (truth
          ? [E.difference(a.trueDifference, s.metric), a.covers.map { $0 ? "yes" : "no" } ?? "", a.verdict.map(Vocabulary.word) ?? ""] : [])
    }
    return (headers, rows)
  }

  /// What the strata and covariate are, in one sentence.
  static func basis(_ s: SegmentReport) -> String {
    let strata = zip(s.strata, s.strataShares).map { "\($0) (\(NumberText.percent($1)))" }.joined(separator: ", ")
    let covariate = s.covariate.map { "pre-period covariate \($0)" }
    guard s.strata.count > 1 else { return covariate ?? "no observable strata" }
    return "strata \(strata)" + (covariate.map { "; " + $0 } ?? "")
  }

  /// Cochran's Q per arm, one line each.
  static func heterogeneityLines(_ s: SegmentReport) -> [String] {
    s.heterogeneity.map { arm, r in
      guard let r else { return "\(arm): not testable (fewer than two strata with a defined difference)" }
      let df = Int(r.test.degreesOfFreedom ?? 0)
      return
        "\(arm): Q = \(NumberText.fixed(r.test.statistic, 2)), df \(df), p = \(E.p(r.test.pValue)), I² = \(NumberText.percent(r.iSquared))"
    }
  }

  /// How the methods present are computed.
  static func methodsNote(_ s: SegmentReport) -> String {
    let methods = Set(s.adjusted.map(\.method))
    var text = hasTruth(s) ? "Every method estimates the same exact Δ. " : "Every method estimates the same difference. "
    let hc1 = SegmentReport.Method.allCases.filter { $0 != .cuped && methods.contains($0) }.map(\.rawValue)
    let list = NumberText.list(hc1)
    text += list.prefix(1).uppercased() + list.dropFirst() + (hc1.count == 1 ? " uses" : " use") + " HC1 standard errors and the normal"
    if methods.contains(.regression) { text += " (Lin: one slope per arm on the strata's indicators and the covariate)" }
    if methods.contains(.cuped) { text += "; CUPED is gbstats' (one pooled slope, Welch's t)" }
    return text
      + ". Variance removed: 1 − SE²/SE²(unadjusted); adj. p: \(Vocabulary.adjusted(s.correction)) across the arms, as the primary metric's."
  }

  /// The terminal sections.
  package static func text(_ s: SegmentReport) -> String {
    var out = ""
    if s.strata.count > 1 {
      out += "\nBy observable segment: \(s.label) (\(basis(s))" + (hasTruth(s) ? "; true: the exact value of each stratum" : "")
      out += "; p-values \(Vocabulary.adjusted(s.correction)) across each arm's strata)\n"
      let strata = strataTable(s)
      var t = TextTable(strata.headers, alignments: [.left, .left] + Array(repeating: .right, count: strata.headers.count - 2))
      for row in strata.rows { t.add(row) }
      out += t.render()
      out += "  Heterogeneity across strata (Cochran's Q): " + heterogeneityLines(s).joined(separator: " · ") + "\n"
    }
    out += "\nAdjusted for what is known at assignment (\(s.strata.count > 1 ? "" : basis(s) + "; ")\(methodsNote(s)))\n"
    let adjusted = adjustedTable(s)
    var a = TextTable(
      adjusted.headers,
      alignments: [.left, .left] + Array(repeating: .right, count: adjusted.headers.count - (hasTruth(s) ? 3 : 2))
        + (hasTruth(s) ? [.left] : []))
    for row in adjusted.rows { a.add(row) }
    return out + a.render()
  }

  /// The Markdown sections.
  package static func markdown(_ s: SegmentReport) -> String {
    var out = ""
    if s.strata.count > 1 {
      out += "\n### By observable segment: \(RunMarkdownRenderer.cell(s.label))\n\n"
      out +=
        "\(RunMarkdownRenderer.cell(basis(s)))\(hasTruth(s) ? "; true values are exact per stratum" : ""); p-values \(Vocabulary.adjusted(s.correction)) across each arm's strata.\n\n"
      let strata = strataTable(s)
      out += RunMarkdownRenderer.header(strata.headers, right: Set(2..<strata.headers.count))
      for row in strata.rows { out += RunMarkdownRenderer.row(row) }
      out += "\nHeterogeneity across strata (Cochran's Q): " + heterogeneityLines(s).joined(separator: "; ") + ".\n"
    }
    out += "\n### Adjusted for what is known at assignment\n\n"
    out += (s.strata.count > 1 ? "" : RunMarkdownRenderer.cell(basis(s)).capitalizedFirst + ". ") + methodsNote(s) + "\n\n"
    let adjusted = adjustedTable(s)
    out += RunMarkdownRenderer.header(adjusted.headers, right: Set(2..<min(9, adjusted.headers.count)))
    for row in adjusted.rows { out += RunMarkdownRenderer.row(row) }
    return out
  }

  /// The HTML sections.
  static func html(_ s: SegmentReport, into doc: inout HTMLDocument) {
    if s.strata.count > 1 {
      doc.heading(2, "By observable segment: \(s.label)")
      doc.paragraph(
        "\(basis(s).capitalizedFirst).\(hasTruth(s) ? " True values are the exact engine's for each stratum." : "") P-values are \(Vocabulary.adjusted(s.correction)) across each arm's strata.",
        cssClass: "note")
      let strata = strataTable(s)
      doc.table(strata.headers, strata.rows, right: Set(2..<strata.headers.count))
      doc.paragraph("Heterogeneity across strata (Cochran's Q): " + heterogeneityLines(s).joined(separator: "; ") + ".")
    }
    doc.heading(2, "Adjusted for what is known at assignment")
    doc.paragraph((s.strata.count > 1 ? "" : basis(s).capitalizedFirst + ". ") + methodsNote(s), cssClass: "note")
    let adjusted = adjustedTable(s)
    doc.table(adjusted.headers, adjusted.rows, right: Set(2..<min(9, adjusted.headers.count)), wrap: [10])
  }

  /// The JSON object (`segments` of docs/json-output.md).
  static func json(_ s: SegmentReport) -> JSONValue {
    .object([
      ("metric", .string(s.label == s.metric.label ? s.metric.rawValue : s.label)),
      ("strata", .array(s.strata.map { .string($0) })),
      ("strataShares", .array(s.strataShares.map { .number($0) })),
      ("covariate", s.covariate.map { .string($0) } ?? .null),
      ("correction", .string(s.correction.rawValue)),
      (
        "cells",
        .array(
          s.cells.map { c in
            .object([
              ("arm", .string(c.arm)), ("stratum", .string(s.strata.indices.contains(c.stratum) ? s.strata[c.stratum] : "")),
              ("users", .integer(UInt64(max(c.users, 0)))), ("estimate", E.optional(c.estimate)), ("trueValue", E.optional(c.trueValue)),
              ("difference", E.optional(c.difference?.estimate)), ("differenceInterval", E.json(c.difference?.interval)),
              ("standardError", E.optional(c.standardError)), ("pValue", E.optional(c.pValue)),
              ("adjustedPValue", E.optional(c.adjustedPValue)), ("trueDifference", E.optional(c.trueDifference)),
            ])
          })
      ),
      (
        "heterogeneity",
        .array(
          s.heterogeneity.map { arm, r in
            .object([
              ("arm", .string(arm)), ("q", E.optional(r?.test.statistic)), ("degreesOfFreedom", E.optional(r?.test.degreesOfFreedom)),
              ("pValue", E.optional(r?.test.pValue)), ("iSquared", E.optional(r?.iSquared)),
            ])
          })
      ),
      (
        "adjusted",
        .array(
          s.adjusted.map { a in
            .object([
              ("arm", .string(a.arm)), ("method", .string(a.method.rawValue)), ("difference", E.optional(a.difference.estimate)),
              ("interval", E.json(a.difference.interval)), ("standardError", .number(a.standardError)), ("pValue", .number(a.pValue)),
              ("adjustedPValue", .number(a.adjustedPValue)), ("varianceReduction", .number(a.varianceReduction)),
              ("trueDifference", E.optional(a.trueDifference)),
              ("covers", a.covers.map { .bool($0) } ?? .null), ("verdict", a.verdict.map { .string($0.rawValue) } ?? .null),
            ])
          })
      ),
    ])
  }
}
