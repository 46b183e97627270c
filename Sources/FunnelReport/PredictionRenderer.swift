package import FunnelLab

/// Renders a ``Prediction`` (effects under parameter uncertainty) as a table or as JSON
/// (schema version ``schemaVersion``).
package enum PredictionRenderer {
  /// The `schemaVersion` written by ``json(_:command:)``.
  package static let schemaVersion = 1

  /// A metric value: a percentage with two decimals for a proportion, else four significant decimals.
  static func value(_ x: Double?, _ metric: FunnelMetric) -> String {
    guard let x else { return "n/a" }
    return metric.isProportion ? NumberText.percent(x, decimals: 2) : NumberText.fixed(x, 4)
  }

  /// A difference of the metric: percentage points for a proportion.
  static func effect(_ x: Double?, _ metric: FunnelMetric) -> String {
    guard let x else { return "n/a" }
    return metric.isProportion ? NumberText.points(x, decimals: 2) : NumberText.signed(x, 4)
  }

  static func range(_ r: ClosedRange<Double>?, _ text: (Double) -> String) -> String {
    r.map { "[\(text($0.lowerBound)), \(text($0.upperBound))]" } ?? "n/a"
  }

  /// How a distribution is written in prose: `normal(1.026, sd 0.107)` or `uniform(1.5…2.5)`.
  static func describe(_ d: ParameterUncertainty.Distribution) -> String {
    switch d {
    case .normal(let mean, let sd): "normal(\(JSONValue.format(mean)), sd \(JSONValue.format(sd)))"
    case .uniform(let low, let high): "uniform(\(JSONValue.format(low))…\(JSONValue.format(high)))"
    }
  }

  /// The answer first: the variant most likely to beat the control across the draws, with its
  /// predictive interval of the lift.
  static func headline(_ p: Prediction) -> String {
    guard let best = p.mostLikelyWinner, let chance = best.probabilityToBeatControl else {
      return "No variant's effect on \(p.metric.label) could be predicted (undefined in every draw)."
    }
    let level = NumberText.level(alpha: 1 - p.level)
    let tone: Tone = chance >= 0.95 ? .good : chance <= 0.05 ? .bad : .warning
    return "Under the uncertainty of the assumptions, \(tone.mark(best.variant)) beats the control on \(p.metric.label) in "
      + "\(NumberText.percent(chance, decimals: 1)) of \(p.draws.count) draws; its lift lies in "
      + "\(range(best.liftInterval) { NumberText.lift($0) }) (\(level) predictive)."
  }

  /// The rows of the variants: the exact value and effect at the spec's parameters, the median and predictive
  /// interval of the effect and of the lift, the probability to beat the control.
  static func rows(_ p: Prediction) -> (headers: [String], rows: [[String]]) {
    let level = NumberText.level(alpha: 1 - p.level)
    let headers = [
      "variant", "at spec values", "Δ", "median Δ", "\(level) predictive interval", "lift interval", "P(beat)",
    ]
    return (
      headers,
      p.variants.enumerated().map { k, v in
        k == 0
          ? [v.variant, value(v.assumedValue, p.metric), "—", "—", range(v.valueInterval) { value($0, p.metric) }, "—", "—"]
          : [
            v.variant, value(v.assumedValue, p.metric), effect(v.assumedEffect, p.metric), effect(v.medianEffect, p.metric),
            range(v.effectInterval) { effect($0, p.metric) }, range(v.liftInterval) { NumberText.lift($0) },
            v.probabilityToBeatControl.map { NumberText.percent($0, decimals: 1) } ?? "n/a",
          ]
      }
    )
  }

  /// The distributions drawn from, in a sentence.
  static func drawn(_ p: Prediction) -> String {
    let rhos = p.uncertainty.correlations.map { "ρ(\($0.between.map(\.rawValue).joined(separator: ", "))) = \(JSONValue.format($0.rho))" }
    return "\(p.draws.count) draws (seed \(p.seed)) of "
      + NumberText.list(p.uncertainty.parameters.map { "\($0.parameter.rawValue) ~ \(describe($0.distribution))" })
      + (rhos.isEmpty ? "" : "; " + rhos.joined(separator: ", ")) + "."
  }

  /// How to read the table's last column.
  static func note(_ p: Prediction) -> String {
    "The control's row gives the interval of its own value. P(beat): share of draws where the variant is better"
      + " (Monte Carlo error ≤ \(NumberText.percent(p.shareStandardError, decimals: 1)) at \(p.draws.count) draws; raise --draws to narrow it)."
  }

  /// The prediction as a page: the answer first, then the table and how to read it.
  package static func html(_ p: Prediction) -> String {
    var doc = HTMLDocument(title: "FunnelLab · predicted effects · \(p.experiment)")
    doc.heading(1, "\(p.experiment): predicted effect on \(p.metric.label) under parameter uncertainty")
    doc.decision(headline(p))
    doc.paragraph(
      drawn(p) + " Every draw is solved exactly: the intervals are the uncertainty of the assumptions, not sampling noise.",
      cssClass: "note")
    let t = rows(p)
    doc.table(t.headers, t.rows, right: Set(1..<t.headers.count), caption: "Effects against \(p.variants.first?.variant ?? "the control")")
    doc.paragraph(note(p), cssClass: "note")
    return doc.html
  }

  /// The title, the distributions drawn from, then one row per variant: the exact value and effect at the spec's
  /// parameters, the median and predictive interval of the effect, of the lift, and the probability to beat the control.
  package static func table(_ p: Prediction) -> String {
    var out = "\(p.experiment) · predicted effect on \(p.metric.label) under parameter uncertainty\n\n"
    out += headline(p) + "\n\n" + drawn(p) + "\n"
    out += "Every draw is solved exactly: the intervals are the uncertainty of the assumptions, not sampling noise.\n\n"
    let t = rows(p)
    var table = TextTable(t.headers, alignments: [.left] + Array(repeating: .right, count: t.headers.count - 1))
    for row in t.rows { table.add(row) }
    return out + table.render() + "\n" + note(p) + "\n"
  }

  /// The prediction as pretty-printed JSON under `command`: the distributions, each variant's summary and every
  /// draw (its parameter values and each variant's exact metric, `null` where undefined).
  package static func json(_ p: Prediction, command: String) -> String {
    func bounds(_ r: ClosedRange<Double>?) -> JSONValue { r.map { .array([.number($0.lowerBound), .number($0.upperBound)]) } ?? .null }
    func number(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    let distributions: [JSONValue] = p.uncertainty.parameters.map { u in
      switch u.distribution {
      case .normal(let mean, let sd):
        .object([
          ("parameter", .string(u.parameter.rawValue)), ("distribution", .string("normal")), ("mean", .number(mean)), ("sd", .number(sd)),
        ])
      case .uniform(let low, let high):
        .object([
          ("parameter", .string(u.parameter.rawValue)), ("distribution", .string("uniform")), ("low", .number(low)),
          ("high", .number(high)),
        ])
      }
    }
    let document = JSONReportHead(
      schemaVersion: schemaVersion, command: command, experiment: p.experiment, mode: "prediction", seed: p.seed
    ).document([
      ("metric", .string(p.metric.rawValue)),
      ("level", .number(p.level)),
      ("parameters", .array(distributions)),
      (
        "correlations",
        .array(
          p.uncertainty.correlations.map { c in
            .object([("between", .array(c.between.map { .string($0.rawValue) })), ("rho", .number(c.rho))])
          })
      ),
      (
        "variants",
        .array(
          p.variants.map { v in
            .object([
              ("id", .string(v.variant)), ("assumedValue", number(v.assumedValue)), ("assumedEffect", number(v.assumedEffect)),
              ("valueInterval", bounds(v.valueInterval)), ("medianEffect", number(v.medianEffect)),
              ("effectInterval", bounds(v.effectInterval)), ("liftInterval", bounds(v.liftInterval)),
              ("probabilityToBeatControl", number(v.probabilityToBeatControl)), ("definedDraws", .integer(v.definedDraws)),
            ])
          })
      ),
      (
        "draws",
        .array(
          zip(p.draws, p.values).map { parameters, values in
            .object([("parameters", .array(parameters.map { .number($0) })), ("values", .array(values.map(number)))])
          })
      ),
    ])
    return JSONWriter.write(document)
  }
}
