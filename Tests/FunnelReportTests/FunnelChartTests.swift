import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelReport

/// Funnels that end in outcomes, mark where a skip or jump enters, and compare the control
/// with a variant (``SVGCharts/funnel(_:jumps:)``, ``FunnelJump``,
/// ``SVGCharts/funnelComparison(control:variant:jumps:)``), on the seed flows.
@Suite struct FunnelChartTests {
  /// A small truth-mode run of each seed experiment (its own seed), made once.
  static let runs = Dictionary(
    uniqueKeysWithValues: seedExperiments.map { name in
      (name, Result { () throws(SpecErrors) in try Simulation.run(contentsOf: experimentPath(name), users: 1000).run })
    })

  /// The run of `experiments/<name>.json`.
  static func run(_ name: String) throws -> RunResult {
    try #require(runs[name]).get()
  }

  /// Completed and abandoned make up all users; the plans' first purchases make up the purchasers.
  @Test(.longStage, arguments: seedExperiments)
  func outcomesAddUp(_ name: String) throws {
    for s in FunnelSummary.all(try Self.run(name)) {
      let rows = SVGCharts.outcomes(s)
      let count = { (key: String) in rows.first { $0.key == key }?.count }
      #expect(count("completed").map { $0 + (count("abandoned") ?? 0) } == s.users, "\(name) \(s.variant)")
      #expect(count("purchased") == s.purchasers)
      let plans = rows.filter(\.indented)
      #expect(plans.count == s.plans.count)
      if let purchasers = s.purchasers { #expect(plans.reduce(0) { $0 + $1.count } == purchasers) }
    }
  }

  /// Every rise in reach from one screen to the next is explained by a jump into that screen
  /// or one above it (Klick's upsellAfter3: editing, after the proUpsell that skips land on).
  @Test(arguments: seedExperiments)
  func everyRiseInReachFollowsAJump(_ name: String) throws {
    let result = try Self.run(name)
    for (run, s) in zip(result.variants, FunnelSummary.all(result)) {
      let jumps = FunnelJump.all(in: run)
      for i in s.screens.indices.dropFirst() where s.screens[i].reached > s.screens[i - 1].reached {
        #expect(jumps.contains { $0.screen <= i && $0.count > 0 }, "\(name) \(s.variant): \(s.screens[i].id) rises unexplained")
      }
    }
  }

  /// Klick's control: Skip on the four slides before proUpsell jumps past the next screen
  /// (achievement's Skip goes to the next screen anyway); the funnel marks proUpsell and says so.
  @Test func klickMarksTheSkipsThatLandOnTheUpsell() throws {
    let result = try Self.run("klick-onboarding")
    let jumps = FunnelJump.all(in: result.variants[0])
    let upsell = try #require(result.variants[0].flow.screenIDs.firstIndex(of: "proUpsell"))
    #expect(jumps.map(\.screen) == [upsell])
    let jump = try #require(jumps.first)
    #expect(jump.sources == ["welcome", "composition", "posing", "editing"] && jump.allSkips && jump.count > 0)
    let summary = FunnelSummary(result.variants[0])
    let texts = SVGChartsTests.parse(SVGCharts.funnel(summary, jumps: jumps)).texts
    #expect(texts.contains { $0.content == "\(upsell + 1). proUpsell ↪" })
    #expect(texts.contains { $0.attributes["class"] == "small jump" && $0.content.hasSuffix("skips from 4 earlier screens land here") })
    #expect(texts.filter { $0.content.hasSuffix(" ↪") }.count == 1, "no other screen is marked")
  }

  /// Side by side: the variant's screens in its order, a screen it removed at the end as
  /// `removed`, then the outcomes and plans paired by what they count.
  @Test func comparisonPairsScreensAndOutcomes() throws {
    let klick = FunnelSummary.all(try Self.run("klick-onboarding"))
    let upsellAfter3 = try #require(klick.first { $0.variant == "upsellAfter3" })
    let rows = SVGCharts.comparisonRows(control: klick[0], variant: upsellAfter3)
    #expect(rows.prefix(7).map(\.label) == upsellAfter3.screens.map(\.id))
    #expect(rows.map(\.label).suffix(6) == ["✓ completed", "✗ abandoned", "$ purchased a plan", "monthly", "yearly*", "lifetime"])
    #expect(rows.allSatisfy { $0.control != nil && $0.variant != nil })
    let ncdb = FunnelSummary.all(try Self.run("ncdb-first-launch"))
    let removed = SVGCharts.comparisonRows(control: ncdb[0], variant: try #require(ncdb.first { $0.variant == "skipTutorialByDefault" }))
    let tutorial = try #require(removed.first { $0.label == "rankingTutorial" })
    #expect(tutorial.variant == nil && tutorial.text.hasSuffix("→ removed"))
    let chart = SVGChartsTests.parse(SVGCharts.funnelComparison(control: klick[0], variant: upsellAfter3, jumps: ["proUpsell"]))
    #expect(chart.texts.contains { $0.content == "proUpsell ↪" })
    #expect(chart.texts.contains { $0.content == "control" } && chart.texts.contains { $0.content == "upsellAfter3" }, "a legend")
  }

  /// The words add up: the difference is taken between the printed percentages, and equal ones read `+0.0 pp`.
  @Test(arguments: [
    (0.71345, 0.71375, "71.3% → 71.4% (+0.1 pp)"), (0.724, 0.724, "72.4% → 72.4% (0.0 pp)"),
    (0.72449, 0.72351, "72.4% → 72.4% (0.0 pp)"), (0.5, 0.25, "50.0% → 25.0% (-25.0 pp)"),
  ])
  func comparisonTextAddsUp(control: Double, variant: Double, text: String) {
    #expect(SVGCharts.ComparisonRow(label: "x", control: control, variant: variant).text == text)
  }
}
