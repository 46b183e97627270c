import Foundation
import Testing

@testable import FunnelStats

@Suite struct ExperimentAnalysisTests {
  /// The issue's acceptance example: the two-sided p-value equals statsmodels'
  /// `test_proportions_2indep(150, 1000, 120, 1000, method="score")` to 1e-9 relative, and
  /// with `proportionTest: .pooledZ` its `proportions_ztest([150, 120], [1000, 1000])`.
  @Test func issueExampleMatchesStatsmodels() throws {
    let score = try #require(
      try Fixtures.load("score.json").first { $0.fn == "score.diff.two-sided" && $0.args == ["150", "1000", "120", "1000", "0.0"] })
    let pooled = try #require(Fixtures.load("proportions.json").first { $0.id == "ztest.two-sided#0" })
    #expect(pooled.args == ["150", "1000", "120", "1000"])
    let arms = [
      ArmData(name: "control", users: 1000, conversions: 120),
      ArmData(name: "b", users: 1000, conversions: 150),
    ]
    let report = try ExperimentAnalysis.analyze(arms: arms, control: "control")
    let b = try #require(report.comparisons.first)
    #expect(b.arm == "b")
    let p = try #require(b.test?.pValue)
    #expect(close(p, score.value(1), 1e-9, "analyze p-value"))
    #expect(b.test?.method == TwoProportionScoreTest.methodName)
    #expect(b.adjustedPValue == p)  // one comparison: Holm leaves it unchanged
    #expect(b.absoluteLift?.interval?.method == ProportionDifference.miettinenNurminenMethod)
    #expect(b.significant && b.conclusion == .significant)
    #expect(b.absoluteLift?.interval.map { $0.lower > 0 } == true)
    #expect(b.relativeLift?.interval.map { $0.lower > 0 } == true)
    let z = try ExperimentAnalysis.analyze(
      arms: arms, control: "control", settings: .init(proportionTest: .pooledZ)
    ).comparisons[0]
    #expect(close(z.test?.pValue ?? .nan, pooled.value(1), 1e-9, "pooled z p-value"))
    #expect(z.test?.method == TwoProportionZTest.methodName)
    // p = 0.0496 < α, but the log-ratio interval [−0.03 %, 56.3 %] contains 0: not significant.
    #expect(!z.significant && z.diagnostics.contains(.testIntervalDisagreement))
    #expect(report.arms[0].rateInterval.method == "wilson")
    let beat = try #require(b.probabilityToBeatControl)
    #expect(beat > 0.95 && beat < 0.99)
    #expect((b.expectedLoss ?? 1) < 0.001)
    #expect(!report.sampleRatioMismatch.mismatch)
    #expect(b.diagnostics.isEmpty)
  }

  @Test func multipleArmsAllocationAndRevenue() throws {
    let settings = ExperimentAnalysis.Settings(
      correction: .benjaminiHochberg, plannedAllocation: ["control": 2, "b": 1, "c": 1],
      bootstrap: .init(replicates: 200, seed: 3))
    let report = try ExperimentAnalysis.analyze(
      arms: [
        ArmData(name: "control", users: 4000, conversions: 400, revenue: .counts([9.99: 300, 29.99: 100])),
        ArmData(name: "b", users: 2000, conversions: 240, revenue: .counts([9.99: 180, 29.99: 60])),
        ArmData(
          name: "c", users: 2000, conversions: 190,
          revenue: .statistic(SampleMeanStatistic(counts: [9.99: 150, 29.99: 40]))),
      ], control: "control", settings: settings)
    #expect(report.comparisons.map(\.arm) == ["b", "c"])
    let raw = report.comparisons.compactMap { $0.test?.pValue }
    let adjusted = report.comparisons.compactMap(\.adjustedPValue)
    #expect(adjusted == (try MultipleTestingCorrection.benjaminiHochberg.adjust(raw)))
    let bRevenue = try #require(report.comparisons[0].revenue)
    #expect(bRevenue.mannWhitney != nil)
    #expect(bRevenue.bootstrap != nil)
    #expect(report.comparisons[1].revenue?.mannWhitney == nil)  // statistic only: no ranks
    #expect(report.arms[0].revenue?.n == 4000)  // padded with zero-revenue users
    let best = report.arms.compactMap(\.probabilityToBeBest)
    #expect(abs(best.reduce(0.0, +) - 1) < 1e-9)
    #expect(!report.sampleRatioMismatch.mismatch)
  }

  @Test func sampleRatioMismatchIsFlagged() throws {
    let report = try ExperimentAnalysis.analyze(
      arms: [
        ArmData(name: "control", users: 10_000, conversions: 1000),
        ArmData(name: "b", users: 10_600, conversions: 1400),
      ], control: "control")
    #expect(report.sampleRatioMismatch.mismatch)
    // Significant by the numbers, but the split is broken: do not trust it.
    #expect(report.comparisons[0].significant)
    #expect(report.comparisons[0].conclusion == .sampleRatioMismatch)
  }

  @Test func degenerateArmsGiveDiagnosticsNotNaN() throws {
    let report = try ExperimentAnalysis.analyze(
      arms: [
        ArmData(name: "control", users: 100, conversions: 0),
        ArmData(name: "b", users: 100, conversions: 0),
        ArmData(name: "empty", users: 0, conversions: 0),
      ], control: "control")
    let b = report.comparisons[0]
    #expect(b.test?.pValue == 1)
    #expect(b.diagnostics.contains(.zeroVariance))
    #expect(b.diagnostics.contains(.undefinedRatio))
    #expect(b.relativeLift?.estimate == nil)
    let empty = report.comparisons[1]
    #expect(empty.diagnostics == [.emptyArm])
    #expect(empty.test == nil)
    #expect(report.sampleRatioMismatch.mismatch)  // an empty arm is an assignment failure
    // Nothing in the report is NaN (an unbounded ratio interval is +∞, which is honest).
    let encoder = JSONEncoder()
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "NaN")
    let data = try encoder.encode(report)
    #expect(!String(decoding: data, as: UTF8.self).contains("NaN"))
  }

  @Test func invalidInputCollectsEveryProblem() {
    do {
      _ = try ExperimentAnalysis.analyze(
        arms: [
          ArmData(name: "control", users: 100, conversions: 120),
          ArmData(name: "b", users: -5, conversions: 0),
          ArmData(name: "b", users: 10, conversions: 1),
        ], control: "ctrl")
      Issue.record("expected an error")
    } catch {
      let fields = error.problems.map(\.field.description)
      #expect(fields.contains("arms[0].conversions"))
      #expect(fields.contains("arms[1].users"))
      #expect(fields.contains("arms[2].name"))
      #expect(fields.contains("control"))
      #expect(error.problems.first { $0.field.argument == .control }?.hint?.contains("control, b") == true)
    }
  }

  @Test func billionUsersPerArm() throws {
    let report = try ExperimentAnalysis.analyze(
      arms: [
        ArmData(name: "control", users: 1_000_000_000, conversions: 100_030_000),
        ArmData(name: "b", users: 1_000_000_000, conversions: 100_000_000),
      ], control: "control")
    let b = try #require(report.comparisons.first)
    let reference = try #require(
      try Fixtures.load("score.json").first {
        $0.args == ["100000000", "1000000000", "100030000", "1000000000", "0.0"] && $0.fn.hasPrefix("score.diff.two-sided")
      })
    #expect(close(b.test?.pValue ?? .nan, reference.value(1), 1e-9, "p at n = 1e9"))
    let beat = try #require(b.probabilityToBeatControl)
    // Normal approximation of the posterior difference: Φ(z) with the same z.
    #expect(abs(beat - Normal.standardCDF(reference.value(0))) < 1e-4)
  }

  @Test func smallCountsAddFisher() throws {
    let report = try ExperimentAnalysis.analyze(
      arms: [
        ArmData(name: "control", users: 40, conversions: 2),
        ArmData(name: "b", users: 40, conversions: 9),
      ], control: "control")
    let b = try #require(report.comparisons.first)
    let fisher = try #require(b.fisherExact)
    let direct = try FisherExactTest.test(a: 9, b: 31, c: 2, d: 38)
    #expect(fisher.pValue == direct.test.pValue)
    #expect(b.diagnostics.contains(.smallExpectedCounts))
    let large = try ExperimentAnalysis.analyze(
      arms: [
        ArmData(name: "control", users: 1000, conversions: 120),
        ArmData(name: "b", users: 1000, conversions: 150),
      ], control: "control")
    #expect(large.comparisons[0].fisherExact == nil)
  }
}
