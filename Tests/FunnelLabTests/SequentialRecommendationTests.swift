import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The one recommendation across arms of a test read day by day
/// (``DecisionRule/recommend(_:sequential:)``), and the design against the truth of a bandit
/// run (``DecisionRule/design(_:)``).
@Suite struct SequentialRecommendationTests {
  /// Six arms for four days, 1,000 users an arm a day: an A/A copy, two arms without an effect,
  /// a large win (+14 %, significant at the last day read once) and a loss; cumulative counts.
  static let looks: [SequentialAnalysis.Look] = {
    let rates: [(String, Double)] = [
      ("control", 0.25), ("aaCopy", 0.25), ("afterPurchase", 0.25), ("tinyEffect", 0.2502), ("bigEffect", 0.285), ("worse", 0.225),
    ]
    return (1...4).map { day in
      SequentialAnalysis.Look(
        day: String(day),
        arms: rates.map { ArmData(name: $0.0, users: 1_000 * day, conversions: Int(($0.1 * Double(1_000 * day)).rounded())) })
    }
  }()

  func read(plannedUsers: Int?, looks: [SequentialAnalysis.Look] = looks) throws -> (DecisionSummary, SequentialAnalysis.Report) {
    let last = try #require(looks.last)
    let fixed = try ExperimentAnalysis.analyze(arms: last.arms, control: "control")
    let sequential = try SequentialAnalysis.analyze(
      looks: looks, control: "control", settings: SequentialAnalysis.Settings(alpha: 0.01, plannedUsers: plannedUsers))
    return (DecisionSummary(analysis: fixed), sequential)
  }

  /// Without a planned size no boundary decides: every arm's test runs, its planned size
  /// unknown, and the test keeps running although the fixed read of the last day ships.
  @Test func withoutAPlannedSizeTheTestKeepsRunning() throws {
    let (fixed, sequential) = try read(plannedUsers: nil)
    #expect(fixed.recommendation.action == .ship, "the fixed read alone would ship")
    let state = DecisionRule.sequentialRead(sequential)
    #expect(state.arms.map(\.state) == Array(repeating: .plannedSizeUnknown, count: 5))
    let r = DecisionRule.recommend(fixed, sequential: sequential)
    #expect(
      r == Recommendation(.keepRunning, .plannedSizeUnknown, progress: Recommendation.Progress(shareOfPlannedSize: nil, daysLeft: nil)))
  }

  /// With a planned size twice the users so far, nothing crossed: keep running, half way,
  /// four days left at the observed rate.
  @Test func halfWayItKeepsRunningWithTheDaysLeft() throws {
    let (fixed, sequential) = try read(plannedUsers: 48_000)
    let state = DecisionRule.sequentialRead(sequential)
    #expect(state.arms.allSatisfy { $0.state == .running })
    let r = DecisionRule.recommend(fixed, sequential: sequential)
    #expect(r.action == .keepRunning && r.reason == .belowPlannedSize)
    #expect(r.progress == Recommendation.Progress(shareOfPlannedSize: 0.5, daysLeft: 4))
    #expect(fixed.readOverTime(sequential).arms.allSatisfy { $0.call == .noDetectableDifference })
  }

  /// An arm that crossed its boundary before the planned size ships, at the lift of its
  /// crossing; the others are still running.
  @Test func anArmThatCrossedShips() throws {
    let (fixed, sequential) = try read(plannedUsers: 30_000)
    let state = DecisionRule.sequentialRead(sequential)
    let big = try #require(state.arms.first { $0.arm == "bigEffect" })
    #expect(big.state == .stoppedEarly)
    #expect(state.arms.first { $0.arm == "aaCopy" }?.state == .running)
    let r = DecisionRule.recommend(fixed, sequential: sequential)
    #expect(r.action == .ship && r.arm == "bigEffect")
    let lift = try #require(fixed.readOverTime(sequential).arms.first { $0.arm == "bigEffect" }?.primary.relativeLift?.estimate)
    #expect(lift == big.look?.relativeLift)
  }

  /// At the planned size with no arm crossing (the effects scaled down), the test is over:
  /// stop, nothing shown, no progress.
  @Test func atThePlannedSizeWithoutACrossingItStops() throws {
    let flat = Self.looks.map { look in
      SequentialAnalysis.Look(
        day: look.day, arms: look.arms.map { ArmData(name: $0.name, users: $0.users, conversions: $0.users / 4) })
    }
    let (fixed, sequential) = try read(plannedUsers: 24_000, looks: flat)
    #expect(DecisionRule.sequentialRead(sequential).arms.allSatisfy { $0.state == .noDifferenceAtPlannedSize })
    let r = DecisionRule.recommend(fixed, sequential: sequential)
    #expect(r.action == .stop && r.progress == nil)
  }

  @Test(arguments: [
    (6_000, 4, 12_000, 0.5, 4), (6_000, 4, 6_000, 1.0, 0), (1_000, 3, 1_500, 2.0 / 3, 2), (7, 2, 100, 0.07, 27),
  ])
  func daysLeftAreAtTheObservedRate(users: Int, looks: Int, planned: Int, share: Double, days: Int) {
    let p = DecisionRule.progress(users: users, looks: looks, plannedUsers: planned)
    #expect(p.shareOfPlannedSize == share && p.daysLeft == days)
  }

  @Test func plannedDaysGiveThePlannedUsersAtTheObservedRate() {
    #expect(DecisionRule.plannedUsers(plannedDays: 8, users: 24_000, looks: 4) == 48_000)
    #expect(DecisionRule.plannedUsers(plannedDays: 2, users: 24_000, looks: 4) == 24_000, "never below the users so far")
    #expect(DecisionRule.plannedUsers(plannedDays: 3, users: 10, looks: 3) == 10)
  }

  /// A bandit that would ship an arm whose true lift is inside the margin is a wrong call; the
  /// same run with a margin below that lift is right.
  @Test(.longStage) func aBanditShippingANegligibleArmIsAWrongCall() throws {
    let path = repositoryRoot.appendingPathComponent("Tests/Fixtures/decisions/negligible.json").path
    let e = try ExperimentLoader.load(contentsOf: path)
    let run = try ExperimentRunner.runAdaptive(
      e, options: RunOptions(seed: 57, mode: .experiment), usersPerDay: 2_000, days: 5, allocation: AdaptiveAllocation())
    let t = BanditTimeline(run, alpha: 0.05, relativeMargin: 0.01)
    let design = try #require(DecisionRule.design(t))
    if t.shippedArm == "tinyEffect" {
      #expect(design.kind == .shipsNegligible && design.shipped == "tinyEffect")
    } else {
      #expect(design.kind == .right)
    }
    let strict = BanditTimeline(run, alpha: 0.05, relativeMargin: 1e-6)
    #expect(DecisionRule.design(strict)?.kind == (t.shippedArm == "tinyEffect" ? .right : .holdsBackBest))
  }
}
