package import FunnelLab

/// The SVG charts of the HTML reports, as element strings in a fixed-width view box.
/// Pure layout of numbers the models computed; every number is labelled in text,
/// so no chart relies on colour alone.
package enum SVGCharts {
  /// The width of every chart's view box, in SVG user units; heights vary with the number of rows.
  package static let width = 400.0

  static func n(_ v: Double) -> String { HTMLDocument.n(v) }
  static func e(_ s: String) -> String { HTMLDocument.escape(s) }

  static func text(_ x: Double, _ y: Double, _ s: String, anchor: String = "start", cssClass: String? = nil) -> String {
    "<text x=\"\(n(x))\" y=\"\(n(y))\"\(anchor == "start" ? "" : " text-anchor=\"\(anchor)\"")"
      + "\(cssClass.map { " class=\"\($0)\"" } ?? "")>\(e(s))</text>\n"
  }

  static func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, cssClass: String? = nil, fill: String? = nil) -> String {
    "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(max(w, 0)))\" height=\"\(n(h))\""
      + "\(cssClass.map { " class=\"\($0)\"" } ?? "")\(fill.map { " fill=\"\($0)\" stroke=\"#1a202c\" stroke-width=\"0.5\"" } ?? "")/>\n"
  }

  static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, cssClass: String) -> String {
    "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" class=\"\(cssClass)\"/>\n"
  }

  /// A funnel: users who reached each screen, as bars relative to all users, each
  /// annotated with the users who quit there, then the outcomes it ends in (completed,
  /// and purchased when the flow sells plans).
  /// - Returns: the elements and the view box height.
  package static func funnel(_ s: FunnelSummary) -> (content: String, height: Double) {
    var out = ""
    var y = 4.0
    for (i, row) in s.screens.enumerated() {
      out += text(0, y + 12, "\(i + 1). \(row.id)", cssClass: "label")
      out += text(
        width, y + 12, "\(NumberText.grouped(row.reached)) reached (\(NumberText.percent(row.reachRate)))", anchor: "end", cssClass: "small"
      )
      out += rect(0, y + 17, width, 12, cssClass: "track")
      out += rect(0, y + 17, width * min(max(row.reachRate, 0), 1), 12, cssClass: "bar")
      if row.droppedOff > 0 {
        out += text(
          width, y + 42,
          "▼ \(NumberText.grouped(row.droppedOff)) quit here (\(NumberText.percent(row.dropOffRate)) of those who reached it)",
          anchor: "end", cssClass: "small drop")
        y += 50
      } else {
        y += 36
      }
    }
    // The outcomes the funnel ends in: completion, and purchases when the flow sells plans.
    let outcomes = [("✓ completed", s.completed)] + (s.purchasers.map { [("$ purchased a plan", $0)] } ?? [])
    for (label, count) in outcomes {
      let rate = s.users == 0 ? 0 : Double(count) / Double(s.users)
      out += text(0, y + 12, label, cssClass: "label")
      out += text(
        width, y + 12, "\(NumberText.grouped(count)) (\(NumberText.percent(rate)) of all users)", anchor: "end", cssClass: "small")
      out += rect(0, y + 17, width, 12, cssClass: "track")
      out += rect(0, y + 17, width * min(max(rate, 0), 1), 12, cssClass: "bar outcome")
      y += 36
    }
    return (out, y + 4)
  }

  /// One row of a forest plot: a label, a point estimate with its interval, and text.
  package struct ForestRow: Sendable {
    /// The row's name (an arm, a plan, a metric), written at the left above the interval.
    package var label: String
    /// The point estimate, in the chart's unit (the callers pass percentage points for lifts); placed on
    /// the axis, not printed: ``text`` carries the numbers.
    package var estimate: Double
    /// The interval's lower bound, in the unit of ``estimate``.
    package var lower: Double
    /// The interval's upper bound, in the unit of ``estimate``; a bar chart draws no whisker when it does not
    /// exceed ``lower``.
    package var upper: Double
    /// The numbers in words, right-aligned above the row, so the chart never relies on position or colour alone.
    package var text: String
    /// A reference value drawn as a diamond (the true effect in experiment mode).
    package var reference: Double?

    /// A row; `reference`, when given, is drawn as a diamond (forest plots only).
    package init(label: String, estimate: Double, lower: Double, upper: Double, text: String, reference: Double? = nil) {
      self.label = label
      self.estimate = estimate
      self.lower = lower
      self.upper = upper
      self.text = text
      self.reference = reference
    }
  }

  /// A forest plot around zero, one row per estimate: the label and the numbers on a
  /// line, the interval below across the full width. Filled points have intervals
  /// that exclude zero, open squares include it (the text gives the numbers too).
  package static func forest(_ rows: [ForestRow]) -> (content: String, height: Double) {
    let pad = 8.0
    let span =
      max(
        rows.map { max(abs($0.lower), abs($0.upper), abs($0.estimate), abs($0.reference ?? 0)) }.filter(\.isFinite).max() ?? 0, 1e-12)
      * 1.05
    func x(_ v: Double) -> Double { width / 2 + v / span * (width / 2 - pad) }
    let stacked = needsTwoLines(rows)
    let band = stacked ? 14.0 : 0
    let rowHeight = 38.0 + band
    let height = Double(rows.count) * rowHeight + 22
    var out = text(x(0), height - 4, "0: no difference", anchor: "middle", cssClass: "small muted")
    for (i, r) in rows.enumerated() {
      let top = Double(i) * rowHeight
      out += labelLines(r, top: top, stacked: stacked)
      let y = top + 27 + band
      // The zero line runs through the interval's band only, never through the texts above it.
      out += line(x(0), y - 10, x(0), y + 11, cssClass: "zero")
      out += line(x(r.lower), y, x(r.upper), y, cssClass: "ci")
      out += line(x(r.lower), y - 6, x(r.lower), y + 6, cssClass: "ci")
      out += line(x(r.upper), y - 6, x(r.upper), y + 6, cssClass: "ci")
      if r.lower > 0 || r.upper < 0 {
        out += "<circle cx=\"\(n(x(r.estimate)))\" cy=\"\(n(y))\" r=\"5\" class=\"point\"/>\n"
      } else {
        out += "<rect x=\"\(n(x(r.estimate) - 4.5))\" y=\"\(n(y - 4.5))\" width=\"9\" height=\"9\" class=\"point open\"/>\n"
      }
      if let reference = r.reference {
        let cx = x(reference)
        out += "<path d=\"M\(n(cx)) \(n(y - 7))L\(n(cx + 6)) \(n(y))L\(n(cx)) \(n(y + 7))L\(n(cx - 6)) \(n(y))Z\" class=\"reference\"/>\n"
      }
    }
    return (out, height)
  }

  /// Whether a row's label and numbers would collide on one line: widths estimated
  /// in view-box units from the characters (13 px bold labels, 12 px numbers), with a margin.
  static func needsTwoLines(_ rows: [ForestRow]) -> Bool {
    rows.contains { Double($0.label.count) * 8.2 + Double($0.text.count) * 6.8 + 16 > width }
  }

  /// A row's label and its numbers: on one line (label left, numbers right), or when
  /// `stacked` the numbers on a line of their own under the label.
  static func labelLines(_ r: ForestRow, top: Double, stacked: Bool) -> String {
    text(0, top + 12, r.label, cssClass: "label")
      + (stacked ? text(0, top + 26, r.text, cssClass: "small") : text(width, top + 12, r.text, anchor: "end", cssClass: "small"))
  }

  /// Horizontal bars from zero with an interval whisker each, the label and the
  /// numbers on a line above; bar `i` is filled with pattern `i mod 4` when `patterned`.
  /// - Parameter maximum: the value at the right edge (default: a little above the largest).
  ///   - marker: a value drawn as a dashed vertical line with its label (a threshold such as α).
  package static func bars(
    _ rows: [ForestRow], patterned: Bool, maximum: Double? = nil, marker: (value: Double, label: String)? = nil
  ) -> (content: String, height: Double) {
    let top = maximum ?? max(rows.map { max($0.upper, $0.estimate) }.filter(\.isFinite).max() ?? 0, 1e-12) * 1.02
    func x(_ v: Double) -> Double { max(v, 0) / top * (width - 4) }
    let stacked = needsTwoLines(rows)
    let band = stacked ? 14.0 : 0
    let rowHeight = 40.0 + band
    var out = ""
    for (i, r) in rows.enumerated() {
      let y = Double(i) * rowHeight
      out += labelLines(r, top: y, stacked: stacked)
      let bar = y + 18 + band
      out += rect(0, bar, width, 16, cssClass: "track")
      out += rect(0, bar, x(r.estimate), 16, cssClass: patterned ? nil : "bar", fill: patterned ? "url(#p\(i % 4))" : nil)
      if r.upper > r.lower {
        out += line(x(r.lower), bar + 8, x(r.upper), bar + 8, cssClass: "ci whisker")
        out += line(x(r.lower), bar + 2, x(r.lower), bar + 14, cssClass: "ci whisker")
        out += line(x(r.upper), bar + 2, x(r.upper), bar + 14, cssClass: "ci whisker")
      }
      // The marker runs through the bars only, never through the texts above them.
      if let marker { out += line(x(marker.value), bar, x(marker.value), bar + 16, cssClass: "zero") }
    }
    if let marker {
      let height = Double(rows.count) * rowHeight
      out += text(x(marker.value) + 4, height + 16, marker.label, cssClass: "small muted")
      return (out, height + 20)
    }
    return (out, Double(rows.count) * rowHeight + 2)
  }

  /// A heatmap of `values[row][column]` with every cell's value written in it; the
  /// shades span `scale` (default: the values' own range), so several heatmaps can share one.
  package static func heatmap(
    rows: [String], columns: [String], values: [[Double?]], scale: ClosedRange<Double>? = nil, text: (Double) -> String
  ) -> (content: String, height: Double) {
    let left = 100.0
    let top = 22.0
    let cellWidth = (width - left) / Double(max(columns.count, 1))
    let cellHeight = 30.0
    let finite = values.flatMap { $0 }.compactMap { $0 }
    let lo = scale?.lowerBound ?? finite.min() ?? 0
    let hi = scale?.upperBound ?? finite.max() ?? 1
    var out = ""
    for (j, c) in columns.enumerated() {
      out += SVGCharts.text(left + (Double(j) + 0.5) * cellWidth, 14, c, anchor: "middle", cssClass: "small")
    }
    for (i, r) in rows.enumerated() {
      let y = top + Double(i) * cellHeight
      out += SVGCharts.text(0, y + 19, r, cssClass: "small")
      for j in columns.indices {
        let v = values.indices.contains(i) && values[i].indices.contains(j) ? values[i][j] : nil
        let t = v.map { hi > lo ? ($0 - lo) / (hi - lo) : 0.5 } ?? 0
        // From #e8f0fa (light) to #1f4e8c (dark); text switches to white on dark cells.
        let red = Int(232 - t * (232 - 31)), green = Int(240 - t * (240 - 78)), blue = Int(250 - t * (250 - 140))
        out += "<rect x=\"\(n(left + Double(j) * cellWidth))\" y=\"\(n(y))\" width=\"\(n(cellWidth - 2))\" height=\"\(n(cellHeight - 2))\""
        out += " fill=\"rgb(\(red),\(green),\(blue))\"/>\n"
        out += "<text x=\"\(n(left + (Double(j) + 0.5) * cellWidth))\" y=\"\(n(y + 19))\" text-anchor=\"middle\""
        out += t > 0.55 ? " style=\"fill:#ffffff\"" : ""
        out += ">\(e(v.map(text) ?? "n/a"))</text>\n"
      }
    }
    return (out, top + Double(rows.count) * cellHeight + 4)
  }

  /// A curve through `points` (x, y) with y in 0…1, a dashed line at `target`, and
  /// the point `marked` (the design) ringed and labelled `markedLabel`.
  package static func curve(
    _ points: [(x: Double, y: Double)], marked: (x: Double, y: Double)?, markedLabel: String, target: Double?,
    xLabel: String, xText: (Double) -> String
  ) -> (content: String, height: Double) {
    let left = 40.0
    let right = width - 12
    let top = 10.0
    let bottom = 170.0
    let maxX = max(points.map(\.x).max() ?? 1, 1)
    func x(_ v: Double) -> Double { left + v / maxX * (right - left) }
    func y(_ v: Double) -> Double { bottom - min(max(v, 0), 1) * (bottom - top) }
    var out = line(left, top, left, bottom, cssClass: "axis") + line(left, bottom, right, bottom, cssClass: "axis")
    for tick in [0.0, 0.5, 1.0] {
      out += text(left - 4, y(tick) + 4, NumberText.percent(tick, decimals: 0), anchor: "end", cssClass: "small muted")
    }
    out += text(left, bottom + 14, "0", anchor: "middle", cssClass: "small muted")
    out += text(right, bottom + 14, xText(maxX), anchor: "end", cssClass: "small muted")
    if let target {
      out += line(left, y(target), right, y(target), cssClass: "zero")
      out += text(right, y(target) + 14, "target \(NumberText.percent(target, decimals: 0))", anchor: "end", cssClass: "small muted")
    }
    let path = points.map { "\(n(x($0.x))),\(n(y($0.y)))" }.joined(separator: " ")
    out += "<polyline points=\"\(path)\" fill=\"none\" class=\"ci\"/>\n"
    for p in points { out += "<circle cx=\"\(n(x(p.x)))\" cy=\"\(n(y(p.y)))\" r=\"3.5\" class=\"point\"/>\n" }
    if let marked {
      out += "<circle cx=\"\(n(x(marked.x)))\" cy=\"\(n(y(marked.y)))\" r=\"7\" fill=\"none\" class=\"ci\"/>\n"
      out += text(x(marked.x) + 10, y(marked.y) + 20, markedLabel, cssClass: "small")
    }
    out += text((left + right) / 2, bottom + 30, xLabel, anchor: "middle", cssClass: "small muted")
    return (out, bottom + 36)
  }
}
