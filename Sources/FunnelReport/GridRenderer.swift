package import FunnelLab
import FunnelStats

/// Renders a ``GridReport``: the cells ranked by the primary metric.
package enum GridRenderer {
  /// The `schemaVersion` written by ``json(_:)`` (docs/json-output.md); raised when a key is removed or renamed.
  package static let schemaVersion = 1

  /// The terminal report: the cells ranked by the exact primary metric, each with its simulated estimate,
  /// Δ against the control (paired when the metric allows it) and p-values adjusted across cells by Holm and
  /// by Benjamini–Hochberg. `top` keeps the control and the `top` best cells and says how many were left out;
  /// `nil` shows every cell.
  package static func table(_ r: GridReport, top: Int? = nil) -> String {
    let metric = r.spec.primary
    var out = header(r) + "\n\n"
    out += TextWrap.wrap(headline(r), width: TerminalLayout.current.width ?? 10_000, indent: 2).joined(separator: "\n") + "\n\n"
    let level = NumberText.level(alpha: r.spec.alpha)
    out += "Ranked by the exact \(metric.label) (no sampling noise); beside it the simulated estimate and its Δ against the control,"
    out += " a Monte Carlo estimate over the same users with "
    out +=
      RunTableRenderer.pairedMethods(metric).map { "a paired \(level) interval and test (\($0))" }
      ?? "an unpaired \(level) interval and test (the metric's denominator differs between cells)"
    out += "; p-values adjusted across the \(r.cells.count - 1) cells by Holm and by Benjamini–Hochberg.\n\n"
    let (headers, rows) = rankedRows(r)
    var t = TextTable(headers, alignments: [.right, .left] + Array(repeating: .right, count: headers.count - 2))
    t.keyColumns = 2
    for row in rows.prefix(top.map { $0 + 1 } ?? rows.count) { t.add(row) }
    out += t.render()
    if let top, r.cells.count - 1 > top { out += "  … \(r.cells.count - 1 - top) more cells (--top)\n" }
    return out
  }

  /// The first line: the grid's cells, seed and size.
  static func header(_ r: GridReport) -> String {
    "\(r.experiment) · grid of \(r.cells.count - 1) cells"
      + " (" + r.factors.map { "\($0.id): " + $0.levels.map(\.id).joined(separator: "/") }.joined(separator: " × ") + ")"
      + " · seed \(r.seed) · \(NumberText.grouped(r.usersPerVariant)) users per cell · truth mode"
  }

  /// The best cell by the exact primary metric (rank 1), or `nil` for a grid without cells.
  static func best(_ r: GridReport) -> GridReport.Cell? { r.cells.filter { !$0.levels.isEmpty }.min { $0.rank < $1.rank } }

  /// Whether the cell's exact primary value equals the control's (the control's own configuration, or one
  /// that changes nothing the metric sees).
  static func equalsControl(_ c: GridReport.Cell) -> Bool { abs(c.exactDifference ?? 1) <= DecisionRule.tieTolerance }

  /// The answer: the best cell by the truth and what this run's test saw of it, or that no cell beats
  /// the control (naming the best one when it is the control's own configuration).
  static func headline(_ r: GridReport) -> String {
    let metric = r.spec.primary
    guard let best = best(r) else { return "The grid has no cell." }
    let sign = metric.higherIsBetter ? 1.0 : -1.0
    let gain = (best.exactDifference ?? 0) * sign
    if gain <= DecisionRule.tieTolerance {
      let same =
        equalsControl(best)
        ? " (its exact \(metric.label) equals the control's)" : ", is \(ExperimentReportRenderer.difference(best.exactDifference, metric))"
      return "The truth: no cell beats the control on \(metric.label); the best, \(best.variant)\(same)."
    }
    let observed =
      best.comparison.map { "; this run \(NumberText.lift($0.relativeLift)), Holm p \(ExperimentReportRenderer.p(best.holm))" } ?? ""
    return "The truth: the best cell on \(metric.label) is \(Tone.good.mark(best.variant)), exact "
      + "\(ExperimentReportRenderer.difference(best.exactDifference, metric)) against the control\(observed)."
  }

  /// Every cell (the control first, `control` true) as pretty-printed JSON (`command` `"grid"`, `mode`
  /// `"truth"`): its rank, factor levels, exact value and difference, simulated estimate with interval,
  /// raw, Holm and Benjamini–Hochberg p-values, guardrail status and every metric's value.
  package static func json(_ r: GridReport) -> String {
    func opt(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    let head = JSONReportHead(schemaVersion: schemaVersion, command: "grid", experiment: r.experiment, mode: "truth", seed: r.seed)
    return JSONWriter.write(
      head.document([
        (
          "summary",
          .object([
            ("primaryMetric", .string(r.spec.primary.rawValue)), ("best", best(r).map { .string($0.variant) } ?? .null),
            ("bestTrueDifference", opt(best(r)?.exactDifference)),
            ("bestEqualsControl", .bool(best(r).map(equalsControl) ?? false)),
            (
              "bestBeatsControl",
              .bool(
                best(r).map { ($0.exactDifference ?? 0) * (r.spec.primary.higherIsBetter ? 1 : -1) > DecisionRule.tieTolerance } ?? false)
            ),
          ])
        ),
        ("usersPerCell", .integer(r.usersPerVariant)),
        ("primary", .string(r.spec.primary.rawValue)),
        ("confidenceLevel", .number(1 - r.spec.alpha)),
        ("rankedBy", .string("exact")),
        ("factors", .array(r.factors.map { f in .object([("id", .string(f.id)), ("levels", .array(f.levels.map { .string($0.id) }))]) })),
        (
          "cells",
          .array(
            r.cells.map { c in
              .object([
                ("id", .string(c.variant)),
                ("control", .bool(c.levels.isEmpty)),
                ("rank", .integer(c.rank)),
                ("levels", .object(c.levels.map { ($0.factor, .string($0.level)) })),
                ("users", .integer(c.summary.users)),
                ("exact", opt(c.exact)),
                ("exactRelativeLift", opt(c.levels.isEmpty ? nil : c.summary.exactRelativeLift(r.spec.primary))),
                ("exactDifference", opt(c.exactDifference)),
                ("estimate", opt(c.primary.estimate)),
                ("interval", ExperimentReportRenderer.json(c.primary.interval)),
                ("relativeLift", opt(c.comparison?.relativeLift?.estimate)),
                ("relativeLiftInterval", ExperimentReportRenderer.json(c.comparison?.relativeLift?.interval)),
                ("difference", opt(c.comparison?.difference?.estimate)),
                ("differenceInterval", ExperimentReportRenderer.json(c.comparison?.difference?.interval)),
                ("pValue", opt(c.comparison?.test?.pValue)),
                ("holm", opt(c.holm)),
                ("benjaminiHochberg", opt(c.benjaminiHochberg)),
                (
                  "guardrails",
                  .array(
                    c.guardrails.map { g in
                      .object([
                        ("metric", .string(g.guardrail.metric.rawValue)), ("difference", opt(g.difference)),
                        ("status", .string(g.status.rawValue)),
                      ])
                    })
                ),
                ("metrics", .object(c.summary.metrics.map { ($0.metric.rawValue, opt($0.value)) })),
              ])
            })
        ),
      ]))
  }
}
