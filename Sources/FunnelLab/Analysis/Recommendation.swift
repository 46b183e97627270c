/// What to do about a whole experiment: the one recommendation every command's headline
/// renders (``DecisionRule``). Its identifiers are the JSON's; the words are FunnelReport's.
package struct Recommendation: Sendable, Hashable {
  /// What to do.
  package enum Action: String, Sendable, Hashable, CaseIterable {
    /// Ship ``Recommendation/arm``.
    case ship
    /// The test has not decided yet: keep it running.
    case keepRunning
    /// Stop: nothing worth shipping.
    case stop
    /// The test's evidence is broken (the split) or the arm breaks a guardrail.
    case doNotTrust
    /// Only the control: nothing to compare.
    case nothingToCompare
  }

  /// Why.
  package enum Reason: String, Sendable, Hashable, CaseIterable {
    /// Ship: the arm beats the control by more than the margin with every guardrail ok (or,
    /// without a test, its true effect is best by more than the margin).
    case wins
    /// Keep running: the planned size is not reached.
    case belowPlannedSize
    /// Keep running: read over time without a planned size, so how far along is unknown.
    case plannedSizeUnknown
    /// Keep running: the arm wins but a guardrail is not yet shown within its margin.
    case guardrailInconclusive
    /// Stop: at the planned size no arm differs detectably from the control.
    case noDetectableDifference
    /// Stop: every effect is inside the practical-equivalence margin.
    case negligible
    /// Stop: every arm ties the control exactly by the truth (no arm can change the metric).
    case tie
    /// Stop: the sequential test's futility boundary was crossed.
    case futility
    /// Stop: the arms that differ are worse than the control.
    case worse
    /// Do not trust: the sample-ratio check flagged the split.
    case sampleRatioMismatch
    /// Do not trust (do not ship): the arm that wins breaks a guardrail.
    case guardrailViolated
    /// Nothing to compare: the experiment has only its control.
    case controlOnly
  }

  /// How far along a running test is.
  package struct Progress: Sendable, Hashable {
    /// Users so far over the planned users (0…1); `nil` when the planned size is unknown.
    package var shareOfPlannedSize: Double?
    /// Days left at the observed daily rate; `nil` without a planned size or a rate.
    package var daysLeft: Int?

    /// A progress.
    package init(shareOfPlannedSize: Double?, daysLeft: Int?) {
      self.shareOfPlannedSize = shareOfPlannedSize
      self.daysLeft = daysLeft
    }
  }

  /// How the recommendation compares with the truth (the exact engine's effects), when known:
  /// would this test reach the right decision?
  package struct DesignCheck: Sendable, Hashable {
    /// Right or which way wrong.
    package enum Kind: String, Sendable, Hashable, CaseIterable {
      /// The recommendation agrees with the truth.
      case right
      /// It ships an arm whose true effect is inside the margin.
      case shipsNegligible
      /// It ships an arm whose true effect is worse than the control's by more than the margin.
      case shipsWorse
      /// It ships an arm while another is truly better by more than the margin.
      case shipsNotBest
      /// It ships nothing (or not yet) while an arm truly beats the control by more than the margin.
      case holdsBackBest
    }
    /// Right or which way wrong.
    package var kind: Kind
    /// The arm the test ships, with its true relative lift.
    package var shipped: String?
    /// ``shipped``'s true relative lift.
    package var shippedTrueLift: Double?
    /// The truly best arm (by more than the margin), when there is one and it is not shipped.
    package var best: String?
    /// ``best``'s true relative lift.
    package var bestTrueLift: Double?

    /// A check.
    package init(_ kind: Kind, shipped: String? = nil, shippedTrueLift: Double? = nil, best: String? = nil, bestTrueLift: Double? = nil) {
      self.kind = kind
      self.shipped = shipped
      self.shippedTrueLift = shippedTrueLift
      self.best = best
      self.bestTrueLift = bestTrueLift
    }
  }

  /// What to do.
  package var action: Action
  /// Why.
  package var reason: Reason
  /// The arm the action is about: the arm to ship, the winner a guardrail holds back or blocks.
  package var arm: String?
  /// Arms equivalent to ``arm`` (within the margin of it), best first.
  package var equivalentArms: [String]
  /// How far along a test that keeps running is.
  package var progress: Progress?
  /// The recommendation against the truth; `nil` when the truth is not known or there is no
  /// test to judge (truth mode ranks by the truth itself).
  package var design: DesignCheck?

  /// A recommendation.
  package init(
    _ action: Action, _ reason: Reason, arm: String? = nil, equivalentArms: [String] = [], progress: Progress? = nil,
    design: DesignCheck? = nil
  ) {
    self.action = action
    self.reason = reason
    self.arm = arm
    self.equivalentArms = equivalentArms
    self.progress = progress
    self.design = design
  }
}

extension DecisionRule {
  /// The recommendation for a ``DecisionSummary``'s arms (its calls, decisions, guardrails
  /// and the truth when known). `progress`, for a test read before its end, turns "nothing
  /// shown" into "keep running"; a test read over time without a planned size passes
  /// `Progress(shareOfPlannedSize: nil, daysLeft: nil)`.
  package static func recommend(_ s: DecisionSummary, progress: Recommendation.Progress? = nil) -> Recommendation {
    var r = recommendObserved(s, progress: progress)
    if s.arms.contains(where: { $0.primary.trueRelativeLift != nil }), s.hasTest { r.design = designCheck(r, s) }
    return r
  }

