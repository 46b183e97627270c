import Foundation

/// A running experiment read look by look (a look a day): for every arm against the control,
/// the cumulative relative lift with the fixed-horizon interval, the group-sequential
/// boundary and decision, and two always-valid results that hold however often one looks.
///
/// At each look `k` with cumulative counts, the relative lift `L = p̂₁/p̂₀ − 1` has the
/// delta-method standard error `SE = √(v₁/(p̂₀² n₁) + v₀ p̂₁²/(p̂₀⁴ n₀))`, `v = p̂(1 − p̂)`
/// (GrowthBook's), and `z = L/SE`.
/// - **Fixed horizon**: `L ± z₁₋α/₂·SE` and `p = 2Φ(−|z|)`, valid only at the planned end;
///   read every day, it rejects far more often than α (the naive daily read).
/// - **Group-sequential** (``GroupSequentialDesign``): α is spent by the **observed**
///   information fraction `t_k = users so far / planned users` (all arms), the boundary `c_k`
///   from the recursion over the looks so far; the look that reaches the planned users is the
///   final one (`t = 1`, all α spent). Stop for efficacy when `|z| ≥ c_k`; the repeated
///   confidence interval `L ± c_k·SE` (Jennison & Turnbull) excludes 0 exactly then, so the
///   decision never contradicts the interval beside it. Without planned users the last look is
///   taken as the planned end (a read of a finished test).
/// - **Always valid**: the asymptotic confidence sequence of the lift with its running-minimum
///   p-value (``AsymptoticConfidenceSequence``, as GrowthBook), and the mSPRT p-value of the
///   difference (``AlwaysValidProportionTest``, as Optimizely).
///
/// Each comparison is made at ``Settings/alpha``; with several arms pass α divided by their
/// number (Bonferroni) for a family-wise guarantee. Two-sided only.
///
/// - Complexity: O(K · G²) for the boundaries of K looks (``GroupSequentialDesign``), then
///   O(K · arms).
public enum SequentialAnalysis {
  /// Settings with documented defaults.
  public struct Settings: Sendable, Hashable, Codable {
    /// Two-sided significance level of each comparison. Default 0.05.
    public var alpha: Double
    /// The group-sequential spending function. Default O'Brien–Fleming type.
    public var spending: GroupSequentialDesign.Spending
    /// Planned users over all arms; `nil` (default) takes the last look as the planned end.
    public var plannedUsers: Int?
    /// The mSPRT's mixing standard deviation τ on the difference. Default 0.01.
    public var mixingStandardDeviation: Double
    /// The confidence sequence's tuning parameter `n*`. Default 5,000.
    public var tuningParameter: Double

    /// Creates settings.
    public init(
      alpha: Double = 0.05, spending: GroupSequentialDesign.Spending = .obrienFleming, plannedUsers: Int? = nil,
      mixingStandardDeviation: Double = 0.01, tuningParameter: Double = 5_000
    ) {
      self.alpha = alpha
      self.spending = spending
      self.plannedUsers = plannedUsers
      self.mixingStandardDeviation = mixingStandardDeviation
      self.tuningParameter = tuningParameter
    }
  }

  /// α for each of `comparisons` arms read against the control: `alpha / comparisons`
  /// (Bonferroni: the family-wise error stays at most `alpha` however the reads correlate) when
  /// `split` and there are several, else `alpha`.
  public static func comparisonAlpha(_ alpha: Double, comparisons: Int, split: Bool) -> Double {
    split && comparisons > 1 ? alpha / Double(comparisons) : alpha
  }

  /// The cumulative counts of every arm at one look.
  public struct Look: Sendable, Hashable, Codable {
    /// The look's label, e.g. a day number or date.
    public var day: String
    /// Cumulative counts of every arm, in the same order at every look.
    public var arms: [ArmData]

    /// Creates a look.
    public init(day: String, arms: [ArmData]) {
      self.day = day
      self.arms = arms
    }
  }

