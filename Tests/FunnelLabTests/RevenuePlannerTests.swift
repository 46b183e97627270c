import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// Planning a test on revenue per user from the spec (``RevenuePlanner``).
@Suite struct RevenuePlannerTests {
  /// `z₀.₉₇₅` and `z₀.₈`, from scipy (`norm.ppf(0.975)`, `norm.ppf(0.8)`).
  static let z975 = 1.959963984540054
  static let z80 = 0.8416212335729143

  static func betfree() throws -> Experiment { try ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding")) }

  /// Every BetFree variant moves revenue per user, so each gets a size; the size is the closed
  /// form `(z₀.₉₇₅ + z₀.₈)²(σ²_c + σ²_v)/Δ²` on the exact moments, within a user and 10⁻⁵ of it (the
  /// solver inverts the power of both tails; the closed form ignores the far one, worth ~1e-6 of the
  /// power, 2.4e-6 of yearlyPrice4999's 2.3 million users), and the moments are the exact engine's.
  @Test func sizesAreTheNormalApproximationOnTheExactMoments() throws {
    var options = PlanningOptions()
    options.replicates = 200
    let plan = try RevenuePlanner.plan(try Self.betfree(), options: options)
    #expect(plan.variants.map(\.arm.variant) == ["defaultMonthly", "defaultLifetime", "yearlyPrice4999"])
    let flows = try FlowCompiler.compileAll(try Self.betfree())
    #expect(abs(plan.control.mean - ExactEngine.solve(flows[0]).revenuePerUser) < 1e-12)
    for v in plan.variants {
      let c = plan.control.standardDeviation
      let s = v.arm.standardDeviation
      let closed = pow(Self.z975 + Self.z80, 2) * (c * c + s * s) / (v.difference * v.difference)
      let n = try #require(v.usersPerArm, "\(v.arm.variant)")
      #expect(abs(Double(n) - closed) <= 1 + 1e-5 * closed, "\(v.arm.variant): \(n) vs \(closed)")
      #expect(v.arm.payingShare > 0 && v.arm.payingShare < 0.1, "most users pay nothing")
    }
  }

  /// At the planned size, replicate tests drawn from the exact distributions reach the target
  /// power within 3 standard errors (the normal approximation holds for BetFree's defaultLifetime),
  /// and the same options give the same plan (within one process: across processes the values are
  /// sorted by key before any draw or sum, so no dictionary order reaches the result).
  @Test func theSimulatedPowerAtThePlannedSizeIsTheTarget() throws {
    var options = PlanningOptions()
    options.replicates = TestStage.size(fast: 2_000, long: 20_000)
    options.variants = ["defaultLifetime"]
    let plan = try RevenuePlanner.plan(try Self.betfree(), options: options)
    let v = try #require(plan.variants.first)
    let power = try #require(v.simulatedPower)
    let se = try #require(v.simulatedPowerStandardError)
    #expect(abs(power - 0.8) <= 3 * se, "power \(power) ± \(se)")
    #expect(v.approximationHolds(target: 0.8) == true)
    let again = try RevenuePlanner.plan(try Self.betfree(), options: options)
    #expect(again.variants.first?.simulatedPower == power)
  }

  /// The replicate count decides most tests by |t| against the band where Welch's critical value
  /// can lie, and calls Welch's test only inside it: the same count as Welch's p-value for every
  /// replicate, for BetFree's three variants at their planned sizes (300 replicates each).
  @Test func theFastRejectionCountIsWelchsForEveryReplicate() throws {
    let flows = try FlowCompiler.compileAll(try Self.betfree())
    let solved = flows.map { ExactEngine.solve($0) }
    let control = solved[0].revenueDistribution.sorted { $0.key < $1.key }
    for k in 1..<solved.count {
      let c = RevenuePlanner.arm("control", solved[0])
      let v = RevenuePlanner.arm("v", solved[k])
      let n = try #require(RevenuePlanner.usersPerArm(c, v, alpha: 0.05, power: 0.8))
      let direction: Double = v.mean > c.mean ? 1 : -1
      let fast = RevenuePlanner.replicateRejections(
        control: solved[0].revenueDistribution, variant: solved[k].revenueDistribution, usersPerArm: n, replicates: 300,
        alpha: 0.05, direction: direction, seed: 99)
      let variant = solved[k].revenueDistribution.sorted { $0.key < $1.key }
      var rng = Xoshiro256StarStar(seed: 99)
      var slow = 0
      for _ in 0..<300 {
        let a = RevenuePlanner.sample(control, users: n, using: &rng)
        let b = RevenuePlanner.sample(variant, users: n, using: &rng)
        let test = try WelchTTest.test(treatment: b, control: a, confidenceLevel: 0.95)
        if test.test.pValue <= 0.05, (test.difference.estimate ?? 0) * direction > 0 { slow += 1 }
      }
      #expect(fast == slow, "variant \(k): \(fast) vs \(slow)")
    }
  }

  /// The plan against an independent simulation: 1,000 A/B tests of the
  /// planned size, each arm's users walked by the Monte Carlo engine (independent users: disjoint
  /// ranges of the seed's streams, another seed per arm) and compared by Welch's test, reach the
  /// target power within 3 standard errors.
  @Test(.longStage) func monteCarloTestsAtThePlannedSizeReachTheTargetPower() throws {
    var options = PlanningOptions()
    options.replicates = 200
    options.variants = ["defaultLifetime"]
    let experiment = try Self.betfree()
    let plan = try RevenuePlanner.plan(experiment, options: options)
    let n = try #require(plan.variants.first?.usersPerArm)
    let flows = try FlowCompiler.compileAll(experiment)
    let variant = try #require(experiment.variants.firstIndex { $0.id == "defaultLifetime" })
    let replicates = 1_000
    var rejections = 0
    let engine = MonteCarloEngine()
    for r in 0..<replicates {
      let users = UInt64(r * n)..<UInt64((r + 1) * n)
      let control = engine.run(flows[0], users: users, seed: 31).revenue.statistic(users: UInt64(n))
      let treatment = engine.run(flows[variant], users: users, seed: 32).revenue.statistic(users: UInt64(n))
      let test = try WelchTTest.test(treatment: treatment, control: control)
      if test.test.pValue <= 0.05, (test.difference.estimate ?? 0) > 0 { rejections += 1 }
    }
    let power = Double(rejections) / Double(replicates)
    let se = (0.8 * 0.2 / Double(replicates)).squareRoot()
    print("Monte Carlo power of defaultLifetime's revenue test at \(n) users per arm: \(power) (target 0.8 ± \(3 * se))")
    #expect(abs(power - 0.8) <= 3 * se, "power \(power) at \(n) users per arm, target 0.8 ± \(3 * se)")
  }

  /// A flow that sells nothing has no revenue to plan: refused, naming the metric.
  @Test func aFlowWithoutPlansIsRefused() throws {
    let urbannest = try ExperimentLoader.load(contentsOf: experimentPath("urbannest-onboarding"))
    #expect(throws: SpecErrors.self) { try RevenuePlanner.plan(urbannest, options: PlanningOptions()) }
  }
}
