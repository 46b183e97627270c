import Dispatch
import Foundation
import FunnelStats
import FunnelTestSupport
import Synchronization
import Testing

@testable import FunnelLab

/// The tiny spec's two variants, compiled: the control and `optional` (the goal question
/// becomes skippable, which changes completion, skips, paywall views, purchases and revenue).
func tinyPair() throws -> [CompiledFlow] {
  let e = try load(tinySpec)
  return try [FlowCompiler.compile(e, variant: 0), FlowCompiler.compile(e, variant: 1)]
}

@Suite struct PairedInferenceTests {
  /// Each flow's aggregate is exactly what a run of it alone gives, for any thread count
  /// and any split of the users; the paired tallies merge the same way.
  @Test func lockstepMatchesSeparateRunsForAnyThreadsAndSplit() throws {
    var e = try ExperimentLoader.defaultExperiment()
    e.variants = Array(e.variants.prefix(3))
    let flows = try FlowCompiler.compileAll(e)
    let users = 2 * MonteCarloEngine.chunkSize + 77
    let one = MonteCarloEngine(threads: 1).runPaired(flows, users: 0..<UInt64(users), seed: 5)
    for threads in [2, 4] {
      #expect(MonteCarloEngine(threads: threads).runPaired(flows, users: 0..<UInt64(users), seed: 5) == one)
    }
    for (flow, aggregate) in zip(flows, one.aggregates) {
      #expect(MonteCarloEngine(threads: 2).run(flow, users: 0..<UInt64(users), seed: 5) == aggregate)
    }
    let engine = MonteCarloEngine(threads: 2)
    let a = engine.runPaired(flows, users: 0..<10_000, seed: 5)
    let b = engine.runPaired(flows, users: 10_000..<UInt64(users), seed: 5)
    #expect(zip(a.aggregates, b.aggregates).map { $0 + $1 } == one.aggregates)
    #expect(zip(a.paired, b.paired).map { x, y in x.flatMap { p in y.map { p + $0 } } } == one.paired)
    #expect(one.paired[0] == nil && one.paired.dropFirst().allSatisfy { $0 != nil })
  }

  /// The tables' margins are the two aggregates' counts, and Σd is the difference of
  /// total revenues: the tallies describe the same users as the aggregates.
  @Test func tablesAddUpToTheAggregates() throws {
    let e = try ExperimentLoader.defaultExperiment()
    let run = MonteCarloEngine(threads: 2).runPaired(try FlowCompiler.compileAll(e), users: 0..<40_000, seed: 11)
    let control = run.aggregates[0]
    for (aggregate, paired) in zip(run.aggregates, run.paired).dropFirst() {
      let t = try #require(paired)
      #expect(t.users == control[.users])
      for o in PairedTallies.Outcome.allCases {
        let table = try #require(t.table(o.metric))
        let counts = try #require(o.metric.counts(in: aggregate))
        let base = try #require(o.metric.counts(in: control))
        #expect(table.pairs == Int(t.users))
        #expect(UInt64(table.treatment.successes) == counts.successes, "\(o)")
        #expect(UInt64(table.control.successes) == base.successes, "\(o)")
      }
      #expect(t.revenue.sum == Int128(aggregate.revenue.totalCents - control.revenue.totalCents))
      #expect(t.realizedRevenue.sum == Int128(aggregate.realizedRevenue.totalCents - control.realizedRevenue.totalCents))
    }
  }

  /// An unchanged variant: every pair concordant, every difference zero, p = 1.
  @Test func unchangedVariantHasNoDiscordantPairs() throws {
    var e = try ExperimentLoader.defaultExperiment()
    e.variants = [Variant(id: "control"), Variant(id: "aa", patches: [.setRequired(screen: "personalization", required: true)])]
    let result = try ExperimentRunner.run(e, options: RunOptions(users: 30_000))
    let t = try #require(result.variants[1].paired)
    #expect(t.tables.allSatisfy { $0.variantOnly == 0 && $0.controlOnly == 0 })
    #expect(t.revenue == PairedTallies.DifferenceSums() && t.realizedRevenue == PairedTallies.DifferenceSums())
    for metric in FunnelMetric.allCases where PairedTallies.covers(metric) {
      // Rates are paired; a mean with no user who differs is compared as independent samples.
      let paired = MetricAnalysis.comparePaired(metric, tallies: t)
      #expect((paired == nil) == PairedTallies.meanMetrics.contains(metric), "\(metric)")
      let c = MetricAnalysis.compare(metric, variant: result.variants[1].aggregate, control: result.variants[0].aggregate, paired: t)
      #expect(c.test?.pValue == 1 && c.difference?.estimate == 0, "\(metric)")
      #expect(c.isPaired == !PairedTallies.meanMetrics.contains(metric), "\(metric)")
    }
  }

