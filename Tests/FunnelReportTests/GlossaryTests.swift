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

  /// Every word of the glossary's bold terms.
  var definedWords: Set<String> {
    Set(glossary.components(separatedBy: "**").enumerated().filter { $0.offset % 2 == 1 }.flatMap { Self.words($0.element) })
  }

  /// The plain English words column headers use (and units); every other word of a column
  /// must be defined in the glossary.
  static let plainWords: Set<String> = [
    "a", "after", "arm", "at", "best", "cell", "completion", "control", "control's", "conversion", "conversions", "day", "days",
    "decided", "decision", "design", "during", "duration", "end", "estimate", "finish", "for", "from", "incl.", "its", "kind",
    "last", "leader", "lost", "mean", "measured", "method", "metric", "n", "of", "on", "paying", "per", "plan", "purchase",
    "purchasers", "purchases", "quantity", "rank", "rate", "revenue", "rule", "s", "saved", "share", "ships", "size", "solved",
    "stopping", "target", "test", "that", "the", "time", "to", "treatment", "usd", "user", "users", "value", "variant", "verdict",
    "view", "vs", "winner", "worse", "screen", "views", "count", "action", "shape", "period", "type",
  ]

  /// The words of `text`: split at spaces and punctuation that joins words, lowercased.
  static func words(_ text: String) -> [String] {
    text.lowercased().split { " /,()[]|\\¦".contains($0) }.map(String.init)
  }

  /// The column headers of a terminal table (the line above a rule of `─`) or a Markdown table
  /// (the line above `|---|`) in `text`.
  static func headers(_ text: String) -> [String] {
    let lines = text.components(separatedBy: "\n")
    var out: [String] = []
    for (k, line) in lines.enumerated() where k > 0 {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if !trimmed.isEmpty, trimmed.allSatisfy({ $0 == "─" || $0 == " " }) {
        out += lines[k - 1].components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
      } else if trimmed.hasPrefix("|"), trimmed.allSatisfy({ "|-: ".contains($0) }), trimmed.contains("-") {
        out += lines[k - 1].replacingOccurrences(of: "\\|", with: "¦").split(separator: "|").map {
          $0.trimmingCharacters(in: .whitespaces)
        }
      }
    }
    return out
  }

  /// Whether `word` is data, not a word: a number or a share, or a spec's id (camelCase, or
  /// with a digit, as `features3`).
  static func isData(_ word: String, in header: String) -> Bool {
    if word.allSatisfy({ "0123456789.,%≈<>=+−-".contains($0) }) { return true }
    return header.split(separator: " ").contains { token in
      token.lowercased() == word
        && (token.contains { $0.isNumber } || token.dropFirst().contains { $0.isUppercase } && token.first?.isLowercase == true)
    }
  }

  /// Every word of every column header of the committed report goldens (terminal tables and
  /// Markdown, `Tests/FunnelLabCLITests/Fixtures/reports`) is defined in the glossary (a word
  /// of one of its bold terms) or plain English (``plainWords``); spec ids are data.
  @Test func everyColumnsWordsAreDefined() throws {
    let folder = repositoryRoot.appendingPathComponent("Tests/FunnelLabCLITests/Fixtures/reports")
    let files = (FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []).filter {
      $0.hasSuffix(".txt") || $0.hasSuffix(".md")
    }
    #expect(files.count > 30, "the goldens")
    let defined = definedWords
    var missing: [String: String] = [:]
    for file in files.sorted() {
      let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      for header in Self.headers(text) {
        for word in Self.words(header) where !defined.contains(word) && !Self.plainWords.contains(word) {
          if !Self.isData(word, in: header), missing[word] == nil { missing[word] = "\(file): \(header)" }
        }
      }
    }
    #expect(missing.isEmpty, "column words not in docs/glossary.md: \(missing.sorted { $0.key < $1.key })")
  }

  /// The header reader finds the columns of both kinds of table, and a new term fails.
  @Test func theHeaderReaderFindsBothKindsOfTable() {
    let terminal = "  arm      P(beat)  kurtosis\n  ───────  ───────  ────────\n  b          97.1%      0.3\n"
    #expect(Self.headers(terminal) == ["arm", "P(beat)", "kurtosis"])
    #expect(Self.headers("| arm | \\|z\\| / bound |\n|---|---:|\n| b | 1 |\n") == ["arm", "¦z¦ / bound"])
    #expect(!definedWords.contains("kurtosis") && !Self.plainWords.contains("kurtosis"), "a word the glossary lacks is caught")
    #expect(Self.isData("features3", in: "features3 Δ") && Self.isData("aacopy", in: "aaCopy") && !Self.isData("lift", in: "lift"))
  }
}
