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
    var out = "\(r.experiment) · grid of \(r.cells.count - 1) cells"
    out += " (" + r.factors.map { "\($0.id): " + $0.levels.map(\.id).joined(separator: "/") }.joined(separator: " × ") + ")"
    out += " · seed \(r.seed) · \(NumberText.grouped(r.usersPerVariant)) users per cell · truth mode\n"
    let level = NumberText.level(alpha: r.spec.alpha)
    out += "Ranked by the exact \(metric.label) (no sampling noise); beside it the simulated estimate and its Δ against the control,"
    out += " a Monte Carlo estimate over the same users with "
    out +=
      RunTableRenderer.pairedMethods(metric).map { "a paired \(level) interval and test (\($0))" }
      ?? "an unpaired \(level) interval and test (the metric's denominator differs between cells)"
    out += "; p-values adjusted across the \(r.cells.count - 1) cells by Holm and by Benjamini–Hochberg.\n\n"
    let (headers, rows) = rankedRows(r)
    var t = TextTable(headers, alignments: [.right, .left] + Array(repeating: .right, count: headers.count - 2))
    for row in rows.prefix(top.map { $0 + 1 } ?? rows.count) { t.add(row) }
    out += t.render()
    if let top, r.cells.count - 1 > top { out += "  … \(r.cells.count - 1 - top) more cells (--top)\n" }
    return out
  }

  /// Every cell (the control first, `control` true) as pretty-printed JSON (`command` `"grid"`, `mode`
  /// `"truth"`): its rank, factor levels, exact value and difference, simulated estimate with interval,
  /// raw, Holm and Benjamini–Hochberg p-values, guardrail status and every metric's value.
  package static func json(_ r: GridReport) -> String {
    func opt(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    let head = JSONReportHead(schemaVersion: schemaVersion, command: "grid", experiment: r.experiment, mode: "truth", seed: r.seed)
    return JSONWriter.write(
      head.document([
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
