import FunnelReport
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// Issue 57's sequential reads and designs against the truth, in every text format, on the
/// flows of `Tests/Fixtures/decisions`: a six-arm test running 4 of its 8 days (with and
/// without a planned size), the six arms simulated day by day, and a bandit that would ship an
/// arm inside the margin.
@Suite struct SequentialDecisionGoldenTests {
  static let running = ["analyze", "--data", "Tests/Fixtures/decisions/six-arms-running.csv"]
  static let daily = [
    "run", "Tests/Fixtures/decisions/six-arms.json", "--mode", "experiment", "--users-per-day", "20000", "--days", "10", "-q",
  ]
  static let bandit = [
    "run", "Tests/Fixtures/decisions/negligible.json", "--mode", "bandit", "--users-per-day", "2000", "--days", "5", "-q",
  ]

  func output(_ arguments: [String]) -> String {
    let console = CapturingConsole()
    let code = FunnelLabCommandLine.run(arguments, console: console)
    #expect(code == 0, "\(console.stderr)")
    return console.stdout
  }

  @Test func runningTestGolden() throws {
    try expectGoldens(
      Self.running + ["--planned-users", "48000"],
      [(.table, "analyze-running.txt"), (.markdown, "analyze-running.md"), (.json, "analyze-running.json")])
  }

  @Test func runningTestWithoutAPlannedSizeGolden() throws {
    try expectGolden(output(Self.running + ["--format", "table"]), "analyze-running-unplanned.txt")
  }

  @Test func sixArmsDailyGolden() throws {
    try expectGoldens(
      Self.daily,
      [
        (.table, "experiment-daily-six-arms.txt"), (.markdown, "experiment-daily-six-arms.md"), (.json, "experiment-daily-six-arms.json"),
      ])
  }

  @Test func banditShippingANegligibleArmGolden() throws {
    try expectGoldens(Self.bandit, [(.table, "bandit-negligible.txt"), (.json, "bandit-negligible.json")])
  }
}
