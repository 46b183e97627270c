import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// Experiment mode day by day (``ExperimentRunner/runByDay``) and its reading as a live test
/// (``ExperimentTimeline``).
@Suite struct ExperimentTimelineTests {
  /// The days add up to exactly the run of all their users at once (6 days × 1,000 users =
  /// 1,200 per arm of Klick's 5 arms), on one thread or two; each day's totals only grow.
  @Test(.longStage) func daysAddUpToTheWholeRun() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
    var options = RunOptions(seed: 11, threads: 2, mode: .experiment)
    let daily = try ExperimentRunner.runByDay(e, options: options, usersPerDay: 1_000, days: 6)
    options.users = 1_200
    let whole = try ExperimentRunner.run(e, options: options)
    #expect(daily.cumulative.count == 6)
    #expect(daily.cumulative.last == whole.variants.map(\.aggregate))
    #expect(daily.run.variants.map(\.aggregate) == whole.variants.map(\.aggregate))
    options.users = nil
    options.threads = 1
    let oneThread = try ExperimentRunner.runByDay(e, options: options, usersPerDay: 1_000, days: 6)
    #expect(oneThread.cumulative == daily.cumulative)
    for (before, after) in zip(daily.cumulative, daily.cumulative.dropFirst()) {
      #expect(zip(before, after).allSatisfy { $0[.users] <= $1[.users] })
    }
    #expect(daily.cumulative.last?.reduce(0) { $0 + $1[.users] } == 6_000)
  }

  /// The truth beside the daily reading is the exact engine's lift of the primary metric, the
  /// same number the experiment report grades against; the verdict is graded from it.
  @Test(.longStage) func theTruthIsTheExactLift() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
    let options = RunOptions(seed: 3, variants: ["features5"], mode: .experiment)
    let daily = try ExperimentRunner.runByDay(e, options: options, usersPerDay: 20_000, days: 14)
    let timeline = try #require(try ExperimentTimeline(daily, spec: e.metrics))
    let report = ExperimentReport(observed: daily.run, spec: e.metrics)
    let exact = try #require(report.primary.arm("features5")?.trueRelativeLift)
    #expect(timeline.trueRelativeLift["features5"] == exact)
    #expect(timeline.report.rows.count == 14)
    #expect(timeline.report.reachedPlannedEnd)
    #expect(timeline.report.settings.alpha == e.metrics.alpha)
    let decided = timeline.report.rows.contains { [.stopForEfficacy, .finalSignificant, .finalNotSignificant].contains($0.decision) }
    #expect(decided && timeline.verdicts["features5"] != nil)
  }
}
