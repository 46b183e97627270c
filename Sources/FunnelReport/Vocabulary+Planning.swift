import FunnelLab

/// The words of plans (``PlannedEffect``) and of the margin tests of `analyze --margin`
/// (``NonInferiorityResult``), in the glossary's vocabulary.
extension Vocabulary {
  /// The margin word: worse by less than the margin, shown by a one-sided test.
  static let nonInferior = "non-inferior"

  /// What a test of a planned variant would find: `it wins`, `it loses`, `negligible`, `no effect`.
  static func word(_ e: PlannedEffect) -> String {
    switch e {
    case .better: "it wins"
    case .worse: "it loses"
    case .negligible: "negligible"
    case .none: "no effect"
    }
  }

  /// The colour of a planned variant: green for a win, red for a loss, none for a negligible
  /// effect or none at all (colour follows the call).
  static func tone(_ e: PlannedEffect) -> Tone? {
    switch e {
    case .better: .good
    case .worse: .bad
    case .none, .negligible: nil
    }
  }
}
