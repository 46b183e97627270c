import FunnelLab
import Testing

/// Means of integer totals are one division of exact integers, so a mean with a short decimal is written as
/// that decimal in JSON and CSV (the old two-step divisions wrote the values in the comments).
@Suite struct MeansOfCountsTests {
  /// 2 × $4.99 + 2 × $19.99 + 1 × $49.99 over 1,000 users: 0.09995 (was 0.09994999999999998).
  @Test func revenuePerUserIsTotalCentsOverUsers() throws {
    var revenue = RevenueDistribution()
    for cents: Int64 in [499, 499, 1999, 1999, 4999] { revenue.add(cents: cents) }
    let mean = try #require(revenue.mean(users: 1000))
    #expect(JSONValue.format(mean) == "0.09995")
    #expect(revenue.mean(users: 0) == nil)
  }

  /// 10 times summing to 1,049 ms: 0.1049 s (was 0.10490000000000001).
  @Test func meanSecondsIsMillisecondsOverCountTimesAThousand() throws {
    var time = TimeStatistic()
    for millis: UInt64 in [100, 100, 100, 100, 100, 100, 100, 100, 100, 149] { time.add(millis: millis) }
    let mean = try #require(time.meanSeconds)
    #expect(JSONValue.format(mean) == "0.1049")
    #expect(TimeStatistic().meanSeconds == nil)
  }

  /// Five equal arms get planned shares of exactly 0.2 (differences of cumulative shares gave 0.19999999999999996).
  @Test func plannedSharesAreWeightOverTotal() {
    let assignment = HashAssignment(salt: "s", arms: ["a", "b", "c", "d", "e"])
    #expect(assignment.shares.map(JSONValue.format) == ["0.2", "0.2", "0.2", "0.2", "0.2"])
  }
}
