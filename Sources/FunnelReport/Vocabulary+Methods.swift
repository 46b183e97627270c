package import FunnelLab
package import FunnelStats

/// The words of counts and of the methods' settings (a multiple-testing correction, a test's
/// alternative, what a metric counts), in the glossary's vocabulary: one helper per word, so
/// no report prints an identifier (`none`, `greater`) or a wrong plural (`1 days`).
extension Vocabulary {
  /// A count before its noun, with the noun's plural unless the count is 1: `1 day`,
  /// `1,354 days`, `2 arms`. `plural` is the noun's plural when it is not `noun` + `s`.
  package static func plural(_ n: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
    "\(NumberText.grouped(n)) " + (n == 1 ? noun : plural ?? noun + "s")
  }

  /// A number of days, `1 day` or `1,354 days`.
  static func days(_ n: Int) -> String { plural(n, "day") }

  /// A multiple-testing correction's name, as a reader knows it: `Holm`, `Bonferroni`,
  /// `Benjamini–Hochberg`, or `no correction` for ``MultipleTestingCorrection/none``.
  package static func name(_ c: MultipleTestingCorrection) -> String {
    switch c {
    case .none: "no correction"
    case .holm: "Holm"
    case .bonferroni: "Bonferroni"
    case .benjaminiHochberg: "Benjamini–Hochberg"
    }
  }

  /// The correction as a phrase: `Holm correction`, `Benjamini–Hochberg correction`, or
  /// `no correction`.
  package static func correction(_ c: MultipleTestingCorrection) -> String {
    c == .none ? name(c) : name(c) + " correction"
  }

  /// Where a significance call stands: `after the Holm correction`, or `with no correction`.
  package static func afterCorrection(_ c: MultipleTestingCorrection) -> String {
    c == .none ? "with " + name(c) : "after the " + correction(c)
  }

  /// Adjusted p-values in words: `Holm-adjusted`, or `not adjusted` under no correction.
  package static func adjusted(_ c: MultipleTestingCorrection) -> String {
    c == .none ? "not adjusted" : name(c) + "-adjusted"
  }

  /// A test's alternative in words: `two-sided`, `one-sided (higher)`, `one-sided (lower)`.
  package static func word(_ a: Alternative) -> String {
    switch a {
    case .twoSided: "two-sided"
    case .greater: "one-sided (higher)"
    case .less: "one-sided (lower)"
    }
  }

  /// What a binary metric counts, in the plural: `purchases` for purchase conversion,
  /// `completions` for completion; a bandit's regret is counted in these.
  package static func outcomes(_ m: FunnelMetric) -> String {
    switch m {
    case .completionRate: "completions"
    case .abandonmentRate: "abandonments"
    case .skipRate: "users who skipped"
    case .paywallViewRate: "paywall viewers"
    case .purchaseConversion, .purchaseConversionOfViewers: "purchases"
    case .trialStartRate: "trial starts"
    case .trialToPaid: "paid conversions"
    case .refundRate: "refunds"
    case .personalizationRate: "goals answered"
    case .timeToFinish, .revenuePerUser, .revenuePerPayingUser, .revenuePerPaywallViewer, .realizedRevenuePerUser: "conversions"
    }
  }
}
