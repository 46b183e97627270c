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
    /// The verdict printed beside the row: a filled point when significant (after any
    /// correction), an open square when not; `nil` reads it from the interval (whether it
    /// excludes zero).
    package var significant: Bool?
    /// Whether the difference is good or bad news for the metric (by its direction); colours
    /// a filled point (``HTMLDocument``'s colour-blind-safe blue and vermillion).
    package var tone: Tone?

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

  /// The least share of a metric's value a difference axis spans on each side of zero (of
  /// the smaller of a rate and its complement): a change smaller than a tenth of it is drawn
  /// small, not across the chart.
  package static let minimumRelativeSpan = 0.1

  /// The axis of a forest of `rows` (every variant of one metric): it covers each row's
  /// interval, estimate and reference, zero, and at least ±``minimumRelativeSpan`` × the
  /// largest of `levels` (the metric's value in the control and each variant), in `unit`
  /// (the rows' unit: `pp` for rates, a currency, `s`). For a rate (`percentagePoints`,
  /// levels in percent) a level counts as the smaller of itself and its complement, so
  /// completion and abandonment, which mirror each other, get the same axis.
  package static func differenceScale(_ rows: [ForestRow], levels: [Double?], unit: String, percentagePoints: Bool = false) -> ChartScale {
    let values = rows.flatMap { [$0.lower, $0.upper, $0.estimate] + ($0.reference.map { [$0] } ?? []) }
    let magnitudes = levels.compactMap { $0 }.filter(\.isFinite).map { percentagePoints ? min(abs($0), abs(100 - $0)) : abs($0) }
    return ChartScale.differences(values, atLeast: minimumRelativeSpan * (magnitudes.max() ?? 0), unit: unit, plot: forestPlot)
  }

  /// The sentence under a section of forests that explains their axes: `All variants of a
  /// metric share one axis, which spans at least ±10% …` (`members`: `variants`, `arms`).
  package static func sharedAxisNote(members: String) -> String {
    "All \(members) of a metric share one axis, which spans at least ±\(NumberText.percent(minimumRelativeSpan, decimals: 0)) of the metric's value (for a rate, of the rate or its complement, whichever is smaller), so a difference too small to matter is drawn small."
  }

  /// The horizontal span of a forest's intervals, inset so the end ticks' labels fit.
  package static let forestPlot = 30.0...(width - 30)

  /// A forest plot, one row per estimate: the label and the numbers on a line, the
  /// interval below, then an axis with ticks and units. Every row and every chart of the
  /// same metric should share `scale` (``ChartScale/differences(_:atLeast:unit:plot:bounds:)``
  /// over all their values), so positions compare across variants and a tiny interval is
  /// drawn tiny. Filled points are significant (``ForestRow/significant``, else an interval
  /// that excludes zero), open squares are not (the text gives the numbers too).
  /// - Parameters:
  ///   - scale: the axis; values outside it are drawn at its ends.
  ///   - axisTitle: the line under the tick labels (what the axis measures and what 0 means).
  ///   - margin: a guardrail's largest acceptable worsening, drawn as a short dashed line
  ///     through every row's interval band (in the unit of the rows).
  /// - Returns: the elements and the view box height.
  package static func forest(_ rows: [ForestRow], scale: ChartScale, axisTitle: String, margin: Double? = nil) -> (
    content: String, height: Double
  ) {
    func x(_ v: Double) -> Double { scale.x(v, plot: forestPlot) }
    let (stacked, band) = labelBand(rows)
    let rowHeight = 38.0 + band
    var out = ""
    for (i, r) in rows.enumerated() {
      let top = Double(i) * rowHeight
      out += labelLines(r, top: top, stacked: stacked)
      let y = top + 27 + band
      // The zero line runs through the interval's band only, never through the texts above it.
      out += line(x(0), y - 10, x(0), y + 11, cssClass: "zero")
      out += line(x(r.lower), y, x(r.upper), y, cssClass: "ci")
      out += line(x(r.lower), y - 6, x(r.lower), y + 6, cssClass: "ci")
      out += line(x(r.upper), y - 6, x(r.upper), y + 6, cssClass: "ci")
      if let margin {
        // Shorter than the zero line: near the plot's edge it would reach the next row's label.
        out += line(x(margin), y - 8, x(margin), y + 8, cssClass: "margin")
      }
      if r.significant ?? (r.lower > 0 || r.upper < 0) {
        let tone = r.tone.map { $0 == .good ? " good" : $0 == .bad ? " bad" : "" } ?? ""
        out += "<circle cx=\"\(n(x(r.estimate)))\" cy=\"\(n(y))\" r=\"5\" class=\"point\(tone)\"/>\n"
      } else {
        out += "<rect x=\"\(n(x(r.estimate) - 4.5))\" y=\"\(n(y - 4.5))\" width=\"9\" height=\"9\" class=\"point open\"/>\n"
      }
      if let reference = r.reference {
        let cx = x(reference)
        out += "<path d=\"M\(n(cx)) \(n(y - 7))L\(n(cx + 6)) \(n(y))L\(n(cx)) \(n(y + 7))L\(n(cx - 6)) \(n(y))Z\" class=\"reference\"/>\n"
      }
    }
    let axis = axis(scale, plot: forestPlot, y: Double(rows.count) * rowHeight + 6, title: axisTitle)
    return (out + axis.content, axis.bottom + 4)
  }

  /// An axis under a chart: a line across `plot` at `y`, a tick mark and a label (with the
  /// unit) at every tick of `scale`, and `title` centred on a line below the labels.
  /// - Returns: the elements and the lowest `y` they reach.
  static func axis(_ scale: ChartScale, plot: ClosedRange<Double>, y: Double, title: String?) -> (content: String, bottom: Double) {
    var out = line(plot.lowerBound, y, plot.upperBound, y, cssClass: "axis")
    for (tick, place) in zip(scale.ticks, scale.labelPlacements(plot: plot, bounds: 0...width)) {
      out += line(place.x, y, place.x, y + 4, cssClass: "axis")
      out += text(place.x, y + 15, scale.label(tick), anchor: place.anchor, cssClass: "tick")
    }
    guard let title, !title.isEmpty else { return (out, y + 18) }
    out += text((plot.lowerBound + plot.upperBound) / 2, y + 30, title, anchor: "middle", cssClass: "small muted")
    return (out, y + 34)
  }

  /// Whether a row's label and numbers would collide on one line: widths measured in view-box
  /// units at a phone's text size (``textWidth(_:bold:)``; the label bold), 16 units apart.
  static func needsTwoLines(_ rows: [ForestRow]) -> Bool {
    rows.contains { textWidth($0.label, bold: true) + textWidth($0.text) + 16 > width }
  }

  /// The distance between the baselines of two lines of a chart's small text: a phone's text
  /// (``HTMLDocument/phoneChartFontSize``, whose box is about 15 units tall) and a unit to spare.
  static let lineStep = 16.0

  /// Whether the rows' numbers go under their labels, and the extra height that takes: one
  /// ``lineStep`` per line of the longest numbers (``numberLines(_:)``), none on one line.
  static func labelBand(_ rows: [ForestRow]) -> (stacked: Bool, band: Double) {
    guard needsTwoLines(rows) else { return (false, 0) }
    return (true, lineStep * Double(rows.map { numberLines($0.text).count }.max() ?? 1))
  }

  /// A row's numbers as lines that fit the chart's width (measured at a phone's text size,
  /// ``textWidth(_:bold:)``), broken after a ` · `; a part longer than a line stays whole.
  static func numberLines(_ text: String) -> [String] {
    var lines: [String] = []
    var current = ""
    for part in text.components(separatedBy: " · ") {
      let candidate = current.isEmpty ? part : current + " · " + part
      if textWidth(candidate) > width - 4, !current.isEmpty {
        lines.append(current)
        current = part
      } else {
        current = candidate
      }
    }
    if !current.isEmpty || lines.isEmpty { lines.append(current) }
    return lines
  }

  /// A row's label and its numbers: on one line (label left, numbers right), or when
  /// `stacked` the numbers on lines of their own under the label (``numberLines(_:)``).
  static func labelLines(_ r: ForestRow, top: Double, stacked: Bool) -> String {
    guard stacked else {
      return text(0, top + 12, r.label, cssClass: "label") + text(width, top + 12, r.text, anchor: "end", cssClass: "small")
    }
    return numberLines(r.text).enumerated().reduce(text(0, top + 12, r.label, cssClass: "label")) { out, line in
      out + text(0, top + 12 + lineStep * Double(line.offset + 1), line.element, cssClass: "small")
    }
  }

  /// Horizontal bars from zero with an interval whisker each, the label and the numbers
  /// on a line above, and an axis with ticks and units below; bar `i` is filled with
  /// pattern `i mod 4` when `patterned`.
  /// - Parameters:
  ///   - scale: the axis (``ChartScale/levels(_:atLeast:unit:plot:bounds:)``); charts a reader
  ///     compares must share one, so their bars and their marker line up.
  ///   - axisTitle: the line under the tick labels, if any.
  ///   - marker: a value drawn as a dashed vertical line through the bars, with its label
  ///     under the last bar (a threshold such as α).
  /// - Returns: the elements and the view box height.
  package static func bars(
    _ rows: [ForestRow], patterned: Bool, scale: ChartScale, axisTitle: String? = nil, marker: (value: Double, label: String)? = nil
  ) -> (content: String, height: Double) {
    let plot = 0.0...width
    func x(_ v: Double) -> Double { scale.x(max(v, 0), plot: plot) }
    let (stacked, band) = labelBand(rows)
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
    var bottom = Double(rows.count) * rowHeight
    if let marker {
      let labelX = x(marker.value) + 4
      let fitsRight = labelX + textWidth(marker.label) <= width
      out += text(
        fitsRight ? labelX : x(marker.value) - 4, bottom + 10, marker.label, anchor: fitsRight ? "start" : "end", cssClass: "small muted")
      bottom += 16
    }
    let axis = axis(scale, plot: plot, y: bottom + 4, title: axisTitle)
    return (out + axis.content, axis.bottom + 4)
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
