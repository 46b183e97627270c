extension GridReport {
  /// The rank-1 cell (best exact primary metric, the control aside); `nil` for a grid without cells.
  package var top: Cell? { cells.first { $0.rank == 1 } }

  /// The relative practical-equivalence margin of the primary metric (``MetricsSpec/relativeMargin(for:)``).
  package var relativeMargin: Double { spec.relativeMargin(for: spec.primary) }

  /// How the cells stand against the control on the exact primary metric, by the one decision
  /// rule (``DecisionRule/standing(control:arms:higherIsBetter:relativeMargin:)`` with the spec's
  /// margin): one best cell only when it beats the control and every other cell by more than
  /// the margin; otherwise the cells equivalent to the top, or none beats the control.
  package var standing: DecisionRule.Standing {
    guard let control = cells.first else { return .nothingToCompare }
    return DecisionRule.standing(
      control: control.exact, arms: cells.dropFirst().map { ($0.variant, $0.exact) }, higherIsBetter: spec.primary.higherIsBetter,
      relativeMargin: relativeMargin)
  }

  /// Whether `cell`'s exact primary metric equals the control's: a difference of exactly 0
  /// (``DecisionRule/difference(_:control:)``), the control's own configuration or a change
  /// the metric does not see.
  package static func equalsControl(_ cell: Cell) -> Bool { cell.exactDifference == 0 }

  /// Whether the top cell beats the control by more than the margin (``standing`` is best or equivalent).
  package var topBeatsControl: Bool {
    switch standing {
    case .best, .equivalent: true
    case .noneBeatsControl, .nothingToCompare: false
    }
  }
}
