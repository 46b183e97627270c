import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The exact engine's purchase layer and revenue: the store's tap law, the
/// lifecycle's expectation, and closed forms of small flows.
@Suite struct ExactStoreTests {
  struct LifecycleCase: Sendable, CustomTestStringConvertible {
    var name: String
    var plan: Plan
    var delayDays = 0.0
    var settings = RevenueSettings()
    var testDescription: String { name }
  }

  static let lifecycleCases: [LifecycleCase] = {
    var cheapRefunds = RevenueSettings()
    cheapRefunds.refundProbability = 0.3
    cheapRefunds.analysisDay = 40
    var longHorizon = RevenueSettings()
    longHorizon.horizonMonths = 36
    longHorizon.storeFee = 0.3
    return [
      LifecycleCase(name: "monthly", plan: Plan(id: "m", price: 9.99, period: .month)),
      LifecycleCase(name: "yearly with a 7-day trial", plan: Plan(id: "y", price: 59.99, period: .year, trialDays: 7)),
      LifecycleCase(
        name: "weekly with an intro offer", plan: Plan(id: "w", price: 2.99, period: .week, introPrice: 0.99, introPeriods: 2),
        settings: cheapRefunds),
      LifecycleCase(name: "lifetime", plan: Plan(id: "l", price: 149.99, period: .lifetime)),
      LifecycleCase(name: "monthly approved a day later", plan: Plan(id: "m", price: 9.99, period: .month), delayDays: 1),
      LifecycleCase(
        name: "monthly trial, own renewal, 36 months",
        plan: Plan(id: "m", price: 4.99, period: .month, trialDays: 3, renewalProbability: 0.95), settings: longHorizon),
    ]
  }()

  /// The closed form equals the average of 200,000 simulated outcomes (horizon and
  /// realized cents, payments, trial conversions, refunds): at most 5 checks per case,
  /// counted over every case as one family in a ``StatisticalBand`` (6 cases: 30
  /// checks, z ≈ 4.15).
  @Test(.longStage, arguments: lifecycleCases)
  func lifecycleExpectationMatchesTheAverageOfManyDraws(_ c: LifecycleCase) {
    let lifecycle = SubscriptionLifecycle(settings: c.settings)
    let transaction = StoreTransaction(
      productID: c.plan.id, price: c.plan.price, isTrial: c.plan.trialDays > 0, delayDays: c.delayDays)
    let exact = lifecycle.expectation(of: transaction, plan: c.plan)
    var rng = Xoshiro256StarStar(seed: 77)
    let n = 200_000
    var horizon = [Double]()
    var realized = [Double]()
    var payments = [Double]()
    var conversions: UInt64 = 0
    var refunds: UInt64 = 0
    horizon.reserveCapacity(n)
    for _ in 0..<n {
      let o = lifecycle.outcome(of: transaction, plan: c.plan, using: &rng)
      horizon.append(Double(o.horizonCents))
      realized.append(Double(o.realizedCents))
      payments.append(Double(o.payments))
      if o.convertedFromTrial { conversions += 1 }
      if o.refunded { refunds += 1 }
    }
    let band = StatisticalBand(checks: 5 * Self.lifecycleCases.count)
    for (what, sample, value) in [
      ("horizon", horizon, exact.horizonCents), ("realized", realized, exact.realizedCents),
      ("payments", payments, exact.payments),
    ] {
      band.expectMean(SampleMeanStatistic(values: sample), exact: value, "\(c.name) \(what)")
    }
    if transaction.isTrial {
      band.expectProportion(conversions, of: UInt64(n), exact: exact.trialConversion, "\(c.name) trial conversion")
    }
    band.expectProportion(refunds, of: UInt64(n), exact: exact.refund, "\(c.name) refunds")
  }

  /// With renewal 1, no refund and no trial the lifecycle is deterministic: the
  /// expectation is the single outcome.
  @Test func deterministicLifecycleExpectationIsTheOutcome() {
    var settings = RevenueSettings()
    settings.refundProbability = 0
    settings.monthlyRenewal = 1
    let lifecycle = SubscriptionLifecycle(settings: settings)
    let plan = Plan(id: "monthly", price: 9.99, period: .month)
    let transaction = StoreTransaction(productID: "monthly", price: 9.99, isTrial: false)
    var rng = Xoshiro256StarStar(seed: 1)
    let outcome = lifecycle.outcome(of: transaction, plan: plan, using: &rng)
    let e = lifecycle.expectation(of: transaction, plan: plan)
    #expect(e.horizonCents == Double(outcome.horizonCents))
    #expect(e.realizedCents == Double(outcome.realizedCents))
    #expect(e.payments == Double(outcome.payments))
  }

