import Foundation
public import FunnelStats

/// The outcome of checking one ``FunnelExpectation``.
public struct ExpectationResult: Sendable, Hashable {
  /// The expectation as the spec states it.
  public var expectation: FunnelExpectation
  /// Whether the measurement meets the expectation's threshold (see ``FunnelExpectation`` for each kind's rule).
  public var passed: Bool
  /// The quantity compared with the threshold: the metric value (range), the
  /// improvement over the control (lift, beats), or the probability to be best.
  public var measured: Double?
  /// The measured quantity's interval when it comes from a simulation; `nil` when exact.
  public var interval: ConfidenceInterval?
  /// Where the measurement comes from: `exact` or `experiment N/arm seed S`.
  public var basis: String
  /// The expectation in words, e.g. `control completionRate in [0.55, 0.7]`.
  public var statement: String
  /// What was measured, in words (power, adjusted p, …).
  public var detail: String
  /// Why it failed, in words; `nil` when it passed.
  public var explanation: String?
}

/// Evaluates the ``Experiment/expectations`` of a spec (see ``FunnelExpectation`` for the
/// rule of each kind). Exact values come from ``ExactEngine`` (no sampling noise),
/// so checks on them are the same on every run; simulations are seeded by the spec.
///
/// - Complexity: one exact solve per variant; one experiment-mode run per distinct
///   `users` among the simulated expectations.
public enum ExpectationChecker {
  /// Checks every expectation of `experiment`.
  /// - Throws: ``SpecErrors`` when the experiment is invalid.
  public static func check(_ experiment: Experiment) throws(SpecErrors) -> [ExpectationResult] {
    let expanded = experiment.expandingGrid()
    let errors = expanded.validationErrors() + experiment.expectationErrors()
    guard errors.isEmpty else { throw SpecErrors(source: experiment.name, errors: errors) }
    var context = Context(experiment: expanded)
    var results: [ExpectationResult] = []
    for expectation in experiment.expectations {
      results.append(try context.evaluate(expectation))
    }
    return results
  }

  /// Caches exact solutions and simulated runs across expectations.
  struct Context {
    let experiment: Experiment
    var exact: [String: ExactFunnel] = [:]
    var runs: [Int: RunResult] = [:]

    var ids: [String] { experiment.variants.map(\.id) }
    var controlID: String { experiment.variants.first?.id ?? "control" }

    mutating func exactFunnel(_ id: String) throws(SpecErrors) -> ExactFunnel {
      if let cached = exact[id] { return cached }
      guard let index = experiment.variants.firstIndex(where: { $0.id == id }) else {
        throw SpecErrors(
          source: experiment.name, errors: [SpecError(.unknownReference, path: [.key("variants")], message: "no variant '\(id)'")])
      }
      let solved = ExactEngine.solve(try FlowCompiler.compile(experiment, variant: index))
      exact[id] = solved
      return solved
    }

    mutating func run(users: Int) throws(SpecErrors) -> RunResult {
      if let cached = runs[users] { return cached }
      let result = try ExperimentRunner.run(experiment, options: RunOptions(users: users, mode: .experiment))
      runs[users] = result
      return result
    }

    mutating func exactValue(_ metric: FunnelMetric, _ id: String) throws(SpecErrors) -> Double? {
      try exactFunnel(id).value(of: metric)
    }

    mutating func evaluate(_ e: FunnelExpectation) throws(SpecErrors) -> ExpectationResult {
      switch e.kind {
      case .range: try range(e)
      case .lift: try lift(e)
      case .beats: try beats(e)
      case .best: try best(e)
      }
    }

    func result(
      _ e: FunnelExpectation, _ statement: String, passed: Bool, measured: Double?, basis: String = "exact",
      interval: ConfidenceInterval? = nil, detail: String, explanation: String?
    ) -> ExpectationResult {
      ExpectationResult(
        expectation: e, passed: passed, measured: measured, interval: interval, basis: basis, statement: statement, detail: detail,
        explanation: passed ? nil : explanation)
    }

    mutating func range(_ e: FunnelExpectation) throws(SpecErrors) -> ExpectationResult {
      let lo = e.min ?? -Double.infinity
      let hi = e.max ?? Double.infinity
      let bounds =
        switch (e.min, e.max) {
        case (let a?, let b?): "in [\(Self.format(a)), \(Self.format(b))]"
        case (let a?, nil): "≥ \(Self.format(a))"
        case (nil, let b?): "≤ \(Self.format(b))"
        default: "(no bounds)"
        }
      let statement = "\(e.variant) \(e.metric.rawValue) \(bounds)"
      guard let v = try exactValue(e.metric, e.variant) else {
        return result(
          e, statement, passed: false, measured: nil, detail: "undefined",
          explanation: "\(e.metric.rawValue) is undefined for \(e.variant): its denominator is 0")
      }
      let passed = v >= lo && v <= hi
      let side =
        v < lo
        ? "below the minimum \(Self.format(lo)) by \(Self.format(lo - v))"
        : "above the maximum \(Self.format(hi)) by \(Self.format(v - hi))"
      return result(
        e, statement, passed: passed, measured: v, detail: "\(e.metric.rawValue) = \(Self.format(v))",
        explanation:
          "the exact \(e.metric.rawValue) of \(e.variant) is \(Self.format(v)), \(side); the flow or its assumptions changed, or the range is wrong"
      )
    }

