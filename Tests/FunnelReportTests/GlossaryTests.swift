import Foundation
import FunnelLab
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelReport

/// One vocabulary, checked: every word a report uses for a recommendation, a call, a decision,
/// a verdict or a guardrail's status is defined in docs/glossary.md, with its JSON identifier;
/// so are the method names headlines and the README use.
@Suite struct GlossaryTests {
  let glossary = (try? String(contentsOf: repositoryRoot.appendingPathComponent("docs/glossary.md"), encoding: .utf8)) ?? ""

  /// Whether the glossary defines `word` (in bold, any case) and, when given, its identifier (in code).
  func defines(_ word: String, id: String? = nil) -> Bool {
    glossary.lowercased().contains("**\(word.lowercased())**") && (id.map { glossary.contains("`\($0)`") } ?? true)
  }

  @Test func everyDecisionWordIsInTheGlossary() {
    #expect(!glossary.isEmpty)
    var missing: [String] = []
    for a in Recommendation.Action.allCases where !defines(Vocabulary.word(a), id: a.rawValue) { missing.append(Vocabulary.word(a)) }
    for c in DecisionSummary.Call.allCases where !defines(Vocabulary.word(c), id: c.rawValue) { missing.append(Vocabulary.word(c)) }
    for d in [Decision.ship, .doNotShip, .noDecision] where !defines(Vocabulary.word(d), id: d.rawValue) {
      missing.append(Vocabulary.word(d))
    }
    for v in Verdict.allCases where !defines(Vocabulary.word(v), id: v.rawValue) { missing.append(Vocabulary.word(v)) }
    for g in [GuardrailStatus.ok, .violated, .inconclusive] where !defines(g.rawValue) { missing.append(g.rawValue) }
    for r in Recommendation.Reason.allCases where !glossary.contains(r.rawValue) && !docsDecisionRule.contains("`\(r.rawValue)`") {
      missing.append(r.rawValue)
    }
    #expect(missing.isEmpty, "not in docs/glossary.md: \(missing)")
  }

  /// The methods' and planning's words that headlines and the README use.
  @Test(arguments: [
    "lift", "Δ", "truth", "P(beat)", "P(best)", "margin", "negligible", "tie", "equivalent", "planned size", "A/A", "Holm",
    "expected loss", "type M", "assurance", "mSPRT", "CUPED", "TOST", "interim look", "Cohen's h", "Cohen's d",
    "likelihood-ratio statistic",
  ])
  func theMethodsWordsAreDefined(word: String) {
    #expect(glossary.contains("**\(word)**") || glossary.contains("**\(word)** ("), "\(word)")
  }

  /// Every correction's and alternative's display name (what the settings line of `analyze` says) is defined.
  @Test func theSettingsWordsAreDefined() {
    let words = MultipleTestingCorrection.allCases.map(Vocabulary.name) + Alternative.allCases.map(Vocabulary.word)
    #expect(words.filter { !defines($0) }.isEmpty, "not in docs/glossary.md: \(words.filter { !defines($0) })")
  }

  var docsDecisionRule: String {
    (try? String(contentsOf: repositoryRoot.appendingPathComponent("docs/decision-rule.md"), encoding: .utf8)) ?? ""
  }
}
