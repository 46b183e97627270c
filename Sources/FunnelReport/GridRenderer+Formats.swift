package import FunnelLab
import FunnelStats

/// CSV, Markdown and HTML of a grid.
extension GridRenderer {
  /// One row per cell × metric; the Holm and Benjamini–Hochberg p-values are on the
  /// primary metric's rows. One column per factor gives the cell's level.
  package static func csv(_ r: GridReport) -> String {
    var csv = CSVWriter(
      header: ["experiment", "cell", "control", "rank"] + r.factors.map(\.id) + [
        "metric", "primary", "exact", "exact_difference", "estimate", "lower", "upper", "n", "relative_lift", "relative_lift_lower",
        "relative_lift_upper", "difference", "difference_lower",
        "difference_upper", "p_value", "holm_p_value", "bh_p_value", "confidence_level",
      ])
    let controlSolution = r.cells.first?.solution
    for c in r.cells {
      let levels = r.factors.map { f in c.levels.first { $0.factor == f.id }?.level ?? "" }
      for e in c.summary.estimates {
        let k = c.summary.comparison(e.metric)
        let primary = e.metric == r.spec.primary
        csv.add(
          [r.experiment, c.variant, c.levels.isEmpty ? "true" : "false", c.levels.isEmpty ? "" : String(c.rank)] + levels + [
            e.metric.rawValue, primary ? "true" : "false", CSVWriter.number(c.solution?.value(of: e.metric)),
            CSVWriter.number(
              c.levels.isEmpty
                ? nil
                : c.solution.flatMap { s in controlSolution?.value(of: e.metric).flatMap { b in s.value(of: e.metric).map { $0 - b } } }),
            CSVWriter.number(e.estimate), CSVWriter.number(e.interval?.lower),
            CSVWriter.number(e.interval?.upper), String(e.n), CSVWriter.number(k?.relativeLift?.estimate),
            CSVWriter.number(k?.relativeLift?.interval?.lower), CSVWriter.number(k?.relativeLift?.interval?.upper),
            CSVWriter.number(k?.difference?.estimate),
            CSVWriter.number(k?.difference?.interval?.lower), CSVWriter.number(k?.difference?.interval?.upper),
            CSVWriter.number(k?.test?.pValue), primary ? CSVWriter.number(c.holm) : "",
            primary ? CSVWriter.number(c.benjaminiHochberg) : "", CSVWriter.number(1 - r.spec.alpha),
          ])
      }
    }
    return csv.text
  }

  static func rankedRows(_ r: GridReport) -> (headers: [String], rows: [[String]]) {
    let metric = r.spec.primary
    let headers =
      [
        "rank", "cell", "true value", "true Δ", "simulated", "lift [\(NumberText.level(alpha: r.spec.alpha)) CI]", "Δ",
        "\(NumberText.level(alpha: r.spec.alpha)) CI", "p", "Holm", "BH",
      ]
      + r.spec.guardrails.map { "\($0.metric.label) Δ" }
    let rows = r.cells.map { c in
      [
        c.levels.isEmpty ? "—" : String(c.rank), c.levels.isEmpty ? "control (\(c.variant))" : c.variant,
        ExperimentReportRenderer.value(c.exact, metric), ExperimentReportRenderer.difference(c.exactDifference, metric),
        ExperimentReportRenderer.value(c.primary.estimate, metric), c.comparison == nil ? "" : NumberText.lift(c.comparison?.relativeLift),
        ExperimentReportRenderer.difference(c.comparison?.difference?.estimate, metric),
        ExperimentReportRenderer.interval(c.comparison?.difference?.interval, metric),
        ExperimentReportRenderer.p(c.comparison?.test?.pValue), ExperimentReportRenderer.p(c.holm),
        ExperimentReportRenderer.p(c.benjaminiHochberg),
      ]
        + c.guardrails.map { g in
          c.levels.isEmpty
            ? ""
            : ExperimentReportRenderer.difference(g.difference, g.guardrail.metric) + (g.status == .ok ? "" : " (\(g.status.rawValue))")
        }
    }
    return (headers, rows)
  }

