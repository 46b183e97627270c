import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// The headlines of `power` and `analyze --margin` answer the question asked, one unit per
/// sentence, coloured by the call (issue 57, items 3 and 7).
@Suite struct PlanningHeadlineTests {
  static let sixArms = "Tests/Fixtures/decisions/six-arms.json"
  static let green = "\u{1B}[32m"
  static let red = "\u{1B}[31m"

  /// Before: the `worse` arm (true Δ −1.73 pp) was painted green as "the quickest test".
  @Test func aWorseArmIsRedAndSaidToLose() {
    let r = funnellab("power", Self.sixArms, "--variant", "worse", "--replicates", "200", "--color", "always")
    #expect(r.code == 0, "\(r.err)")
    let headline = r.out.split(separator: "\n").dropFirst(2).prefix(2).joined(separator: " ")
    #expect(headline.contains(Self.red + "worse"))
    #expect(!headline.contains(Self.green))
    #expect(headline.contains("-1.73 pp: it loses."))
  }

  /// A tie (`afterPurchase` buys nothing new) gives n/a (no effect) for power, type S and type M
  /// in every format, never a type M of 10¹³×; a negligible arm is never the quickest test.
  @Test func aTieHasNoPowerNorTypeSOrM() throws {
    let table = funnellab("power", Self.sixArms, "--variant", "afterPurchase", "--variant", "tinyEffect", "--replicates", "200", "--wide")
    #expect(table.code == 0, "\(table.err)")
    #expect(table.out.contains("No variant can be tested here: no variant moves purchase conversion by more than the ±1% margin"))
    let row = try #require(table.out.split(separator: "\n").first { $0.hasPrefix("  afterPurchase ") })
    #expect(row.components(separatedBy: "n/a (no effect)").count - 1 == 4)
    #expect(!table.out.contains("e13") && !row.contains("×"))
    let markdown = funnellab("power", Self.sixArms, "--variant", "afterPurchase", "--replicates", "200", "--format", "markdown")
    #expect(markdown.out.contains("| afterPurchase |") && markdown.out.contains("n/a (no effect)"))
    let json = funnellab("power", Self.sixArms, "--variant", "afterPurchase", "--replicates", "200", "--format", "json")
    #expect(json.out.contains("\"trueDifference\": 0,") && json.out.contains("\"power\": null"))
    #expect(json.out.contains("\"trueEffect\": \"none\"") && json.out.contains("\"typeM\": null"))
  }

  /// `--looks 5` leads with the group-sequential design; `--users-per-day` puts the days in the
  /// headline, in a sentence of their own.
  @Test func looksLeadWithTheSequentialDesignAndDaysFollow() {
    let looks = funnellab("power", "--baseline", "0.10", "--mde", "0.01", "--looks", "5", "--users-per-day", "2000")
    #expect(looks.code == 0, "\(looks.err)")
    let headline = looks.out.split(separator: "\n\n")[1].replacingOccurrences(of: "\n  ", with: " ")
    #expect(headline.hasPrefix("A group-sequential test with 5 looks (O'Brien-Fleming-type spending) needs at most 15,116 users per arm"))
    #expect(headline.contains("It expects to stop at 12,150 users per arm if the effect is real; the fixed test needs 14,751."))
    #expect(headline.hasSuffix("At 2,000 users a day it runs at most 16 days (the fixed test 15 days)."))
    let fixed = funnellab("power", "--baseline", "0.10", "--mde", "0.01", "--users-per-day", "2000", "--format", "markdown")
    #expect(fixed.out.contains("with 80.0% power at α 0.05. At 2,000 users a day it runs 15 days.**"))
    #expect(!fixed.out.split(separator: "\n")[2].contains(" pp"))
  }

  /// `--parameter-uncertainty` puts the users per arm that reach the target assurance in the headline.
  @Test func assuranceSizeIsInTheHeadline() {
    let r = funnellab(
      "power", "experiments/betfree-onboarding.json", "--variant", "defaultLifetime", "--parameter-uncertainty", "--draws", "20",
      "--replicates", "200", "--format", "markdown")
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.contains("it loses. Over the uncertain behavior parameters, 27,599 users per arm reach 80% assurance.**"))
  }

  /// `analyze --margin` says the non-inferiority result beside the decision, in every format.
  @Test(arguments: ["table", "markdown", "html"])
  func marginResultIsInTheDecision(format: String) {
    let r = funnellab(
      "analyze", "--data", "experiments/data/klick-results.csv", "--allocation", "control=90,b=10", "--margin", "0.01", "--format",
      format)
    #expect(r.code == 0, "\(r.err)")
    let expected =
      format == "html"
      ? "Against the 1 pp margin: b is <span class=\"tone-good\">non-inferior</span> (worse by less than 1 pp, p &lt; 0.0001).</p>\n</section>"
      : "Against the 1 pp margin: b is non-inferior (worse by less than 1 pp, p < 0.0001)."
    #expect(r.out.contains(expected))
  }

  @Test func marginResultIsInTheJSON() throws {
    let r = funnellab(
      "analyze", "--data", "experiments/data/klick-results.csv", "--allocation", "control=90,b=10", "--margin", "0.01", "--format",
      "json")
    #expect(r.out.contains("\"reading\": \"nonInferior\""))
  }
}
