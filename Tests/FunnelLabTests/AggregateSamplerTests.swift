import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

@Suite struct AggregateSamplerTests {
  static let replicates = 2000

  /// The Klick upsell comparison's arms, solved exactly.
  /// The arms of klick-onboarding whose sampled moments are checked (one family).
  static let momentArms = [0, 1]

  static func klickArms() throws -> [ExactFunnel] {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
    return try FlowCompiler.compileAll(e).map(ExactEngine.solve)
  }

  @Test(.longStage) func countsAreDeterministicPerSeedReplicateAndArm() throws {
    let sampler = AggregateSampler(try Self.klickArms()[0])
    let a = sampler.sample(users: 1_000_000, seed: 7, replicate: 3, arm: 1)
    #expect(a == sampler.sample(users: 1_000_000, seed: 7, replicate: 3, arm: 1))
    #expect(a != sampler.sample(users: 1_000_000, seed: 7, replicate: 4, arm: 1))
    #expect(a != sampler.sample(users: 1_000_000, seed: 7, replicate: 3, arm: 0))
    #expect(a != sampler.sample(users: 1_000_000, seed: 8, replicate: 3, arm: 1))
  }

  /// Every user lands in exactly one class, and the derived counts are the classes' margins.
  @Test(.longStage, arguments: [0, 1, 17, 10_000, 1_000_000])
  func classesPartitionTheUsers(users: Int) throws {
    for exact in try Self.klickArms() {
      let sampler = AggregateSampler(exact)
      let arm = sampler.sample(users: UInt64(users), seed: 1, replicate: 0, arm: 0)
      #expect(arm.classCounts.reduce(0, +) == UInt64(users))
      #expect(arm[.completed] + arm.abandonedAt.reduce(0, +) + arm[.stepLimitReached] == UInt64(users))
      #expect(arm.planPurchases.reduce(0, +) == arm[.purchasers])
      #expect(arm[.purchasers] <= arm[.paywallViewers])
      let completed = zip(sampler.classes, arm.classCounts).filter { $0.0.end == .completed }.reduce(0) { $0 + $1.1 }
      #expect(completed == arm[.completed])
    }
  }

  /// Over 2,000 replicates of 10,000 users, each proportion count has mean `n·p`
  /// and variance `n·p·(1 − p)` (the statistic `(R − 1)·s²/σ²` inside the central
  /// `1 − α/n` of χ²_{R−1}); each plan's count has mean `n·p_j`; completions and
  /// purchases covary as `n·(P(C ∧ B) − P(C)·P(B))`. The tolerance is set for the
  /// number of checks (``StatisticalBand``): per arm 6 means, 6 variances, one per
  /// plan and the covariance, over both arms as one family (n = 32, z ≈ 4.16; each
  /// variance test at level α/n).
  @Test(.longStage, arguments: Self.momentArms)
  func sampledCountsHaveTheMultinomialMeanVarianceAndCovariance(arm index: Int) throws {
    let exact = try Self.klickArms()[index]
    let sampler = AggregateSampler(exact)
    let n = 10_000.0
    let metrics: [FunnelMetric] = [
      .completionRate, .purchaseConversion, .paywallViewRate, .skipRate, .personalizationRate, .trialStartRate,
    ]
    var samples = [[Double]](repeating: [], count: metrics.count)
    for r in 0..<Self.replicates {
      let arm = sampler.sample(users: UInt64(n), seed: 99, replicate: UInt64(r), arm: index)
      for (m, metric) in metrics.enumerated() {
        samples[m].append(Double(try #require(arm.counts(for: metric)).successes))
      }
    }
    let arms = try Self.klickArms()
    let band = StatisticalBand(checks: Self.momentArms.reduce(0) { $0 + 2 * metrics.count + arms[$1].planPurchases.count + 1 })
    let rCount = Double(Self.replicates)
    let chi = ChiSquared(degreesOfFreedom: rCount - 1)
    let tail = band.perCheckFalseAlarm / 2
    for (m, metric) in metrics.enumerated() {
      let p = try #require(exact.value(of: metric))
      let mean = samples[m].reduce(0, +) / rCount
      let variance = samples[m].map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (rCount - 1)
      let sigma2 = n * p * (1 - p)
      band.expect(mean, exact: n * p, standardError: (sigma2 / rCount).squareRoot(), "\(metric) mean")
      let statistic = (rCount - 1) * variance / sigma2
      #expect(statistic > chi.ppf(tail) && statistic < chi.isf(tail), "\(metric) variance \(variance) vs \(sigma2)")
    }
    // The plan mix: each plan's first-purchase count has mean n·p_j.
    var planSums = [Double](repeating: 0, count: exact.planPurchases.count)
    for r in 0..<Self.replicates {
      let arm = sampler.sample(users: UInt64(n), seed: 99, replicate: UInt64(r), arm: index)
      for j in planSums.indices { planSums[j] += Double(arm.planPurchases[j]) }
    }
    for (j, p) in exact.planPurchases.enumerated() {
      let se = (n * p * (1 - p) / rCount).squareRoot()
      band.expect(planSums[j] / rCount, exact: n * p, standardError: max(se, 1e-9), "plan \(j) mean")
    }
    // Joint structure: P(completed ∧ bought) from the classes.
    let both = zip(exact.outcomeClasses, exact.outcomeClassProbabilities)
      .filter { $0.0.end == .completed && $0.0.firstPlan != nil }.reduce(0.0) { $0 + $1.1 }
    let pc = exact.completion
    let pb = exact.purchase
    let covariance = n * (both - pc * pb)
    let c = samples[0]
    let b = samples[1]
    let mc = c.reduce(0, +) / rCount
    let mb = b.reduce(0, +) / rCount
    let sampleCovariance = zip(c, b).map { ($0 - mc) * ($1 - mb) }.reduce(0, +) / (rCount - 1)
    let se = ((n * pc * (1 - pc) * n * pb * (1 - pb) + covariance * covariance) / rCount).squareRoot()
    band.expect(sampleCovariance, exact: covariance, standardError: se, "covariance of completions and purchases")
  }

  /// The sampler's counts agree with per-user Monte Carlo counts for the same arm:
  /// both estimate the same proportions, every one of them (refunds and trial conversions
  /// of purchasers and trials included): each difference within a band of its two-sample
  /// SE set for the number of metrics compared (``StatisticalBand``).
  @Test func sampledArmMatchesMonteCarlo() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
    let flow = try FlowCompiler.compile(e, variant: 1)
    let users: UInt64 = 100_000
    let mc = MonteCarloEngine().run(flow, users: Int(users), seed: 5)
    let sampled = AggregateSampler(ExactEngine.solve(flow)).sample(users: users, seed: 5, replicate: 0, arm: 0)
    let metrics = FunnelMetric.allCases.filter(\.isProportion)
    let band = StatisticalBand(checks: metrics.count)
    for metric in metrics {
      let a = try #require(metric.counts(in: mc))
      let b = try #require(sampled.counts(for: metric))
      let pa = Double(a.successes) / Double(a.trials)
      let pb = Double(b.successes) / Double(b.trials)
      let pooled = Double(a.successes + b.successes) / Double(a.trials + b.trials)
      let se = (pooled * (1 - pooled) * (1 / Double(a.trials) + 1 / Double(b.trials))).squareRoot()
      let floor = 1 / Double(min(a.trials, b.trials))
      band.expect(pa, exact: pb, standardError: max(se, floor), "\(metric): Monte Carlo vs sampled")
    }
  }
}
