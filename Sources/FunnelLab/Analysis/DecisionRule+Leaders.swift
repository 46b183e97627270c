extension DecisionRule {
  /// The standing of arms by their exact values (the truth) on one metric: the control's
  /// value `control`, each other arm's value, the margin `relativeMargin × |control|` in the
  /// metric's unit (never below the tie tolerance, so a control of 0 still compares). Every
  /// difference is ``difference(_:control:)``, exactly 0 for a tie; an arm without a value is
  /// left out. ``Standing/nothingToCompare`` when there is no other arm.
  package static func standing(
    control: Double?, arms: [(id: String, value: Double?)], higherIsBetter: Bool, relativeMargin: Double
  ) -> Standing {
    guard !arms.isEmpty else { return .nothingToCompare }
    guard let control else { return .noneBeatsControl(negligible: []) }
    return standing(
      arms.map { a in (a.id, a.value.map { difference($0, control: control) }) }, higherIsBetter: higherIsBetter,
      margin: margin(relative: relativeMargin, control: control))
  }
}

extension DecisionRule.Standing {
  /// The arms that lead, the control (`control`) among them: the one best arm; the arms
  /// equivalent to the top (best first); or, when no arm beats the control by more than the
  /// margin, the control and the arms within the margin of it (tied or negligible). One id is
  /// a clear leader; several are a tie (equal within the tie tolerance or the margin).
  package func leaders(control: String) -> [String] {
    switch self {
    case .best(let arm): [arm]
    case .equivalent(let arms): arms
    case .noneBeatsControl(let negligible): [control] + negligible
    case .nothingToCompare: [control]
    }
  }

  /// The case's JSON identifier: `best`, `equivalent`, `noneBeatsControl`, `nothingToCompare`.
  package var code: String {
    switch self {
    case .best: "best"
    case .equivalent: "equivalent"
    case .noneBeatsControl: "noneBeatsControl"
    case .nothingToCompare: "nothingToCompare"
    }
  }

  /// The arms the case names: the best, the equivalent arms (best first), the arms inside the
  /// margin of the control, or none.
  package var arms: [String] {
    switch self {
    case .best(let arm): [arm]
    case .equivalent(let arms), .noneBeatsControl(let arms): arms
    case .nothingToCompare: []
    }
  }
}
