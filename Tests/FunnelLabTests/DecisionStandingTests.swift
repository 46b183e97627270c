import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The one decision rule where the exact engine ranks or compares (issue 57): `exact`'s standing,
/// `sensitivity`'s winner and flips, `check`'s `best` and `beats`, on the edge-case flows of
/// `Tests/Fixtures/decisions` (ties, a negligible effect, equivalent arms, only a control).
@Suite struct DecisionStandingTests {
  static func flow(_ name: String) throws -> Experiment {
    try ExperimentLoader.load(contentsOf: repositoryRoot.appendingPathComponent("Tests/Fixtures/decisions/\(name).json").path)
  }

  static func effects(_ experiment: Experiment) throws -> ExactEffects {
    let flows = try FlowCompiler.compileAll(experiment)
    let metric = experiment.metrics.primary
    return ExactEffects(
      zip(experiment.variants, flows).map { ($0.id, !$1.plans.isEmpty, ExactEngine.solve($1)) }, primary: metric,
      relativeMargin: experiment.metrics.relativeMargin(for: metric))
  }

  /// Each flow's standing on the primary metric by the truth, and the arms tied with the control.
  @Test(arguments: [
    ("six-arms", DecisionRule.Standing.best("bigEffect"), ["aaCopy", "afterPurchase"]),
    ("tie", .noneBeatsControl(negligible: ["afterPurchase", "afterPurchase2"]), ["afterPurchase", "afterPurchase2"]),
    ("negligible", .noneBeatsControl(negligible: ["tinyEffect"]), []),
    ("equivalent", .equivalent(["bigEffectToo", "bigEffect"]), []),
    ("control-only", .nothingToCompare, []),
  ])
  func exactStanding(_ name: String, _ standing: DecisionRule.Standing, _ ties: [String]) throws {
    let e = try Self.effects(try Self.flow(name))
    #expect(e.standing == standing)
    #expect(e.tiedWithControl == ties)
    #expect(e.best == (standing == .best("bigEffect") ? "bigEffect" : nil))
  }

  /// A tie is exact: the change after every purchase gives a difference and lift of exactly 0.
  @Test func tiesAreExactlyZero() throws {
    let e = try Self.effects(try Self.flow("tie"))
    for row in e.rows {
      #expect(row.differences.first == 0 && row.relativeLifts.first == 0, "\(row)")
    }
  }

  /// With the margin, an effect inside it is no winner: at a margin of 0 the negligible arm is best.
  @Test func marginDecidesBest() throws {
    var experiment = try Self.flow("negligible")
    experiment.metrics.equivalenceMargin = 0
    #expect(try Self.effects(experiment).standing == .best("tinyEffect"))
  }

  /// The README's sensitivity: at featureUtility 0 three variants tie exactly (and goalOptional is
  /// inside the margin): no winner there, so no flip at the bisection limit; features5 wins beyond.
  @Test func sensitivityHasNoFlipFromATie() throws {
    let experiment = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
    let axis = try #require(Sensitivity.Axis(parameter: .featureUtility, from: 0, to: 0.2, step: 0.04))
    let s = try Sensitivity.run(experiment, axes: [axis])
    #expect(s.flips.isEmpty, "\(s.flips)")
    let first = try #require(s.points.first)
    #expect(first.winner == nil)
    #expect(first.leaders == ["control", "goalOptional", "features3", "features5"])
    #expect(s.points.dropFirst().allSatisfy { $0.winner == "features5" })
  }

  /// A flip is between two clear winners, across the tied points between them.
  @Test func flipsSkipTiedPoints() {
    func point(_ x: Double, _ leaders: [String]) -> Sensitivity.Point {
      Sensitivity.Point(values: [x], metricValues: [], leaders: leaders)
    }
    let points = [point(0, ["a"]), point(1, ["a", "b"]), point(2, ["b"]), point(3, ["b", "c"]), point(4, ["b"]), point(5, ["c"])]
    #expect(Sensitivity.changesOfWinner(points).map { [$0.from, $0.to] } == [[0, 2], [4, 5]])
    #expect(Sensitivity.changesOfWinner([point(0, ["a", "b"]), point(1, ["b", "a"]), point(2, ["a", "b"])]).isEmpty)
  }

  /// Only a control: one leader everywhere, no flip.
  @Test func sensitivityOfAControlOnly() throws {
    let axis = try #require(Sensitivity.Axis(parameter: .featureUtility, from: 0, to: 0.2, step: 0.1))
    let s = try Sensitivity.run(try Self.flow("control-only"), axes: [axis])
    #expect(s.points.allSatisfy { $0.leaders == ["control"] } && s.flips.isEmpty)
  }

  /// `check`: two tied arms never beat each other and neither is best; the failure says tie.
  @Test func checkSaysTie() throws {
    let results = try ExpectationChecker.check(try Self.flow("tie-expectations"))
    #expect(results.map(\.passed) == [false, false, false, true])
    for r in results[0...2] {
      #expect(r.failures.count == 1)
      guard case .tie(let other, _) = r.failures.first else {
        Issue.record("expected a tie, got \(r.failures)")
        continue
      }
      #expect(other == "control")
    }
  }

  /// `grid` decides in the library with the spec's margin: a cell the metric cannot see ties the
  /// control, a +0.1 % cell is negligible, so no cell is best; with the big effect, it is best.
  @Test func gridStanding() throws {
    var e = try Self.flow("six-arms")
    let byID = Dictionary(uniqueKeysWithValues: e.variants.map { ($0.id, $0.patches) })
    e.variants = [e.variants[0]]
    func grid(_ levels: [String]) -> Grid {
      Grid(factors: [GridFactor(id: "change", levels: levels.map { GridLevel(id: $0, patches: byID[$0] ?? []) })])
    }
    func report(_ levels: [String]) throws -> GridReport {
      var g = e
      g.grid = grid(levels)
      let gridded = try #require(g.gridExperiment())
      return GridReport(result: try Simulation.run(gridded, options: RunOptions(users: 200)).run, grid: grid(levels), spec: g.metrics)
    }
    let small = try report(["afterPurchase", "tinyEffect"])
    guard case .noneBeatsControl(let negligible) = small.standing else {
      Issue.record("expected no cell beating the control, got \(small.standing)")
      return
    }
    #expect(Set(negligible) == ["change=afterPurchase", "change=tinyEffect"])
    #expect(!small.topBeatsControl)
    #expect(small.cells.contains { $0.variant == "change=afterPurchase" && GridReport.equalsControl($0) })
    let big = try report(["afterPurchase", "tinyEffect", "bigEffect"])
    #expect(big.standing == .best("change=bigEffect") && big.topBeatsControl)
  }
}
