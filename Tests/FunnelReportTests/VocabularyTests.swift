import FunnelLab
import FunnelStats
import Testing

@testable import FunnelReport

/// The words of counts and settings come from one helper each (issue 59): no `1 days`, no
/// `correction none`, no `expected successes` for purchases.
@Suite struct VocabularyTests {
  @Test(arguments: [
    (0, "day", "0 days"), (1, "day", "1 day"), (2, "day", "2 days"), (1_354, "day", "1,354 days"), (1, "user", "1 user"),
    (10_000, "user", "10,000 users"), (1, "arm", "1 arm"), (5, "arm", "5 arms"),
  ])
  func aCountAgreesWithItsNoun(n: Int, noun: String, text: String) {
    #expect(Vocabulary.plural(n, noun) == text)
  }

  @Test func anIrregularPluralIsGiven() {
    #expect(Vocabulary.plural(1, "child", plural: "children") == "1 child")
    #expect(Vocabulary.plural(UInt64(3), "child", plural: "children") == "3 children")
    #expect(Vocabulary.days(1) == "1 day")
  }

  @Test(arguments: [
    (MultipleTestingCorrection.none, "no correction", "no correction", "with no correction"),
    (.holm, "Holm", "Holm correction", "after the Holm correction"),
    (.bonferroni, "Bonferroni", "Bonferroni correction", "after the Bonferroni correction"),
    (.benjaminiHochberg, "Benjamini–Hochberg", "Benjamini–Hochberg correction", "after the Benjamini–Hochberg correction"),
  ])
  func aCorrectionIsNamedAsReadersKnowIt(c: MultipleTestingCorrection, name: String, phrase: String, after: String) {
    #expect(Vocabulary.name(c) == name)
    #expect(Vocabulary.correction(c) == phrase)
    #expect(Vocabulary.afterCorrection(c) == after)
    #expect(Vocabulary.adjusted(c) == (c == .none ? "not adjusted" : name + "-adjusted"))
  }

  /// A bandit's regret is counted in what the metric counts, never "successes".
  @Test func whatAMetricCountsIsWorded() {
    #expect(Vocabulary.outcomes(.purchaseConversion) == "purchases")
    #expect(Vocabulary.outcomes(.completionRate) == "completions")
    for m in FunnelMetric.allCases { #expect(!Vocabulary.outcomes(m).contains("success"), "\(m)") }
  }
}