  /// When few users' revenue differs, the paired t's interval is unreliable: with none it
  /// collapses to [0, 0] at p = 1 whatever the true effect. A change of the purchase probability
  /// from 0.1 to 0.10006 leaves about 2 of 20,000 users differing (the paired t covered the exact
  /// difference in 250 of 300 runs, 83 %); to 0.1006, about 20 (277 of 300, 92 %). Below
  /// ``PairedTallies/minimumDiffering`` users who differ the comparison is Welch's, unpaired,
  /// which the walks' positive correlation only widens. Over the seeds (100 in the fast stage,
  /// 2,000 in the long) the interval the report prints covers the exact difference at least 95 %
  /// of the time, within a one-sided band of 3.09 SE; at 0.1006 both paths are taken.
  @Test(arguments: [0.10006, 0.1006])
  func revenueIntervalsStayValidWhenFewUsersDiffer(purchase: Double) throws {
    let patches =
      "[ { \"op\": \"setAction\", \"screen\": \"paywall\", \"action\": \"purchase\", \"probability\": \(purchase) },"
      + " { \"op\": \"setAction\", \"screen\": \"paywall\", \"action\": \"dismiss\", \"probability\": \(0.95 - purchase) } ]"
    let e = try load(
      replacing(
        "{ \"id\": \"optional\", \"patches\": [ { \"op\": \"setRequired\", \"screen\": \"goal\", \"required\": false } ] }",
        "{ \"id\": \"buysMore\", \"patches\": \(patches) }"))
    let flows = try FlowCompiler.compileAll(e)
    let exact = flows.map(ExactEngine.solve)
    let truth = try #require(exact[1].value(of: .revenuePerUser)) - (try #require(exact[0].value(of: .revenuePerUser)))
    #expect(truth > 0)
    let seeds = TestStage.size(fast: 100, long: 2_000)
    var covered = 0
    var unpaired = 0
    for seed in 1...seeds {
      let run = MonteCarloEngine(threads: 2).runPaired(flows, users: 0..<20_000, seed: UInt64(seed))
      let tallies = try #require(run.paired[1])
      if tallies.revenue.differing < PairedTallies.minimumDiffering { unpaired += 1 }
      let c = MetricAnalysis.compare(.revenuePerUser, variant: run.aggregates[1], control: run.aggregates[0], paired: tallies)
      if let ci = c.difference?.interval, ci.contains(truth) { covered += 1 }
    }
    let se = (0.95 * 0.05 / Double(seeds)).squareRoot()
    #expect(Double(covered) / Double(seeds) >= 0.95 - 3.09 * se, "covered \(covered) of \(seeds) (\(unpaired) unpaired)")
    #expect(unpaired > 0, "\(unpaired) of \(seeds) runs compared unpaired")
    if purchase > 0.1005 { #expect(unpaired < seeds, "the paired t is used when enough users differ") }
  }

  @Test func jsonRoundTripsExactly() throws {
    let run = MonteCarloEngine(threads: 2).runPaired(try tinyPair(), users: 0..<5_000, seed: 3)
    let t = try #require(run.paired[1])
    let text = JSONWriter.write(t.json)
    #expect(try PairedTallies(json: JSONParser.parse(text), at: .root) == t)
    var damaged = t
    damaged.tables[0].both += 1
    #expect(throws: SpecError.self) { try PairedTallies(json: JSONParser.parse(JSONWriter.write(damaged.json)), at: .root) }
  }

  /// The acceptance test of paired inference: over 1,000 seeds, the paired interval of
  /// each difference covers the exact difference (``ExactEngine``) in 95 % of runs, within
  /// a binomial band set for the 5 metrics checked (``StatisticalBand``: z ≈ 3.72, ±2.6 pt);
  /// the test fails outside that band.
  @Test(.longStage) func pairedIntervalsCoverTheExactDifference() throws {
    let flows = try tinyPair()
    let exact = flows.map(ExactEngine.solve)
    let metrics: [FunnelMetric] = [.completionRate, .skipRate, .paywallViewRate, .purchaseConversion, .revenuePerUser]
    let truth = metrics.map { m in (exact[1].value(of: m) ?? .nan) - (exact[0].value(of: m) ?? .nan) }
    let seeds = 1_000
    let alpha = 0.05
    let covered = Mutex([Int](repeating: 0, count: metrics.count))
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      var mine = [Int](repeating: 0, count: metrics.count)
      for seed in stride(from: worker, to: seeds, by: 4) {
        let run = MonteCarloEngine(threads: 1).runPaired(flows, users: 0..<1_500, seed: UInt64(seed))
        guard let tallies = run.paired[1] else { continue }
        for (k, m) in metrics.enumerated() {
          let comparison = MetricAnalysis.compare(m, variant: run.aggregates[1], control: run.aggregates[0], paired: tallies, alpha: alpha)
          if let ci = comparison.difference?.interval, ci.contains(truth[k]) {
            mine[k] += 1
          }
        }
      }
      covered.withLock { total in for k in total.indices { total[k] += mine[k] } }
    }
    let se = (alpha * (1 - alpha) / Double(seeds)).squareRoot()
    let band = StatisticalBand(checks: metrics.count)
    for (k, m) in metrics.enumerated() {
      let coverage = Double(covered.withLock { $0[k] }) / Double(seeds)
      print("coverage \(m): \(coverage) (exact Δ \(truth[k]))")
      band.expect(coverage, exact: 1 - alpha, standardError: se, "\(m): coverage of exact Δ \(truth[k]) over \(seeds) seeds")
    }
  }
}
