import FunnelStats
import Testing

@testable import FunnelLab

/// `analyze --margin` is read in the library: better by the margin, non-inferior, not shown, or
/// not to be trusted under a sample-ratio mismatch.
@Suite struct NonInferiorityResultTests {
  func report(_ arms: [(String, Int, Int)], margin: Double?) throws -> ExperimentAnalysis.Report {
    try ExperimentAnalysis.analyze(
      arms: arms.map { ArmData(name: $0.0, users: $0.1, conversions: $0.2) }, control: "control",
      settings: ExperimentAnalysis.Settings(margin: margin))
  }

  @Test func eachArmIsReadAgainstTheMargin() throws {
    let r = try report(
      [("control", 10_000, 1_200), ("same", 10_000, 1_210), ("much", 10_000, 1_600), ("worse", 10_000, 1_000)], margin: 0.01)
    let result = try #require(NonInferiorityResult(r))
    #expect(result.margin == 0.01)
    #expect(result.arms.map(\.reading) == [.nonInferior, .betterByTheMargin, .notShown])
    #expect(result.arms.allSatisfy { $0.pValue != nil })
  }

  @Test func noMarginNoResult() throws {
    #expect(NonInferiorityResult(try report([("control", 1_000, 120), ("b", 1_000, 150)], margin: nil)) == nil)
  }

  @Test func aSampleRatioMismatchIsNotEvidence() throws {
    let r = try report([("control", 10_000, 1_200), ("b", 8_000, 980)], margin: 0.01)
    #expect(r.sampleRatioMismatch.mismatch)
    #expect(NonInferiorityResult(r)?.arms.map(\.reading) == [.doNotTrust])
  }
}
