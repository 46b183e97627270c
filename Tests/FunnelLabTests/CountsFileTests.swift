import FunnelStats
import Testing

@testable import FunnelLab

/// ``CountsFile`` reads `analyze --data`'s counts as the command does: columns in any order and
/// case, revenue sums, a day or a segment column, and the first problem with its line.
@Suite struct CountsFileTests {
  @Test func readsArmsWithRevenueInAnyOrderAndCase() throws {
    let rows = try CountsFile.read("Users, ARM ,conversions,revenue_sum,revenue_sum_squares\n1_000,control,120,50,900\n1e3,b,150,60,1000\n")
    #expect(rows.map(\.arm.name) == ["control", "b"])
    #expect(rows.map(\.arm.users) == [1_000, 1_000])
    #expect(rows.map(\.line) == [2, 3])
    #expect(rows.allSatisfy { $0.day == nil && $0.segment == nil && $0.arm.revenue != nil })
  }

  @Test func readsADayColumn() throws {
    let rows = try CountsFile.read("day,arm,users,conversions\n1,control,100,10\n1,b,100,12\n")
    #expect(rows.map(\.day) == ["1", "1"])
  }

  @Test(arguments: [
    ("", 1, "the file is empty; expected the header arm,users,conversions"),
    ("arm,users\n", 1, "missing column 'conversions'; the header must name arm,users,conversions[,revenue_sum,revenue_sum_squares]"),
    ("arm,users,conversions,usres\n", 1, "unknown column 'usres'; did you mean 'users'?"),
    (
      "arm,users,conversions,day,segment\n", 1,
      "a file has a day column or a segment column, not both; analyze the last day's rows by segment"
    ),
    ("arm,users,conversions\ncontrol,10\n", 2, "2 fields, expected 3"),
    ("arm,users,conversions\ncontrol,ten,1\n", 2, "users 'ten' is not a whole number"),
    ("arm,users,conversions,revenue_sum\n", 1, "revenue_sum and revenue_sum_squares go together"),
  ])
  func theFirstProblemNamesItsLine(text: String, line: Int, message: String) {
    #expect(throws: CountsFile.Problem(line: line, message: message)) { try CountsFile.read(text) }
  }
}
