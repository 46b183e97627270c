import Foundation
import Synchronization
import Testing

@testable import FunnelLab

/// Sensitivity finds a flip placed on purpose.
@Suite struct SensitivityTests {
  /// Two screens (each 95% continue) against one screen (90% continue). Fatigue
  /// only touches the second screen seen, so the one-screen completion is 0.9 at
  /// every fatigue while the two-screen one falls from 0.95² = 0.9025: the winner
  /// flips from twoScreens to oneScreen at a small positive fatigue. The margin is 0 (ties
  /// only within rounding): at the default ±1 % every point of this range is a tie.
  static let spec = """
    {
      "name": "flip",
      "behavior": { "intentOnQuit": 0, "requiredInputFriction": 0 },
      "population": { "segments": [ { "id": "everyone", "intent": { "mean": 0, "sd": 0 } } ] },
      "flow": { "screens": [
        { "id": "a", "kind": "info", "actions": { "continue": 0.95, "quit": 0.05 } },
        { "id": "b", "kind": "info", "actions": { "continue": 0.95, "quit": 0.05 } }
      ] },
      "metrics": { "primary": "completionRate", "equivalenceMargin": 0 },
      "variants": [
        { "id": "twoScreens" },
        { "id": "oneScreen", "patches": [
          { "op": "removeScreen", "screen": "b" },
          { "op": "setAction", "screen": "a", "action": "continue", "probability": 0.9 },
          { "op": "setAction", "screen": "a", "action": "quit", "probability": 0.1 }
        ] }
      ]
    }
    """

  @Test func findsTheFlipPlacedOnPurpose() throws {
    let experiment = try ExperimentLoader.load(text: Self.spec, source: "flip.json")
    let axis = try #require(Sensitivity.Axis(parameter: .fatiguePerScreen, from: 0, to: 0.2, step: 0.02))
    #expect(axis.values.count == 11)
    let result = try Sensitivity.run(experiment, axes: [axis])
    #expect(result.points.first?.winner == "twoScreens")
    #expect(result.points.last?.winner == "oneScreen")
    let flip = try #require(result.flips.first)
    #expect(result.flips.count == 1)
    #expect(flip.from == "twoScreens" && flip.to == "oneScreen")
    // 0.95 · P(continue on b) = 0.9 with P = 0.95 / (0.95 + 0.05 e^f) gives f = ln(19/18).
    let expected = Foundation.log(19.0 / 18.0)
    #expect(flip.between.contains(expected))
    #expect(abs(flip.at - expected) < 0.02 / 1024 + 1e-9, "flip at \(flip.at), expected \(expected)")
  }

  /// At the default ±1 % margin the two stay within 1 % of each other over the range: a tie at
  /// every point, so no winner and no flip.
  @Test func tiesWithinTheMarginNeverFlip() throws {
    var experiment = try ExperimentLoader.load(text: Self.spec, source: "flip.json")
    experiment.metrics.equivalenceMargin = MetricsSpec.defaultEquivalenceMargin
    let result = try Sensitivity.run(
      experiment, axes: [try #require(Sensitivity.Axis(parameter: .fatiguePerScreen, from: 0, to: 0.2, step: 0.02))])
    #expect(result.flips.isEmpty)
    #expect(result.points.allSatisfy { $0.winner == nil && Set($0.leaders) == ["twoScreens", "oneScreen"] })
  }

  @Test func noFlipWhenOneVariantAlwaysWins() throws {
    var experiment = try ExperimentLoader.load(text: Self.spec, source: "flip.json")
    experiment.variants[1].patches.removeLast(2)
    let result = try Sensitivity.run(
      experiment, axes: [try #require(Sensitivity.Axis(parameter: .fatiguePerScreen, from: 0, to: 0.2, step: 0.1))])
    #expect(result.flips.isEmpty)
    #expect(Set(result.points.map(\.winner)) == ["oneScreen"])
  }

  /// The points are solved in parallel: progress still counts 1, 2, … to the total, one call at
  /// a time, and the points come in their order with every flip found on one thread too.
  @Test func parallelPointsReportInOrderAndMatchOneByOne() throws {
    let experiment = try ExperimentLoader.load(text: Self.spec, source: "flip.json")
    let axes = [
      try #require(Sensitivity.Axis(parameter: .requiredInputFriction, from: 0, to: 0.4, step: 0.2)),
      try #require(Sensitivity.Axis(parameter: .fatiguePerScreen, from: 0, to: 0.2, step: 0.02)),
    ]
    let seen = Mutex<[Int]>([])
    let result = try Sensitivity.run(experiment, axes: axes) { done, total in
      seen.withLock { $0.append(done) }
      #expect(total == 33)
    }
    #expect(seen.withLock { $0 } == Array(1...33))
    #expect(result.points.map(\.values) == [0, 0.2, 0.4].flatMap { a in axes[1].values.map { [a, $0] } })
    #expect(result.flips.count == 3 && result.flips.map(\.fixed) == [[0], [0.2], [0.4]], "\(result.flips)")
    for (k, point) in result.points.enumerated() where k % 7 == 0 {
      #expect(try Sensitivity.evaluate(experiment, axes: axes, values: point.values, metric: result.metric) == point.metricValues)
    }
  }
}
