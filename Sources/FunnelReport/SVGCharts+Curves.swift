extension SVGCharts {
  /// One arm's realized-revenue curve: per day its mean, interval and (when solved) exact value.
  package struct CurveSeries: Sendable {
    /// The arm's name, written in the legend beside its line's pattern.
    package var name: String
    /// The points, in increasing day.
    package var points: [(day: Double, mean: Double, lower: Double, upper: Double, exact: Double?)]
  }

  /// Line patterns, one per series in turn, so lines differ by more than colour.
  static let dashes = ["", "7 3", "2 3", "9 3 2 3", "4 2"]

  /// Line colours, one per series in turn: Okabe and Ito's colour-blind-safe palette (without
  /// its yellow, too pale on white), starting with the blue the forests use for good news.
  static let seriesColors = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#000000"]

  /// The wider view box of a chart that has a row of the page to itself (on a laptop; a
  /// phone gets the ``width`` one).
  package static let wideWidth = 760.0

  /// Realized revenue per user by day, every arm on one pair of axes: a line of means per
  /// arm (its own colour and dash pattern, its name at the line's end and in a legend below),
  /// its interval as a light band of its colour, the exact values as hollow circles; days from
  /// 0 to the last day on the x axis, `scale` on the y axis (from zero), in a view box `width` wide.
  package static func curves(
    _ series: [CurveSeries], scale: ChartScale, axisTitle: String, dayTitle: String = "days since the purchase screen",
    width: Double = SVGCharts.width
  ) -> (content: String, height: Double) {
    let left = 52.0
    // Room at the right for the names written at the lines' ends (12 px text, ~6.8 px a character),
    // at most 40 % of the chart (longer names are shortened there; the legend has them whole).
    let right = max(width - 14 - Double(series.map(\.name.count).max() ?? 0) * 6.8, left + (width - left) * 0.6)
    let top = 8.0
    let bottom = 200.0
    let lastDay = series.flatMap { $0.points.map(\.day) }.max() ?? 1
    let days = ChartScale.levels([lastDay], unit: "", plot: left...right, bounds: 0...right + 10)
    func x(_ day: Double) -> Double { days.x(day, plot: left...right) }
    func y(_ v: Double) -> Double { bottom - scale.x(v, plot: 0...(bottom - top)) }
    var out = line(left, top, left, bottom, cssClass: "axis")
    for tick in scale.ticks {
      out += line(left - 4, y(tick), left, y(tick), cssClass: "axis")
      out += text(left - 6, y(tick) + 4, scale.label(tick), anchor: "end", cssClass: "tick")
    }
    for (i, s) in series.enumerated() {
      let band = s.points.map { "\(n(x($0.day))),\(n(y($0.upper)))" } + s.points.reversed().map { "\(n(x($0.day))),\(n(y($0.lower)))" }
      out += "<polygon points=\"\(band.joined(separator: " "))\" fill=\"\(color(i))\" fill-opacity=\"0.10\" stroke=\"none\"/>\n"
      let path = s.points.map { "\(n(x($0.day))),\(n(y($0.mean)))" }.joined(separator: " ")
      out += "<polyline points=\"\(path)\" fill=\"none\" class=\"ci\"\(stroke(i))/>\n"
      for p in s.points {
        guard let exact = p.exact else { continue }
        out += "<circle cx=\"\(n(x(p.day)))\" cy=\"\(n(y(exact)))\" r=\"2.5\" class=\"point open\"/>\n"
      }
    }
    out += endLabels(
      series.map { ($0.name, $0.points.last.map { y($0.mean) }) }, x: x(lastDay) + 6, width: width, top: top, bottom: bottom)
    let axis = axis(days, plot: left...right, y: bottom, title: dayTitle)
    var legendY = axis.bottom + 14
    out += axis.content
    out += text(left, legendY, axisTitle, cssClass: "small muted")
    for (i, s) in series.enumerated() {
      legendY += 18
      out += "<line x1=\"\(n(left))\" y1=\"\(n(legendY - 4))\" x2=\"\(n(left + 36))\" y2=\"\(n(legendY - 4))\" class=\"ci\"\(stroke(i))/>\n"
      out += text(left + 44, legendY, s.name, cssClass: "small")
    }
    guard series.contains(where: { $0.points.contains { $0.exact != nil } }) else { return (out, legendY + 8) }
    legendY += 18
    out += "<circle cx=\"\(n(left + 18))\" cy=\"\(n(legendY - 4))\" r=\"2.5\" class=\"point open\"/>\n"
    out += text(left + 44, legendY, "exact (the exact engine's, no sampling noise)", cssClass: "small")
    return (out, legendY + 8)
  }

  /// The series' names at their lines' ends (`ends`: each name and its last point's height),
  /// moved apart where lines end close together (13 px at least between baselines) and kept
  /// between `top` and `bottom`, each shortened with `…` to the room left of `width`; none when
  /// more names than fit between `top` and `bottom` (the legend names every line).
  static func endLabels(_ ends: [(name: String, y: Double?)], x: Double, width: Double, top: Double, bottom: Double) -> String {
    let gap = 13.0
    guard Double(ends.count) * gap <= bottom - top - 10 else { return "" }
    let room = max(Int((width - x - 2) / 6.8), 2)
    var placed = ends.compactMap { e in e.y.map { (name: e.name, y: $0 + 4) } }.sorted { $0.y < $1.y }
    for k in placed.indices {
      placed[k].y = max(placed[k].y, k == 0 ? top + 10 : placed[k - 1].y + gap)
    }
    // Pushed past the bottom: move the stack up, keeping the gaps.
    for k in placed.indices.reversed() {
      placed[k].y = min(placed[k].y, k == placed.count - 1 ? bottom - 2 : placed[k + 1].y - gap)
    }
    return placed.map { text(x, $0.y, $0.name.count > room ? String($0.name.prefix(room - 1)) + "…" : $0.name, cssClass: "small") }
      .joined()
  }

  /// The colour of series `i`.
  static func color(_ i: Int) -> String { seriesColors[i % seriesColors.count] }

  /// The stroke of series `i`: its colour, and its dash pattern (none for the first).
  static func stroke(_ i: Int) -> String { " style=\"stroke: \(color(i))\"" + dash(i) }

  /// The `stroke-dasharray` attribute of series `i` (none for the first).
  static func dash(_ i: Int) -> String {
    let pattern = dashes[i % dashes.count]
    return pattern.isEmpty ? "" : " stroke-dasharray=\"\(pattern)\""
  }
}

extension HTMLDocument {
  /// A chart of ``SVGCharts/curves(_:scale:axisTitle:dayTitle:width:)`` across a row of the
  /// page: drawn ``SVGCharts/wideWidth`` wide for a laptop and ``SVGCharts/width`` wide for a
  /// phone, the page showing the one that fits (a wide view box shrunk to a phone would shrink
  /// its text with it).
  package mutating func curves(
    _ series: [SVGCharts.CurveSeries], scale: ChartScale, axisTitle: String, dayTitle: String, title: String, description: String
  ) {
    let wide = SVGCharts.curves(series, scale: scale, axisTitle: axisTitle, dayTitle: dayTitle, width: SVGCharts.wideWidth)
    let narrow = SVGCharts.curves(series, scale: scale, axisTitle: axisTitle, dayTitle: dayTitle)
    wideChart(
      kind: "curve", title: title, description: description, wide: (SVGCharts.wideWidth, wide.height, wide.content),
      narrow: (SVGCharts.width, narrow.height, narrow.content))
  }
}
