package import FunnelStats

/// What `analyze --margin` shows per arm against the margin on the conversion difference, decided
/// here so that a renderer only words it: better by more than the margin, non-inferior (worse by
/// less than the margin), or neither shown; nothing is evidence under a sample-ratio mismatch.
///
/// The tests are ``FunnelStats/ExperimentAnalysis/ArmComparison/nonInferiority`` and
/// ``FunnelStats/ExperimentAnalysis/ArmComparison/superiority`` (one-sided Miettinen–Nurminen
/// score tests at α/2, which agree with the two-sided `1 − α` interval of the difference).
package struct NonInferiorityResult: Sendable, Hashable {
  /// One arm's reading against the margin.
  package enum Reading: String, Sendable, Hashable, CaseIterable {
    /// Better by more than the margin (the superiority test rejects): also non-inferior.
    case betterByTheMargin
    /// Worse by less than the margin (the non-inferiority test rejects), not shown better by it.
    case nonInferior
    /// Neither test rejects: non-inferiority is not shown.
    case notShown
    /// The split failed the sample-ratio check: no test is evidence.
    case doNotTrust
    /// The arm has no test (no users in it or in the control).
    case notTested
  }

  /// One arm against the control.
  package struct Arm: Sendable, Hashable {
    /// The arm's name.
    package var arm: String
    /// What the margin tests show.
    package var reading: Reading
    /// The non-inferiority test's one-sided p-value, when it ran.
    package var pValue: Double?
  }

  /// The margin on the conversion difference, a rate (0.01 = 1 percentage point).
  package var margin: Double
  /// Every arm but the control, in the report's order.
  package var arms: [Arm]

  /// The reading of `report`'s margin tests; `nil` when the analysis had no margin.
  package init?(_ report: ExperimentAnalysis.Report) {
    guard let margin = report.settings.margin else { return nil }
    self.margin = margin
    let trusted = !report.sampleRatioMismatch.mismatch
    arms = report.comparisons.map { c in
      let reading: Reading =
        switch (c.nonInferior, c.betterByTheMargin) {
        case (nil, _): .notTested
        case _ where !trusted: .doNotTrust
        case (_, true?): .betterByTheMargin
        case (true?, _): .nonInferior
        default: .notShown
        }
      return Arm(arm: c.arm, reading: reading, pValue: c.nonInferiority?.pValue)
    }
  }
}
