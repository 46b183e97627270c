import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelReport

/// ``SVGCharts`` on degenerate input (no rows, all-zero values, zero-width intervals,
/// equal heatmap cells, an empty curve): every chart is well-formed XML inside a page,
/// with finite numbers in every coordinate, and escaped labels.
@Suite struct SVGChartsTests {
  /// The chart inside a page, parsed.
  static func parse(_ chart: (content: String, height: Double), kind: String = "test") -> XMLCheck {
    var page = HTMLDocument(title: "charts")
    page.chart(kind: kind, title: "t", description: "d", width: SVGCharts.width, height: chart.height, content: chart.content)
    return XMLCheck(page.html)
  }

  static func expectWellFormedAndFinite(_ chart: (content: String, height: Double), sourceLocation: SourceLocation = #_sourceLocation) {
    let xml = parse(chart)
    #expect(xml.wellFormed, "\(chart.content)", sourceLocation: sourceLocation)
    #expect(xml.nonFiniteGeometry.isEmpty, "\(xml.nonFiniteGeometry)", sourceLocation: sourceLocation)
    #expect(chart.height.isFinite && chart.height > 0, sourceLocation: sourceLocation)
  }

  static func row(_ estimate: Double, _ lower: Double, _ upper: Double, reference: Double? = nil) -> SVGCharts.ForestRow {
    SVGCharts.ForestRow(label: "<b>&\"'", estimate: estimate, lower: lower, upper: upper, text: "x < y", reference: reference)
  }

  static let degenerateRows: [[SVGCharts.ForestRow]] = [
    [], [row(0, 0, 0)], [row(0, 0, 0), row(0, 0, 0, reference: 0)], [row(1, 1, 1), row(-2, -2, -2)],
    [row(1e-300, 0, 2e-300)], [row(5, 5, 5, reference: 5)],
  ]

  /// The axis of a forest of `rows`, as the reports compute it.
  static func scale(_ rows: [SVGCharts.ForestRow], levels: [Double?] = []) -> ChartScale {
    SVGCharts.differenceScale(rows, levels: levels, unit: "pp", percentagePoints: true)
  }

  /// A forest of `rows` on its own shared axis.
  static func forest(_ rows: [SVGCharts.ForestRow], levels: [Double?] = []) -> (content: String, height: Double) {
    SVGCharts.forest(rows, scale: scale(rows, levels: levels), axisTitle: "difference <pp> & more")
  }

  /// Curves whose names are long (a variant id of 80 characters) draw at both widths: the plot
  /// keeps 60 % of the chart and the name at the line's end is shortened to what is left; with
  /// more lines than fit one above the other, the ends carry no names (the legend has them).
  @Test(arguments: [SVGCharts.width, SVGCharts.wideWidth])
  func curvesWithLongOrManyNamesStayInside(width: Double) {
    let long = String(repeating: "variant", count: 12)
    let series = [SVGCharts.CurveSeries(name: long, points: [(1, 10, 9, 11, nil), (2, 20, 18, 22, nil)])]
    let chart = SVGCharts.curves(
      series, scale: ChartScale(lower: 0, upper: 100, step: 20, unit: "%", signed: false), axisTitle: "share", width: width)
    Self.expectWellFormedAndFinite(chart)
    #expect(chart.content.contains("…"), "the end label is shortened")
    let many = (0..<20).map { SVGCharts.CurveSeries(name: "arm\($0)", points: [(1, Double($0), Double($0), Double($0), nil)]) }
    let crowded = SVGCharts.curves(
      many, scale: ChartScale(lower: 0, upper: 100, step: 20, unit: "%", signed: false), axisTitle: "share", width: width)
    Self.expectWellFormedAndFinite(crowded)
  }

  @Test(arguments: degenerateRows)
  func forestIsFiniteOnDegenerateRows(_ rows: [SVGCharts.ForestRow]) {
    Self.expectWellFormedAndFinite(Self.forest(rows))
  }

  @Test(arguments: degenerateRows)
  func barsAreFiniteOnDegenerateRows(_ rows: [SVGCharts.ForestRow]) {
    let own = ChartScale.levels(rows.map(\.upper), unit: "USD")
    Self.expectWellFormedAndFinite(SVGCharts.bars(rows, patterned: false, scale: own))
    let percent = ChartScale.levels([], atLeast: 100, unit: "%")
    Self.expectWellFormedAndFinite(SVGCharts.bars(rows, patterned: true, scale: percent, axisTitle: "a & b", marker: (0, "α <5%>")))
  }

  /// Forests whose rows are far apart, tiny, one-sided, or with a reference beyond the interval.
  static let domainCases: [[SVGCharts.ForestRow]] = [
    [row(2, 1, 3), row(-7.2, -9, -5)], [row(0.001, -0.002, 0.004)], [row(30, 28, 33, reference: 35)],
    [row(-0.3, -0.5, -0.1), row(0.2, 0.1, 0.25)], [row(1e6, 9e5, 1.1e6)], [row(-0.07, -0.1, -0.03), row(0, -0.02, 0.02)],
  ]