  /// The factors and their levels, then every cell ranked by the exact primary metric, as a Markdown table
  /// with the same columns as ``table(_:top:)``.
  package static func markdown(_ r: GridReport) -> String {
    var out = "## \(RunMarkdownRenderer.cell(r.experiment)) · grid of \(r.cells.count - 1) cells\n\n"
    out += "**\(RunMarkdownRenderer.cell(Tone.render(headline(r), color: false)))**\n\n"
    out += r.factors.map {
      RunMarkdownRenderer.code($0.id) + ": " + $0.levels.map { RunMarkdownRenderer.cell($0.id) }.joined(separator: " / ")
    }.joined(separator: " × ")
    out += " · seed \(r.seed) · \(Vocabulary.plural(r.usersPerVariant, "user")) per cell · ranked by the exact \(r.spec.primary.label);"
    out += " p-values adjusted across cells by Holm and by Benjamini–Hochberg.\n\n"
    let (headers, rows) = rankedRows(r)
    out += RunMarkdownRenderer.header(headers, right: Set([0] + Array(2..<headers.count)))
    for row in rows { out += RunMarkdownRenderer.row(row) }
    return out
  }

  /// The ranked table, then heatmaps of the primary metric: the first factor's levels
  /// by the second's, one heatmap per combination of the other factors' levels.
  package static func html(_ r: GridReport) -> String {
    let metric = r.spec.primary
    var doc = HTMLDocument(title: "FunnelLab · \(r.experiment) · grid")
    doc.heading(1, "\(r.experiment): grid of \(r.cells.count - 1) cells")
    doc.decision(headline(r))
    doc.paragraph(
      "Seed \(r.seed) · \(Vocabulary.plural(r.usersPerVariant, "user")) per cell · truth mode · ranked by the exact \(metric.label) (no sampling noise) · simulated Δ with \(NumberText.level(alpha: r.spec.alpha)) intervals · p-values adjusted by Holm and Benjamini–Hochberg.",
      cssClass: "note")
    let (headers, rows) = rankedRows(r)
    // A cell's levels may break after each comma (a zero-width space), so the table fits a laptop's width.
    let wrapped = rows.map { row in row.enumerated().map { $0 == 1 ? $1.replacingOccurrences(of: ",", with: ",\u{200B}") : $1 } }
    doc.table(headers, wrapped, right: Set(2..<headers.count), wrap: [1], caption: "Cells, best first")
    doc.heading(2, "Heatmap of \(metric.label)")
    doc.paragraph(
      "Each cell shows its exact value; darker is higher, on one scale for all the heatmaps. The control is not in the grid.",
      cssClass: "note")
    guard let first = r.factors.first else { return doc.html }
    let second = r.factors.count > 1 ? r.factors[1] : nil
    let others = Array(r.factors.dropFirst(2))
    var combinations: [[(String, String)]] = [[]]
    for f in others { combinations = combinations.flatMap { c in f.levels.map { c + [(f.id, $0.id)] } } }
    doc.beginCharts()
    let estimates = r.cells.filter { !$0.levels.isEmpty }.compactMap(GridReport.rankingValue)
    let scale = estimates.min().flatMap { lo in estimates.max().map { lo...$0 } }
    for combination in combinations {
      let columns = second?.levels.map(\.id) ?? [metric.label]
      let values: [[Double?]] = first.levels.map { a in
        columns.map { b in
          r.cells.first { c in
            !c.levels.isEmpty && c.levels.contains { $0.factor == first.id && $0.level == a.id }
              && (second.map { s in c.levels.contains { $0.factor == s.id && $0.level == b } } ?? true)
              && combination.allSatisfy { pair in c.levels.contains { $0.factor == pair.0 && $0.level == pair.1 } }
          }.flatMap(GridReport.rankingValue)
        }
      }
      let chart = SVGCharts.heatmap(
        rows: first.levels.map(\.id), columns: columns, values: values, scale: scale, text: { ExperimentReportRenderer.value($0, metric) })
      let fixed = combination.map { "\($0.0) = \($0.1)" }.joined(separator: ", ")
      let title = "\(metric.label) by \(first.id) (rows)\(second.map { " × \($0.id) (columns)" } ?? "")\(fixed.isEmpty ? "" : ", \(fixed)")"
      let description = first.levels.indices.map { i in
        "\(first.levels[i].id): "
          + columns.indices.map { j in "\(columns[j]) \(values[i][j].map { ExperimentReportRenderer.value($0, metric) } ?? "n/a")" }.joined(
            separator: ", ")
      }.joined(separator: "; ")
      doc.chart(
        kind: "heatmap", title: title, description: description + ".", width: SVGCharts.width, height: chart.height, content: chart.content)
    }
    doc.endCharts()
    return doc.html
  }
}
