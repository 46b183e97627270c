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
  /// arm (its own colour, dash pattern and marker, ``marker(_:x:y:)``, on a few of its days,
  /// staggered so that lines close together show different marks), its name at the line's end
  /// (``endLabels(_:x:width:top:bottom:)``: spread apart, each with the line's marker and a
  /// leader to its end) and in a legend below, its interval as a light band of its colour, the
  /// exact values as hollow circles; days from 0 to the last day on the x axis, `scale` on the
  /// y axis (from zero), in a view box `width` wide.
  package static func curves(
    _ series: [CurveSeries], scale: ChartScale, axisTitle: String, dayTitle: String = "days since the purchase screen",
    width: Double = SVGCharts.width
  ) -> (content: String, height: Double) {
    // Room at the left for the widest tick label at a phone's text size.
    let left = max(52, (scale.ticks.map { textWidth(scale.label($0)) }.max() ?? 0) + 10)
    // Room at the right for the marker and name written at each line's end, at most 40 % of the
    // chart (longer names are shortened there; the legend has them whole).
    let widest = series.map { textWidth($0.name) }.max() ?? 0
    let right = max(width - endLabelOffset - endLabelInset - 2 - widest, left + (width - left) * 0.6)
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
      for j in markedPoints(series: i, of: series.count, points: s.points.count) {
        out += marker(i, x: x(s.points[j].day), y: y(s.points[j].mean))
      }
      for p in s.points {
        guard let exact = p.exact else { continue }
        out += "<circle cx=\"\(n(x(p.day)))\" cy=\"\(n(y(exact)))\" r=\"2.5\" class=\"point open\"/>\n"
      }
    }
    let ends = series.map { s in (s.name, s.points.last.map { (x: x($0.day), y: y($0.mean)) }) }
    out += endLabels(ends, x: x(lastDay) + endLabelOffset, width: width, top: top, bottom: bottom)
    let axis = axis(days, plot: left...right, y: bottom, title: dayTitle)
    out += axis.content
    // The legend starts near the chart's left edge: its first line (the y axis's title) is long.
    return legend(series, below: axis.bottom, left: 8, axisTitle: axisTitle, into: out)
  }

  /// The legend under ``curves(_:scale:axisTitle:dayTitle:width:)``: the y axis's title, then
  /// per series its line (dash and marker) and name, and the exact values' circle when drawn.
  static func legend(_ series: [CurveSeries], below: Double, left: Double, axisTitle: String, into chart: String) -> (
    content: String, height: Double
  ) {
    var out = chart
    var legendY = below + 14
    out += text(left, legendY, axisTitle, cssClass: "small muted")
    for (i, s) in series.enumerated() {
      legendY += 18
      out += "<line x1=\"\(n(left))\" y1=\"\(n(legendY - 4))\" x2=\"\(n(left + 36))\" y2=\"\(n(legendY - 4))\" class=\"ci\"\(stroke(i))/>\n"
      out += marker(i, x: left + 18, y: legendY - 4)
      out += text(left + 44, legendY, s.name, cssClass: "small")
    }
    guard series.contains(where: { $0.points.contains { $0.exact != nil } }) else { return (out, legendY + 8) }
    legendY += 18
    out += "<circle cx=\"\(n(left + 18))\" cy=\"\(n(legendY - 4))\" r=\"2.5\" class=\"point open\"/>\n"
    out += text(left + 44, legendY, "exact (the exact engine's, no sampling noise)", cssClass: "small")
    return (out, legendY + 8)
  }

  /// The width in view-box units of a chart text at its largest (``HTMLDocument/phoneChartFontSize``
  /// on a phone), measured with Arial's widths and ``HTMLDocument/textWidthMargin`` to spare.
  static func textWidth(_ s: String, bold: Bool = false) -> Double {
    HTMLDocument.textWidth(s, bold: bold) * Double(HTMLDocument.phoneChartFontSize) * HTMLDocument.textWidthMargin
  }

  /// The indices of the points of series `i` (of `count`) that carry its marker: every `k`-th
  /// point (`k` at least `count`, and so that at most 8 points are marked), starting at a point
  /// of its own (`i · k / count`), so two lines that run together show their marks side by side, not on
  /// top of one another; the last point is left to the end label.
  static func markedPoints(series i: Int, of count: Int, points: Int) -> [Int] {
    guard points > 1, count > 0 else { return [] }
    let k = max(count, (points + 7) / 8)
    let offset = (i % count) * k / count
    return stride(from: offset, to: points - 1, by: k).map { $0 }
  }

  /// The gap between the baselines of two end labels: a phone's text (``HTMLDocument/phoneChartFontSize``) and 3 units.
  static let endLabelGap = Double(HTMLDocument.phoneChartFontSize) + 3

  /// How far right of the last day an end label starts (its leader's slant shows where it belongs).
  static let endLabelOffset = 10.0

  /// How far right of an end label's start its text starts: the leader's end, the series' marker, a space.
  static let endLabelInset = 18.0

  /// The series' names at their lines' ends (`ends`: each name and its last point), moved apart
  /// where lines end close together (``spread(_:gap:top:bottom:)``, ``endLabelGap`` between
  /// baselines) and kept between `top` and `bottom`; each starts with the series' marker, has a
  /// thin grey leader from its line's end when moved (grey: not to be read as the line going on), and is shortened with `…` to the room left of
  /// `width`. None when more names than fit between `top` and `bottom` (the legend names every line).
  static func endLabels(_ ends: [(name: String, end: (x: Double, y: Double)?)], x: Double, width: Double, top: Double, bottom: Double)
    -> String
  {
    let drawn = ends.indices.filter { ends[$0].end != nil }
    guard let baselines = spread(drawn.compactMap { ends[$0].end.map { $0.y + 4 } }, gap: endLabelGap, top: top + 10, bottom: bottom - 2)
    else { return "" }
    var out = ""
    for (i, baseline) in zip(drawn, baselines) {
      guard let end = ends[i].end else { continue }
      let markerY = baseline - 4
      if abs(markerY - end.y) > 1 || x - end.x > endLabelOffset {
        out +=
          "<line x1=\"\(n(end.x))\" y1=\"\(n(end.y))\" x2=\"\(n(x + 2))\" y2=\"\(n(markerY))\" class=\"leader\"/>\n"
      }
      out += marker(i, x: x + 7, y: markerY)
      out += text(x + endLabelInset, baseline, shortened(ends[i].name, room: width - x - endLabelInset - 2), cssClass: "small")
    }
    return out
  }

  /// `name`, or its longest start that with `…` fits in `room` view-box units (``textWidth(_:bold:)``).
  static func shortened(_ name: String, room: Double) -> String {
    guard textWidth(name) > room else { return name }
    var cut = name
    while !cut.isEmpty, textWidth(cut + "…") > room { cut.removeLast() }
    return cut + "…"
  }

  /// Positions for labels wanted at `wanted` (each a baseline), in the same order, at least
  /// `gap` apart and between `top` and `bottom`: in order of the wanted position (then of the
  /// index), each pushed down below the one above it, then the stack pushed up from `bottom`,
  /// keeping the gaps, so a label moves no further than it must. `nil` when they cannot fit
  /// (`(count − 1) · gap > bottom − top`).
  /// - Complexity: O(*n* log *n*).
  static func spread(_ wanted: [Double], gap: Double, top: Double, bottom: Double) -> [Double]? {
    guard wanted.count <= 1 || Double(wanted.count - 1) * gap <= bottom - top else { return nil }
    let order = wanted.indices.sorted { (wanted[$0], $0) < (wanted[$1], $1) }
    var placed = order.map { min(max(wanted[$0].isFinite ? wanted[$0] : top, top), bottom) }
    for k in placed.indices.dropFirst() { placed[k] = max(placed[k], placed[k - 1] + gap) }
    for k in placed.indices.reversed() { placed[k] = min(placed[k], k == placed.count - 1 ? bottom : placed[k + 1] - gap) }
    var out = wanted
    for (k, index) in order.enumerated() { out[index] = placed[k] }
    return out
  }

  /// The marker of series `i`, centred on (`x`, `y`): a circle, square, triangle, diamond,
  /// triangle pointing down or hexagon in turn (6 shapes; with the 5 dash patterns 30 series
  /// differ by more than colour), filled with the series' colour, outlined in white so that
  /// it stands out of a line beneath it.
  static func marker(_ i: Int, x: Double, y: Double) -> String {
    let r = 4.0
    let shape: [(Double, Double)]
    switch i % 6 {
    case 0:
      return "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"\(n(r))\" class=\"marker\" style=\"fill: \(color(i))\"/>\n"
    case 1: shape = [(-1, -1), (1, -1), (1, 1), (-1, 1)].map { ($0.0 * 0.85, $0.1 * 0.85) }
    case 2: shape = [(0, -1.2), (1.1, 0.8), (-1.1, 0.8)]
    case 3: shape = [(0, -1.25), (1.25, 0), (0, 1.25), (-1.25, 0)]
    case 4: shape = [(0, 1.2), (1.1, -0.8), (-1.1, -0.8)]
    default: shape = [(0, -1.1), (0.95, -0.55), (0.95, 0.55), (0, 1.1), (-0.95, 0.55), (-0.95, -0.55)]
    }
    let d = shape.enumerated().map { "\($0.offset == 0 ? "M" : "L")\(n(x + r * $0.element.0)) \(n(y + r * $0.element.1))" }.joined()
    return "<path d=\"\(d)Z\" class=\"marker\" style=\"fill: \(color(i))\"/>\n"
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
