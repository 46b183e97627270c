import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// Covariate adjustment planned from the exact engine (``AdjustmentPlanner``) and checked
/// by replicate experiments drawn from the same exact cell models.
@Suite struct AdjustmentPlanningTests {
  /// Klick with two observable segments far apart in intent, intent that matters, and a
  /// pre-period count: post-stratification alone removes about a third of the variance.
  static func polarized() throws -> (Experiment, [CompiledFlow], CompiledStrata) {
    var e = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
    e.population.segments[0].intent = IntentDistribution(mean: 2, sd: 0.7)
    e.population.segments[1].intent = IntentDistribution(mean: -1, sd: 0.7)
    e.population.segments[0].observable = true
    e.behavior[.intentOnPurchase] = 1.5
    e.behavior[.intentOnQuit] = 1.5
    e.population.covariate = PrePeriodCovariate(name: "opens", mean: 3, intentEffect: 1)
    return (e, try FlowCompiler.compileAll(e), CompiledStrata(e))
  }

  /// A/A: every method's false-positive rate is in [0.04, 0.06] and its coverage within
  /// 1.5 points of 95 % over 4,000 replicates.
  @Test(.longStage) func aaFalsePositivesAndCoverage() throws {
    let (e, flows, strata) = try Self.polarized()
    let control = CellModel(flow: flows[0], metric: e.metrics.primary, strata: strata)
    let results = AdjustmentPlanner.simulate(
      control: control, treatment: control, strata: strata, usersPerArm: 1_500, replicates: 4_000, seed: 11, alpha: 0.05)
    #expect(results.map(\.method) == [.unadjusted, .postStratified, .cuped, .regression])
    for r in results {
      #expect(r.replicates == 4_000)
      #expect((0.04...0.06).contains(r.rejectionRate), "\(r.method.rawValue): \(r.rejectionRate)")
      #expect(abs(r.coverage - 0.95) <= 0.015, "\(r.method.rawValue): \(r.coverage)")
    }
  }

  /// With an effect, coverage of the exact difference is within 1.5 points of 95 %, and
  /// each method's mean standard error is the exact plan's `√(1 − reduction)` of the
  /// unadjusted one (post-stratification removes ≈ 0.3 here) to within 2 %.
  @Test(.longStage) func coverageAndWidthMatchThePlan() throws {
    let (e, flows, strata) = try Self.polarized()
    let models = [flows[0], flows[flows.count - 1]].map { CellModel(flow: $0, metric: e.metrics.primary, strata: strata) }
    let plan = AdjustmentPlanner.plan(models, strata: strata, metric: e.metrics.primary, alpha: 0.05, targetPower: 0.8)
    let results = AdjustmentPlanner.simulate(
      control: models[0], treatment: models[1], strata: strata, usersPerArm: 3_000, replicates: 4_000, seed: 12, alpha: 0.05)
    let unadjusted = try #require(results.first { $0.method == .unadjusted })
    let stratified = try #require(plan.sizes.first { $0.method == .postStratified })
    #expect((0.28...0.4).contains(stratified.varianceReduction), "R² \(stratified.varianceReduction)")
    for r in results {
      #expect(abs(r.coverage - 0.95) <= 0.015, "\(r.method.rawValue): \(r.coverage)")
      let planned = try #require(plan.sizes.first { $0.method == r.method })
      let ratio = r.meanStandardError / unadjusted.meanStandardError
      let expected = (1 - planned.varianceReduction).squareRoot()
      #expect(abs(ratio / expected - 1) < 0.02, "\(r.method.rawValue): width ratio \(ratio), planned \(expected)")
    }
  }

