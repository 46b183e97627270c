import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// Purchasers' lifecycles (``FunnelAggregate/lifecycles``): what they earn by any day and how
/// they renew, against the revenue the run counted and against the exact engine.
@Suite struct PurchaseLifecycleTests {
  /// A monthly plan at $10 with a 30 % store fee: 700 cents a payment, on days 0, 30.44, 60.88, …
  static let monthly = Plan(id: "m", price: 10, period: .month)

  static var settings: RevenueSettings {
    var s = RevenueSettings()
    s.storeFee = 0.3
    s.horizonMonths = 3
    s.analysisDay = 14
    return s
  }

  @Test func earningsFollowThePaymentDays() {
    let lifecycle = SubscriptionLifecycle(settings: Self.settings)
    let three = PurchaseLifecycle(plan: 0, delayDays: 0, isTrial: false, convertedFromTrial: false, payments: 3, refunded: false)
    #expect(lifecycle.possiblePayments(three, plan: Self.monthly) == 3)
    #expect(lifecycle.earnedCents(three, plan: Self.monthly, before: 0) == 0)
    #expect(lifecycle.earnedCents(three, plan: Self.monthly, before: 1) == 700)
    #expect(lifecycle.earnedCents(three, plan: Self.monthly, before: 31) == 1400)
    #expect(lifecycle.earnedCents(three, plan: Self.monthly, before: 1000) == 2100)
    var refunded = three
    refunded.refunded = true
    #expect(lifecycle.earnedCents(refunded, plan: Self.monthly, before: 1000) == 1400, "the refunded first payment earns 0")
    var churned = three
    churned.payments = 1
    #expect(lifecycle.earnedCents(churned, plan: Self.monthly, before: 1000) == 700)
    // A 7-day trial approved 2 days late: payments on days 9, 39.44, 69.88; the next, 100.31, is past the horizon (91.31).
    let trial = Plan(id: "t", price: 10, period: .month, trialDays: 7)
    let late = PurchaseLifecycle(plan: 0, delayDays: 2, isTrial: true, convertedFromTrial: true, payments: 3, refunded: false)
    #expect(lifecycle.possiblePayments(late, plan: trial) == 3)
    #expect(lifecycle.earnedCents(late, plan: trial, before: 9) == 0)
    #expect(lifecycle.earnedCents(late, plan: trial, before: 9.5) == 700)
    let lifetime = Plan(id: "l", price: 10, period: .lifetime)
    #expect(lifecycle.possiblePayments(three, plan: lifetime) == 1)
  }