  /// The tap law's margins are ``MockPaywallManager/outcomeProbabilities`` (to the
  /// 2⁻⁵³ resolution of the draws), and simulated taps follow it: 4 results × 3
  /// attempts = 12 checks in a ``StatisticalBand`` (z ≈ 3.93).
  @Test func tapDistributionMatchesTheMockStore() {
    var settings = StoreSettings()
    settings.cancelProbability = 0.2
    settings.failureProbability = 0.3
    settings.retryProbability = 0.6
    settings.pendingProbability = 0.05
    settings.maximumAttempts = 3
    settings.latencySeconds = 1.5
    let store = MockPaywallManager(settings: settings)
    let law = store.tapDistribution
    let margins = store.outcomeProbabilities
    expectClose(law.probability(of: .success), margins.success, "success")
    expectClose(law.probability(of: .cancelled), margins.cancelled, "cancelled")
    expectClose(law.probability(of: .pending), margins.pending, "pending")
    expectClose(law.probability(of: .failed), margins.failed, "failed")
    #expect(law.latencyMillis == [1500, 3000, 4500])
    var rng = Xoshiro256StarStar(seed: 3)
    let plan = Plan(id: "m", price: 1, period: .month)
    let n = 200_000
    var counts = [[UInt64]](repeating: [0, 0, 0], count: 4)
    var latency = 0.0
    for _ in 0..<n {
      let attempt = store.purchase(plan, using: &rng)
      let result: MockPaywallManager.TapDistribution.Result =
        switch attempt.result {
        case .success: .success
        case .userCancelled: .cancelled
        case .pending: .pending
        case .failed: .failed
        }
      counts[result.rawValue][attempt.attempts - 1] += 1
      latency += attempt.latencySeconds * 1000
    }
    let band = StatisticalBand(checks: MockPaywallManager.TapDistribution.Result.allCases.count * 3)
    for r in MockPaywallManager.TapDistribution.Result.allCases {
      for a in 0..<3 {
        band.expectProportion(counts[r.rawValue][a], of: UInt64(n), exact: law.probabilities[r.rawValue][a], "\(r) after \(a + 1)")
      }
    }
    let meanLatency = MockPaywallManager.TapDistribution.Result.allCases.reduce(0.0) { $0 + law.latencyMoments(of: $1).first }
    #expect(abs(latency / Double(n) - meanLatency) < 0.01 * meanLatency)
  }