  /// One axis for all rows of a metric: it holds every interval, estimate and reference with
  /// room to spare, and zero in the middle.
  @Test(arguments: domainCases)
  func sharedDomainHoldsEveryRowAndZero(_ rows: [SVGCharts.ForestRow]) {
    let s = Self.scale(rows)
    let values = rows.flatMap { [$0.lower, $0.upper, $0.estimate] + ($0.reference.map { [$0] } ?? []) }
    #expect(s.lower < 0 && 0 < s.upper && s.lower == -s.upper, "\(s)")
    #expect(values.allSatisfy { abs($0) < s.upper }, "padded: \(values) in \(s.lower)…\(s.upper)")
    #expect((values.map(abs).max() ?? 0) * 3 > s.upper, "not needlessly wide: \(values) in \(s.lower)…\(s.upper)")
  }

  /// Ticks are 1, 2 or 5 × 10ᵏ apart, run from one end of the domain to the other through 0,
  /// and are few enough to label.
  @Test(arguments: domainCases)
  func ticksAreNiceAndInsideTheDomain(_ rows: [SVGCharts.ForestRow]) throws {
    let s = Self.scale(rows)
    var mantissa = s.step
    while mantissa >= 10 { mantissa /= 10 }
    while mantissa < 1 { mantissa *= 10 }
    #expect([1.0, 2, 5].contains { abs(mantissa - $0) < 1e-6 }, "step \(s.step)")
    let ticks = s.ticks
    #expect((3...7).contains(ticks.count), "\(ticks)")
    let (first, last) = (try #require(ticks.first), try #require(ticks.last))
    #expect(abs(first - s.lower) < s.step * 1e-9 && abs(last - s.upper) < s.step * 1e-9)
    #expect(ticks.contains(0))
    #expect(ticks.allSatisfy { abs($0 / s.step - ($0 / s.step).rounded()) < 1e-9 }, "\(ticks)")
  }

  /// The line across the interval of row `i` (the whisker), from the forest's SVG: its width in view-box units.
  static func whiskerWidths(_ chart: (content: String, height: Double)) -> [Double] {
    parse(chart).elements.filter { $0.name == "line" && $0.attributes["class"] == "ci" && $0.attributes["y1"] == $0.attributes["y2"] }
      .map { abs((Double($0.attributes["x2"] ?? "") ?? .nan) - (Double($0.attributes["x1"] ?? "") ?? .nan)) }
  }

  /// ±0.002 pp beside a 7 pp effect is nearly a dot (the view box is 400 wide); alone, it is
  /// still nearly a dot when the metric's value is 70% (the axis spans at least ±10% of 30%,
  /// the complement), where a per-chart scale drew it across the chart.
  @Test func aTinyIntervalIsDrawnTiny() {
    let tiny = Self.row(0, -0.002, 0.002)
    let beside = Self.whiskerWidths(Self.forest([tiny, Self.row(-6.5, -7, -6)]))
    #expect(beside.count == 2)
    #expect(beside[0] < 1 && beside[1] > 10, "\(beside)")
    let alone = Self.whiskerWidths(Self.forest([tiny], levels: [70, 70.001]))
    #expect(alone.count == 1 && alone[0] < 1, "\(alone)")
    #expect(Self.scale([tiny], levels: [70]).upper >= 3, "at least ±10% of min(70%, 30%)")
    #expect(Self.scale([tiny], levels: [70]) == Self.scale([tiny], levels: [30]), "a rate and its complement get the same axis")
  }

  /// The tick labels of forests and bars of many sizes and units: inside the view box, and
  /// apart from each other (estimated at 6.6 units a character of 11 px text, wider than the
  /// chart's own estimate).
  @Test(arguments: [0.004, 0.03, 0.6, 1.9, 7.56, 14, 99, 1234, 5e6])
  func tickLabelsDoNotCollide(_ magnitude: Double) {
    for unit in ["pp", "USD", "s", ""] {
      let rows = [Self.row(magnitude * 0.7, -magnitude * 0.1, magnitude), Self.row(-magnitude * 0.3, -magnitude * 0.5, 0)]
      let forest = SVGCharts.forest(rows, scale: SVGCharts.differenceScale(rows, levels: [], unit: unit), axisTitle: "")
      let bars = SVGCharts.bars(rows, patterned: false, scale: ChartScale.levels(rows.map(\.upper), unit: unit == "pp" ? "%" : unit))
      for chart in [forest, bars] {
        let ticks = Self.parse(chart).texts.filter { $0.attributes["class"] == "tick" }
        #expect(ticks.count >= 2)
        let extents = ticks.map { t -> ClosedRange<Double> in
          let x = Double(t.attributes["x"] ?? "") ?? .nan
          let w = Double(t.content.count) * 6.6
          switch t.attributes["text-anchor"] {
          case "middle": return (x - w / 2)...(x + w / 2)
          case "end": return (x - w)...x
          default: return x...(x + w)
          }
        }
        #expect(extents.allSatisfy { $0.lowerBound >= -1 && $0.upperBound <= SVGCharts.width + 1 }, "\(ticks.map(\.content)) \(extents)")
        for (a, b) in zip(extents, extents.dropFirst()) {
          #expect(a.upperBound < b.lowerBound, "\(unit) \(magnitude): \(ticks.map(\.content)) collide")
        }
      }
    }
  }

  /// Every forest has an axis: a line, a tick mark and a label with the unit at every tick.
  @Test func forestHasAnAxisWithTicksAndUnits() {
    let rows = [Self.row(2, 1, 3), Self.row(-4, -6, -2)]
    let s = Self.scale(rows)
    let xml = Self.parse(SVGCharts.forest(rows, scale: s, axisTitle: "difference (pp)"))
    let labels = xml.texts.filter { $0.attributes["class"] == "tick" }.map(\.content)
    #expect(labels == s.ticks.map(s.label))
    #expect(labels.contains("0") && labels.filter { $0 != "0" }.allSatisfy { $0.hasSuffix(" pp") }, "\(labels)")
    #expect(xml.elements.filter { $0.name == "line" && $0.attributes["class"] == "axis" }.count == s.ticks.count + 1)
    #expect(xml.text.contains("difference (pp)"))
  }

  /// Filled points for intervals that exclude zero, open squares for those that include it.
  @Test func forestMarksIntervalsThatExcludeZero() {
    let xml = Self.parse(Self.forest([Self.row(2, 1, 3), Self.row(0.5, -1, 2)]))
    #expect(xml.elements.filter { $0.name == "circle" && $0.attributes["class"] == "point" }.count == 1)
    #expect(xml.elements.filter { $0.attributes["class"] == "point open" }.count == 1)
    #expect(xml.text.contains("<b>&\"'") && xml.text.contains("x < y"))
  }

  /// A bar with a zero-width interval draws no whisker.
  @Test func barsDrawNoWhiskerForAZeroWidthInterval() {
    let xml = Self.parse(SVGCharts.bars([Self.row(3, 3, 3)], patterned: false, scale: ChartScale.levels([3], unit: "s")))
    #expect(!xml.elements.contains { $0.attributes["class"] == "ci whisker" })
  }

  @Test func heatmapIsFiniteWhenAllCellsAreEqualOrMissing() {
    let cases: [[[Double?]]] = [[[0, 0], [0, 0]], [[nil, nil], [nil, nil]], [[1, nil], [nil, 1]], [], [[]]]
    for values in cases {
      let chart = SVGCharts.heatmap(
        rows: ["r<1>", "r&2"], columns: ["c\"1", "c'2"], values: values, text: { NumberText.fixed($0, 1) })
      Self.expectWellFormedAndFinite(chart)
      let xml = Self.parse(chart)
      for fill in xml.elements.compactMap({ $0.attributes["fill"] }) where fill.hasPrefix("rgb(") {
        let channels = fill.dropFirst(4).dropLast().split(separator: ",").compactMap { Int($0) }
        #expect(channels.count == 3 && channels.allSatisfy { (0...255).contains($0) }, "\(fill)")
      }
    }
    Self.expectWellFormedAndFinite(SVGCharts.heatmap(rows: [], columns: [], values: [], text: { "\($0)" }))
  }

  @Test func curveIsFiniteWhenEmptyOrAllZero() {
    let text: (Double) -> String = { NumberText.fixed($0, 0) }
    Self.expectWellFormedAndFinite(SVGCharts.curve([], marked: nil, markedLabel: "", target: nil, xLabel: "users", xText: text))
    Self.expectWellFormedAndFinite(
      SVGCharts.curve(
        [(0, 0), (0, 0)], marked: (0, 0), markedLabel: "design <1>", target: 0, xLabel: "users & more", xText: text))
    Self.expectWellFormedAndFinite(
      SVGCharts.curve([(10, 1), (20, 1)], marked: (20, 1), markedLabel: "", target: 0.8, xLabel: "", xText: text))
  }

  /// A funnel whose screens nobody reached (all counts zero) draws empty bars.
  @Test(.longStage) func funnelIsFiniteWhenNobodyReachesAScreen() throws {
    let result = try Simulation.run(try ExperimentLoader.defaultExperiment(), options: RunOptions(users: 20)).run
    var summary = FunnelSummary(result.variants[0])
    let real = SVGCharts.funnel(summary, jumps: FunnelJump.all(in: result.variants[0]))
    Self.expectWellFormedAndFinite(real)
    for i in summary.screens.indices {
      summary.screens[i].id = "<screen \(i) & co>"
      summary.screens[i].reached = 0
      summary.screens[i].reachRate = 0
      summary.screens[i].droppedOff = 0
      summary.screens[i].dropOffRate = 0
    }
    let empty = SVGCharts.funnel(summary)
    Self.expectWellFormedAndFinite(empty)
    let bars = Self.parse(empty).elements.filter { $0.attributes["class"] == "bar" }
    #expect(bars.count == summary.screens.count)
    #expect(bars.allSatisfy { $0.attributes["width"] == "0.0" })
  }
}
