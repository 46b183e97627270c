import FunnelLab
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

  @Test(arguments: degenerateRows)
  func forestIsFiniteOnDegenerateRows(_ rows: [SVGCharts.ForestRow]) {
    Self.expectWellFormedAndFinite(SVGCharts.forest(rows))
  }

  @Test(arguments: degenerateRows)
  func barsAreFiniteOnDegenerateRows(_ rows: [SVGCharts.ForestRow]) {
    Self.expectWellFormedAndFinite(SVGCharts.bars(rows, patterned: false))
    Self.expectWellFormedAndFinite(SVGCharts.bars(rows, patterned: true, maximum: 100, marker: (0, "α <5%>")))
  }

  /// Filled points for intervals that exclude zero, open squares for those that include it.
  @Test func forestMarksIntervalsThatExcludeZero() {
    let xml = Self.parse(SVGCharts.forest([Self.row(2, 1, 3), Self.row(0.5, -1, 2)]))
    #expect(xml.elements.filter { $0.name == "circle" && $0.attributes["class"] == "point" }.count == 1)
    #expect(xml.elements.filter { $0.attributes["class"] == "point open" }.count == 1)
    #expect(xml.text.contains("<b>&\"'") && xml.text.contains("x < y"))
  }

  /// A bar with a zero-width interval draws no whisker.
  @Test func barsDrawNoWhiskerForAZeroWidthInterval() {
    let xml = Self.parse(SVGCharts.bars([Self.row(3, 3, 3)], patterned: false))
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
  @Test func funnelIsFiniteWhenNobodyReachesAScreen() throws {
    let result = try Simulation.run(try ExperimentLoader.defaultExperiment(), options: RunOptions(users: 20)).run
    var summary = FunnelSummary(result.variants[0])
    let real = SVGCharts.funnel(summary)
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
