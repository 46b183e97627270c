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

  @Test(arguments: ["urbannest-onboarding", "ncdb-first-launch"])
  func aFlowWithoutAPaywallShowsNoMoneyMetric(spec: String) {
    let words = ["purchase", "revenue", "paywall", "ltv"]
    for command in Self.commands {
      let formats = command == ["check"] ? ["table", "json", "markdown", "html"] : Self.formats
      for format in formats {
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
