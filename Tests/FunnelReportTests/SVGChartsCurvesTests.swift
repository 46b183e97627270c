import FunnelStats
import Testing

@testable import FunnelReport

/// ``SVGCharts/curves(_:scale:axisTitle:dayTitle:width:)``: lines that end together keep their
/// names apart, and every line has its own dash and marker, not colour alone.
@Suite struct SVGChartsCurvesTests {
  /// A unit double from `rng` (53 random bits).
  static func unit(_ rng: inout SplitMix64) -> Double { Double(rng.next() >> 11) * 0x1p-53 }

  /// Spread labels keep their order, lie between the bounds and at least a gap apart, over
  /// random positions (many bunched together); they are refused only when they cannot fit.
  @Test(arguments: 0..<400)
  func spreadLabelsNeverOverlap(seed: UInt64) throws {
    var rng = SplitMix64(seed: seed)
    let count = Int(rng.next() % 12) + 1
    let gap = 10 + 8 * Self.unit(&rng)
    let (top, bottom) = (18.0, 18 + 60 + 180 * Self.unit(&rng))
    // Half the cases bunch every label within a few units, as a bandit's losing arms do near 0 %.
    let spreadOut = rng.next() % 2 == 0 ? bottom - top + 40 : 6
    let wanted = (0..<count).map { _ in bottom - spreadOut * Self.unit(&rng) }
    let placed = SVGCharts.spread(wanted, gap: gap, top: top, bottom: bottom)
    guard Double(count - 1) * gap <= bottom - top else { return #expect(placed == nil, "seed \(seed)") }
    let p = try #require(placed, "seed \(seed)")
    #expect(p.count == count)
    #expect(p.allSatisfy { $0 >= top - 1e-9 && $0 <= bottom + 1e-9 }, "seed \(seed): \(p) in \(top)…\(bottom)")
    let order = p.indices.sorted { (p[$0], $0) < (p[$1], $1) }
    for (a, b) in zip(order, order.dropFirst()) {
      #expect(p[b] - p[a] >= gap - 1e-9, "seed \(seed): \(p)")
      #expect(wanted[a] <= wanted[b], "seed \(seed): order kept")
    }
    #expect(SVGCharts.spread(wanted, gap: gap, top: top, bottom: bottom) == p, "deterministic")
  }

  /// A bandit's shares: one arm wins, four end between 0 and 10 %. Their names at the lines'
  /// ends are at least a phone's line apart, each series has its own marker shape and dash,
  /// and the same input gives the same bytes.
  @Test(arguments: [SVGCharts.width, SVGCharts.wideWidth])
  func banditLosersEndingTogetherStayApart(width: Double) throws {
    let ends = [88.0, 4, 3.5, 3, 1.5]
    let series = ends.enumerated().map { i, end in
      SVGCharts.CurveSeries(name: "arm\(i)", points: (1...14).map { d in (Double(d), 20 + (end - 20) * Double(d) / 14, 0, 0, nil) })
    }
    let scale = ChartScale(lower: 0, upper: 100, step: 20, unit: "%", signed: false)
    let chart = SVGCharts.curves(series, scale: scale, axisTitle: "share", width: width)
    #expect(chart.content == SVGCharts.curves(series, scale: scale, axisTitle: "share", width: width).content)
    let xml = SVGChartsTests.parse(chart)
    #expect(xml.wellFormed)
    let names = Set(series.map(\.name))
    let endTexts = xml.texts.filter { names.contains($0.content) && Double($0.attributes["x"] ?? "") ?? 0 > 100 }
    #expect(endTexts.count == series.count)
    let baselines = endTexts.compactMap { Double($0.attributes["y"] ?? "") }.sorted()
    for (a, b) in zip(baselines, baselines.dropFirst()) {
      #expect(b - a >= Double(HTMLDocument.phoneChartFontSize) + 2, "\(baselines)")
    }
    let markers = xml.elements.filter { $0.attributes["class"] == "marker" }
    #expect(markers.count >= 2 * series.count, "on the lines, at the ends and in the legend")
    let shapes = series.indices.map { SVGCharts.marker($0, x: 0, y: 0) }
    #expect(Set(shapes).count == series.count)
    let dashes = series.indices.map { SVGCharts.dash($0) }
    #expect(Set(dashes).count == series.count)
  }

  /// Two lines on top of each other carry their markers on different days.
  @Test(arguments: [2, 3, 5, 7])
  func markersOfLinesAreStaggered(count: Int) {
    let marked = (0..<count).map { Set(SVGCharts.markedPoints(series: $0, of: count, points: 14)) }
    for i in marked.indices { for j in marked.indices where j > i { #expect(marked[i].isDisjoint(with: marked[j]), "\(marked)") } }
    #expect(marked.allSatisfy { $0.allSatisfy { $0 < 13 } }, "the last point is the end label's")
  }

  /// A name too long for the room at the lines' end is shortened with `…` to fit.
  @Test func longNamesAreShortenedToTheirRoom() {
    let name = String(repeating: "variant", count: 12)
    let short = SVGCharts.shortened(name, room: 120)
    #expect(short.hasSuffix("…") && SVGCharts.textWidth(short) <= 120)
    #expect(SVGCharts.shortened("b", room: 120) == "b")
  }
}