    /// The oriented improvement of `id` over the control (positive = better).
    mutating func improvement(_ metric: FunnelMetric, _ id: String) throws(SpecErrors) -> (value: Double, variant: Double, control: Double)?
    {
      guard let v = try exactValue(metric, id), let c = try exactValue(metric, controlID) else { return nil }
      return ((v - c) * (metric.higherIsBetter ? 1 : -1), v, c)
    }

    mutating func lift(_ e: FunnelExpectation) throws(SpecErrors) -> ExpectationResult {
      var parts: [String] = []
      if let a = e.atLeast { parts.append("lifts \(e.metric.rawValue) by ≥ \(Self.format(a))") }
      if let c = e.costsAtMost { parts.append("costs ≤ \(Self.format(c)) of \(e.metric.rawValue)") }
      let statement = "\(e.variant) " + parts.joined(separator: " and ")
      guard let d = try improvement(e.metric, e.variant) else {
        return result(
          e, statement, passed: false, measured: nil, detail: "undefined",
          explanation: "\(e.metric.rawValue) is undefined for \(e.variant) or the control")
      }
      var problems: [String] = []
      if let a = e.atLeast, d.value < a {
        problems.append("the improvement is \(Self.format(d.value)), short of \(Self.format(a)) by \(Self.format(a - d.value))")
      }
      if let c = e.costsAtMost, d.value < -c {
        problems.append("it costs \(Self.format(-d.value)), more than the \(Self.format(c)) allowed")
      }
      let detail = "\(e.variant) \(Self.format(d.variant)) vs \(controlID) \(Self.format(d.control))"
      return result(
        e, statement, passed: problems.isEmpty, measured: d.value, detail: detail,
        explanation: "exact \(e.metric.rawValue): \(detail); " + problems.joined(separator: "; "))
    }

    /// Users in the metric's denominator per user of the arm (1 for rates over all users).
    mutating func denominatorShare(_ metric: FunnelMetric, _ id: String) throws(SpecErrors) -> Double {
      let f = try exactFunnel(id)
      return switch metric {
      case .purchaseConversionOfViewers: f.paywallViewers
      case .trialToPaid: f.trialStarts
      default: 1
      }
    }

    mutating func beats(_ e: FunnelExpectation) throws(SpecErrors) -> ExpectationResult {
      let users = e.users ?? experiment.users
      let alpha = e.alpha ?? experiment.metrics.alpha
      let wanted = e.power ?? 0.8
      let statement =
        "\(e.variant) beats \(controlID) on \(e.metric.rawValue) (adj. p < \(Self.format(alpha))) at \(users)/arm, power ≥ \(Self.format(wanted))"
      guard let d = try improvement(e.metric, e.variant) else {
        return result(
          e, statement, passed: false, measured: nil, detail: "undefined",
          explanation: "\(e.metric.rawValue) is undefined for \(e.variant) or the control")
      }
      let comparisons = Swift.max(experiment.variants.count - 1, 1)
      let level = alpha / Double(comparisons)
      let n1 = Double(users) * (try denominatorShare(e.metric, e.variant))
      let n0 = Double(users) * (try denominatorShare(e.metric, controlID))
      var power = 0.0
      if d.value > 0, n1 > 0, n0 > 0, d.control > 0, d.control < 1 {
        let problem = PowerAnalysis.Problem(
          method: .pooledNormal, baseline: d.control, effect: d.variant, sampleSize: n1, power: nil, alpha: level, ratio: n0 / n1)
        power = (try? PowerAnalysis.solve(problem).power) ?? 0
      }
      var detail = "Δ \(Self.format(d.value)) exact, power \(Self.format(power)) at α/\(comparisons) = \(Self.format(level))"
      var problems: [String] = []
      if d.value <= 0 {
        problems.append(
          "the exact \(e.metric.rawValue) of \(e.variant) (\(Self.format(d.variant))) is not better than \(controlID)'s (\(Self.format(d.control)))"
        )
      } else if power < wanted {
        problems.append(
          "at \(users) users per arm the power is only \(Self.format(power)) (< \(Self.format(wanted))) for a true difference of \(Self.format(d.value)); more users are needed"
        )
      }
      var basis = "exact"
      var interval: ConfidenceInterval?
      if e.simulate {
        let run = try run(users: users)
        basis = "exact + experiment \(users)/arm seed \(run.seed)"
        let spec = MetricsSpec(primary: e.metric, alpha: alpha, correction: experiment.metrics.correction)
        let analysed = ExperimentReport.analyze(e.metric, observed: run, spec: spec)
        if let arm = analysed.arm(e.variant) {
          let p = arm.adjustedPValue ?? 1
          let observed = (arm.comparison?.difference?.estimate ?? 0) * (e.metric.higherIsBetter ? 1 : -1)
          interval = arm.comparison?.difference?.interval
          detail += "; simulated Δ \(Self.format(observed)), adj. p \(Self.format(p))"
          if !(arm.significant && observed > 0) {
            problems.append(
              "the simulated experiment (seed \(run.seed)) did not reach adjusted p < \(Self.format(alpha)) in favour of \(e.variant) (adj. p \(Self.format(p)))"
            )
          }
        }
      }
      return result(
        e, statement, passed: problems.isEmpty, measured: d.value, basis: basis, interval: interval, detail: detail,
        explanation: problems.joined(separator: "; "))
    }

