import Foundation
import FunnelStats
import FunnelTestSupport
import Synchronization
import Testing

@testable import FunnelLab

/// A bandit on a flow's variants (``ExperimentRunner/runAdaptive``) and its reading against the
/// exact truth (``BanditTimeline``).
@Suite struct BanditRunTests {
  static func klick() throws -> Experiment { try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding")) }

  /// Each day's shares are the rule's weights from the counts before the day, every user is
  /// counted once, and one thread or two give the same run.
  @Test(.longStage) func sharesFollowTheCountsSoFar() throws {
    let e = try Self.klick()
    let allocation = AdaptiveAllocation(policy: .thompson, minimumShare: 0.02, burnInDays: 1)
    var options = RunOptions(seed: 5, threads: 2, mode: .experiment)
    let run = try ExperimentRunner.runAdaptive(e, options: options, usersPerDay: 4_000, days: 5, allocation: allocation)
    #expect(run.shares.count == 5 && run.cumulative.count == 5 && run.probabilityBest.count == 6)
    #expect(run.cumulative.last?.reduce(0) { $0 + Int($1[.users]) } == 20_000)
    var before = try (0..<5).map { _ in try ProportionCount(successes: 0, trials: 0) }
    for day in 0..<5 {
      let expected = try allocation.weights(after: before, day: day).weights
      for (got, want) in zip(run.shares[day], expected) {
        let gap: Double = abs(got - want)
        #expect(gap < 1e-12, "day \(day + 1)")
      }
      guard case .proportions(let counts)? = MetricAnalysis.data(e.metrics.primary, run.cumulative[day]) else {
        Issue.record("no counts")
        return
      }
      before = counts
    }
    #expect(run.shares[0].allSatisfy { $0 == 0.2 })
    #expect(run.shares.dropFirst().allSatisfy { $0.allSatisfy { $0 >= 0.02 - 1e-12 } })
    options.threads = 1
    let again = try ExperimentRunner.runAdaptive(e, options: options, usersPerDay: 4_000, days: 5, allocation: allocation)
    #expect(again.cumulative == run.cumulative && again.shares == run.shares)
  }

  /// The interval's coverage runs its replicates in blocks on any number of threads: the same
  /// shares as one pass over all of them (counts add exactly), and progress counts replicates
  /// up to their total.
  @Test func coverageIsOnePassesOnAnyThreadsAndReportsReplicates() throws {
    let run = try ExperimentRunner.runAdaptive(
      try Self.klick(), options: RunOptions(seed: 4, variants: ["features5"], mode: .experiment), usersPerDay: 500, days: 2,
      allocation: AdaptiveAllocation())
    let rates = try run.run.variants.map { try #require($0.exact?.value(of: run.metric)) }
    let design = BanditSimulation.Design(
      rates: rates, usersPerDay: run.usersPerDay, days: 2, allocation: run.allocation, alpha: 0.05)
    let onePass = try BanditSimulation.tally(design, replicates: 0..<BanditTimeline.coverageReplicates, seed: run.run.seed)
    let expected = onePass.weightedCovered.map { Double($0) / Double(BanditTimeline.coverageReplicates) }
    let reported = Mutex<[Int]>([])
    for threads in [1, 2] {
      let coverage = BanditTimeline.coverage(
        rates: rates, arms: 2, adaptive: run, days: 2, alpha: 0.05, threads: threads
      ) { done, total in
        #expect(total == BanditTimeline.coverageReplicates)
        reported.withLock { $0.append(done) }
      }
      #expect(coverage == expected, "\(threads) threads")
    }
    let done = reported.withLock { $0 }
    #expect(done.max() == BanditTimeline.coverageReplicates && done.allSatisfy { $0 > 0 })
  }

  /// The reading recomputed by hand from the daily counts: rates, inverse-propensity rates,
  /// regret from the exact rates, and the shipped arm.
  @Test(.longStage) func timelineMatchesAHandComputation() throws {
    let e = try Self.klick()
    let run = try ExperimentRunner.runAdaptive(
      e, options: RunOptions(seed: 8, variants: ["features5", "features3"], mode: .experiment), usersPerDay: 3_000, days: 4,
      allocation: AdaptiveAllocation())
    let t = BanditTimeline(run, alpha: 0.05)
    let exact = try run.run.variants.map { try #require($0.exact?.value(of: .purchaseConversion)) }
    var previous = [0, 0, 0]
    var weighted = [0.0, 0.0, 0.0]
    var users = [0, 0, 0]
    for (day, aggregates) in run.cumulative.enumerated() {
      for i in 0..<3 {
        let s = Int(aggregates[i][.purchasers])
        weighted[i] += Double(s - previous[i]) / run.shares[day][i]
        previous[i] = s
        users[i] = Int(aggregates[i][.users])
      }
    }
    for i in 0..<3 {
      let gap: Double = abs(t.arms[i].weightedRate - weighted[i] / 12_000)
      #expect(gap < 1e-12)
      #expect(t.arms[i].users == users[i])
    }
    let top = try #require(exact.max())
    let regret: Double = zip(users, exact).reduce(0.0) { $0 + Double($1.0) * (top - $1.1) }
    #expect(abs((t.regret ?? -1) - regret) < 1e-6)
    #expect(t.bestArm == "features5")
    #expect(t.differences.map(\.id) == ["features3", "features5"])
    let last = try #require(run.probabilityBest.last)
    #expect(t.shippedArm == run.run.variants[last.indices.max { last[$0] < last[$1] } ?? 0].variant.id)
    for d in t.differences {
      #expect(d.weightedInterval.lower < d.weighted && d.weighted < d.weightedInterval.upper)
      #expect(d.weightedStandardError > 0)
    }
    // The coverage stated beside each interval is that of this design at the exact rates.
    let design = BanditSimulation.Design(rates: exact, usersPerDay: 3_000, days: 4, allocation: AdaptiveAllocation(), alpha: 0.05)
    let tally = try BanditSimulation.tally(design, replicates: 0..<BanditTimeline.coverageReplicates, seed: 8)
    for (i, d) in t.differences.enumerated() {
      #expect(d.measuredCoverage == Double(tally.weightedCovered[i + 1]) / Double(BanditTimeline.coverageReplicates))
      #expect((d.measuredCoverage ?? 0) > 0.85, "\(d.id): \(d.measuredCoverage ?? 0)")
    }
  }

  @Test(.longStage) func refusesAMeanMetricAndBadOptions() throws {
    var e = try Self.klick()
    #expect(throws: SpecErrors.self) {
      try ExperimentRunner.runAdaptive(e, options: RunOptions(), usersPerDay: 100, days: 0, allocation: AdaptiveAllocation())
    }
    #expect(throws: SpecErrors.self) {
      try ExperimentRunner.runAdaptive(
        e, options: RunOptions(), usersPerDay: 100, days: 2, allocation: AdaptiveAllocation(minimumShare: 0.3))
    }
    #expect(throws: SpecErrors.self) {
      try ExperimentRunner.runAdaptive(e, options: RunOptions(), usersPerDay: 100, days: 2, allocation: AdaptiveAllocation(burnInDays: 2))
    }
    // A mean, a rate better when lower, a rate of paywall viewers: none is a bandit's reward.
    for metric in [FunnelMetric.revenuePerUser, .abandonmentRate, .purchaseConversionOfViewers] {
      e.metrics.primary = metric
      #expect(!metric.isBanditReward)
      #expect(throws: SpecErrors.self) {
        try ExperimentRunner.runAdaptive(e, options: RunOptions(), usersPerDay: 100, days: 2, allocation: AdaptiveAllocation())
      }
      #expect(throws: SpecErrors.self) { try BanditPlanner.compare(e, options: BanditOptions(usersPerDay: 100)) }
    }
    #expect(
      FunnelMetric.allCases.filter(\.isBanditReward) == [
        .completionRate, .skipRate, .paywallViewRate, .purchaseConversion, .trialStartRate, .personalizationRate,
      ])
  }
}
