package import FunnelStats

/// A test read day by day (``SequentialAnalysis``): where each arm's sequential test stands,
/// how far along the whole test is, and the one recommendation across arms that follows.
///
/// The group-sequential boundary decides a test that is peeked at, so it replaces the
/// fixed-horizon call of the last day (an interim look while the test runs): an arm whose
/// `|z|` crossed its boundary is significant, at the lift of that look; every other arm is not
/// (yet). The boundary is defined only against a planned size: without one no arm is decided
/// and the test keeps running, its planned size unknown, never "stopped" or "ended".
extension DecisionRule {
  /// Where one arm's sequential test stands after the last look.
  package struct SequentialArm: Sendable, Hashable {
    /// The state of the arm's test.
    package enum State: String, Sendable, Hashable, CaseIterable {
      /// `|z|` crossed the boundary before the planned size: the test of this arm stopped early.
      case stoppedEarly
      /// `|z|` crossed the final boundary at the planned size.
      case crossedAtPlannedSize
      /// The planned size was reached without crossing: no difference shown.
      case noDifferenceAtPlannedSize
      /// Below the planned size, the boundary not crossed: keep running.
      case running
      /// Read without a planned size: the boundary is not defined, so nothing is decided yet.
      case plannedSizeUnknown
    }

    /// The arm's variant id.
    package var arm: String
    /// Where its test stands.
    package var state: State
    /// The look that decided it (the crossing or the planned end), else the last look.
    package var look: SequentialAnalysis.Row?

    /// Whether the boundary was crossed (the arm's test is significant).
    package var crossed: Bool { state == .stoppedEarly || state == .crossedAtPlannedSize }
  }

  /// The sequential state of a test read day by day: each arm's test and how far along the
  /// whole test is.
  package struct SequentialRead: Sendable, Hashable {
    /// Each non-control arm, in the report's order.
    package var arms: [SequentialArm]
    /// How far along the test is; `nil` when it is over (the planned size reached, or every
    /// arm's test decided).
    package var progress: Recommendation.Progress?
  }

  /// The state of `report`'s arms and the test's progress: an arm is decided only against a
  /// known planned size (``SequentialAnalysis/Settings/plannedUsers``); the days left are at
  /// the observed rate, users so far over looks so far.
  package static func sequentialRead(_ report: SequentialAnalysis.Report) -> SequentialRead {
    let planned = report.settings.plannedUsers
    let ids = report.rows.reduce(into: [String]()) { if !$0.contains($1.arm) { $0.append($1.arm) } }
    let arms = ids.map { id in
      let rows = report.rows.filter { $0.arm == id }
      guard planned != nil else { return SequentialArm(arm: id, state: .plannedSizeUnknown, look: rows.last) }
      let decided = rows.first { [.stopForEfficacy, .finalSignificant, .finalNotSignificant].contains($0.decision) }
      let state: SequentialArm.State
      switch decided?.decision {
      case .stopForEfficacy?: state = .stoppedEarly
      case .finalSignificant?: state = .crossedAtPlannedSize
      case .finalNotSignificant?: state = .noDifferenceAtPlannedSize
      default: state = .running
      }
      return SequentialArm(arm: id, state: state, look: decided ?? rows.last)
    }
    guard let planned else { return SequentialRead(arms: arms, progress: Recommendation.Progress(shareOfPlannedSize: nil, daysLeft: nil)) }
    let over = report.reachedPlannedEnd || arms.allSatisfy { $0.state != .running }
    let users = report.users.last ?? 0
    return SequentialRead(
      arms: arms, progress: over ? nil : progress(users: users, looks: report.days.count, plannedUsers: planned))
  }

  /// Users so far over the planned users, and the days left at the observed rate (`users /
  /// looks` a day): `⌈(planned − users) / rate⌉`, `nil` without a user.
  package static func progress(users: Int, looks: Int, plannedUsers: Int) -> Recommendation.Progress {
    let share = min(1, Double(users) / Double(max(plannedUsers, 1)))
    guard users > 0, looks > 0 else { return Recommendation.Progress(shareOfPlannedSize: share, daysLeft: nil) }
    let rate = Double(users) / Double(looks)
    let left = (Double(max(plannedUsers - users, 0)) / rate * (1 - 1e-12)).rounded(.up)
    return Recommendation.Progress(shareOfPlannedSize: share, daysLeft: Int(left))
  }

  /// The planned users of a test planned to run `plannedDays` at the rate observed so far
  /// (`users` over `looks` days), rounded to the nearest user; never below `users`.
  package static func plannedUsers(plannedDays: Int, users: Int, looks: Int) -> Int {
    guard looks > 0 else { return max(users, 1) }
    let planned = (Double(users) / Double(looks) * Double(plannedDays)).rounded()
    return max(users, 1, planned < 1e15 ? Int(planned) : Int(1e15))
  }

  /// The recommendation for a test read day by day: `summary`'s arms (guardrails, revenue,
  /// the split, the truth) decided by `report`'s sequential boundary instead of the
  /// fixed-horizon read of the last day (``DecisionSummary/readOverTime(_:)``).
  package static func recommend(_ summary: DecisionSummary, sequential report: SequentialAnalysis.Report) -> Recommendation {
    summary.readOverTime(report).recommendation
  }
}

extension DecisionSummary {
  /// This summary decided by a test read day by day (``DecisionRule/sequentialRead(_:)``):
  /// each arm's primary effect is the lift of the look that decided it (its repeated
  /// confidence interval beside it), significant only when the boundary was crossed; the
  /// decision is the rule's on that effect and the arm's guardrails; ``progress`` is the
  /// test's. The truth, guardrails and revenue stay as they are.
  package func readOverTime(_ report: SequentialAnalysis.Report) -> DecisionSummary {
    let read = DecisionRule.sequentialRead(report)
    var s = self
    s.progress = read.progress
    s.arms = arms.map { a in
      guard let state = read.arms.first(where: { $0.arm == a.arm }) else { return a }
      var line = a
      line.primary = sequentialEffect(a.primary, state)
      line.call = Self.call(line.primary, sampleRatioMismatch: sampleRatioMismatch)
      if a.decision != nil {
        line.decision = DecisionRule.decide(
          significant: line.primary.significant, difference: line.primary.difference?.estimate,
          relativeLift: line.primary.relativeLift?.estimate, higherIsBetter: primary.higherIsBetter,
          relativeMargin: primary.relativeMargin, guardrails: a.guardrails.map(\.status))
      }
      if line.decision != a.decision { line.conflict = nil }
      return line
    }
    return s
  }

  /// The primary effect at the look that decided `state` (the last look while it runs).
  func sequentialEffect(_ fixed: Effect, _ state: DecisionRule.SequentialArm) -> Effect {
    var e = fixed
    let look = state.look
    e.relativeLift = IntervalEstimate(estimate: look?.relativeLift, interval: look?.repeatedInterval)
    let difference = look.flatMap { row in row.rate.flatMap { rate in row.controlRate.map { rate - $0 } } }
    e.difference = IntervalEstimate(estimate: difference, interval: nil)
    e.significant = state.crossed
    e.probabilityToBeatControl = nil
    e.verdict = nil
    return e
  }
}
