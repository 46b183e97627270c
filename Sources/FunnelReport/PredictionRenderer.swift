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

  /// The title, the distributions drawn from, then one row per variant: the exact value and effect at the spec's
  /// parameters, the median and predictive interval of the effect, of the lift, and the probability to beat the control.
  package static func table(_ p: Prediction) -> String {
    let level = NumberText.level(alpha: 1 - p.level)
    var out = "\(p.experiment) · predicted effect on \(p.metric.rawValue) under parameter uncertainty\n\n"
    out += "\(p.draws.count) draws (seed \(p.seed)) of "
    out += NumberText.list(p.uncertainty.parameters.map { "\($0.parameter.rawValue) ~ \(describe($0.distribution))" })
    let rhos = p.uncertainty.correlations.map { "ρ(\($0.between.map(\.rawValue).joined(separator: ", "))) = \(JSONValue.format($0.rho))" }
    out += (rhos.isEmpty ? "" : "; " + rhos.joined(separator: ", ")) + ".\n"
    out += "Every draw is solved exactly: the intervals are the uncertainty of the assumptions, not sampling noise.\n\n"
    var t = TextTable(
      ["variant", "at spec values", "effect", "median effect", "\(level) predictive interval", "lift interval", "P(beat control)"],
      alignments: [.left, .right, .right, .right, .right, .right, .right])
    for (k, v) in p.variants.enumerated() {
      if k == 0 {
        t.add([v.variant, value(v.assumedValue, p.metric), "—", "—", range(v.valueInterval) { value($0, p.metric) }, "—", "—"])
        continue
      }
      t.add([
        v.variant, value(v.assumedValue, p.metric), effect(v.assumedEffect, p.metric), effect(v.medianEffect, p.metric),
        range(v.effectInterval) { effect($0, p.metric) }, range(v.liftInterval) { NumberText.lift($0) },
        v.probabilityToBeatControl.map { NumberText.percent($0, decimals: 1) } ?? "n/a",
      ])
    }
    out += t.render()
    let mcError = 0.5 / Double(max(p.draws.count, 1)).squareRoot()
    out += "\nThe control's row gives the interval of its own value. P(beat control): share of draws where the variant is better"
    out += " (Monte Carlo error ≤ \(NumberText.percent(mcError, decimals: 1)) at \(p.draws.count) draws; raise --draws to narrow it).\n"
    return out
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
