package import FunnelLab

/// Renders a ``Sensitivity`` analysis as a table (one row per point, flips marked)
/// or as JSON chart data (schema version ``schemaVersion``).
package enum SensitivityRenderer {
  /// The `schemaVersion` written by ``json(_:)``: 2 since a point's `winner` became `null` on
  /// a tie (it was always a string: a reader that expected one breaks).
  package static let schemaVersion = 2

  static func f(_ x: Double?) -> String { x.map(CheckRenderer.format) ?? "n/a" }

  static func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
  }

  /// A point's leaders in words: the clear winner, `tie: a, b` when several lead (within the
  /// margin of the top, or of the control when none beats it), `—` when undefined.
  static func leaders(_ p: Sensitivity.Point) -> String {
    if let winner = p.winner { return winner }
    return p.leaders.isEmpty ? "—" : "tie: " + p.leaders.joined(separator: ", ")
  }

  /// The margin in words: `±1.0%`.
  static func margin(_ s: Sensitivity) -> String { "±" + NumberText.percent(s.relativeMargin) }

  /// The answer first: where the clear winner flips, or that it wins everywhere, or where the
  /// top variants tie (within the margin): a tie is never a winner and never starts a flip.
  static func conclusions(_ s: Sensitivity) -> [String] {
    guard !s.flips.isEmpty else { return [noFlip(s)] }
    let lines = s.flips.map { flip in
      let fixed = zip(s.axes.dropLast(), flip.fixed).map { "\($0.parameter.rawValue) = \(f($1))" }.joined(separator: ", ")
      return "Flip: \(flip.from) → " + Tone.warning.mark(flip.to) + " at \(flip.parameter.rawValue) ≈ \(f(flip.at))"
        + " (between \(f(flip.between.lowerBound)) and \(f(flip.between.upperBound)))" + (fixed.isEmpty ? "" : " with \(fixed)")
    }
    guard lines.count > 3 else { return lines }
    // Many flips: how often each change happens first, then three of them; the table has the rest.
    var changes: [(String, Int)] = []
    for flip in s.flips {
      let change = "\(flip.from) → \(flip.to)"
      if let k = changes.firstIndex(where: { $0.0 == change }) { changes[k].1 += 1 } else { changes.append((change, 1)) }
    }
    return [
      "The winner on \(s.metric.label) flips at \(s.flips.count) places along \(s.axes.last?.parameter.rawValue ?? ""): "
        + changes.map { "\($0.0) \($0.1)×" }.joined(separator: ", ") + "."
    ] + lines.prefix(3) + ["… \(lines.count - 3) more: see the table."]
  }

  /// The answer when no clear winner changes: one winner everywhere, one winner where any
  /// variant wins and ties elsewhere, ties everywhere, or winners that differ only across the
  /// other axes.
  static func noFlip(_ s: Sensitivity) -> String {
    let winners = s.variants.filter { v in s.points.contains { $0.winner == v } }
    let tied = s.points.filter { $0.winner == nil }
    let label = s.metric.label
    let tie = tied.first.map { p in
      "tied within \(margin(s)) at \(tied.count) of \(s.points.count) points (" + (tied.count > 1 ? "first at " : "") + axesText(s, p)
        + ": " + p.leaders.joined(separator: ", ") + ")"
    }
    guard !s.nothingToCompare else {
      return "Nothing to compare: only the control (\(s.variants.first ?? "")); add a variant to see where the winner flips."
    }
    switch (winners.count, tie) {
    case (1, nil): return "No flip: " + Tone.good.mark(winners[0]) + " wins on \(label) everywhere in the ranges tried."
    case (1, let tie?): return "No flip: " + Tone.good.mark(winners[0]) + " wins on \(label) wherever one variant wins; \(tie)."
    case (0, let tie?): return "No winner on \(label): the top variants are " + tie + "."
    default:
      return "No flip along \(s.axes.last?.parameter.rawValue ?? ""): the winner on \(label) is "
        + NumberText.list(winners) + " by the other axes" + (tie.map { "; \($0)" } ?? "") + "."
    }
  }

  /// A point's axis values in words: `featureUtility = 0`.
  static func axesText(_ s: Sensitivity, _ p: Sensitivity.Point) -> String {
    zip(s.axes, p.values).map { "\($0.parameter.rawValue) = \(f($1))" }.joined(separator: ", ")
  }

  /// The flips first (``conclusions(_:)``), then one row per grid point (the axes' values, each variant's exact
  /// metric value, the winner), `← flip` where the winner changes along the last axis.
  package static func table(_ s: Sensitivity) -> String {
    var out = "\(s.experiment) · sensitivity of the winner on \(s.metric.label) (exact engine, no sampling noise)\n\n"
    out += conclusions(s).joined(separator: "\n") + "\n\n"
    var table = TextTable(
      s.axes.map(\.parameter.rawValue) + s.variants + ["winner", ""],
      alignments: s.axes.map { _ in .right } + s.variants.map { _ in .right } + [.left, .left])
    table.keyColumns = s.axes.count
    let flipped = Set(Sensitivity.changesOfWinner(s.points).map(\.to))
    for (k, p) in s.points.enumerated() {
      table.add(
        p.values.map { f($0) } + p.metricValues.map { f($0) } + [leaders(p), flipped.contains(k) ? Tone.warning.mark("← flip") : ""])
    }
    return out + table.render()
  }

  /// The winner at every point as a page: the flips first (`data-role="decision"`), a map of the
  /// winner over the last axis (and the first, with two), and the table.
  package static func html(_ s: Sensitivity) -> String {
    var doc = HTMLDocument(title: "FunnelLab · sensitivity · \(s.experiment)")
    doc.heading(1, "\(s.experiment): where the winner flips")
    let answer = conclusions(s)
    doc.decision(answer.first ?? "", lines: Array(answer.dropFirst()), alert: !s.flips.isEmpty)
    doc.paragraph(
      "The winner on \(s.metric.label) at each point, by the exact engine (no sampling noise): a variant that beats every other by more than \(margin(s)) of the control's value, else a tie; every other behavior parameter stays at the spec's value.",
      cssClass: "note")
    let chart = winnerMap(s)
    doc.beginCharts()
    doc.chart(
      kind: "winner-map", title: "Winner on \(s.metric.label) by " + s.axes.map(\.parameter.rawValue).reversed().joined(separator: " and "),
      description: s.points.map { p in p.values.map { f($0) }.joined(separator: ", ") + ": " + leaders(p) }.joined(separator: "; ") + ".",
      width: SVGCharts.width, height: chart.height, content: chart.content)
    doc.endCharts()
    doc.table(
      s.axes.map(\.parameter.rawValue) + s.variants + ["winner"],
      s.points.map { p in p.values.map { f($0) } + p.metricValues.map { f($0) } + [leaders(p)] },
      right: Set(0..<(s.axes.count + s.variants.count)), caption: "Every point")
    return doc.html
  }

  /// The colours of the winners, colour-blind safe (Okabe–Ito), in variant order.
  static let palette = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000"]
  /// The colour of a point without a clear winner (a tie): light grey.
  static let tieColor = "#d9d9d9"

  /// A grid of cells, one per point: columns along the last axis, rows along the first (one row
  /// with a single axis), each filled with its winner's colour; tick values below and left, a
  /// legend of the winners above.
  static func winnerMap(_ s: Sensitivity) -> (content: String, height: Double) {
    guard let last = s.axes.last else { return ("", 0) }
    let rowsAxis = s.axes.count > 1 ? s.axes.first : nil
    let columns = last.values.count
    let rows = rowsAxis?.values.count ?? 1
    let winners = s.variants.filter { v in s.points.contains { $0.winner == v } }
    var legend = winners.map { v in (v, color(s, v)) }
    if s.points.contains(where: { $0.winner == nil }) { legend.append(("tie (within \(margin(s)))", tieColor)) }
    var out = ""
    var y = 4.0
    for (label, color) in legend {
      out += "<rect x=\"0\" y=\"\(SVGCharts.n(y))\" width=\"12\" height=\"12\" fill=\"\(color)\"/>\n"
      out += SVGCharts.text(18, y + 10, label, cssClass: "small")
      y += 18
    }
    let left = rowsAxis == nil ? 0.0 : 44.0
    let top = y + 6
    let cellWidth = (SVGCharts.width - left) / Double(max(columns, 1))
    let cellHeight = min(24, max(8, 240 / Double(rows)))
    for (i, p) in s.points.enumerated() {
      let column = i % columns
      let row = i / columns
      let fill = p.winner.map { Self.color(s, $0) } ?? tieColor
      out += "<rect x=\"\(SVGCharts.n(left + Double(column) * cellWidth))\" y=\"\(SVGCharts.n(top + Double(row) * cellHeight))\""
      out +=
        " width=\"\(SVGCharts.n(cellWidth))\" height=\"\(SVGCharts.n(cellHeight))\" fill=\"\(fill)\" stroke=\"#ffffff\" stroke-width=\"0.5\">"
      out += "<title>\(HTMLDocument.escape(p.values.map { f($0) }.joined(separator: ", ") + ": " + leaders(p)))</title></rect>\n"
    }
    let bottom = top + Double(rows) * cellHeight
    // Tick labels at the ends and the middle only, so they never collide.
    for column in Set([0, columns / 2, columns - 1]).sorted() {
      let x = left + (Double(column) + 0.5) * cellWidth
      let anchor = column == 0 ? "start" : column == columns - 1 ? "end" : "middle"
      out += SVGCharts.text(
        column == 0 ? left : column == columns - 1 ? SVGCharts.width : x, bottom + 14, f(last.values[column]), anchor: anchor,
        cssClass: "tick")
    }
    out += SVGCharts.text(left + (SVGCharts.width - left) / 2, bottom + 30, last.parameter.rawValue, anchor: "middle", cssClass: "small")
    if let rowsAxis {
      for row in Set([0, rows - 1]).sorted() {
        out += SVGCharts.text(
          left - 4, top + (Double(row) + 0.5) * cellHeight + 4, f(rowsAxis.values[row]), anchor: "end", cssClass: "tick")
      }
      out += SVGCharts.text(0, bottom + 46, "rows: " + rowsAxis.parameter.rawValue + " (top to bottom)", cssClass: "small")
    }
    return (out, bottom + (rowsAxis == nil ? 36 : 52))
  }

  /// The colour of a winner: its variant's in ``palette``.
  static func color(_ s: Sensitivity, _ winner: String) -> String {
    palette[(s.variants.firstIndex(of: winner) ?? 0) % palette.count]
  }

  /// Chart data as pretty-printed JSON (`command` `"sensitivity"`): the axes and their values, every point's
  /// metric per variant (`null` when undefined), winner (`null` on a tie) and leaders (the tied variants), the
  /// relative margin, and the flips with their bracket and tie point.
  package static func json(_ s: Sensitivity) -> String {
    let document = JSONReportHead(schemaVersion: schemaVersion, command: "sensitivity", experiment: s.experiment).document([
      ("metric", .string(s.metric.rawValue)),
      ("relativeMargin", .number(s.relativeMargin)),
      ("variants", .array(s.variants.map { .string($0) })),
      (
        "axes",
        .array(s.axes.map { .object([("parameter", .string($0.parameter.rawValue)), ("values", .array($0.values.map { .number($0) }))]) })
      ),
      (
        "points",
        .array(
          s.points.map { p in
            .object([
              ("values", .array(p.values.map { .number($0) })),
              ("metric", .array(p.metricValues.map { $0.map { .number($0) } ?? .null })),
              ("winner", p.winner.map { .string($0) } ?? .null),
              ("leaders", .array(p.leaders.map { .string($0) })),
            ])
          })
      ),
      (
        "flips",
        .array(
          s.flips.map { flip in
            .object([
              ("parameter", .string(flip.parameter.rawValue)),
              ("fixed", .array(flip.fixed.map { .number($0) })),
              ("between", .array([.number(flip.between.lowerBound), .number(flip.between.upperBound)])),
              ("at", .number(flip.at)),
              ("from", .string(flip.from)),
              ("to", .string(flip.to)),
            ])
          })
      ),
    ])
    return JSONWriter.write(document)
  }
}

extension String {
  fileprivate func replacingTrailingSpaces() -> String {
    var s = self
    while s.last == " " { s.removeLast() }
    return s
  }
}
