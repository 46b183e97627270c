import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// A one-screen paywall: plans, a purchase probability, a way out.
func paywallExperiment(plans: [Plan], defaultPlan: String?, purchase: Double = 0.3) throws -> Experiment {
  var e = try load(tinySpec)
  e.behavior = neutralBehavior()
  e.flow.screens = [
    Screen(
      id: "paywall", content: .paywall(Screen.Paywall(plans: plans, defaultPlan: defaultPlan)),
      actions: [
        Action(id: "purchase", kind: .purchase, probability: purchase),
        Action(id: "dismiss", kind: .dismiss, probability: 1 - purchase),
      ])
  ]
  e.variants = [Variant(id: "control")]
  return e
}

let threePlans = [
  Plan(id: "monthly", price: 9.99, period: .month),
  Plan(id: "yearly", price: 59.99, period: .year, badge: "Popular"),
  Plan(id: "lifetime", price: 149.99, period: .lifetime),
]

@Suite struct PaywallTests {
  /// Store outcomes per tap follow the mock's settings (retries folded in): 4 checks
  /// in a ``StatisticalBand`` (z ≈ 3.66).
  @Test func purchaseOutcomesMatchTheConfiguredProbabilities() throws {
    var e = try paywallExperiment(plans: threePlans, defaultPlan: "yearly", purchase: 0.5)
    e.store.cancelProbability = 0.2
    e.store.failureProbability = 0.1
    e.store.retryProbability = 0.5
    e.store.pendingProbability = 0.05
    let flow = try FlowCompiler.compile(e, variant: 0)
    let a = MonteCarloEngine().run(flow, users: 200_000, seed: 4)
    let p = MockPaywallManager(settings: e.store).outcomeProbabilities
    let band = StatisticalBand(checks: 4)
    #expect(abs(p.success + p.cancelled + p.pending + p.failed - 1) < 1e-12)
    band.expectProportion(a[.purchaseCancels], of: a[.purchaseTaps], exact: p.cancelled, "cancels per tap")
    band.expectProportion(a[.purchaseFailures], of: a[.purchaseTaps], exact: p.failed, "failures per tap")
    band.expectProportion(a[.purchasePendings], of: a[.purchaseTaps], exact: p.pending, "pendings per tap")
    // Approved pendings become purchasers too.
    band.expectProportion(a[.pendingApprovals], of: a[.purchasePendings], exact: e.store.approvalProbability, "approvals per pending")
    // Attempts per tap: 1 + P(fail and retry) + …
    let extra = 0.1 * 0.5 + 0.1 * 0.5 * 0.1 * 0.5
    let attemptsPerTap = Double(a[.purchaseAttempts]) / Double(a[.purchaseTaps])
    #expect(abs(attemptsPerTap - (1 + extra)) < 0.005)
  }

  /// With only the default bias, badge and price at work, the plan mix is the exact softmax:
  /// 3 plan shares and the purchase rate per default plan, 12 checks over the three arguments
  /// (one family, a ``StatisticalBand``: z ≈ 3.93).
  @Test(arguments: ["monthly", "yearly", "lifetime"])
  func defaultBiasMovesThePlanMixAsTheSoftmaxImplies(defaultPlan: String) throws {
    var e = try paywallExperiment(plans: threePlans, defaultPlan: defaultPlan)
    e.store = instantStore()
    e.behavior.defaultPlanBias = 0.8
    e.behavior.badgeBoost = 0.3
    e.behavior.priceSensitivity = 1
    let b = e.behavior
    let utilities = threePlans.map { plan in
      -b.priceSensitivity * log(plan.monthlyEquivalentPrice(lifetimeMonths: b.lifetimeMonths) / b.referenceMonthlyPrice)
        + (plan.id == defaultPlan ? b.defaultPlanBias : 0) + (plan.badge != nil ? b.badgeBoost : 0)
    }
    let total = utilities.map(exp).reduce(0, +)
    let a = MonteCarloEngine().run(try FlowCompiler.compile(e, variant: 0), users: 200_000, seed: 8)
    let band = StatisticalBand(checks: 4 * threePlans.count)
    for (j, u) in utilities.enumerated() {
      band.expectProportion(a.planPurchases[j], of: a[.purchasers], exact: exp(u) / total, "plan \(threePlans[j].id)")
    }
    // And the total purchase probability is 0.3·mean(exp V)/(0.3·mean(exp V) + 0.7).
    let buy = 0.3 * total / 3
    band.expectProportion(a[.purchasers], of: a[.users], exact: buy / (buy + 0.7), "purchase")
  }

