import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The exact distribution of revenue: one transaction's (``SubscriptionLifecycle/distribution(of:plan:)``)
/// and one user's (``ExactFunnel/revenueDistribution``), which revenue planning reads.
@Suite struct RevenueDistributionTests {
  /// A transaction's distribution sums to 1 and its mean is the closed-form expectation, for
  /// every lifecycle case (trial, intro offer with refunds, lifetime, approval delay, own renewal).
  @Test(arguments: ExactStoreTests.lifecycleCases)
  func lifecycleDistributionHasTheExpectationsMean(_ c: ExactStoreTests.LifecycleCase) {
    let lifecycle = SubscriptionLifecycle(settings: c.settings)
    let transaction = StoreTransaction(productID: c.plan.id, price: c.plan.price, isTrial: c.plan.trialDays > 0, delayDays: c.delayDays)
    let values = lifecycle.distribution(of: transaction, plan: c.plan).sorted { $0.key < $1.key }
    let total = values.reduce(0) { $0 + $1.value }
    let mean = values.reduce(0) { $0 + Double($1.key) * $1.value }
    let exact = lifecycle.expectation(of: transaction, plan: c.plan).horizonCents
    #expect(abs(total - 1) < 1e-12, "\(c.name): total \(total)")
    #expect(abs(mean - exact) <= 1e-12 * max(exact, 1), "\(c.name): mean \(mean), expectation \(exact)")
    #expect(values.allSatisfy { $0.value >= 0 }, "\(c.name)")
  }

  /// A small case by hand: a $10 monthly plan, no fee, renewal ½, refund 0.1, a 3-month horizon
  /// (payments on days 0, 30.4 and 60.9): it stops after 1, 2 or 3 payments with ½, ¼, ¼, and the
  /// first is refunded with 0.1, so 0 ¢ 0.05, 1,000 ¢ 0.475, 2,000 ¢ 0.25, 3,000 ¢ 0.225. A trial
  /// that never converts, and one whose first payment falls past the horizon, earn 0 for sure.
  @Test func aSmallLifecycleHasItsHandComputedDistribution() {
    var settings = RevenueSettings()
    settings.storeFee = 0
    settings.monthlyRenewal = 0.5
    settings.refundProbability = 0.1
    settings.horizonMonths = 3
    let plan = Plan(id: "m", price: 10, period: .month)
    let values = SubscriptionLifecycle(settings: settings).distribution(
      of: StoreTransaction(productID: "m", price: 10, isTrial: false), plan: plan)
    let expected: [Int64: Double] = [0: 0.05, 1000: 0.475, 2000: 0.25, 3000: 0.225]
    #expect(Set(values.keys) == Set(expected.keys), "\(values)")
    for (cents, p) in expected { #expect(abs((values[cents] ?? -1) - p) < 1e-12, "\(cents): \(values[cents] ?? -1) vs \(p)") }
    var never = settings
    never.trialConversion = 0
    let trial = Plan(id: "t", price: 10, period: .month, trialDays: 7)
    #expect(
      SubscriptionLifecycle(settings: never).distribution(of: StoreTransaction(productID: "t", price: 10, isTrial: true), plan: trial)
        == [0: 1])
    let late = Plan(id: "l", price: 10, period: .month, trialDays: 120)
    #expect(
      SubscriptionLifecycle(settings: settings).distribution(of: StoreTransaction(productID: "l", price: 10, isTrial: true), plan: late)
        .mapValues { ($0 * 1e9).rounded() / 1e9 } == [0: 1])
  }

  /// The second moment of 200,000 simulated transactions is the distribution's (per case a
  /// check in a ``StatisticalBand`` whose standard error is the distribution's own fourth moment).
  @Test(.longStage, arguments: ExactStoreTests.lifecycleCases)
  func lifecycleDistributionMatchesTheDrawsSecondMoment(_ c: ExactStoreTests.LifecycleCase) {
    let lifecycle = SubscriptionLifecycle(settings: c.settings)
    let transaction = StoreTransaction(productID: c.plan.id, price: c.plan.price, isTrial: c.plan.trialDays > 0, delayDays: c.delayDays)
    let values = lifecycle.distribution(of: transaction, plan: c.plan)
    let m2 = values.reduce(0) { $0 + pow(Double($1.key), 2) * $1.value }
    let m4 = values.reduce(0) { $0 + pow(Double($1.key), 4) * $1.value }
    var rng = Xoshiro256StarStar(seed: 78)
    let n = 200_000
    var squares = 0.0
    for _ in 0..<n { squares += pow(Double(lifecycle.outcome(of: transaction, plan: c.plan, using: &rng).horizonCents), 2) }
    let band = StatisticalBand(checks: ExactStoreTests.lifecycleCases.count)
    band.expect(squares / Double(n), exact: m2, standardError: ((m4 - m2 * m2) / Double(n)).squareRoot(), "\(c.name): E[cents²]")
  }

  /// One user's distribution, for every variant of the seeds that sell plans: it sums to 1 (up to
  /// the truncated mass) and its mean is the exact revenue per user; a flow that sells nothing has none.
  @Test(arguments: ["betfree-onboarding", "klick-onboarding", "urbannest-onboarding"])
  func perUserDistributionHasTheRevenuePerUser(_ name: String) throws {
    let flows = try FlowCompiler.compileAll(ExperimentLoader.load(contentsOf: experimentPath(name)))
    for flow in flows {
      let x = ExactEngine.solve(flow)
      guard !flow.plans.isEmpty else {
        #expect(x.revenueDistribution.isEmpty && x.revenuePerUserVariance == nil, "\(name) \(flow.variantID)")
        continue
      }
      let values = x.revenueDistribution.sorted { $0.key < $1.key }
      let total = values.reduce(0) { $0 + $1.value }
      let mean = values.reduce(0) { $0 + Double($1.key) / 100 * $1.value }
      #expect(abs(total - 1) < 1e-9 + x.truncatedMass, "\(name) \(flow.variantID): total \(total)")
      #expect(abs(mean - x.revenuePerUser) <= 1e-12 * x.revenuePerUser, "\(name) \(flow.variantID): \(mean) vs \(x.revenuePerUser)")
      #expect((x.revenuePerUserVariance ?? 0) > 0)
    }
  }

  /// The variance of simulated users' revenue converges to the exact one: per BetFree variant,
  /// the mean of 200,000 users' squared revenue against the distribution's `E[R²]` (standard
  /// error from its `E[R⁴]`), 4 checks in one band.
  @Test(.longStage) func simulatedRevenueSecondMomentMatchesTheExactDistribution() throws {
    let flows = try FlowCompiler.compileAll(ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding")))
    let band = StatisticalBand(checks: flows.count)
    let n = 200_000
    for flow in flows {
      let x = ExactEngine.solve(flow)
      let m2 = x.revenueDistribution.reduce(0) { $0 + pow(Double($1.key) / 100, 2) * $1.value }
      let m4 = x.revenueDistribution.reduce(0) { $0 + pow(Double($1.key) / 100, 4) * $1.value }
      let statistic = MonteCarloEngine().run(flow, users: n, seed: 2027).revenue.statistic(users: UInt64(n))
      band.expect(
        statistic.sumOfSquares / Double(n), exact: m2, standardError: ((m4 - m2 * m2) / Double(n)).squareRoot(),
        "\(flow.variantID): E[revenue²]")
    }
  }
}
