import Foundation
import FunnelLab
import FunnelReport
import FunnelTestSupport
import Testing

/// The decision summary in words and in JSON, on BetFree in experiment mode at its planned
/// size (both money conflicts present), at a laptop terminal's width and a narrow one.
@Suite struct DecisionSummaryRenderTests {
  func betfree() throws -> DecisionSummary {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding"))
    let result = try Simulation.run(e, mode: .experiment)
    return DecisionSummary(ExperimentReport(observed: result.run, spec: e.metrics))
  }

  @Test(arguments: [100, 60]) func theSummaryFitsItsWidthAndSaysTheConflicts(width: Int) throws {
    let text = TerminalLayout.unbounded.fit(DecisionSummaryRenderer.text(try betfree(), width: width))
    let lines = text.split(separator: "\n")
    #expect(lines.allSatisfy { $0.count <= width }, "\(lines.filter { $0.count > width })")
    // No interval is split across lines.
    #expect(lines.allSatisfy { $0.filter { $0 == "[" }.count == $0.filter { $0 == "]" }.count })
    // The words, whatever the folding.
    let prose = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(prose.hasPrefix("Ship yearlyPrice4999 (purchase conversion +14.57%). Revenue per user disagrees for 2 arms (!)."))
    #expect(prose.contains("ship: wins on purchase conversion"))
    #expect(prose.contains("! ships on purchase conversion but loses revenue per user"))
    #expect(prose.contains("! held back on purchase conversion but gains revenue per user"))
    try expectGolden(text, "decision-summary-betfree-\(width).txt")
  }

  /// The JSON carries identifiers, never sentences, where a decision is: the decision, call,
  /// verdict, guardrail status and conflict values are one word each.
  @Test func theJSONSummaryHasIdentifiersOnly() throws {
    let json = JSONWriter.write(DecisionSummaryRenderer.json(try betfree()))
    let keys = ["\"decision\": ", "\"call\": ", "\"verdict\": ", "\"status\": ", "\"kind\": ", "\"evidence\": "]
    var checked = 0
    for line in json.split(separator: "\n") {
      guard let key = keys.first(where: { line.contains($0) }), let value = line.split(separator: key).last else { continue }
      #expect(!value.contains(" "), "\(line)")
      checked += 1
    }
    #expect(checked >= 12)
    #expect(json.contains("\"decision\": \"doNotShip\""))
    #expect(json.contains("\"kind\": \"shipsButLosesRevenue\""))
    try expectGolden(json, "decision-summary-betfree.json")
  }

  @Test func wrappingBreaksAtSpacesAndKeepsLongWords() {
    #expect(TextWrap.wrap("aa bb cc", width: 5, indent: 1) == ["aa bb", " cc"])
    #expect(TextWrap.wrap("abcdefgh ij", width: 4, indent: 2) == ["abcdefgh", "  ij"])
    #expect(TextWrap.wrap("", width: 4) == [""])
    // An interval is never split: it moves to the next line whole.
    #expect(
      TextWrap.wrap("lift +1.00% [0.50, 1.50], P(beat) 99%", width: 18, indent: 2) == [
        "lift +1.00%", "  [0.50, 1.50],", "  P(beat) 99%",
      ])
  }
}
