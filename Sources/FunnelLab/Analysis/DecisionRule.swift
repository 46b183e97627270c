/// The one decision rule of FunnelLab: how exact values are compared (ties), which effects are
/// too small to matter (the practical-equivalence margin), which arm is best, and what to do
/// about an experiment (``Recommendation``). Every command decides here and only renders.
///
/// It follows three published practices:
/// - **Practical significance** (Kohavi, Tang and Xu, *Trustworthy Online Controlled
///   Experiments*, ch. 2): a result ships when it is statistically significant *and* larger
///   than the smallest effect worth acting on; a significant effect inside that margin is
///   negligible.
/// - **Success and guardrail metrics** (Schultzberg, Ankargren and Frånberg, Spotify's
///   "risk-aware product decision rules"): ship only when the success metric is significantly
///   better and every guardrail is shown non-inferior; a violated guardrail blocks the ship.
/// - **Decision framework** (GrowthBook): one recommendation for the whole experiment (ship,
///   keep running, stop, do not trust), read against the planned size.
///
/// `docs/decision-rule.md` states the rule for users.
package enum DecisionRule {
  /// Two exact values closer than this, relative to the larger magnitude (absolute below 1),
  /// are equal: a tie. The exact engine's values are sums of thousands of terms of order 1,
  /// so two variants that differ only after a metric is decided can still differ by a few
  /// units in the last place (~1e-16); 1e-12 is four orders above that rounding and far below
  /// any effect a test could detect (10⁻¹² of a rate needs ~10²⁴ users).
  package static let tieTolerance = 1e-12

  /// The practical-equivalence margin when a command has no spec and no flag: ±1 % of the
  /// control's value (``MetricsSpec/defaultEquivalenceMargin``).
  package static let defaultRelativeMargin = MetricsSpec.defaultEquivalenceMargin

  /// Whether `a` and `b` are equal within ``tieTolerance``.
  package static func tied(_ a: Double, _ b: Double) -> Bool {
    abs(a - b) <= tieTolerance * max(1, abs(a), abs(b))
  }

  /// The exact difference `value − control`, exactly 0 when the two are tied.
  package static func difference(_ value: Double, control: Double) -> Double {
    tied(value, control) ? 0 : value - control
  }

  /// The exact relative lift `value / control − 1`, exactly 0 when the two are tied; `nil`
  /// when the control's value is 0.
  package static func relativeLift(_ value: Double, control: Double) -> Double? {
    guard control != 0 else { return nil }
    return tied(value, control) ? 0 : (value - control) / control
  }

  /// The margin in the metric's unit: `relative × |control|`, never below the tie tolerance.
  package static func margin(relative: Double, control: Double) -> Double {
    max(relative * abs(control), tieTolerance * max(1, abs(control)))
  }

  /// How a set of arms stands against the control and each other on one metric.
  package enum Standing: Sendable, Hashable {
    /// One arm beats the control and every other arm by more than the margin.
    case best(String)
    /// The top arm beats the control by more than the margin but not every other arm: these
    /// arms lie within the margin of the top (the top first), best first.
    case equivalent([String])
    /// No arm beats the control by more than the margin; `negligible` lists the arms whose
    /// difference is inside it (tied or negligible), the others are worse.
    case noneBeatsControl(negligible: [String])
    /// Only the control: nothing to compare.
    case nothingToCompare
  }

  /// Ranks `arms` (id and difference against the control, in the metric's unit) by the
  /// margin (absolute, ≥ 0): the best arm only when it beats the control and every other arm
  /// by more than the margin (and the tie tolerance); otherwise the arms equivalent to the
  /// top. Arms without a value are left out.
  package static func standing(
    _ arms: [(id: String, difference: Double?)], higherIsBetter: Bool, margin: Double
  ) -> Standing {
    guard !arms.isEmpty else { return .nothingToCompare }
    let sign = higherIsBetter ? 1.0 : -1.0
    let gains = arms.compactMap { a in a.difference.map { (id: a.id, gain: $0 * sign) } }
    let beating = gains.filter { $0.gain > margin && !tied($0.gain, 0) }
    guard let top = beating.max(by: { $0.gain < $1.gain }) else {
      return .noneBeatsControl(negligible: gains.filter { abs($0.gain) <= margin || tied($0.gain, 0) }.map(\.id))
    }
    let rivals = gains.filter { $0.id != top.id && (top.gain - $0.gain <= margin || tied(top.gain, $0.gain)) }
    guard !rivals.isEmpty else { return .best(top.id) }
    let order = Dictionary(uniqueKeysWithValues: arms.enumerated().map { ($1.id, $0) })
    let equivalent = ([top] + rivals).sorted { ($0.gain, -order[$0.id, default: 0]) > ($1.gain, -order[$1.id, default: 0]) }
    return .equivalent(equivalent.map(\.id))
  }
}

extension DecisionRule {
  /// Whether an observed or true relative lift is inside the practical-equivalence margin
  /// (`relativeMargin`, a share of the control's value): too small to matter.
  package static func negligible(relativeLift: Double, relativeMargin: Double) -> Bool {
    abs(relativeLift) <= relativeMargin || tied(relativeLift, 0)
  }

  /// An arm's decision on its primary metric and guardrails (Spotify's rule with Kohavi's
  /// practical significance): **do not ship** on a violated guardrail or a significant
  /// worsening larger than the margin; **ship** on a significant improvement larger than the
  /// margin with every guardrail `ok`; otherwise **no decision**.
  /// `difference` and `relativeLift` are the observed effect (the lift judges the margin; a
  /// difference without a lift, on a control of 0, is never negligible unless it is 0).
  package static func decide(
    significant: Bool, difference: Double?, relativeLift: Double?, higherIsBetter: Bool, relativeMargin: Double,
    guardrails: [GuardrailStatus]
  ) -> Decision {
    if guardrails.contains(.violated) { return .doNotShip }
    guard significant, let d = difference, d != 0 else { return .noDecision }
    if let lift = relativeLift, negligible(relativeLift: lift, relativeMargin: relativeMargin) { return .noDecision }
    let better = (d > 0) == higherIsBetter
    if !better { return .doNotShip }
    return guardrails.contains(.inconclusive) ? .noDecision : .ship
  }
}