  /// One paywall, one plan: purchase 0.6 (cancel 0.3 keeps the user on the paywall,
  /// pending 0.1 lets them go on), dismiss 0.4. A visit repeats with `0.6·0.3 = 0.18`,
  /// so `P(bought) = 0.36/0.82`, `P(pending) = 0.06/0.82` (approved with 0.5),
  /// `E[views] = 1/0.82`, `E[taps] = 0.6/0.82`, and the time to finish adds
  /// `2 s · E[taps]` of latency to the dwell.
  @Test func cancelledSheetsLoopOnThePaywallInClosedForm() throws {
    var e = try paywallExperiment(plans: [Plan(id: "monthly", price: 10, period: .month)], defaultPlan: nil, purchase: 0.6)
    e.store.cancelProbability = 0.3
    e.store.failureProbability = 0
    e.store.pendingProbability = 0.1
    e.store.approvalProbability = 0.5
    e.store.latencySeconds = 2
    e.revenue.refundProbability = 0
    e.revenue.storeFee = 0
    e.revenue.monthlyRenewal = 0
    e.revenue.analysisDay = 0.5
    let flow = try FlowCompiler.compile(e, variant: 0)
    let x = ExactEngine.solve(flow)
    let loop = 1 / 0.82
    let bought = 0.36 * loop
    let pending = 0.06 * loop
    expectClose(x.completion, 1, "completion")
    expectClose(x.views[0], loop, "views")
    expectClose(x.reach[0], 1, "reach")
    expectClose(x.purchase, bought + 0.5 * pending, "purchase")
    expectClose(x.planApprovals[0], 0.5 * pending, "approvals")
    expectClose(x.store.purchaseTaps, 0.6 * loop, "taps")
    expectClose(x.store.purchaseCancels, 0.18 * loop, "cancels")
    // Everyone completes: the time to finish is the dwell over all views plus the latency.
    expectClose(try #require(x.meanSecondsToFinish), x.screenMillis[0] / 1000 + 2 * 0.6 * loop, "time to finish", tolerance: 1e-9)
    // One payment of $10; an approved purchase pays on day 1, after the analysis day 0.5.
    expectClose(x.revenuePerUser, 10 * (bought + 0.5 * pending), "revenue per user", tolerance: 1e-9)
    expectClose(x.realizedRevenuePerUser, 10 * bought, "realized revenue", tolerance: 1e-9)
    expectClose(try #require(x.value(of: .revenuePerPayingUser)), 10, "LTV per payer", tolerance: 1e-9)
    // And the Monte Carlo agrees: 3 checks in a ``StatisticalBand`` (z ≈ 3.59).
    let a = MonteCarloEngine().run(flow, users: 100_000, seed: 21)
    let band = StatisticalBand(checks: 3)
    band.expectProportion(a[.purchasers], of: a[.users], exact: x.purchase, "simulated purchase")
    band.expectProportion(a[.pendingApprovals], of: a[.users], exact: x.store.pendingApprovals, "simulated approvals")
    band.expectMean(a.realizedRevenue.statistic(users: a[.users]), exact: x.realizedRevenuePerUser, "simulated realized")
  }

  /// A restore that fails keeps the user on the paywall; once restored (entitled), a
  /// purchase goes straight on without the store and buys nothing.
  @Test func restoreEntitlesAndSkipsTheStore() throws {
    var e = try paywallExperiment(plans: [Plan(id: "monthly", price: 10, period: .month)], defaultPlan: nil, purchase: 0.5)
    e.flow.screens[0].actions = [
      Action(id: "purchase", kind: .purchase, probability: 0.5), Action(id: "restore", kind: .restore, probability: 0.5),
    ]
    e.store.restoreSuccessProbability = 0.4
    e.store.cancelProbability = 0
    e.store.failureProbability = 0
    e.store.pendingProbability = 0
    let flow = try FlowCompiler.compile(e, variant: 0)
    let x = ExactEngine.solve(flow)
    // Per visit: buy 0.5 (leaves), restored 0.2 (leaves, no purchase), stay 0.3.
    expectClose(x.purchase, 0.5 / 0.7, "purchase")
    expectClose(x.store.restores, 0.2 / 0.7, "restores")
    expectClose(x.views[0], 1 / 0.7, "views")
    // 2 checks in a ``StatisticalBand`` (z ≈ 3.48).
    let a = MonteCarloEngine().run(flow, users: 50_000, seed: 4)
    let band = StatisticalBand(checks: 2)
    band.expectProportion(a[.purchasers], of: a[.users], exact: x.purchase, "simulated purchase")
    band.expectProportion(a[.restores], of: a[.users], exact: x.store.restores, "simulated restores")
  }

  /// The sampler's trial starts and conversions have means `n·P(trial)` and
  /// `n·P(trial)·q` over replicates (2 checks in a ``StatisticalBand``: z ≈ 3.48).
  @Test func sampledTrialsHaveTheExactMeans() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
    let exact = ExactEngine.solve(try FlowCompiler.compile(e, variant: 0))
    #expect(exact.trialStarts > 0)
    let sampler = AggregateSampler(exact)
    let n = 100_000.0
    let replicates = 500
    var starts = 0.0
    var conversions = 0.0
    for r in 0..<replicates {
      let arm = sampler.sample(users: UInt64(n), seed: 12, replicate: UInt64(r), arm: 0)
      starts += Double(arm[.trialStarts])
      conversions += Double(arm[.trialConversions])
      #expect(arm[.trialConversions] <= arm[.trialStarts])
    }
    let rCount = Double(replicates)
    let p = exact.trialStarts
    let pc = p * exact.trialConversion
    let band = StatisticalBand(checks: 2)
    band.expect(starts / rCount, exact: n * p, standardError: (n * p * (1 - p) / rCount).squareRoot(), "trial starts")
    band.expect(conversions / rCount, exact: n * pc, standardError: (n * pc * (1 - pc) / rCount).squareRoot(), "conversions")
  }
}
