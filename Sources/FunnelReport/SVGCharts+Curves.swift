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

  /// Realized revenue per user by day, every arm on one pair of axes: a line of means per
  /// arm (its own dash pattern, named in a legend below), its interval as a light band, the
  /// exact values as hollow circles; days from 0 to the last day on the x axis, `scale` on the
  /// y axis (from zero).
  package static func curves(
    _ series: [CurveSeries], scale: ChartScale, axisTitle: String, dayTitle: String = "days since the purchase screen"
  ) -> (content: String, height: Double) {
    let left = 52.0
    let right = width - 10
    let top = 8.0
    let bottom = 200.0
    let lastDay = series.flatMap { $0.points.map(\.day) }.max() ?? 1
    let days = ChartScale.levels([lastDay], unit: "", plot: left...right, bounds: 0...width)
    func x(_ day: Double) -> Double { days.x(day, plot: left...right) }
    func y(_ v: Double) -> Double { bottom - scale.x(v, plot: 0...(bottom - top)) }
    var out = line(left, top, left, bottom, cssClass: "axis")
    for tick in scale.ticks {
      out += line(left - 4, y(tick), left, y(tick), cssClass: "axis")
      out += text(left - 6, y(tick) + 4, scale.label(tick), anchor: "end", cssClass: "tick")
    }
    for (i, s) in series.enumerated() {
      let band = s.points.map { "\(n(x($0.day))),\(n(y($0.upper)))" } + s.points.reversed().map { "\(n(x($0.day))),\(n(y($0.lower)))" }
      out += "<polygon points=\"\(band.joined(separator: " "))\" fill=\"#2b6cb0\" fill-opacity=\"0.10\" stroke=\"none\"/>\n"
      let path = s.points.map { "\(n(x($0.day))),\(n(y($0.mean)))" }.joined(separator: " ")
      out += "<polyline points=\"\(path)\" fill=\"none\" class=\"ci\"\(dash(i))/>\n"
      for p in s.points {
        guard let exact = p.exact else { continue }
        out += "<circle cx=\"\(n(x(p.day)))\" cy=\"\(n(y(exact)))\" r=\"2.5\" class=\"point open\"/>\n"
      }
    }
    let axis = axis(days, plot: left...right, y: bottom, title: dayTitle)
    var legendY = axis.bottom + 14
    out += axis.content
    out += text(left, legendY, axisTitle, cssClass: "small muted")
    for (i, s) in series.enumerated() {
      legendY += 18
      out += "<line x1=\"\(n(left))\" y1=\"\(n(legendY - 4))\" x2=\"\(n(left + 36))\" y2=\"\(n(legendY - 4))\" class=\"ci\"\(dash(i))/>\n"
      out += text(left + 44, legendY, s.name, cssClass: "small")
    }
    guard series.contains(where: { $0.points.contains { $0.exact != nil } }) else { return (out, legendY + 8) }
    legendY += 18
    out += "<circle cx=\"\(n(left + 18))\" cy=\"\(n(legendY - 4))\" r=\"2.5\" class=\"point open\"/>\n"
    out += text(left + 44, legendY, "exact (the exact engine's, no sampling noise)", cssClass: "small")
    return (out, legendY + 8)
  }

  /// The `stroke-dasharray` attribute of series `i` (none for the first).
  static func dash(_ i: Int) -> String {
    let pattern = dashes[i % dashes.count]
    return pattern.isEmpty ? "" : " stroke-dasharray=\"\(pattern)\""
  }
}
