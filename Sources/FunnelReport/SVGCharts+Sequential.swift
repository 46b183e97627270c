extension SVGCharts {
  /// One look of an arm's test over time, in the chart's unit (percent of lift).
  package struct SequentialPoint: Sendable {
    /// The look's position on the time axis (1 for the first day).
    package var look: Double
    /// The cumulative lift.
    package var lift: Double
    /// The fixed-horizon interval.
    package var fixed: ClosedRange<Double>
    /// The always-valid confidence sequence.
    package var sequence: ClosedRange<Double>?
    /// The group-sequential boundary on the lift, `c_k·SE` (the lift must pass ±this to stop),
    /// `nil` when the day is not a look.
    package var boundary: Double?
  }

  /// A running test's cumulative lift over time on one axis: the confidence sequence as a
  /// light band, the fixed-horizon interval as a darker band inside it, the lift as a line
  /// with a point per day, and the group-sequential boundary `±c_k·SE` as dotted lines
  /// (the lift stops the test where it crosses them), and a vertical line at the look where it
  /// stopped, and the true lift when known (a simulated test). Days on the x axis, `scale` on the y axis (values beyond it drawn at its edge); a
  /// legend names every element.
  package static func sequentialLift(
    _ points: [SequentialPoint], scale: ChartScale, lastLook: Double, stopLook: Double?, truth: Double? = nil, axisTitle: String
  ) -> (content: String, height: Double) {
    let left = 52.0
    let right = width - 10
    let top = 8.0
    let bottom = 200.0
    let days = ChartScale.levels([lastLook], unit: "", plot: left...right, bounds: 0...width)
    func x(_ look: Double) -> Double { days.x(look, plot: left...right) }
    func y(_ v: Double) -> Double { bottom - scale.x(v, plot: 0...(bottom - top)) }
    func band(_ ranges: [(Double, ClosedRange<Double>)], opacity: String) -> String {
      guard ranges.count >= 2 else { return "" }
      let edge =
        ranges.map { "\(n(x($0.0))),\(n(y($0.1.upperBound)))" } + ranges.reversed().map { "\(n(x($0.0))),\(n(y($0.1.lowerBound)))" }
      return "<polygon points=\"\(edge.joined(separator: " "))\" fill=\"#2b6cb0\" fill-opacity=\"\(opacity)\" stroke=\"none\"/>\n"
    }
    var out = line(left, top, left, bottom, cssClass: "axis")
    for tick in scale.ticks {
      out += line(left - 4, y(tick), left, y(tick), cssClass: "axis")
      out += text(left - 6, y(tick) + 4, scale.label(tick), anchor: "end", cssClass: "tick")
    }
    out += band(points.compactMap { p in p.sequence.map { (p.look, $0) } }, opacity: "0.12")
    out += band(points.map { ($0.look, $0.fixed) }, opacity: "0.28")
    out += "<line x1=\"\(n(left))\" y1=\"\(n(y(0)))\" x2=\"\(n(right))\" y2=\"\(n(y(0)))\" class=\"axis\" stroke-dasharray=\"1 2\"/>\n"
    if let truth {
      out +=
        "<line x1=\"\(n(left))\" y1=\"\(n(y(truth)))\" x2=\"\(n(right))\" y2=\"\(n(y(truth)))\" class=\"reference\" stroke-dasharray=\"8 3\"/>\n"
    }
    let looks = points.compactMap { p in p.boundary.map { (p.look, $0) } }
    for sign in [1.0, -1.0] where looks.count >= 2 {
      let path = looks.map { "\(n(x($0.0))),\(n(y(sign * $0.1)))" }.joined(separator: " ")
      out += "<polyline points=\"\(path)\" fill=\"none\" class=\"reference\" stroke-dasharray=\"3 3\"/>\n"
    }
    if let stopLook {
      out += "<line x1=\"\(n(x(stopLook)))\" y1=\"\(n(top))\" x2=\"\(n(x(stopLook)))\" y2=\"\(n(bottom))\" class=\"reference\"/>\n"
      out += text(x(stopLook) + 4, top + 10, "stopped", cssClass: "small")
    }
    out +=
      "<polyline points=\"\(points.map { "\(n(x($0.look))),\(n(y($0.lift)))" }.joined(separator: " "))\" fill=\"none\" class=\"ci\"/>\n"
    for p in points {
      out += "<circle cx=\"\(n(x(p.look)))\" cy=\"\(n(y(p.lift)))\" r=\"2\" class=\"point\"/>\n"
    }
    let axis = axis(days, plot: left...right, y: bottom, title: "day of the test")
    out += axis.content
    var legendY = axis.bottom + 14
    out += text(left, legendY, axisTitle, cssClass: "small muted")
    let legend: [(String, String)] = [
      ("<line x1=\"0\" y1=\"0\" x2=\"36\" y2=\"0\" class=\"ci\"/>", "cumulative lift"),
      (
        "<rect x=\"0\" y=\"-5\" width=\"36\" height=\"10\" fill=\"#2b6cb0\" fill-opacity=\"0.28\"/>",
        "fixed interval (valid only at the end)"
      ),
      (
        "<rect x=\"0\" y=\"-5\" width=\"36\" height=\"10\" fill=\"#2b6cb0\" fill-opacity=\"0.12\"/>",
        "confidence sequence (valid every day)"
      ),
      (
        "<line x1=\"0\" y1=\"0\" x2=\"36\" y2=\"0\" class=\"reference\" stroke-dasharray=\"3 3\"/>",
        "sequential boundary (stop on crossing)"
      ),
    ]
    let truthLegend = truth.map { _ in
      [("<line x1=\"0\" y1=\"0\" x2=\"36\" y2=\"0\" class=\"reference\" stroke-dasharray=\"8 3\"/>", "true lift (the exact engine's)")]
    }
    for (mark, words) in legend + (truthLegend ?? []) {
      legendY += 18
      out += "<g transform=\"translate(\(n(left)),\(n(legendY - 4)))\">\(mark)</g>\n"
      out += text(left + 44, legendY, words, cssClass: "small")
    }
    return (out, legendY + 8)
  }
}