  /// The users per arm the plan gives each method, tried over 500 replicates, reach the
  /// target power to within 5 points.
  @Test(.longStage) func plannedSizeReachesTargetPower() throws {
    let (e, flows, strata) = try Self.polarized()
    var treatment = CellModel(flow: flows[0], metric: e.metrics.primary, strata: strata)
    treatment.arm = "lifted"
    treatment.rates = treatment.rates.map { min($0 * 1.25, 1) }
    let control = CellModel(flow: flows[0], metric: e.metrics.primary, strata: strata)
    let plan = AdjustmentPlanner.plan([control, treatment], strata: strata, metric: e.metrics.primary, alpha: 0.05, targetPower: 0.8)
    for size in plan.sizes where size.method == .regression || size.method == .unadjusted {
      let n = try #require(size.usersPerArm)
      let r = try #require(
        AdjustmentPlanner.simulate(
          control: control, treatment: treatment, strata: strata, usersPerArm: n, replicates: 500, seed: 13, alpha: 0.05
        ).first { $0.method == size.method })
      #expect(abs(r.rejectionRate - 0.8) <= 0.05, "\(size.method.rawValue) at \(n): power \(r.rejectionRate)")
    }
    let sizes = plan.sizes.compactMap(\.usersPerArm)
    #expect(sizes.count == 4 && sizes.last ?? 0 < sizes.first ?? 0)
  }

  /// The law a replicate draws its users from (the cells mixed over (stratum, covariate value,
  /// outcome)) has the cell model's margins exactly: total 1, the exact rate, each stratum's
  /// weight, and the covariate's exact mean; in (stratum, x, y) order, without empty categories.
  /// (That replicates drawn from it give the planned power, coverage and standard errors is
  /// checked by the long-stage tests above.)
  @Test func theMixtureHasTheCellModelsMargins() throws {
    let (e, flows, strata) = try Self.polarized()
    let model = CellModel(flow: flows[0], metric: e.metrics.primary, strata: strata)
    let tables = AdjustmentPlanner.DrawTables(model, strata: strata)
    let mixture = tables.mixture
    let total = model.weights.reduce(0, +)
    #expect(abs(mixture.reduce(0) { $0 + $1.probability } - 1) < 1e-12)
    #expect(abs(mixture.filter { $0.y == 1 }.reduce(0) { $0 + $1.probability } - model.rate / total) < 1e-12)
    for s in Set(model.strata) {
      let weight = zip(model.weights, model.strata).filter { $0.1 == s }.reduce(0) { $0 + $1.0 } / total
      #expect(abs(mixture.filter { $0.stratum == s }.reduce(0) { $0 + $1.probability } - weight) < 1e-12, "stratum \(s)")
    }
    let mean = model.weights.indices.reduce(0) { $0 + model.weights[$1] / total * strata.mean(cell: $1) }
    #expect(abs(mixture.reduce(0) { $0 + $1.probability * Double($1.x) } - mean) < 1e-9)
    #expect(mixture.allSatisfy { $0.probability > 0 })
    #expect(zip(mixture, mixture.dropFirst()).allSatisfy { a, b in (a.stratum, a.x, a.y) < (b.stratum, b.x, b.y) })
  }

  @Test func simulationIsThreadIndependent() throws {
    let (e, flows, strata) = try Self.polarized()
    let control = CellModel(flow: flows[0], metric: e.metrics.primary, strata: strata)
    let one = AdjustmentPlanner.simulate(
      control: control, treatment: control, strata: strata, usersPerArm: 200, replicates: 200, seed: 5, alpha: 0.05, threads: 1)
    let two = AdjustmentPlanner.simulate(
      control: control, treatment: control, strata: strata, usersPerArm: 200, replicates: 200, seed: 5, alpha: 0.05, threads: 2)
    #expect(one == two)
  }

  /// An arm's plan does not depend on which other arms are planned beside it (CUPED's
  /// slope is pooled over the pair compared, never over a third arm).
  @Test func eachArmIsPlannedAgainstTheControlAlone() throws {
    let (e, flows, strata) = try Self.polarized()
    let models = [0, 1, flows.count - 1].map { CellModel(flow: flows[$0], metric: e.metrics.primary, strata: strata) }
    let three = AdjustmentPlanner.plan(models, strata: strata, metric: e.metrics.primary, alpha: 0.05, targetPower: 0.8)
    let two = AdjustmentPlanner.plan([models[0], models[2]], strata: strata, metric: e.metrics.primary, alpha: 0.05, targetPower: 0.8)
    let last = models[2].arm
    #expect(three.sizes.filter { $0.arm == last } == two.sizes)
  }
}