    mutating func best(_ e: FunnelExpectation) throws(SpecErrors) -> ExpectationResult {
      let wanted = e.probability ?? 0.9
      let statement = "\(e.variant) has the best \(e.metric.rawValue) with P ≥ \(Self.format(wanted))"
      let sign = e.metric.higherIsBetter ? 1.0 : -1.0
      guard let users = e.users else {
        var values: [(String, Double)] = []
        for id in ids { if let v = try exactValue(e.metric, id) { values.append((id, v * sign)) } }
        guard let mine = values.first(where: { $0.0 == e.variant })?.1 else {
          return result(
            e, statement, passed: false, measured: nil, detail: "undefined",
            explanation: "\(e.metric.rawValue) is undefined for \(e.variant)")
        }
        let rival = values.filter { $0.0 != e.variant }.max { $0.1 < $1.1 }
        let isBest = rival.map { mine > $0.1 } ?? true
        let p = isBest ? 1.0 : 0.0
        let detail = rival.map { "exact: \(e.variant) \(Self.format(mine * sign)), next \($0.0) \(Self.format($0.1 * sign))" } ?? "only arm"
        return result(
          e, statement, passed: p >= wanted, measured: p, detail: detail,
          explanation: rival.map {
            "\($0.0) has a better exact \(e.metric.rawValue) (\(Self.format($0.1 * sign))) than \(e.variant) (\(Self.format(mine * sign)))"
          })
      }
      let run = try run(users: users)
      let probabilities = Self.probabilityToBeBest(e.metric, run: run)
      let index = run.variants.firstIndex { $0.variant.id == e.variant }
      let p = index.flatMap { probabilities?[$0] }
      let estimate = run.variant(e.variant).map { MetricAnalysis.estimate(e.metric, in: $0.aggregate, alpha: experiment.metrics.alpha) }
      let basis = "experiment \(users)/arm seed \(run.seed)"
      guard let p else {
        return result(
          e, statement, passed: false, measured: nil, basis: basis, detail: "undefined",
          explanation: "no arm has data on \(e.metric.rawValue)")
      }
      var leader = ""
      if let probabilities, let top = probabilities.indices.max(by: { probabilities[$0] < probabilities[$1] }) {
        leader = "; the likeliest best is \(run.variants[top].variant.id) (P \(Self.format(probabilities[top])))"
      }
      let detail = "P(best) \(Self.format(p)); \(e.variant) \(e.metric.rawValue) \(estimate?.estimate.map(Self.format) ?? "n/a")"
      return result(
        e, statement, passed: p >= wanted, measured: p, basis: basis, interval: estimate?.interval, detail: detail,
        explanation:
          "after an experiment of \(users) users per arm (seed \(run.seed)), P(\(e.variant) best) = \(Self.format(p)) < \(Self.format(wanted))\(leader)"
      )
    }

    /// The Bayesian probability that each arm is best, from FunnelStats' pipeline
    /// (``ControlComparison``): Beta(1, 1) posteriors for proportions (failures for
    /// lower-is-better), normal posteriors `N(mean, s²/n)` for means; `nil` unless every arm
    /// has data.
    static func probabilityToBeBest(_ metric: FunnelMetric, run: RunResult) -> [Double]? {
      guard let data = MetricAnalysis.data(metric, run.variants.map(\.aggregate)) else { return nil }
      let settings = ControlComparison.Settings(higherIsBetter: metric.higherIsBetter)
      guard let best = try? ControlComparison.probabilityToBeBest(data, settings: settings) else { return nil }
      let values = best.compactMap { $0 }
      return values.count == run.variants.count ? values : nil
    }

    static func format(_ x: Double) -> String { ExpectationChecker.format(x) }
  }

  /// Four significant digits (integers whole), as every check report shows numbers.
  public static func format(_ x: Double) -> String {
    guard x.isFinite else { return x > 0 ? "∞" : "-∞" }
    if x == 0 { return "0" }
    if x == x.rounded(), abs(x) < 1e9 { return String(Int64(x)) }
    return String(format: "%.4g", x)
  }
}
