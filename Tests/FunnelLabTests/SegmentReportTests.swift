import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// Observable segments and a pre-period covariate in experiment mode: the strata tallies,
/// the exact values by stratum, and the adjusted comparisons (``SegmentReport``).
@Suite struct SegmentReportTests {
  /// Klick with its enthusiasts observable and a pre-period count driven by intent.
  static func klick(covariate: Bool = true) throws -> Experiment {
    var e = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
    e.population.segments[0].observable = true
    e.population.segments[1].observable = false
    if covariate { e.population.covariate = PrePeriodCovariate(name: "opens", mean: 4, intentEffect: 0.6) }
    return e
  }

  @Test(.longStage) func strataTalliesDoNotChangeTheWalkAndAreThreadIndependent() throws {
    let e = try Self.klick()
    var options = RunOptions(users: 20_000, seed: 3, threads: 2, mode: .experiment)
    let two = try ExperimentRunner.run(e, options: options)
    options.threads = 1
    let one = try ExperimentRunner.run(e, options: options)
    var plain = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
    for k in plain.population.segments.indices { plain.population.segments[k].observable = false }
    options.threads = 2
    let without = try ExperimentRunner.run(plain, options: options)
    #expect(two.strata?.strataIDs == ["enthusiast", "other"])
    for k in two.variants.indices {
      #expect(two.variants[k].strata == one.variants[k].strata)
      #expect(two.variants[k].aggregate == without.variants[k].aggregate)
      #expect(without.variants[k].strata == nil)
      let users = try #require(two.variants[k].strata?.users.reduce(0, +))
      #expect(users == Int128(two.variants[k].aggregate[.users]))
      let conversions = try #require(two.variants[k].strata?.sums.reduce(Int128(0)) { $0 + $1[5] })
      #expect(conversions == Int128(two.variants[k].aggregate[.purchasers]))
    }
  }

  @Test(.longStage) func exactValuesByStratumAddUpToTheOverallValue() throws {
    let e = try Self.klick()
    let run = try ExperimentRunner.run(e, options: RunOptions(users: 5_000, seed: 1, mode: .experiment))
    let report = try #require(SegmentReport(observed: run, spec: e.metrics))
    #expect(report.strata == ["enthusiast", "other"])
    #expect(abs(report.strataShares.reduce(0.0, +) - 1) < 1e-12)
    for (a, variant) in run.variants.enumerated() {
      let overall = try #require(variant.exact?.value(of: e.metrics.primary))
      let cells = report.cells.filter { $0.arm == variant.variant.id }
      #expect(cells.count == 2, "arm \(a)")
      let weighted = zip(cells, report.strataShares).reduce(0.0) { $0 + ($1.0.trueValue ?? .nan) * $1.1 }
      let gap: Double = abs(weighted - overall)
      #expect(gap < 1e-12, "\(variant.variant.id): \(weighted) vs \(overall)")
    }
  }

  /// The Monte Carlo's covariate is the compiled law: its mean over users matches the
  /// exact mean `Σ_c w_c E[x | c]` within 4 standard errors.
  @Test(.longStage) func covariateMeanMatchesItsCompiledLaw() throws {
    let e = try Self.klick()
    let run = try ExperimentRunner.run(e, options: RunOptions(users: 40_000, seed: 9, mode: .experiment))
    let strata = try #require(run.strata)
    let flow = run.variants[0].flow
    var mean = 0.0
    var second = 0.0
    for s in 0..<flow.segmentCount {
      for b in 0..<flow.traitBins {
        let w = flow.segmentProbabilities[s] / Double(flow.traitBins)
        let m = strata.mean(cell: s * flow.traitBins + b)
        mean += w * m
        second += w * (strata.variance(cell: s * flow.traitBins + b) + m * m)
      }
    }
    let total = run.variants.compactMap(\.strata).reduce(StrataTally(strata: 2), +)
    let n = Double(total.users.reduce(0, +))
    let sampleMean = Double(total.sums.reduce(Int128(0)) { $0 + $1[1] }) / n
    let se = ((second - mean * mean) / n).squareRoot()
    #expect(abs(sampleMean - mean) < 4 * se, "sample \(sampleMean), exact \(mean) ± \(se)")
    #expect(mean > 2 && mean < 10)
  }

  @Test(.longStage) func adjustmentReducesVarianceAndKeepsTheTruth() throws {
    let e = try Self.klick()
    let run = try ExperimentRunner.run(e, options: RunOptions(users: 30_000, seed: 4, mode: .experiment))
    let report = try #require(SegmentReport(observed: run, spec: e.metrics))
    let arms = Set(report.adjusted.map(\.arm))
    #expect(arms.count == run.variants.count - 1)
    for arm in arms {
      let methods = report.adjusted.filter { $0.arm == arm }
      #expect(methods.map(\.method) == [.unadjusted, .postStratified, .cuped, .regression])
      let regression = try #require(methods.last)
      #expect(regression.varianceReduction > 0.02, "\(arm): \(regression.varianceReduction)")
      #expect(methods.allSatisfy { $0.trueDifference == run.exactDifference(e.metrics.primary, variant: arm) })
    }
    #expect(report.heterogeneity.count == run.variants.count - 1)
  }

  @Test(.longStage) func noStrataWithoutObservableSegmentsOrCovariate() throws {
    var e = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
    for k in e.population.segments.indices { e.population.segments[k].observable = false }
    let run = try ExperimentRunner.run(e, options: RunOptions(users: 2_000, seed: 1, mode: .experiment))
    #expect(run.strata == nil)
    #expect(SegmentReport(observed: run, spec: e.metrics) == nil)
  }

  /// A varianceReduction expectation is graded on the exact plan, and is undefined (a
  /// failure that says why) when the population offers nothing to adjust for.
  @Test(.longStage) func varianceReductionExpectation() throws {
    var e = try Self.klick()
    var expectation = FunnelExpectation(kind: .varianceReduction, variant: "features5", metric: .purchaseConversion, min: 0.01, max: 0.2)
    expectation.method = "regression"
    e.expectations = [expectation]
    let graded = try ExpectationChecker.check(e)
    #expect(graded.first?.passed == true, "\(graded.first?.measured ?? .nan)")
    for k in e.population.segments.indices { e.population.segments[k].observable = false }
    e.population.covariate = nil
    let undefined = try ExpectationChecker.check(e)
    #expect(undefined.first?.passed == false)
    #expect(undefined.first?.failures == [.undefined])
  }
}