  static func recommendObserved(_ s: DecisionSummary, progress: Recommendation.Progress?) -> Recommendation {
    guard !s.arms.isEmpty else { return Recommendation(.nothingToCompare, .controlOnly) }
    if s.sampleRatioMismatch { return Recommendation(.doNotTrust, .sampleRatioMismatch) }
    guard s.hasTest else { return recommendByTruth(s) }
    let winners = s.arms.filter { $0.call == .wins }
    let shippable = winners.filter { $0.decision == nil || $0.decision == .ship }
    if !shippable.isEmpty {
      let standing = standing(
        shippable.map { ($0.arm, $0.primary.relativeLift?.estimate ?? $0.primary.difference?.estimate) },
        higherIsBetter: s.primary.higherIsBetter, margin: s.primary.relativeMargin)
      let ranked: [String]
      switch standing {
      case .best(let arm): ranked = [arm]
      case .equivalent(let arms): ranked = arms
      case .noneBeatsControl, .nothingToCompare: ranked = shippable.map(\.arm)
      }
      return Recommendation(.ship, .wins, arm: ranked.first, equivalentArms: Array(ranked.dropFirst()))
    }
    if let blocked = winners.first(where: { a in a.guardrails.contains { $0.status == .violated } }) {
      return Recommendation(.doNotTrust, .guardrailViolated, arm: blocked.arm)
    }
    if let held = winners.first {
      return Recommendation(.keepRunning, .guardrailInconclusive, arm: held.arm, progress: progress)
    }
    if let progress, (progress.shareOfPlannedSize ?? 0) < 1 {
      return Recommendation(.keepRunning, progress.shareOfPlannedSize == nil ? .plannedSizeUnknown : .belowPlannedSize, progress: progress)
    }
    if s.arms.allSatisfy({ $0.call == .negligible }) { return Recommendation(.stop, .negligible) }
    if s.arms.contains(where: { $0.call == .loses }) && !s.arms.contains(where: { $0.call == .noDetectableDifference }) {
      return Recommendation(.stop, .worse)
    }
    return Recommendation(.stop, .noDetectableDifference)
  }

  /// Truth mode (no test, the truth known): ship the arm truly best by more than the margin.
  static func recommendByTruth(_ s: DecisionSummary) -> Recommendation {
    switch trueStanding(s) {
    case .best(let arm): return Recommendation(.ship, .wins, arm: arm)
    case .equivalent(let arms): return Recommendation(.ship, .wins, arm: arms.first, equivalentArms: Array(arms.dropFirst()))
    case .noneBeatsControl(let negligible):
      if s.arms.allSatisfy({ $0.primary.trueDifference == 0 }) { return Recommendation(.stop, .tie) }
      return Recommendation(.stop, negligible.count == s.arms.count ? .negligible : .worse)
    case .nothingToCompare: return Recommendation(.nothingToCompare, .controlOnly)
    }
  }

  /// The arms' standing on the primary metric by the truth (relative lifts, relative margin).
  static func trueStanding(_ s: DecisionSummary) -> Standing {
    standing(
      s.arms.map { ($0.arm, $0.primary.trueRelativeLift ?? $0.primary.trueDifference) }, higherIsBetter: s.primary.higherIsBetter,
      margin: s.primary.relativeMargin)
  }

  /// Whether `r` is the decision the truth calls for.
  static func designCheck(_ r: Recommendation, _ s: DecisionSummary) -> Recommendation.DesignCheck {
    designCheck(
      shipped: r.action == .ship ? r.arm : nil, trueStanding: trueStanding(s),
      trueLifts: Dictionary(s.arms.map { ($0.arm, $0.primary.trueRelativeLift) }, uniquingKeysWith: { a, _ in a }), metric: s.primary)
  }

  /// Whether shipping `shipped` (`nil`: nothing) is the decision the truth calls for, given the
  /// arms' ``Standing`` by the truth and their true relative lifts (`metric`'s margin).
  package static func designCheck(
    shipped: String?, trueStanding: Standing, trueLifts: [String: Double?], metric: DecisionSummary.Metric
  ) -> Recommendation.DesignCheck {
    func lift(_ id: String?) -> Double? { id.flatMap { trueLifts[$0] ?? nil } }
    let trulyBest: [String]
    switch trueStanding {
    case .best(let arm): trulyBest = [arm]
    case .equivalent(let arms): trulyBest = arms
    case .noneBeatsControl, .nothingToCompare: trulyBest = []
    }
    let best = trulyBest.contains { $0 == shipped } ? nil : trulyBest.first
    let kind: Recommendation.DesignCheck.Kind
    if let l = lift(shipped), negligible(relativeLift: l, relativeMargin: metric.relativeMargin) {
      kind = .shipsNegligible
    } else if let l = lift(shipped), (l > 0) != metric.higherIsBetter {
      kind = .shipsWorse
    } else if best != nil {
      kind = shipped == nil ? .holdsBackBest : .shipsNotBest
    } else {
      kind = .right
    }
    return Recommendation.DesignCheck(kind, shipped: shipped, shippedTrueLift: lift(shipped), best: best, bestTrueLift: lift(best))
  }
}
