package import FunnelLab
import FunnelStats

/// Renders a ``BehaviorCalibration`` (past tests fitted jointly) as a terminal report.
package enum BehaviorCalibrationRenderer {
  static func f(_ x: Double) -> String { CheckRenderer.format(x) }
  /// A p-value as every report writes one: `0.0123`, `<0.0001`.
  static func p(_ x: Double) -> String { AnalysisRenderer.pValue(x) }

  /// The fitted behavior parameters with both intervals, those not identified and why,
  /// the fitted base probabilities, and the goodness of fit per variant and screen.
  package static func table(experiment: String, observedPath: String, calibration c: BehaviorCalibration) -> String {
    let level = f((c.level * 1000).rounded() / 10) + "%"
    var out = "\(experiment) · \(c.variants.map(\.variant).joined(separator: ", ")) fitted jointly to \(observedPath)\n\n"
    out += headline(c) + "\n\n"
    out += "Maximum likelihood through the exact engine (\(c.iterations) scoring iterations); "
    out += "the fit against the spec's values: likelihood-ratio statistic \(f(c.likelihoodRatio)).\n\n"
    out += behaviorSection(c, level: level)
    out += probabilitySection(c, level: level)
    out += fitSection(c)
    return out
  }

  /// The answer first: each fitted behavior parameter with its interval, and whether the spec's value lies in it.
  static func headline(_ c: BehaviorCalibration) -> String {
    let fitted = c.behaviorParameters
    guard !fitted.isEmpty else { return "No behavior parameter is identified by these variants; only base probabilities were fitted." }
    let outside = fitted.filter { !$0.interval.contains($0.assumed) }
    let lead =
      outside.isEmpty
      ? Tone.good.mark("The past tests agree with the spec's behavior parameters") + " (each spec value inside its interval): "
      : Tone.bad.mark("The past tests contradict \(outside.map(\.name).joined(separator: ", ")):") + " "
    return lead
      + fitted.map { "\($0.name) \(f($0.fitted)) [\(f($0.interval.lowerBound)), \(f($0.interval.upperBound))], spec \(f($0.assumed))" }
      .joined(separator: "; ") + "."
  }

  /// The joint fit as a page: what the past tests say about the behavior parameters first,
  /// then every parameter with its intervals and the goodness of fit.
  package static func html(experiment: String, observedPath: String, calibration c: BehaviorCalibration) -> String {
    var doc = HTMLDocument(title: "FunnelLab · past tests · \(experiment)")
    doc.heading(1, "\(experiment): \(c.variants.map(\.variant).joined(separator: ", ")) fitted jointly")
    doc.decision(headline(c), alert: c.behaviorParameters.contains { !$0.interval.contains($0.assumed) })
    let level = f((c.level * 1000).rounded() / 10) + "%"
    doc.table(
      ["parameter", "spec", "fitted", "SE", "\(level) Wald interval", "profile interval", "verdict"],
      c.parameters.map { p in
        [
          p.name, f(p.assumed), f(p.fitted), f(p.standardError), "[\(f(p.interval.lowerBound)), \(f(p.interval.upperBound))]",
          p.profileInterval.map { "[\(f($0.lowerBound)), \(f($0.upperBound))]" } ?? "—",
          p.interval.contains(p.assumed) ? "spec inside" : "spec outside",
        ]
      }, right: Set(1..<6), caption: "Fitted parameters (behavior first)")
    doc.table(
      ["variant", "screen", "views", "assumed G", "p", "fitted G", "fitted p"],
      c.variants.flatMap { v in
        v.screens.map { s in [v.variant, s.screen, NumberText.grouped(s.views), f(s.assumedG), p(s.assumedP), f(s.fittedG), p(s.fittedP)] }
      }, right: Set(2..<7), caption: "Goodness of fit (G-test per variant and screen)")
    doc.methods([
      "Maximum likelihood through the exact engine (\(c.iterations) scoring iterations); the fit against the spec's values:"
        + " likelihood-ratio statistic \(f(c.likelihoodRatio)). Wald intervals from the observed information; profile-likelihood intervals from"
        + " constrained fits."
    ])
    return doc.html
  }

  /// The `calibrate --variants --format json` document (`command` `"calibrate"`, `mode`
  /// `"pastTests"`): the summary, every fitted parameter with its intervals, the parameters not
  /// identified, and the goodness of fit per variant and screen.
  package static func json(experiment: String, observedPath: String, calibration c: BehaviorCalibration) -> String {
    let head = JSONReportHead(schemaVersion: 1, command: "calibrate", experiment: experiment, mode: "pastTests")
    let outside = c.behaviorParameters.filter { !$0.interval.contains($0.assumed) }.map { JSONValue.string($0.name) }
    func range(_ r: ClosedRange<Double>?) -> JSONValue { r.map { .array([.number($0.lowerBound), .number($0.upperBound)]) } ?? .null }
    return JSONWriter.write(
      head.document([
        ("summary", .object([("specValuesOutsideTheirInterval", .array(outside)), ("fittedP", .number(c.fittedTotal.p))])),
        ("observed", .string(observedPath)), ("variants", .array(c.variants.map { .string($0.variant) })),
        ("iterations", .integer(c.iterations)), ("level", .number(c.level)), ("likelihoodRatio", .number(c.likelihoodRatio)),
        (
          "parameters",
          .array(
            c.parameters.map { p in
              .object([
                ("name", .string(p.name)), ("behavior", .bool(c.behaviorParameters.contains(p))), ("spec", .number(p.assumed)),
                ("fitted", .number(p.fitted)), ("standardError", .number(p.standardError)), ("interval", range(p.interval)),
                ("profileInterval", range(p.profileInterval)),
              ])
            })
        ),
        (
          "unidentified",
          .array(
            c.unidentified.map { u in
              .object([("parameter", .string(u.parameter.rawValue)), ("confoundedWith", .array(u.confoundedWith.map { .string($0) }))])
            })
        ),
        ("neverObserved", .array(c.neverObserved.map { .string($0) })),
        (
          "fit",
          .array(
            c.variants.map { v in
              .object([("variant", .string(v.variant)), ("screens", .array(v.screens.map(CalibrationRenderer.screen)))])
            })
        ),
        ("fitted", CalibrationRenderer.total(c.fittedTotal)),
      ]))
  }

  static func behaviorSection(_ c: BehaviorCalibration, level: String) -> String {
    var out = ""
    let fitted = c.behaviorParameters
    if fitted.isEmpty {
      out += "No behavior parameter is identified by these variants.\n"
    } else {
      out += "Behavior parameters (\(level) intervals: Wald from the observed information, and profile likelihood):\n"
      var table = TextTable(
        ["parameter", "spec", "fitted", "SE", "Wald interval", "profile interval", ""],
        alignments: [.left, .right, .right, .right, .left, .left, .left], secondary: [3])
      for p in fitted {
        let profile = p.profileInterval.map { interval in
          let (lo, hi) = p.profileBounded
          return "[\(lo ? "≤" : "")\(f(interval.lowerBound)), \(hi ? "≥" : "")\(f(interval.upperBound))]"
        }
        table.add([
          p.name, f(p.assumed), f(p.fitted), f(p.standardError), "[\(f(p.interval.lowerBound)), \(f(p.interval.upperBound))]",
          profile ?? "—", p.interval.contains(p.assumed) ? "" : Tone.bad.mark("✗ spec value outside"),
        ])
      }
      out += table.render()
    }
    if !c.unidentified.isEmpty {
      out += "Not identified by these variants (kept at the spec's value):\n"
      var table = TextTable(["parameter", "why"], alignments: [.left, .left])
      for u in c.unidentified {
        table.add([
          u.parameter.rawValue,
          u.confoundedWith.isEmpty ? "does not change the observed counts" : "confounded with " + u.confoundedWith.joined(separator: ", "),
        ])
      }
      out += table.render()
    }
    return out + "\n"
  }

  static func probabilitySection(_ c: BehaviorCalibration, level: String) -> String {
    let probabilities = c.parameters.filter { if case .probability = $0.kind { true } else { false } }
    guard !probabilities.isEmpty else { return "" }
    var out = "Base probabilities:\n"
    var table = TextTable(
      ["screen.action", "spec p", "fitted p", "SE", "\(level) interval"], alignments: [.left, .right, .right, .right, .left],
      secondary: [3])
    for p in probabilities {
      table.add([
        p.name, f(p.assumed), f(p.fitted), f(p.standardError), "[\(f(p.interval.lowerBound)), \(f(p.interval.upperBound))]",
      ])
    }
    out += table.render()
    if !c.neverObserved.isEmpty {
      out += "Never counted in any arm, so fitted (and written) as probability 0: " + c.neverObserved.joined(separator: ", ") + "\n"
    }
    return out + "\n"
  }

  static func fitSection(_ c: BehaviorCalibration) -> String {
    var out = "Goodness of fit (G-test per variant and screen; df = categories − 1):\n"
    var table = TextTable(
      ["variant", "screen", "views", "assumed G", "p", "fitted G", "fitted p"],
      alignments: [.left, .left, .right, .right, .right, .right, .right])
    table.keyColumns = 2
    for v in c.variants {
      for s in v.screens {
        table.add([v.variant, s.screen, NumberText.grouped(s.views), f(s.assumedG), p(s.assumedP), f(s.fittedG), p(s.fittedP)])
      }
    }
    out += table.render()
    let total = c.fittedTotal
    out += "  total: fitted G = \(f(total.g)) on \(total.degreesOfFreedom) df (categories − 1 − \(c.freeParameterCount) free parameters), "
    out += AnalysisRenderer.pEquals(total.p) + "\n"
    return out
  }
}