  @Test func lifetimeAndYearlyRevenueOverTheHorizon() {
    var settings = RevenueSettings()
    settings.refundProbability = 0
    settings.yearlyRenewal = 1
    settings.monthlyRenewal = 1
    let lifecycle = SubscriptionLifecycle(settings: settings)
    var rng = Xoshiro256StarStar(seed: 1)
    let lifetime = Plan(id: "lifetime", price: 149.99, period: .lifetime)
    let life = lifecycle.outcome(of: StoreTransaction(productID: "lifetime", price: 149.99, isTrial: false), plan: lifetime, using: &rng)
    #expect(life.horizonCents == 12_749)  // 149.99 less the 15% fee
    #expect(life.realizedCents == 12_749)
    let yearly = Plan(id: "yearly", price: 59.99, period: .year)
    let year = lifecycle.outcome(of: StoreTransaction(productID: "yearly", price: 59.99, isTrial: false), plan: yearly, using: &rng)
    #expect(year.payments == 1)  // the renewal falls on day 365.25, the end of a 12-month horizon
    #expect(year.horizonCents == 5_099)
    let monthly = Plan(id: "monthly", price: 9.99, period: .month)
    let month = lifecycle.outcome(of: StoreTransaction(productID: "monthly", price: 9.99, isTrial: false), plan: monthly, using: &rng)
    #expect(month.payments == 12)
    #expect(month.horizonCents == 12 * 849)
    #expect(month.realizedCents == 849)  // only the first month is paid by day 14
  }

  @Test func trialsDelayRevenueBeyondTheAnalysisDay() {
    var settings = RevenueSettings()
    settings.trialConversion = 1
    settings.refundProbability = 0
    let lifecycle = SubscriptionLifecycle(settings: settings)
    var rng = Xoshiro256StarStar(seed: 2)
    let plan = Plan(id: "yearly", price: 59.99, period: .year, trialDays: 14)
    let outcome = lifecycle.outcome(of: StoreTransaction(productID: "yearly", price: 59.99, isTrial: true), plan: plan, using: &rng)
    #expect(outcome.convertedFromTrial)
    #expect(outcome.horizonCents == 5_099)
    #expect(outcome.realizedCents == 0)  // paid on day 14: not yet realized when the test is read on day 14
  }

  @Test func revenueFollowsTheRenewalProbabilityOnAverage() throws {
    var e = try paywallExperiment(plans: [Plan(id: "monthly", price: 10, period: .month)], defaultPlan: nil, purchase: 0.5)
    e.store = instantStore()
    e.revenue.refundProbability = 0
    e.revenue.storeFee = 0
    e.revenue.monthlyRenewal = 0.8
    let a = MonteCarloEngine().run(try FlowCompiler.compile(e, variant: 0), users: 100_000, seed: 3)
    // Expected payments within 12 months: Σ_{k<12} 0.8^k.
    let payments = (0..<12).reduce(0.0) { $0 + pow(0.8, Double($1)) }
    let arppu = Double(a.revenue.totalCents) / 100 / Double(a[.purchasers])
    #expect(abs(arppu - 10 * payments) / (10 * payments) < 0.01, "ARPPU \(arppu) vs \(10 * payments)")
  }

  struct AlwaysBuys: PaywallManager {
    func purchase(_ plan: Plan, using rng: inout Xoshiro256StarStar) -> PurchaseAttempt {
      PurchaseAttempt(result: .success(StoreTransaction(productID: plan.id, price: 1, isTrial: false)))
    }
    func restorePurchases(using rng: inout Xoshiro256StarStar) -> RestoreResult { .nothingToRestore }
  }

  @Test func aCustomPaywallManagerIsUsed() throws {
    var e = try paywallExperiment(plans: threePlans, defaultPlan: "yearly")
    e.store.cancelProbability = 0.9
    e.revenue.refundProbability = 0
    let flow = try FlowCompiler.compile(e, variant: 0)
    let mock = MonteCarloEngine().run(flow, users: 0..<20_000, seed: 1)
    let custom = MonteCarloEngine().run(flow, users: 0..<20_000, seed: 1, paywall: AlwaysBuys())
    #expect(mock[.purchaseCancels] > 0)
    #expect(custom[.purchaseCancels] == 0)
    #expect(custom[.purchasers] == custom[.purchaseTaps])
    let viaRunner = try ExperimentRunner.run(e, options: RunOptions(users: 20_000), paywall: AlwaysBuys())
    #expect(viaRunner.variants[0].aggregate == custom)
    let viaSimulation = try Simulation.run(e, options: RunOptions(users: 20_000), paywall: AlwaysBuys())
    #expect(try viaSimulation.control().aggregate == custom)
    #expect(viaSimulation.run.variants.allSatisfy { $0.exact == nil })
    // Every custom transaction charges 1.00 once (renewals drawn by the lifecycle): at least 85 cents each.
    #expect(custom.revenue.totalCents >= Int64(custom[.purchasers]) * 85)
  }
}