  /// Renewal counts only subscribers whose next payment falls before the horizon.
  @Test func renewalsCountOnlyObservableRenewals() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding"))
    let flow = try FlowCompiler.compile(e, variant: 0)
    let monthly = try #require(flow.plans.firstIndex { $0.plan.period == .month })
    var a = FunnelAggregate(for: flow)
    func l(_ payments: Int) -> PurchaseLifecycle {
      PurchaseLifecycle(plan: monthly, delayDays: 0, isTrial: false, convertedFromTrial: false, payments: payments, refunded: false)
    }
    a.lifecycles = [l(1): 10, l(2): 5, l(12): 1]  // 12 monthly payments fit in a 12-month horizon
    let r = a.renewals(in: flow)
    #expect(r.first == RenewalCount(plan: monthly, period: 1, eligible: 16, renewed: 6))
    #expect(r.dropFirst().first == RenewalCount(plan: monthly, period: 2, eligible: 6, renewed: 1))
    #expect(r.last == RenewalCount(plan: monthly, period: 11, eligible: 1, renewed: 1))
    #expect(r.count == 11)
  }

  /// In every seed flow that sells plans, the lifecycles earn exactly the revenue the run
  /// counted, by the horizon and by the analysis day, and add up to its purchasers, trials,
  /// conversions and refunds.
  @Test(.longStage, arguments: ["klick-onboarding", "betfree-onboarding"])
  func lifecyclesReproduceTheRunsRevenueExactly(name: String) throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
    let result = try ExperimentRunner.run(e, options: RunOptions(users: 30_000, seed: 5))
    for run in result.variants {
      let a = run.aggregate
      let horizon = run.flow.revenue.horizonMonths * SubscriptionLifecycle.daysPerMonth
      #expect(a.revenue(before: horizon, in: run.flow) == a.revenue, "\(run.variant.id)")
      #expect(a.revenue(before: run.flow.revenue.analysisDay, in: run.flow) == a.realizedRevenue, "\(run.variant.id)")
      #expect(a.lifecycles.values.reduce(0, +) == a[.purchasers])
      #expect(a.consistencyErrors(at: .root).isEmpty)
      #expect(!a.renewals(in: run.flow).isEmpty)
    }
  }

  /// A purchase layer of one's own may start purchases on any day and give trials on any
  /// plan: those lifecycles have no slot of the mock store's, are counted apart, and still
  /// earn exactly the revenue the run counted.
  @Test func lifecyclesOfACustomStoreAreCountedToo() throws {
    struct LateTrials: PaywallManager {
      func purchase(_ plan: Plan, using rng: inout Xoshiro256StarStar) -> PurchaseAttempt {
        PurchaseAttempt(result: .success(StoreTransaction(productID: plan.id, price: plan.price, isTrial: true, delayDays: 3.5)))
      }
      func restorePurchases(using rng: inout Xoshiro256StarStar) -> RestoreResult { .nothingToRestore }
    }
    let e = try ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding"))
    let flow = try FlowCompiler.compile(e, variant: 0)
    let a = MonteCarloEngine().run(flow, users: 0..<20_000, seed: 8, paywall: LateTrials())
    #expect(a[.purchasers] > 0)
    #expect(a.lifecycles.keys.allSatisfy { $0.delayDays == 3.5 && $0.isTrial })
    #expect(a.lifecycles.values.reduce(0, +) == a[.purchasers])
    #expect(a.revenue(before: 1e9, in: flow) == a.revenue)
    #expect(a.revenue(before: flow.revenue.analysisDay, in: flow) == a.realizedRevenue)
    #expect(a.consistencyErrors(at: .root).isEmpty)
  }

  /// Realized revenue by day and renewal by period converge to the exact engine's values
  /// (one band over every point and period of both flows).
  @Test func lifecycleSummaryConvergesToTheExactEngine() throws {
    var checks: [(String, Double, Double, Double)] = []
    for name in ["klick-onboarding", "betfree-onboarding"] {
      let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
      let flow = try FlowCompiler.compile(e, variant: 0)
      let exact = ExactEngine.solve(flow)
      let a = MonteCarloEngine().run(flow, users: 200_000, seed: 31)
      let s = try #require(LifecycleSummary(a, flow: flow, exact: exact, alpha: 0.05))
      #expect(s.revenueByDay.count == exact.realizedRevenueCurve.count)
      for p in s.revenueByDay {
        let statistic = a.revenue(before: p.day, in: flow).statistic(users: a[.users])
        let se = ((statistic.variance ?? 0) / Double(statistic.n)).squareRoot()
        checks.append(("\(name) day \(p.day)", p.estimate.estimate ?? .nan, try #require(p.exact), max(se, 1e-12)))
      }
      #expect(!s.renewals.isEmpty)
      for r in s.renewals {
        let p = try #require(r.exact)
        checks.append(
          ("\(name) \(r.plan) renewal \(r.period)", r.estimate.estimate ?? .nan, p, (p * (1 - p) / Double(r.eligible)).squareRoot()))
      }
      // The summary's point at the analysis day is the run's realized revenue per user, exactly.
      let atAnalysisDay = try #require(s.revenueByDay.first { $0.day == flow.revenue.analysisDay })
      #expect(atAnalysisDay.estimate.estimate == FunnelMetric.realizedRevenuePerUser.value(in: a))
    }
    let band = StatisticalBand(checks: checks.count)
    for (what, estimate, exact, se) in checks { band.expect(estimate, exact: exact, standardError: se, what) }
  }

  /// Shard files carry the lifecycles; a damaged one is refused at its path with what is wrong.
  @Test func damagedLifecyclesAreRefusedWhereTheyAre() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding"))
    let flow = try FlowCompiler.compile(e, variant: 0)
    let a = MonteCarloEngine().run(flow, users: 20_000, seed: 3)
    #expect(try FunnelAggregate(json: a.json, for: flow, at: .root) == a)
    let first = try #require(a.lifecycles.keys.sorted().first { $0.payments >= 1 && !$0.isTrial })
    let cases: [(String, (inout [String: JSONValue]) -> Void)] = [
      ("plan slot 9", { $0["plan"] = .integer(9) }),
      ("expected a number of days", { $0["delayDays"] = .number(-1) }),
      ("payments, but the plan makes at most", { $0["payments"] = .integer(1000) }),
      ("a conversion without a trial", { $0["converted"] = .bool(true) }),
      ("expected true or false", { $0["refunded"] = .integer(1) }),
      ("do not earn the revenue", { $0["count"] = .integer((a.lifecycles[first] ?? 0) + 1) }),
    ]
    for (message, edit) in cases {
      var members = Self.members(FunnelAggregate.json(first, count: a.lifecycles[first] ?? 0))
      edit(&members)
      var damaged = a
      damaged.lifecycles[first] = nil
      var json = Self.members(damaged.json)
      guard case .array(var items)? = json["lifecycles"]?.kind else { throw LifecycleTestFailure() }
      items.insert(.object(Self.order.map { ($0, members[$0] ?? .null) }), at: 0)
      json["lifecycles"] = .array(items)
      let document = JSONValue.object(Self.aggregateOrder(damaged).map { ($0, json[$0] ?? .null) })
      #expect(throws: SpecError.self, "\(message)") { try FunnelAggregate(json: document, for: flow, at: .root) }
      do { _ = try FunnelAggregate(json: document, for: flow, at: .root) } catch {
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.path.description.contains("lifecycles"), "\(error.path)")
      }
    }
  }

  /// A lifecycle count that does not add up to the purchasers is a consistency error.
  @Test func lifecyclesMustCountEveryPurchaserOnce() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding"))
    let flow = try FlowCompiler.compile(e, variant: 0)
    var a = MonteCarloEngine().run(flow, users: 20_000, seed: 3)
    let key = try #require(a.lifecycles.keys.sorted().first)
    a.lifecycles[key, default: 0] += 1
    let errors = a.consistencyErrors(at: .root)
    #expect(errors.contains { $0.message.contains("purchasers") && $0.path.description.contains("lifecycles") })
  }

  static let order = ["plan", "delayDays", "trial", "converted", "payments", "refunded", "count"]

  static func members(_ value: JSONValue) -> [String: JSONValue] {
    guard case .object(let members) = value.kind else { return [:] }
    return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
  }

  static func aggregateOrder(_ a: FunnelAggregate) -> [String] {
    guard case .object(let members) = a.json.kind else { return [] }
    return members.map(\.key)
  }
}

private struct LifecycleTestFailure: Error {}
