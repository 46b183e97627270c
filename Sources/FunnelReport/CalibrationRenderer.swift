package import FunnelLab

/// Renders a ``Calibration`` as a terminal report.
package enum CalibrationRenderer {
  static func f(_ x: Double) -> String { CheckRenderer.format(x) }
  /// A p-value as every report writes one: `0.0123`, `<0.0001`.
  static func p(_ x: Double) -> String { AnalysisRenderer.pValue(x) }

  /// The answer first: which of the spec's assumptions the counts contradict, or that none is.
  static func headline(_ c: Calibration) -> String {
    let contradicted = c.actions.filter(\.contradicted)
    guard !contradicted.isEmpty else {
      return Tone.good.mark("No assumption is contradicted beyond noise") + " (\(c.actions.count) actions on \(c.screens.count) screens)."
    }
    return Tone.bad.mark("\(contradicted.count) of \(c.actions.count) assumptions are contradicted beyond noise:") + " "
      + contradicted.map { "\($0.screen).\($0.action) (observed \(f($0.observedRate)) per view, the spec implies \(f($0.assumedRate)))" }
      .joined(separator: ", ") + "."
  }

  /// Every observed action: views, observed rate with its interval, the rate the
  /// spec implies, the spec's and the fitted probability; then the G-tests.
  package static func table(experiment: String, observedPath: String, calibration c: Calibration) -> String {
    var out = "\(experiment) · calibrated against \(observedPath)\n\n" + headline(c) + "\n\n"
    out += "Fitted: the base probability of every explicit action on the \(c.screens.count) observed screens (behavior parameters"
    out +=
      " and segment overrides kept), until the exact engine's expected per-view rates match the observed ones: \(c.iterations) iterations.\n\n"
    let level = c.actions.first?.interval.map { f(($0.confidenceLevel * 1000).rounded() / 10) + "%" } ?? ""
    var table = TextTable(
      ["screen", "action", "count", "views", "observed", "\(level) interval", "assumed", "spec p", "fitted p", ""],
      alignments: [.left, .left, .right, .right, .right, .left, .right, .right, .right, .left])
    table.keyColumns = 2
    for a in c.actions {
      table.add([
        a.screen, a.action, NumberText.grouped(a.count), NumberText.grouped(a.views), f(a.observedRate),
        a.interval.map { "[\(f($0.lower)), \(f($0.upper))]" } ?? "—", f(a.assumedRate), f(a.assumedProbability), f(a.fittedProbability),
        a.contradicted ? Tone.bad.mark("✗ contradicted") : "",
      ])
    }
    out += table.render()
    out += "\nGoodness of fit (G-test, per screen; df = actions − 1):\n"
    var fit = TextTable(
      ["screen", "views", "assumed G", "p", "fitted G", "fitted p"], alignments: [.left, .right, .right, .right, .right, .right])
    for s in c.screens {
      fit.add([s.screen, NumberText.grouped(s.views), f(s.assumedG), p(s.assumedP), f(s.fittedG), p(s.fittedP)])
    }
    out += fit.render()
    let a = c.assumedTotal
    let b = c.fittedTotal
    out +=
      "  total: assumed G = \(f(a.g)) on \(a.degreesOfFreedom) df, \(AnalysisRenderer.pEquals(a.p)); fitted G = \(f(b.g)) on \(b.degreesOfFreedom) df, \(AnalysisRenderer.pEquals(b.p))\n"
    return out
  }

  /// The calibration as a page: what the counts contradict first, then every action's fit and the G-tests.
  package static func html(experiment: String, observedPath: String, calibration c: Calibration) -> String {
    var doc = HTMLDocument(title: "FunnelLab · calibration · \(experiment)")
    doc.heading(1, "\(experiment): calibrated against \(observedPath)")
    doc.decision(headline(c), alert: c.actions.contains(where: \.contradicted))
    let level = c.actions.first?.interval.map { f(($0.confidenceLevel * 1000).rounded() / 10) + "%" } ?? ""
    doc.table(
      ["screen.action", "count", "views", "observed", "\(level) interval", "assumed", "spec p", "fitted p", "verdict"],
      c.actions.map { a in
        [
          "\(a.screen).\(a.action)", NumberText.grouped(a.count), NumberText.grouped(a.views), f(a.observedRate),
          a.interval.map { "[\(f($0.lower)), \(f($0.upper))]" } ?? "—", f(a.assumedRate), f(a.assumedProbability),
          f(a.fittedProbability), a.contradicted ? "contradicted" : "consistent",
        ]
      }, right: Set(1..<8), caption: "Every observed action")
    doc.table(
      ["screen", "views", "assumed G", "p", "fitted G", "fitted p"],
      c.screens.map { s in
        [s.screen, NumberText.grouped(s.views), f(s.assumedG), p(s.assumedP), f(s.fittedG), p(s.fittedP)]
      }, right: Set(1..<6), caption: "Goodness of fit (G-test per screen; df = actions − 1)")
    doc.methods([
      "Fitted: the base probability of every explicit action on the \(c.screens.count) observed screens (behavior parameters and"
        + " segment overrides kept), until the exact engine's expected per-view rates match the observed ones (\(c.iterations)"
        + " iterations). An action is contradicted when the spec's rate lies outside the observed rate's Bonferroni-corrected"
        + " Wilson interval."
    ])
    return doc.html
  }

  /// The `calibrate --format json` document (`command` `"calibrate"`, `mode` `"counts"`): the
  /// summary, every action's fit and every screen's G-tests, at full precision.
  package static func json(experiment: String, observedPath: String, calibration c: Calibration) -> String {
    func opt(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    let head = JSONReportHead(schemaVersion: 1, command: "calibrate", experiment: experiment, mode: "counts")
    let contradicted = c.actions.filter(\.contradicted).map { JSONValue.string("\($0.screen).\($0.action)") }
    return JSONWriter.write(
      head.document([
        ("summary", .object([("contradicted", .array(contradicted)), ("fittedP", .number(c.fittedTotal.p))])),
        ("observed", .string(observedPath)), ("iterations", .integer(c.iterations)),
        (
          "actions",
          .array(
            c.actions.map { a in
              .object([
                ("screen", .string(a.screen)), ("action", .string(a.action)), ("count", .integer(a.count)), ("views", .integer(a.views)),
                ("observedRate", .number(a.observedRate)),
                ("interval", a.interval.map { .array([.number($0.lower), .number($0.upper)]) } ?? .null),
                ("level", opt(a.interval?.confidenceLevel)), ("assumedRate", .number(a.assumedRate)),
                ("specProbability", .number(a.assumedProbability)), ("fittedProbability", .number(a.fittedProbability)),
                ("contradicted", .bool(a.contradicted)),
              ])
            })
        ),
        ("screens", .array(c.screens.map(screen))),
        ("assumed", total(c.assumedTotal)), ("fitted", total(c.fittedTotal)),
      ]))
  }

  /// One screen's G-tests as JSON.
  static func screen(_ s: Calibration.ScreenFit) -> JSONValue {
    .object([
      ("screen", .string(s.screen)), ("views", .integer(s.views)), ("degreesOfFreedom", .integer(s.degreesOfFreedom)),
      ("assumedG", .number(s.assumedG)), ("assumedP", .number(s.assumedP)), ("fittedG", .number(s.fittedG)),
      ("fittedP", .number(s.fittedP)),
    ])
  }

  /// A total G-test as JSON.
  static func total(_ t: (g: Double, degreesOfFreedom: Int, p: Double)) -> JSONValue {
    .object([("g", .number(t.g)), ("degreesOfFreedom", .integer(t.degreesOfFreedom)), ("p", .number(t.p))])
  }
}

/// The renderers of a fit's report, one per format `calibrate` writes: ``CalibrationRenderer``
/// for counts, ``BehaviorCalibrationRenderer`` for past tests fitted jointly.
package protocol CalibrationReportRenderer {
  /// The fit the renderer reads.
  associatedtype Fit
  /// The terminal report.
  static func table(experiment: String, observedPath: String, calibration: Fit) -> String
  /// The JSON document.
  static func json(experiment: String, observedPath: String, calibration: Fit) -> String
  /// The HTML page.
  static func html(experiment: String, observedPath: String, calibration: Fit) -> String
}

extension CalibrationRenderer: CalibrationReportRenderer {}
extension BehaviorCalibrationRenderer: CalibrationReportRenderer {}
