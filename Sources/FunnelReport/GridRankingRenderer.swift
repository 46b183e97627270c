package import FunnelLab
import FunnelStats

/// Renders a ``GridRanking`` (`grid --exact`): the answer, the best cells, the Pareto front
/// of conversion against revenue per user and each factor's main effect, so a reader takes
/// in a grid of 10⁵ cells in one screen; JSON and CSV carry every cell.
package enum GridRankingRenderer {
  /// The `schemaVersion` written by ``json(_:)`` (docs/json-output.md).
  package static let schemaVersion = 1
  /// The cells shown when no `--top` is given (table, Markdown and HTML; JSON and CSV carry every cell).
  package static let defaultTop = 20

  /// The answer, worded by ``GridRenderer/truth(_:label:relativeMargin:top:topTiesControl:observed:lift:)`` from the ranking's standing.
  static func headline(_ r: GridRanking) -> String {
    guard let best = r.order.first else { return "The grid has no cell." }
    let top = r.id(ofCell: best)
    return GridRenderer.truth(
      r.standing, label: r.spec.primary.label, relativeMargin: r.relativeMargin, top: top,
      topTiesControl: r.cells[best].primary != nil && r.cells[best].primary == r.control.primary
    ) { id in NumberText.lift(lift(r, cell: id == top ? best : r.order.first { r.id(ofCell: $0) == id })) }
  }

  /// The exact relative lift of cell `index` on the primary metric against the control.
  static func lift(_ r: GridRanking, cell index: Int?) -> Double? {
    guard let index, let x = r.cells[index].primary, let c = r.control.primary, c != 0 else { return nil }
    return (x - c) / c
  }

  /// The first line: the grid's size and factors.
  static func header(_ r: GridRanking) -> String {
    "\(r.experiment) · grid of \(NumberText.grouped(r.cells.count)) cells ranked exactly ("
      + r.grid.factors.map { "\($0.id): " + $0.levels.map(\.id).joined(separator: "/") }.joined(separator: " × ") + ")"
  }

  /// The method, last: how the values were found and how many walks it took.
  static func method(_ r: GridRanking) -> String {
    "Method: every cell solved by the exact engine (no users, no seed, no sampling noise), ranked by its exact "
      + "\(r.spec.primary.label); \(Vocabulary.plural(r.walks, "walk")) for \(Vocabulary.plural(r.cells.count, "cell")) "
      + "(cells that differ only in a plan's trial share one). The Pareto front keeps the cells no other cell beats on both "
      + "purchase conversion and revenue per user; a main effect is the mean over every cell at that level."
  }

  /// The best `top` cells: rank, id, the exact primary metric, its Δ and lift against the control,
  /// conversion and revenue per user.
  static func bestRows(_ r: GridRanking, top: Int) -> (headers: [String], rows: [[String]]) {
    let metric = r.spec.primary
    let control = [
      "—", "control (\(r.controlID))", ExperimentReportRenderer.value(r.control.primary, metric), "", "",
      NumberText.percent(r.control.conversion, decimals: 2), money(r.control.revenuePerUser),
    ]
    let rows = r.order.prefix(top).enumerated().map { rank, i in row(r, cell: i, rank: String(rank + 1)) }
    return dropRepeated(r, ["rank", "levels", "true value", "true Δ", "lift", "conversion", "revenue/user"], [control] + rows)
  }

  /// The table without the conversion or revenue column when the primary metric is that one.
  static func dropRepeated(_ r: GridRanking, _ headers: [String], _ rows: [[String]]) -> (headers: [String], rows: [[String]]) {
    let repeated: Int? =
      switch r.spec.primary {
      case .purchaseConversion: 5
      case .revenuePerUser: 6
      default: nil
      }
    guard let repeated else { return (headers, rows) }
    func drop(_ row: [String]) -> [String] { row.enumerated().filter { $0.offset != repeated }.map(\.element) }
    return (drop(headers), rows.map(drop))
  }

  /// One cell's row of ``bestRows(_:top:)`` (and of the Pareto table), ranked `rank`.
  static func row(_ r: GridRanking, cell i: Int, rank: String) -> [String] {
    let metric = r.spec.primary
    let c = r.cells[i]
    return [
      rank, levels(r, cell: i), ExperimentReportRenderer.value(c.primary, metric),
      ExperimentReportRenderer.difference(c.primary.flatMap { x in r.control.primary.map { x - $0 } }, metric),
      NumberText.lift(lift(r, cell: i)), NumberText.percent(c.conversion, decimals: 2), money(c.revenuePerUser),
    ]
  }

  /// Cell `i`'s levels in factor order, joined by commas: its id without the factor names,
  /// which ``factorOrder(_:)`` gives once per table.
  static func levels(_ r: GridRanking, cell i: Int) -> String {
    zip(r.grid.factors, r.grid.levelIndices(ofCell: i)).map { $0.levels[$1].id }.joined(separator: ",")
  }

  /// "Best k of N cells", or "All N cells" when `top` shows them all.
  static func shown(_ r: GridRanking, top: Int) -> String {
    top >= r.cells.count ? "All \(NumberText.grouped(r.cells.count)) cells" : "Best \(top) of \(NumberText.grouped(r.cells.count)) cells"
  }

  /// The Pareto front's title: its size, and how many of its cells are shown when `top` is fewer.
  static func frontTitle(_ r: GridRanking, top: Int) -> String {
    let count = r.paretoFront.count
    let shown = count > top ? ", \(top) spread along it shown (every cell in --format csv or json)" : ""
    return "Pareto front of purchase conversion against revenue per user (\(Vocabulary.plural(count, "cell"))\(shown))"
  }

  /// The factors in the order the "levels" column lists them.
  static func factorOrder(_ r: GridRanking) -> String { "levels of " + r.grid.factors.map(\.id).joined(separator: ", ") }

  /// The Pareto front's cells (best conversion first) as rows of ``row(_:cell:rank:)``, ranked by the primary metric.
  static func paretoRows(_ r: GridRanking, top: Int) -> [[String]] {
    let ranks = r.ranks
    return dropRepeated(r, [], r.paretoFront(spread: top).map { row(r, cell: $0, rank: String(ranks[$0])) }).rows
  }

  /// One row per factor: its best level by main effect, and every level's mean primary metric.
  static func effectRows(_ r: GridRanking) -> [[String]] {
    r.grid.factors.enumerated().map { f, factor in
      [
        factor.id, bestLevels(r, factor: f),
        zip(factor.levels, r.mainEffects[f]).map { "\($0.id) \(ExperimentReportRenderer.value($1, r.spec.primary))" }.joined(
          separator: " · "),
      ]
    }
  }

  /// The level of `factor` with the best main effect; the levels that share it, joined by "/";
  /// "all equal" when every level has the same mean, so no level is best.
  static func bestLevels(_ r: GridRanking, factor f: Int) -> String {
    let sharing = r.bestLevels(of: f)
    if sharing.isEmpty { return "n/a" }
    if sharing.count == r.mainEffects[f].count, sharing.count > 1 { return "all equal" }
    return sharing.map { r.grid.factors[f].levels[$0].id }.joined(separator: "/")
  }

  /// Revenue per user in the spec's money, two decimals.
  static func money(_ x: Double?) -> String { x.map { NumberText.fixed($0, 2) } ?? "n/a" }

  /// The terminal report: the answer, the `top` best cells, the Pareto front, the main effects, the method.
  package static func table(_ r: GridRanking, top: Int = defaultTop) -> String {
    let width = TerminalLayout.current.width ?? 10_000
    var out = header(r) + "\n\n"
    out += TextWrap.wrap(headline(r), width: width, indent: 2).joined(separator: "\n") + "\n\n"
    func add(_ title: String, _ headers: [String], _ rows: [[String]], keys: Int) {
      out += TextWrap.wrap(title, width: width, indent: 0).joined(separator: "\n") + "\n"
      var t = TextTable(headers, alignments: headers.indices.map { $0 < keys ? .left : .right })
      t.keyColumns = keys
      for row in rows { t.add(row) }
      out += t.render() + "\n"
    }
    let (headers, rows) = bestRows(r, top: top)
    add(
      "\(shown(r, top: top)) by the exact \(r.spec.primary.label) (\(factorOrder(r))):",
      headers, rows, keys: 2)
    if r.cells.count > top {
      out += "  … \(NumberText.grouped(r.cells.count - top)) more cells (--top; every cell in --format csv or json)\n\n"
    }
    add("\(frontTitle(r, top: top)):", headers, paretoRows(r, top: top), keys: 2)
    add(
      "Main effects: the mean exact \(r.spec.primary.label) at each level, over the other factors' levels:",
      ["factor", "best level", "each level"], effectRows(r), keys: 3)
    out += TextWrap.wrap(method(r), width: width, indent: 0).joined(separator: "\n") + "\n"
    return out
  }

  /// The same sections as ``table(_:top:)`` in Markdown.
  package static func markdown(_ r: GridRanking, top: Int = defaultTop) -> String {
    var out = "## \(RunMarkdownRenderer.cell(header(r)))\n\n"
    out += "**\(RunMarkdownRenderer.cell(Tone.render(headline(r), color: false)))**\n\n"
    func add(_ title: String, _ headers: [String], _ rows: [[String]], right: Set<Int>? = nil) {
      out += "### \(RunMarkdownRenderer.cell(title))\n\n"
      out += RunMarkdownRenderer.header(headers, right: right ?? Set(2..<headers.count))
      for row in rows { out += RunMarkdownRenderer.row(row) }
      out += "\n"
    }
    let (headers, rows) = bestRows(r, top: top)
    add("\(shown(r, top: top)) (\(factorOrder(r)))", headers, rows)
    add(frontTitle(r, top: top), headers, paretoRows(r, top: top))
    add("Main effects", ["factor", "best level", "each level"], effectRows(r), right: [])
    out += method(r) + "\n"
    return out
  }

  /// The same sections as ``table(_:top:)`` as a page.
  package static func html(_ r: GridRanking, top: Int = defaultTop) -> String {
    var doc = HTMLDocument(title: "FunnelLab · \(r.experiment) · exact grid")
    doc.heading(1, "\(r.experiment): grid of \(NumberText.grouped(r.cells.count)) cells ranked exactly")
    doc.decision(headline(r))
    let (headers, rows) = bestRows(r, top: top)
    // A cell's levels may break after each comma (a zero-width space), so the table fits a laptop's width.
    func wrapped(_ rows: [[String]]) -> [[String]] {
      rows.map { row in row.enumerated().map { $0 == 1 ? $1.replacingOccurrences(of: ",", with: ",\u{200B}") : $1 } }
    }
    doc.heading(2, shown(r, top: top))
    doc.paragraph("A cell's levels, in the order: \(r.grid.factors.map(\.id).joined(separator: ", ")).", cssClass: "note")
    doc.table(headers, wrapped(rows), right: Set(2..<headers.count), wrap: [1], caption: "Best cells")
    doc.heading(2, frontTitle(r, top: top))
    doc.table(headers, wrapped(paretoRows(r, top: top)), right: Set(2..<headers.count), wrap: [1], caption: "Pareto front")
    doc.heading(2, "Main effects")
    doc.table(["factor", "best level", "each level"], effectRows(r), wrap: [2], caption: "Main effects")
    doc.methods([method(r)])
    return doc.html
  }

  /// Every cell as JSON, in cell order, with the summary first: the standing, the best cell,
  /// the Pareto front and the main effects.
  package static func json(_ r: GridRanking) -> String {
    func opt(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    func values(_ v: GridRanking.Values) -> [(String, JSONValue)] {
      [("value", opt(v.primary)), ("purchaseConversion", opt(v.conversion)), ("revenuePerUser", opt(v.revenuePerUser))]
    }
    let rank = r.ranks
    let head = JSONReportHead(schemaVersion: schemaVersion, command: "grid", experiment: r.experiment, mode: "exact")
    let best = r.order.first
    return JSONWriter.write(
      head.document([
        (
          "summary",
          .object([
            ("primaryMetric", .string(r.spec.primary.rawValue)), ("cells", .integer(r.cells.count)), ("walks", .integer(r.walks)),
            ("best", best.map { .string(r.id(ofCell: $0)) } ?? .null),
            ("bestTrueDifference", opt(best.flatMap { b in r.cells[b].primary.flatMap { x in r.control.primary.map { x - $0 } } })),
            (
              "standing",
              .object([
                ("kind", .string(r.standing.code)), ("arms", .array(r.standing.arms.map { .string($0) })),
                ("relativeMargin", .number(r.relativeMargin)),
              ])
            ),
            ("paretoFront", .array(r.paretoFront.map { .string(r.id(ofCell: $0)) })),
            (
              "mainEffects",
              .array(
                r.grid.factors.enumerated().map { f, factor in
                  .object([
                    ("factor", .string(factor.id)), ("best", .array(r.bestLevels(of: f).map { .string(factor.levels[$0].id) })),
                    ("levels", .object(zip(factor.levels, r.mainEffects[f]).map { ($0.id, opt($1)) })),
                  ])
                })
            ),
          ])
        ),
        ("primary", .string(r.spec.primary.rawValue)),
        ("rankedBy", .string("exact")),
        (
          "factors",
          .array(r.grid.factors.map { f in .object([("id", .string(f.id)), ("levels", .array(f.levels.map { .string($0.id) }))]) })
        ),
        ("control", .object([("id", .string(r.controlID))] + values(r.control))),
        (
          "cells",
          .array(
            r.cells.indices.map { i in
              .object([("id", .string(r.id(ofCell: i))), ("rank", .integer(rank[i]))] + values(r.cells[i]))
            })
        ),
      ]))
  }

  /// One row per cell (the control first), in cell order: its rank, one column per factor, the
  /// exact values and whether the cell is on the Pareto front.
  package static func csv(_ r: GridRanking) -> String {
    var csv = CSVWriter(
      header: ["experiment", "cell", "control", "rank"] + r.grid.factors.map(\.id) + [
        "metric", "exact", "exact_difference", "purchase_conversion", "revenue_per_user", "pareto_front",
      ])
    let front = Set(r.paretoFront)
    let rank = r.ranks
    func add(_ id: String, control: Bool, rank: String, levels: [String], _ v: GridRanking.Values, onFront: Bool = false) {
      csv.add(
        [r.experiment, id, control ? "true" : "false", rank] + levels + [
          r.spec.primary.rawValue, CSVWriter.number(v.primary),
          CSVWriter.number(control ? nil : v.primary.flatMap { x in r.control.primary.map { x - $0 } }),
          CSVWriter.number(v.conversion), CSVWriter.number(v.revenuePerUser), control ? "" : onFront ? "true" : "false",
        ])
    }
    add(r.controlID, control: true, rank: "", levels: r.grid.factors.map { _ in "" }, r.control)
    for i in r.cells.indices {
      let levels = zip(r.grid.factors, r.grid.levelIndices(ofCell: i)).map { $0.levels[$1].id }
      add(r.id(ofCell: i), control: false, rank: String(rank[i]), levels: levels, r.cells[i], onFront: front.contains(i))
    }
    return csv.text
  }
}
