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
    for row in toned(rows, r).prefix(top.map { $0 + 1 } ?? rows.count) { t.add(row) }
    out += t.render()
    if let top, r.cells.count - 1 > top { out += "  … \(r.cells.count - 1 - top) more cells (--top)\n" }
    return out
  }

  /// The terminal rows marked as the other commands' tables mark their calls (shown in colour
  /// when the terminal takes it): the cell the truth names best, or the equivalent cells that
  /// beat the control, in green, as the headline does; each cell's true Δ green when the cell
  /// beats the control by more than the margin, red when it is worse by more (a negligible or
  /// tied Δ stays plain); a violated guardrail in red.
  static func toned(_ rows: [[String]], _ r: GridReport) -> [[String]] {
    let winners: Set<String> =
      switch r.standing {
      case .best: Set(r.top.map { [$0.variant] } ?? [])
      case .equivalent(let cells): Set(cells)
      case .noneBeatsControl, .nothingToCompare: []
      }
    let guardrailColumn = rows.first.map { $0.count - r.spec.guardrails.count } ?? 0
    return zip(r.cells, rows).map { cell, row in
      var row = row
      if winners.contains(cell.variant) { row[1] = Tone.good.mark(row[1]) }
      if let lift = cell.summary.exactRelativeLift(r.spec.primary), !cell.levels.isEmpty,
        !DecisionRule.negligible(relativeLift: lift, relativeMargin: r.relativeMargin)
      {
        row[3] = ((lift > 0) == r.spec.primary.higherIsBetter ? Tone.good : Tone.bad).mark(row[3])
      }
      for (k, g) in cell.guardrails.enumerated() where !cell.levels.isEmpty && row.indices.contains(guardrailColumn + k) {
        row[guardrailColumn + k] = Vocabulary.mark(row[guardrailColumn + k], Vocabulary.tone(g.status))
      }
      return row
    }
  }

  /// The first line: the grid's cells, seed and size.
  static func header(_ r: GridReport) -> String {
    "\(r.experiment) · grid of \(r.cells.count - 1) cells"
      + " (" + r.factors.map { "\($0.id): " + $0.levels.map(\.id).joined(separator: "/") }.joined(separator: " × ") + ")"
      + " · seed \(r.seed) · \(Vocabulary.plural(r.usersPerVariant, "user")) per cell · truth mode"
  }

  /// The answer, worded from ``GridReport/standing`` in one unit (the lift, in %): the best cell by
  /// the truth (by more than the margin) and what this run's test saw of it; the equivalent
  /// cells; or that no cell beats the control by more than the margin, naming the top cell and
  /// whether it ties the control, is negligible or is worse.
  static func headline(_ r: GridReport) -> String {
    guard let top = r.top else { return "The grid has no cell." }
    let observed =
      top.comparison.map { "; this run's lift \(NumberText.lift($0.relativeLift)), Holm p \(ExperimentReportRenderer.p(top.holm))" } ?? ""
    return truth(
      r.standing, label: r.spec.primary.label, relativeMargin: r.relativeMargin, top: top.variant,
      topTiesControl: GridReport.equalsControl(top), observed: observed
    ) { id in NumberText.lift(r.cells.first { $0.variant == id }?.summary.exactRelativeLift(r.spec.primary)) }
  }

  /// A grid's `standing` on the metric `label` in words, the exact lift (`lift` of a cell id)
  /// in one unit: the best cell (by more than the margin) and what `observed` adds of it; the
  /// equivalent cells; or that no cell beats the control by more than the margin, naming the
  /// top cell and whether it ties the control, is negligible or is worse.
  static func truth(
    _ standing: DecisionRule.Standing, label: String, relativeMargin: Double, top: String, topTiesControl: Bool, observed: String = "",
    lift: (String) -> String
  ) -> String {
    let margin = "±" + NumberText.percent(relativeMargin)
    switch standing {
    case .best:
      return "The truth: the best cell on \(label) is \(Tone.good.mark(top)), exact lift \(lift(top)) against the control, "
        + "more than \(margin) ahead of every other cell\(observed)."
    case .equivalent(let cells):
      let named = cells.prefix(3).map { "\($0) (\(lift($0)))" } + (cells.count > 3 ? ["\(cells.count - 3) more"] : [])
      return "The truth: no single best cell on \(label): " + NumberText.list(named)
        + " beat the control but are equivalent, within \(margin) of each other."
    case .noneBeatsControl(let negligible):
      let state =
        topTiesControl
        ? "ties the control (its exact \(label) equals the control's)"
        : negligible.contains(top) ? "is negligible (exact lift \(lift(top)))" : "is worse (exact lift \(lift(top)))"
      return "The truth: no cell beats the control on \(label) by more than \(margin); the top cell, \(top), \(state)."
    case .nothingToCompare: return "Nothing to compare: only the control."
    }
  }

  /// The ``GridReport/standing`` as JSON: `kind`, `arms` and `relativeMargin`, as `exact` writes it.
  static func standingJSON(_ r: GridReport) -> JSONValue {
    .object([
      ("kind", .string(r.standing.code)), ("arms", .array(r.standing.arms.map { .string($0) })),
      ("relativeMargin", .number(r.relativeMargin)),
    ])
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
            ("primaryMetric", .string(r.spec.primary.rawValue)), ("best", r.top.map { .string($0.variant) } ?? .null),
            ("bestTrueDifference", opt(r.top?.exactDifference)),
            ("bestEqualsControl", .bool(r.top.map(GridReport.equalsControl) ?? false)),
            ("bestBeatsControl", .bool(r.topBeatsControl)),
            ("standing", standingJSON(r)),
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