  /// The group-sequential decision for an arm at a look.
  public enum Decision: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not significant yet: keep the test running.
    case continueTest = "continue"
    /// `|z| ≥ c_k` before the planned end: stop, the arm differs from the control.
    case stopForEfficacy = "stop"
    /// The planned end, with `|z| ≥ c_K`: the arm differs from the control.
    case finalSignificant = "final-significant"
    /// The planned end without crossing: no difference shown.
    case finalNotSignificant = "final-not-significant"
    /// The test had already stopped or ended at an earlier look.
    case ended
    /// Not a look: no user arrived since the previous look, or fewer than
    /// ``SequentialAnalysis/minimumInformationIncrement`` of the planned users.
    case notALook = "not-a-look"
  }

  /// One arm against the control at one look.
  public struct Row: Sendable, Hashable, Codable {
    /// The look's label.
    public var day: String
    /// The arm.
    public var arm: String
    /// Cumulative users and conversions of the arm.
    public var users: Int
    /// Cumulative conversions of the arm.
    public var conversions: Int
    /// The arm's rate, `nil` without users.
    public var rate: Double?
    /// The control's rate, `nil` without users.
    public var controlRate: Double?
    /// `p̂₁/p̂₀ − 1`, `nil` while the control has no conversion.
    public var relativeLift: Double?
    /// Delta-method standard error of the lift, `nil` while the lift or its variance is undefined.
    public var standardError: Double?
    /// `lift / SE`.
    public var zStatistic: Double?
    /// The fixed-horizon interval `L ± z₁₋α/₂·SE`, valid only at the planned end.
    public var fixedInterval: ConfidenceInterval?
    /// The fixed-horizon p-value `2Φ(−|z|)` (the naive read).
    public var fixedPValue: Double?
    /// The information fraction of this look, `nil` when it is not a look.
    public var informationFraction: Double?
    /// The boundary `c_k` on `|z|` at this look, `nil` when it is not a look.
    public var boundary: Double?
    /// The repeated confidence interval `L ± c_k·SE`.
    public var repeatedInterval: ConfidenceInterval?
    /// The group-sequential decision.
    public var decision: Decision
    /// The asymptotic confidence sequence of the lift: the running intersection of the
    /// sequences of every look so far (itself a confidence sequence, Howard et al. 2021), so it
    /// excludes 0 exactly when ``alwaysValidPValue`` is at most α; `nil` when the intersection
    /// is empty (the data drifted; the always-valid p-value has then rejected).
    public var confidenceSequence: ConfidenceInterval?
    /// Running minimum of the confidence sequence's p-value: the always-valid p-value.
    public var alwaysValidPValue: Double?
    /// This look's own confidence sequence, as GrowthBook shows it.
    public var confidenceSequenceAtLook: ConfidenceInterval?
    /// This look's own p-value of the confidence sequence, as GrowthBook shows it.
    public var sequencePValueAtLook: Double?
    /// Running minimum of the mSPRT p-value of the difference.
    public var msprtPValue: Double?
  }

  /// The analysis.
  public struct Report: Sendable, Hashable, Codable {
    /// The settings used.
    public var settings: Settings
    /// The control arm.
    public var control: String
    /// The labels of the looks, in order.
    public var days: [String]
    /// Users over all arms at each look.
    public var users: [Int]
    /// The group-sequential design over the looks made (information fractions and boundaries).
    public var design: GroupSequentialDesign
    /// `true` when the looks reached the planned users (or no plan was given).
    public var reachedPlannedEnd: Bool
    /// One row per look and non-control arm, look by look.
    public var rows: [Row]
  }

  /// Analyzes cumulative counts look by look.
  ///
  /// - Throws: ``StatsError`` naming `looks[k].arms[i]…` for invalid counts, counts that
  ///   decrease from one look to the next, arms that differ between looks, an unknown control
  ///   or invalid settings.
  public static func analyze(looks: [Look], control: String, settings: Settings = Settings()) throws(StatsError) -> Report {
    let plan = try plan(looks: looks, control: control, settings: settings)
    let design = try GroupSequentialDesign(
      informationFractions: plan.fractions, alpha: settings.alpha, spending: settings.spending)
    return try analyze(looks: looks, control: control, settings: settings, plan: plan, design: design)
  }

  /// The smallest information increment that makes a day a look (0.5 % of the planned users):
  /// the recursion's grid cannot resolve a smaller step (its boundary would be off by more than
  /// 1e-7), and a day that adds so little barely informs. Such a day's users count at the next
  /// look; the look that reaches the planned users is always made.
  public static let minimumInformationIncrement = 0.005

  /// The looks' information fractions and which look is which.
  struct Plan: Hashable {
    /// Fractions of the looks made, strictly increasing.
    var fractions: [Double]
    /// For each day, the index of its look in `fractions`, `nil` when it is not a look.
    var lookIndex: [Int?]
    /// The index of the final look, when the planned end was reached.
    var finalLook: Int?
  }

  static func plan(looks: [Look], control: String, settings: Settings) throws(StatsError) -> Plan {
    try validate(looks: looks, control: control, settings: settings)
    let totals = looks.map { $0.arms.reduce(0) { $0 + $1.users } }
    let planned = settings.plannedUsers ?? (totals.last ?? 0)
    var fractions: [Double] = []
    var lookIndex: [Int?] = []
    var finalLook: Int?
    for total in totals {
      let t = min(1, Double(total) / Double(max(planned, 1)))
      let last = fractions.last ?? 0
      let enough = fractions.isEmpty || t - last >= minimumInformationIncrement || t >= 1
      guard finalLook == nil, total > 0, t > last, enough else {
        lookIndex.append(nil)
        continue
      }
      fractions.append(t)
      lookIndex.append(fractions.count - 1)
      if t >= 1 { finalLook = fractions.count - 1 }
    }
    if fractions.isEmpty {
      throw StatsError(.emptyArm, field: [.name(.looks)], message: "no look has any user", hint: "give counts with users")
    }
    return Plan(fractions: fractions, lookIndex: lookIndex, finalLook: finalLook)
  }

  static func validate(looks: [Look], control: String, settings: Settings) throws(StatsError) {
    try checkLevel(settings.alpha, field: [.name(.settings), .name(.alpha)])
    if let planned = settings.plannedUsers, planned < 1 || planned > StatsLimits.maxCount {
      throw StatsError(.invalidParameter, field: [.name(.settings), .name(.plannedUsers)], message: "must be in 1...10^15, got \(planned)")
    }
    guard settings.tuningParameter > 0, settings.tuningParameter.isFinite else {
      throw StatsError(.invalidParameter, field: [.name(.settings), .name(.tuningParameter)], message: "must be positive and finite")
    }
    guard let first = looks.first, looks.count <= GroupSequentialDesign.maxLooks else {
      throw StatsError(
        .dimensionMismatch, field: [.name(.looks)], message: "needs 1...\(GroupSequentialDesign.maxLooks) looks, got \(looks.count)")
    }
    let names = first.arms.map(\.name)
    guard names.count >= 2, names.count <= StatsLimits.maxArms else {
      throw StatsError(
        .dimensionMismatch, field: [.name(.looks), .index(0), .name(.arms)],
        message: "needs 2...\(StatsLimits.maxArms) arms, got \(names.count)")
    }
    guard names.contains(control) else {
      throw StatsError(
        .unknownName, field: [.name(.control)], message: "'\(control)' is not an arm", hint: "arms: \(names.joined(separator: ", "))")
    }
    for (k, look) in looks.enumerated() {
      guard look.arms.map(\.name) == names else {
        throw StatsError(
          .dimensionMismatch, field: [.name(.looks), .index(k), .name(.arms)],
          message: "the arms differ from the first look's (\(names.joined(separator: ", ")))"
        )
      }
      for (i, arm) in look.arms.enumerated() {
        if let problem = arm.validationErrors(field: [.name(.looks), .index(k), .name(.arms), .index(i)]).first { throw problem }
        guard k > 0 else { continue }
        let before = looks[k - 1].arms[i]
        if arm.users < before.users || arm.conversions < before.conversions {
          throw StatsError(
            .invalidParameter, field: [.name(.looks), .index(k), .name(.arms), .index(i)],
            message: "cumulative counts decrease (\(before.users):\(before.conversions) before, \(arm.users):\(arm.conversions) now)",
            hint: "counts are running totals; give each day's own counts as daily counts instead")
        }
      }
    }
  }

  /// The analysis with a design already computed for `plan` (the A/A replicates share one).
  static func analyze(looks: [Look], control: String, settings: Settings, plan: Plan, design: GroupSequentialDesign)
    throws(StatsError) -> Report
  {
    let names = looks.first?.arms.map(\.name) ?? []
    let controlIndex = names.firstIndex(of: control) ?? 0
    let treated = names.indices.filter { $0 != controlIndex }
    var trackers: [ArmTracker] = []
    for _ in treated { trackers.append(try ArmTracker(settings: settings)) }
    var rows: [Row] = []
    for (k, look) in looks.enumerated() {
      let lookIndex = plan.lookIndex[k]
      for (j, i) in treated.enumerated() {
        rows.append(
          try trackers[j].row(
            day: look.day, arm: look.arms[i], control: look.arms[controlIndex], lookIndex: lookIndex,
            isFinal: lookIndex != nil && lookIndex == plan.finalLook, design: design))
      }
    }
    return Report(
      settings: settings, control: control, days: looks.map(\.day),
      users: looks.map { $0.arms.reduce(0) { $0 + $1.users } }, design: design,
      reachedPlannedEnd: plan.finalLook != nil, rows: rows)
  }

  /// One arm's state across looks: the running minima and whether its test has ended.
  struct ArmTracker {
    var settings: Settings
    var msprt: AlwaysValidProportionTest
    /// The fixed-horizon interval's two-sided critical value `z₁₋α/₂`.
    let zFixed: Double
    var csMinimum = 1.0
    /// The running intersection of the sequences; `nil` once it is empty.
    var csBounds: ClosedRange<Double>? = -Double.infinity...Double.infinity
    var ended = false

    init(settings: Settings) throws(StatsError) {
      self.settings = settings
      zFixed = -Normal.standardQuantile(p: settings.alpha / 2, q: 1 - settings.alpha / 2)
      msprt = try AlwaysValidProportionTest(
        settings: .init(alpha: settings.alpha, mixingStandardDeviation: settings.mixingStandardDeviation))
    }

    mutating func row(day: String, arm: ArmData, control: ArmData, lookIndex: Int?, isFinal: Bool, design: GroupSequentialDesign)
      throws(StatsError) -> Row
    {
      let treated = try ProportionCount(successes: arm.conversions, trials: arm.users)
      let controlCount = try ProportionCount(successes: control.conversions, trials: control.users)
      var row = Row(
        day: day, arm: arm.name, users: arm.users, conversions: arm.conversions, rate: treated.rate,
        controlRate: controlCount.rate, decision: ended ? .ended : .notALook)
      if let cs = try AsymptoticConfidenceSequence.proportions(
        control: controlCount, treatment: treated,
        settings: .init(alpha: settings.alpha, tuningParameter: settings.tuningParameter))
      {
        let se = cs.variance.squareRoot()
        let z = cs.estimate / se
        row.relativeLift = cs.estimate
        row.standardError = se
        row.zStatistic = z
        row.fixedInterval = ConfidenceInterval(
          lower: cs.estimate - zFixed * se, upper: cs.estimate + zFixed * se, confidenceLevel: 1 - settings.alpha,
          method: "delta method, fixed horizon")
        row.fixedPValue = 2 * Normal.standardCDF(-abs(z))
        csMinimum = min(csMinimum, cs.pValue)
        row.alwaysValidPValue = csMinimum
        row.confidenceSequenceAtLook = cs.interval
        row.sequencePValueAtLook = cs.pValue
        if let bounds = csBounds {
          let lower = max(bounds.lowerBound, cs.interval.lower)
          let upper = min(bounds.upperBound, cs.interval.upper)
          csBounds = lower <= upper ? lower...upper : nil
          row.confidenceSequence = csBounds.map {
            ConfidenceInterval(
              lower: $0.lowerBound, upper: $0.upperBound, confidenceLevel: cs.interval.confidenceLevel,
              method: cs.interval.method + ", running intersection")
          }
        }
      }
      if treated.trials > 0, controlCount.trials > 0 {
        row.msprtPValue = try msprt.update(treatment: treated, control: controlCount).pValue
      }
      guard let lookIndex, !ended, design.boundaries.indices.contains(lookIndex) else { return row }
      let c = design.boundaries[lookIndex]
      row.informationFraction = design.informationFractions[lookIndex]
      row.boundary = c
      if let lift = row.relativeLift, let se = row.standardError {
        row.repeatedInterval = ConfidenceInterval(
          lower: lift - c * se, upper: lift + c * se, confidenceLevel: 1 - settings.alpha, method: "repeated confidence interval")
      }
      let crossed = row.zStatistic.map { abs($0) >= c } ?? false
      switch (crossed, isFinal) {
      case (true, false): row.decision = .stopForEfficacy
      case (true, true): row.decision = .finalSignificant
      case (false, true): row.decision = .finalNotSignificant
      case (false, false): row.decision = .continueTest
      }
      ended = crossed || isFinal
      return row
    }
  }
}
