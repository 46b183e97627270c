import Foundation
import FunnelLab
import FunnelReport
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// The first line at the edges, in every format of `run`: six arms (an A/A copy, a change no
/// buyer reaches, an effect inside the margin, a win and a loss), exact ties, a negligible
/// effect and a spec with only a control, in truth and experiment mode. The terminal and
/// Markdown reports are goldens; the JSON's `recommendation` and the HTML's decision section
/// say the same.
@Suite struct DecisionEdgeCaseTests {
  /// Each case: the flow, the mode, the JSON recommendation expected (action, reason, arm).
  static let cases: [(flow: String, mode: String, action: String, reason: String, arm: String?)] = [
    ("six-arms", "truth", "ship", "wins", "bigEffect"),
    // 1,000 users an arm cannot show the completion guardrail within its margin: the test keeps
    // running, and the truth says it holds back the truly best arm.
    ("six-arms", "experiment", "keepRunning", "guardrailInconclusive", "bigEffect"),
    ("tie", "truth", "stop", "tie", nil),
    ("tie", "experiment", "stop", "noDetectableDifference", nil),
    ("negligible", "truth", "stop", "negligible", nil),
    ("control-only", "truth", "nothingToCompare", "controlOnly", nil),
    ("control-only", "experiment", "nothingToCompare", "controlOnly", nil),
  ]

  /// One run, end to end in the table; its report rendered in Markdown, JSON and HTML through the
  /// command's own call (``CapturingConsole``'s `alsoRendering:`).
  @Test(arguments: cases.indices)
  func everyFormatSaysTheSameRecommendation(index: Int) throws {
    let c = Self.cases[index]
    let name = "decisions/\(c.flow)-\(c.mode)"
    let console = CapturingConsole(alsoRendering: [.markdown, .json, .html])
    let arguments = ["run", decisionFlowPath(c.flow), "--mode", c.mode, "--users", "3000", "--threads", "2", "-q", "--format", "table"]
    #expect(FunnelLabCommandLine.run(arguments, console: console) == 0, "\(console.stderr)")
    let table = console.stdout
    try expectGolden(table, name + ".txt")
    let markdown = try #require(console.rendering(.markdown))
    try expectGolden(markdown, name + ".md")
    // The headline is the same sentence in the terminal and in Markdown.
    let headline = try #require(table.split(separator: "\n", omittingEmptySubsequences: true).dropFirst().first)
    let words = headline.split(separator: " ").prefix(3).joined(separator: " ")
    #expect(markdown.contains("**" + words), "\(words)")
    let jsonText = try #require(console.rendering(.json))
    let json = try #require(try JSONSerialization.jsonObject(with: Data(jsonText.utf8)) as? [String: Any])
    let summary = try #require(json["summary"] as? [String: Any])
    let recommendation = try #require(summary["recommendation"] as? [String: Any])
    #expect(recommendation["action"] as? String == c.action, "\(name)")
    #expect(recommendation["reason"] as? String == c.reason, "\(name)")
    #expect(recommendation["arm"] as? String == c.arm, "\(name)")
    let html = try #require(console.rendering(.html))
    let decision = try #require(html.range(of: "data-role=\"decision\"")).upperBound
    let text = String(html[decision...].prefix(1_200)).replacing(/<[^>]+>/, with: "")
    #expect(text.contains(words), "\(name): \(words)")
    // Only a control: no table of differences and no test settings in any format.
    if c.flow == "control-only" {
      for text in [table, markdown, html] {
        #expect(!text.contains("across 0 arms") && !text.contains("lift [") && !text.contains("Differences from the control"))
      }
    }
  }

  /// Only a control: every command that compares says there is nothing to compare, first.
  @Test(arguments: [
    ["exact"], ["power", "--replicates", "100"], ["sensitivity", "--vary", "featureUtility=0:0.2:0.1"],
  ])
  func onlyAControlHasNothingToCompareInEveryCommand(command: [String]) throws {
    // sensitivity writes no Markdown.
    for format in ["table", "markdown", "html", "json"] where !(command[0] == "sensitivity" && format == "markdown") {
      let console = CapturingConsole()
      let arguments = [command[0], decisionFlowPath("control-only")] + command.dropFirst() + ["--format", format]
      #expect(FunnelLabCommandLine.run(arguments, console: console) == 0, "\(console.stderr)")
      if format == "json" {
        #expect(!console.stdout.isEmpty)
      } else {
        #expect(console.stdout.contains("Nothing to compare"), "\(command[0]) \(format): \(console.stdout.prefix(400))")
      }
    }
  }

  /// The exact engine's charts colour a true effect by the decision rule's call: a negligible
  /// gain (inside the margin) is neither good nor bad news; a gain beyond it is good.
  @Test func exactChartsColourOnlyEffectsBeyondTheMargin() {
    func html(_ flow: String) -> String {
      let console = CapturingConsole()
      #expect(FunnelLabCommandLine.run(["exact", decisionFlowPath(flow), "--format", "html"], console: console) == 0)
      return console.stdout
    }
    let negligible = html("negligible")
    #expect(negligible.contains("class=\"point\"") && !negligible.contains("class=\"point good\""), "tinyEffect is +0.07 %")
    #expect(html("six-arms").contains("class=\"point good\""), "bigEffect is better by more than the margin")
  }
}
