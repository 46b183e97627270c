public import FunnelLab
import FunnelStats

/// Renders a ``GridReport``: the cells ranked by the primary metric.
public enum GridRenderer {
  public static func table(_ r: GridReport, top: Int? = nil) -> String {
    let metric = r.spec.primary
    var out = "\(r.experiment) · grid of \(r.cells.count - 1) cells"
    out += " (" + r.factors.map { "\($0.id): " + $0.levels.map(\.id).joined(separator: "/") }.joined(separator: " × ") + ")"
    out += " · seed \(r.seed) · \(NumberText.grouped(r.usersPerVariant)) users per cell · truth mode\n"
    out += "Ranked by \(metric.label); Δ against the control with a 95% interval; p-values treat cells as independent samples"
    out += " (conservative under common random numbers), adjusted across the \(r.cells.count - 1) cells by Holm and by Benjamini–Hochberg.\n\n"
    var headers = ["rank", "cell", metric.label, "Δ", "95% CI", "p", "Holm", "BH"]
    var alignments: [TextTable.Alignment] = [.right, .left, .right, .right, .right, .right, .right, .right]
    for g in r.spec.guardrails {
      headers.append("\(g.metric.label) Δ")
      alignments.append(.right)
    }
    var t = TextTable(headers, alignments: alignments)
    let shown = r.cells.prefix(top.map { $0 + 1 } ?? r.cells.count)
    for c in shown {
      var row = [
        c.levels.isEmpty ? "—" : String(c.rank), c.levels.isEmpty ? "control (\(c.variant))" : c.variant,
        ExperimentReportRenderer.value(c.primary.estimate, metric),
        ExperimentReportRenderer.difference(c.comparison?.difference?.estimate, metric),
        ExperimentReportRenderer.interval(c.comparison?.difference?.interval, metric),
        ExperimentReportRenderer.p(c.comparison?.test?.pValue), ExperimentReportRenderer.p(c.holm),
        ExperimentReportRenderer.p(c.benjaminiHochberg),
      ]
      for g in c.guardrails {
        let d = ExperimentReportRenderer.difference(g.difference, g.guardrail.metric)
        row.append(c.levels.isEmpty ? "" : d + (g.status == .ok ? "" : " (\(g.status.rawValue))"))
      }
      t.add(row)
    }
    out += t.render()
    if let top, r.cells.count - 1 > top { out += "  … \(r.cells.count - 1 - top) more cells (--top)\n" }
    return out
  }

  public static func json(_ r: GridReport) -> String {
    func opt(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    return JSONWriter.write(.object([
      ("schemaVersion", .integer(1)),
      ("command", .string("grid")),
      ("experiment", .string(r.experiment)),
      ("seed", .integer(r.seed)),
      ("mode", .string("truth")),
      ("usersPerCell", .integer(r.usersPerVariant)),
      ("primary", .string(r.spec.primary.rawValue)),
      ("factors", .array(r.factors.map { f in .object([("id", .string(f.id)), ("levels", .array(f.levels.map { .string($0.id) }))]) })),
      ("cells", .array(r.cells.map { c in
        .object([
          ("id", .string(c.variant)),
          ("control", .bool(c.levels.isEmpty)),
          ("rank", .integer(c.rank)),
          ("levels", .object(c.levels.map { ($0.factor, .string($0.level)) })),
          ("users", .integer(c.summary.users)),
          ("estimate", opt(c.primary.estimate)),
          ("interval", ExperimentReportRenderer.json(c.primary.interval)),
          ("difference", opt(c.comparison?.difference?.estimate)),
          ("differenceInterval", ExperimentReportRenderer.json(c.comparison?.difference?.interval)),
          ("pValue", opt(c.comparison?.test?.pValue)),
          ("holm", opt(c.holm)),
          ("benjaminiHochberg", opt(c.benjaminiHochberg)),
          ("guardrails", .array(c.guardrails.map { g in
            .object([("metric", .string(g.guardrail.metric.rawValue)), ("difference", opt(g.difference)), ("status", .string(g.status.rawValue))])
          })),
          ("metrics", .object(c.summary.metrics.map { ($0.metric.rawValue, opt($0.value)) })),
        ])
      })),
    ]))
  }
}
