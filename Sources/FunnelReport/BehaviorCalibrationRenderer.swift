package import FunnelLab
import FunnelStats

/// Renders a ``BehaviorCalibration`` (past tests fitted jointly) as a terminal report.
package enum BehaviorCalibrationRenderer {
  static func f(_ x: Double) -> String { CheckRenderer.format(x) }
  static func pad(_ s: String, _ width: Int, right: Bool = false) -> String { CalibrationRenderer.pad(s, width, right: right) }

  /// The fitted behavior parameters with both intervals, those not identified and why,
  /// the fitted base probabilities, and the goodness of fit per variant and screen.
  package static func table(experiment: String, observedPath: String, calibration c: BehaviorCalibration) -> String {
    let level = f((c.level * 1000).rounded() / 10) + "%"
    var out = "\(experiment) · \(c.variants.map(\.variant).joined(separator: ", ")) fitted jointly to \(observedPath)\n"
    out += "Maximum likelihood through the exact engine (\(c.iterations) scoring iterations); "
    out += "the fit against the spec's values: 2Δℓ = \(f(c.likelihoodRatio)).\n\n"
    out += behaviorSection(c, level: level)
    out += probabilitySection(c, level: level)
    out += fitSection(c)
    return out
  }

  static func behaviorSection(_ c: BehaviorCalibration, level: String) -> String {
    var out = ""
    let fitted = c.behaviorParameters
    if fitted.isEmpty {
      out += "No behavior parameter is identified by these variants.\n"
    } else {
      let w = max(9, fitted.map(\.name.count).max() ?? 0)
      out += "Behavior parameters (\(level) intervals: Wald from the observed information, and profile likelihood):\n"
      out += "  " + pad("parameter", w) + "  " + pad("spec", 7, right: true) + "  " + pad("fitted", 7, right: true)
      out += "  " + pad("SE", 7, right: true) + "  " + pad("Wald interval", 18) + "  profile interval\n"
      for p in fitted {
        let profile = p.profileInterval.map { interval in
          let (lo, hi) = p.profileBounded
          return "[\(lo ? "≤" : "")\(f(interval.lowerBound)), \(hi ? "≥" : "")\(f(interval.upperBound))]"
        }
        out += "  " + pad(p.name, w) + "  " + pad(f(p.assumed), 7, right: true) + "  " + pad(f(p.fitted), 7, right: true)
        out += "  " + pad(f(p.standardError), 7, right: true) + "  " + pad("[\(f(p.interval.lowerBound)), \(f(p.interval.upperBound))]", 18)
        out += "  " + (profile ?? "—") + (p.interval.contains(p.assumed) ? "" : "  ✗ spec value outside") + "\n"
      }
    }
    if !c.unidentified.isEmpty {
      let w = max(9, c.unidentified.map(\.parameter.rawValue.count).max() ?? 0)
      out += "Not identified by these variants (kept at the spec's value):\n"
      for u in c.unidentified {
        let why =
          u.confoundedWith.isEmpty
          ? "does not change the observed counts"
          : "confounded with " + u.confoundedWith.joined(separator: ", ")
        out += "  " + pad(u.parameter.rawValue, w) + "  " + why + "\n"
      }
    }
    return out + "\n"
  }

  static func probabilitySection(_ c: BehaviorCalibration, level: String) -> String {
    let probabilities = c.parameters.filter { if case .probability = $0.kind { true } else { false } }
    guard !probabilities.isEmpty else { return "" }
    let w = max(13, probabilities.map(\.name.count).max() ?? 0)
    var out = "Base probabilities:\n"
    out += "  " + pad("screen.action", w) + "  " + pad("spec p", 7, right: true) + "  " + pad("fitted p", 8, right: true)
    out += "  " + pad("SE", 7, right: true) + "  \(level) interval\n"
    for p in probabilities {
      out += "  " + pad(p.name, w) + "  " + pad(f(p.assumed), 7, right: true) + "  " + pad(f(p.fitted), 8, right: true)
      out += "  " + pad(f(p.standardError), 7, right: true) + "  [\(f(p.interval.lowerBound)), \(f(p.interval.upperBound))]\n"
    }
    if !c.neverObserved.isEmpty {
      out += "Never counted in any arm, so fitted (and written) as probability 0: " + c.neverObserved.joined(separator: ", ") + "\n"
    }
    return out + "\n"
  }

  static func fitSection(_ c: BehaviorCalibration) -> String {
    let vw = max(7, c.variants.map(\.variant.count).max() ?? 0)
    let sw = max(6, c.variants.flatMap { $0.screens.map(\.screen.count) }.max() ?? 0)
    var out = "Goodness of fit (G-test per variant and screen; df = categories − 1):\n"
    for v in c.variants {
      for s in v.screens {
        out += "  " + pad(v.variant, vw) + "  " + pad(s.screen, sw) + "  views " + pad(String(s.views), 7, right: true)
        out += "  assumed G " + pad(f(s.assumedG), 8, right: true) + " (p \(f(s.assumedP)))"
        out += "  fitted G " + pad(f(s.fittedG), 7, right: true) + " (p \(f(s.fittedP)))\n"
      }
    }
    let total = c.fittedTotal
    out += "  total: fitted G = \(f(total.g)) on \(total.degreesOfFreedom) df (categories − 1 − \(c.freeParameterCount) free parameters), "
    out += "p = \(f(total.p))\n"
    return out
  }
}
