package import FunnelLab

/// Renders a ``Calibration`` as a terminal report.
package enum CalibrationRenderer {
  static func f(_ x: Double) -> String { CheckRenderer.format(x) }

  static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
    if s.count >= width { return s }
    let fill = String(repeating: " ", count: width - s.count)
    return right ? fill + s : s + fill
  }

  /// Every observed action: views, observed rate with its interval, the rate the
  /// spec implies, the spec's and the fitted probability; then the G-tests.
  package static func table(experiment: String, observedPath: String, calibration c: Calibration) -> String {
    var out = "\(experiment) · calibrated against \(observedPath)\n"
    out += "Fitted: the base probability of every explicit action on the \(c.screens.count) observed screens (behavior parameters\n"
    out +=
      "and segment overrides kept), until the exact engine's expected per-view rates match the observed ones: \(c.iterations) iterations.\n\n"
    let sw = max(6, c.actions.map(\.screen.count).max() ?? 0)
    let aw = max(6, c.actions.map(\.action.count).max() ?? 0)
    let level = c.actions.first?.interval.map { f(($0.confidenceLevel * 1000).rounded() / 10) + "%" } ?? ""
    out += "  " + pad("screen", sw) + "  " + pad("action", aw) + "  " + pad("count", 6, right: true) + "  " + pad("views", 6, right: true)
    out += "  " + pad("observed", 8, right: true) + "  " + pad("\(level) interval", 20) + "  " + pad("assumed", 8, right: true)
    out += "  " + pad("spec p", 7, right: true) + "  " + pad("fitted p", 8, right: true) + "\n"
    for a in c.actions {
      let interval = a.interval.map { "[\(f($0.lower)), \(f($0.upper))]" } ?? "—"
      out +=
        "  " + pad(a.screen, sw) + "  " + pad(a.action, aw) + "  " + pad(String(a.count), 6, right: true) + "  "
        + pad(String(a.views), 6, right: true) + "  " + pad(f(a.observedRate), 8, right: true) + "  " + pad(interval, 20) + "  "
        + pad(f(a.assumedRate), 8, right: true) + "  " + pad(f(a.assumedProbability), 7, right: true) + "  "
        + pad(f(a.fittedProbability), 8, right: true) + (a.contradicted ? "  ✗ contradicted" : "") + "\n"
    }
    out += "\nGoodness of fit (G-test, per screen; df = actions − 1):\n"
    for s in c.screens {
      out +=
        "  " + pad(s.screen, sw)
        + "  views \(pad(String(s.views), 6, right: true))  assumed G \(pad(f(s.assumedG), 8, right: true)) (p \(f(s.assumedP)))"
      out += "  fitted G \(f(s.fittedG)) (p \(f(s.fittedP)))\n"
    }
    let a = c.assumedTotal
    let b = c.fittedTotal
    out +=
      "  total: assumed G = \(f(a.g)) on \(a.degreesOfFreedom) df, p = \(f(a.p)); fitted G = \(f(b.g)) on \(b.degreesOfFreedom) df, p = \(f(b.p))\n"
    let contradicted = c.actions.filter(\.contradicted)
    if contradicted.isEmpty {
      out += "\nNo assumption is contradicted beyond noise.\n"
    } else {
      out += "\nContradicted beyond noise (the spec's rate is outside the observed rate's \(level) interval):\n"
      for x in contradicted {
        out += "  \(x.screen).\(x.action): observed \(f(x.observedRate)) per view, the spec implies \(f(x.assumedRate))"
        out += " (probability \(f(x.assumedProbability)) → fitted \(f(x.fittedProbability)))\n"
      }
    }
    return out
  }
}
