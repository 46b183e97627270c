extension Calibration {
  /// Refuses a fit whose probabilities break the flow: a screen no longer reachable, or no path
  /// to completion. The spec was valid as given, so the problem is the data's and is named by
  /// the data (`source`), with the fitted actions that reached 0 or 1 and what they break.
  ///
  /// - Parameters:
  ///   - original: the spec as given (valid).
  ///   - fitted: the same spec with the fitted (or written) probabilities.
  /// - Throws: ``SpecErrors`` from `source` when `fitted` breaks the flow.
  package static func refuseBrokenFlow(_ original: Experiment, fitted: Experiment, source: String) throws(SpecErrors) {
    let broken = fitted.validationErrors().filter { $0.kind == .unreachable }
    guard !broken.isEmpty else { return }
    var moved: [String] = []
    for (screen, before) in zip(fitted.flow.screens, original.flow.screens) {
      for (action, old) in zip(screen.actions, before.actions) {
        guard let p = action.probability, let q = old.probability else { continue }
        if p == 0, q > 0 { moved.append("\(screen.id).\(action.id) to 0") }
        if p == 1, q < 1 { moved.append("\(screen.id).\(action.id) to 1") }
      }
    }
    let drives = moved.isEmpty ? "the fitted probabilities" : "the fit drives " + moved.joined(separator: ", ")
    let errors = broken.map { problem in
      SpecError(
        .unreachable, path: .root, message: "\(drives), which leaves the flow broken: \(problem.message)",
        hint: "check the export for missing rows, or give the spec another way there")
    }
    throw SpecErrors(source: source, errors: errors)
  }
}
