import FunnelTestSupport
import Testing

/// Only the metrics a flow has: UrbanNest and NCDB sell nothing and have no paywall, so no
/// output of theirs, in any format, names a purchase, revenue or paywall metric (a column of
/// zeros, a "P(beat) 49.8 %" of nothing, a chart of an empty curve).
@Suite struct FlowMetricsTests {
  static let formats = ["table", "json", "csv", "markdown", "html"]

  static let commands: [[String]] = [
    ["run", "--users", "1000", "-q"],
    ["run", "--mode", "experiment", "--users", "2000", "-q"],
    ["run", "--mode", "experiment", "--users-per-day", "500", "--days", "3", "-q"],
    ["exact"],
    ["power", "--replicates", "100"],
    ["check"],
  ]

  static let specs = ["urbannest-onboarding", "ncdb-first-launch"]

  /// The formats `command` (the `index`th) is read in for the `spec`th spec: every format in the
  /// long stage; in the fast stage two, taken in turn so that each spec is read in every format
  /// by some command (each format of a command runs the whole command again).
  static func formats(command: [String], index: Int, spec: Int) -> [String] {
    let all = command == ["check"] ? formats.filter { $0 != "csv" } : formats
    let fast = [all[(2 * index + spec) % all.count], all[(2 * index + spec + 1) % all.count]]
    return TestStage.size(fast: fast, long: all)
  }

  @Test func theFastStageReadsEveryFormatOfEachSpec() {
    for spec in Self.specs.indices {
      let read = Self.commands.indices.flatMap { Self.formats(command: Self.commands[$0], index: $0, spec: spec) }
      #expect(Set(read) == Set(Self.formats))
    }
  }

  @Test(arguments: specs)
  func aFlowWithoutAPaywallShowsNoMoneyMetric(spec: String) {
    let words = ["purchase", "revenue", "paywall", "ltv"]
    let specIndex = Self.specs.firstIndex(of: spec) ?? 0
    for (index, command) in Self.commands.enumerated() {
      for format in Self.formats(command: command, index: index, spec: specIndex) {
        let arguments = [command[0], experimentPath(spec)] + command.dropFirst() + ["--format", format]
        let r = funnellab(arguments)
        #expect(r.code == 0, "\(arguments): \(r.err)")
        let text = r.out.lowercased()
        for word in words where text.contains(word) {
          let line = r.out.split(separator: "\n").first { $0.lowercased().contains(word) } ?? ""
          Issue.record("\(spec) \(command.joined(separator: " ")) --format \(format) names '\(word)': \(line)")
        }
      }
    }
  }
}
