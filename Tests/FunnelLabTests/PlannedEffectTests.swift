import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// Planners judge a variant's true effect by the decision rule: a tie is no effect (type S, type
/// M and power have no meaning), an effect inside the margin is negligible, and the others are
/// better or worse (issue 57, items 3 and 7).
@Suite struct PlannedEffectTests {
  static let sixArms = repositoryRoot.appendingPathComponent("Tests/Fixtures/decisions/six-arms.json").path

  @Test(arguments: [
    (0.25, 0.25 + 3e-16, true, PlannedEffect.none), (0.25, 0.25 * 1.001, true, .negligible), (0.25, 0.25 * 1.1, true, .better),
    (0.25, 0.25 * 0.9, true, .worse), (0.25, 0.25 * 0.9, false, .better), (0, 0, true, .none),
  ])
  func theRuleJudgesTheTrueEffect(control: Double, variant: Double, higherIsBetter: Bool, expected: PlannedEffect) {
    let effect = PlannedEffect(variant: variant, control: control, higherIsBetter: higherIsBetter, relativeMargin: 0.01)
    #expect(effect == expected)
  }

  /// The `afterPurchase` arm changes only what happens after a purchase: its purchase conversion
  /// ties the control's, so its plan has no effect, no type S or M (before: type M 6.3e13×), no
  /// power and no size; the other arms are judged by the ±1 % margin.
  @Test func sixArmsPlanJudgesEachArmByTheRule() throws {
    let e = try ExperimentLoader.load(contentsOf: Self.sixArms)
    var options = PlanningOptions()
    options.replicates = 200
    let plan = try ExperimentPlanner.plan(e, options: options)
    let effects = Dictionary(uniqueKeysWithValues: plan.plans.map { ($0.diagnosis.variant, $0.trueEffect) })
    #expect(effects == ["aaCopy": .none, "afterPurchase": .none, "tinyEffect": .negligible, "bigEffect": .better, "worse": .worse])
    let after = try #require(plan.plans.first { $0.diagnosis.variant == "afterPurchase" })
    #expect(after.diagnosis.trueDifference == 0)
    #expect(!after.diagnosis.hasEffect)
    #expect(after.diagnosis.typeS == nil && after.diagnosis.typeM == nil && after.diagnosis.analyticPower == nil)
    #expect(after.analyticUsersPerArm == nil && after.simulatedSize == nil)
    #expect(plan.relativeMargin == 0.01)
  }

  /// The six-arm flow's revenue plan of `variants`.
  func revenuePlan(_ variants: [String], replicates: Int) throws -> RevenuePlan {
    var options = PlanningOptions()
    options.replicates = replicates
    options.variants = variants
    return try RevenuePlanner.plan(try ExperimentLoader.load(contentsOf: Self.sixArms), options: options)
  }

  /// A tie on revenue per user is exactly 0 and no effect; the revenue planner judges by the same rule.
  @Test func revenuePlanJudgesTiesAndTheMargin() throws {
    let plan = try revenuePlan(["afterPurchase", "bigEffect"], replicates: 50)
    let after = try #require(plan.variants.first { $0.arm.variant == "afterPurchase" })
    #expect(after.difference == 0 && after.relativeLift == 0 && after.trueEffect == .none && after.usersPerArm == nil)
    #expect(!after.movesRevenue)
    #expect(plan.variants.first { $0.arm.variant == "bigEffect" }?.trueEffect == .better)
  }

  /// The same tallies with tied rates give exactly no wrong sign and no exaggeration ratio.
  @Test func tiedRatesHaveNoTypeSOrM() {
    let d = DesignDiagnosis.simulate(
      variant: "tie", metric: .purchaseConversion, controlRate: 0.2, variantRate: 0.2 + 3e-16, usersPerArm: 500, replicates: 400,
      alpha: 0.05, seed: 3)
    #expect(d.trueDifference == 0 && !d.hasEffect && d.typeS == nil && d.typeM == nil && d.analyticPower == nil)
  }

  /// The revenue size is the formula docs/guide-planning.md writes: the smallest whole n with
  /// Φ(|Δ|√n/σ − z₁₋α/₂) + Φ(−|Δ|√n/σ − z₁₋α/₂) ≥ power, σ = √(σ²_control + σ²_variant).
  @Test func revenueSizeIsTheSmallestWholeNumberReachingThePower() throws {
    let plan = try revenuePlan(["bigEffect", "worse"], replicates: 20)
    let z = -Normal.standardQuantile(p: 0.025, q: 0.975)
    for v in plan.variants {
      let n = try #require(v.usersPerArm)
      let sigma = (plan.control.standardDeviation * plan.control.standardDeviation + v.arm.standardDeviation * v.arm.standardDeviation)
        .squareRoot()
      func power(_ n: Int) -> Double {
        let shift = abs(v.difference) * Double(n).squareRoot() / sigma
        return Normal.standardCDF(shift - z) + Normal.standardCDF(-shift - z)
      }
      #expect(power(n) >= 0.8 - 1e-12 && power(n - 1) < 0.8, "\(v.arm.variant): n = \(n)")
    }
  }
}
