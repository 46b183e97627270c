import Foundation
import FunnelStats
import Testing

/// The anytime-valid sample-ratio test against optimizely's ssrm-test 0.1.5
/// (`Fixtures/make_ssrm_reference.py`), and its guarantees.
@Suite struct SequentialSampleRatioMismatchTests {
  struct Case: Sendable, CustomStringConvertible {
    var name: String
    var weights: [Double]
    var concentration: Double
    var looks: [[Int]]
    var pValues: [Double]
    var description: String { name }
  }

  static let cases: [Case] = {
    let url = Fixtures.directory.appendingPathComponent("ssrm.json")
    guard let data = try? Data(contentsOf: url), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let cases = object["cases"] as? [[String: Any]]
    else { return [] }
    return cases.map { c in
      Case(
        name: c["name"] as? String ?? "?", weights: (c["weights"] as? [NSNumber] ?? []).map(\.doubleValue),
        concentration: (c["concentration"] as? NSNumber)?.doubleValue ?? .nan,
        looks: (c["looks"] as? [[NSNumber]] ?? []).map { $0.map(\.intValue) },
        pValues: (c["pValues"] as? [NSNumber] ?? []).map(\.doubleValue))
    }
  }()

  @Test func fixtureHasCasesOnBothSides() {
    #expect(Self.cases.count == 40)
    #expect(Self.cases.filter { ($0.pValues.last ?? 1) < 0.001 }.count >= 5, "some cases flag a mismatch")
    #expect(Self.cases.filter { ($0.pValues.last ?? 0) > 0.5 }.count >= 5, "some do not")
  }

  @Test(arguments: cases)
  func matchesSSRM(_ c: Case) throws {
    let r = try SequentialSampleRatioMismatch.check(looks: c.looks, weights: c.weights, concentration: c.concentration)
    #expect(r.pValues.count == c.pValues.count)
    for (mine, theirs) in zip(r.pValues, c.pValues) {
      #expect(close(mine, theirs, 1e-7, absoluteFloor: 1e-300, c.name))
    }
    #expect(r.mismatch == ((c.pValues.last ?? 1) < 0.001))
  }

  /// The p-value never rises, and batching the same users differently at the last look
  /// does not change the last Bayes factor (only the running totals enter).
  @Test func pValuesOnlyFallAndBatchesDoNotMatter() throws {
    let looks = [[100, 90], [210, 170], [300, 250], [420, 330]]
    let r = try SequentialSampleRatioMismatch.check(looks: looks, weights: [1, 1])
    #expect(zip(r.pValues, r.pValues.dropFirst()).allSatisfy { $0 >= $1 })
    let once = try SequentialSampleRatioMismatch.check(looks: [[420, 330]], weights: [1, 1])
    #expect(abs((once.logBayesFactors.last ?? 0) - (r.logBayesFactors.last ?? 1)) < 1e-9)
  }

  /// Under the null, peeking after every one of 1,000 users still flags fewer than α of
  /// 400 seeded tests at α = 0.05 (Ville's inequality), where a chi-square test at every
  /// look would flag far more.
  @Test func peekingKeepsTheLevel() throws {
    var rng = SplitMix64(seed: 20_261_128)
    var flagged = 0
    var chiSquareFlagged = 0
    for _ in 0..<400 {
      var counts = [0, 0]
      var looks: [[Int]] = []
      var chi = false
      for n in 1...1_000 {
        counts[rng.next() & 1 == 0 ? 0 : 1] += 1
        looks.append(counts)
        if n >= 20, n % 10 == 0,
          try SampleRatioMismatch.check(observed: counts, weights: [1, 1]).test.pValue < 0.05
        {
          chi = true
        }
      }
      let r = try SequentialSampleRatioMismatch.check(looks: looks, weights: [1, 1], concentration: 100)
      if r.pValue < 0.05 { flagged += 1 }
      if chi { chiSquareFlagged += 1 }
    }
    #expect(flagged <= 20, "\(flagged) of 400 flagged at α = 0.05 by the anytime-valid test")
    #expect(chiSquareFlagged > 40, "\(chiSquareFlagged) of 400 flagged by chi-square peeked every 10 users")
  }

  @Test func refusesBadInput() {
    #expect(throws: StatsError.self) { try SequentialSampleRatioMismatch.check(looks: [[1, 2]], weights: [1]) }
    #expect(throws: StatsError.self) { try SequentialSampleRatioMismatch.check(looks: [[1, 2]], weights: [1, 0]) }
    #expect(throws: StatsError.self) { try SequentialSampleRatioMismatch.check(looks: [[5, 5], [4, 6]], weights: [1, 1]) }
    #expect(throws: StatsError.self) { try SequentialSampleRatioMismatch.check(looks: [[5, 5, 1]], weights: [1, 1]) }
    #expect(throws: StatsError.self) { try SequentialSampleRatioMismatch.check(looks: [], weights: [1, 1]) }
    #expect(throws: StatsError.self) {
      try SequentialSampleRatioMismatch.check(looks: [[5, 5]], weights: [1, 1], concentration: .infinity)
    }
  }
}
