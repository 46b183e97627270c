import Foundation
import FunnelStats

/// Evaluates the ``Experiment/expectations`` of a spec (see ``FunnelExpectation`` for the
/// rule of each kind). Exact values come from ``ExactEngine`` (no sampling noise),
/// so checks on them are the same on every run; simulations are seeded by the spec.
///
/// - Complexity: one exact solve per variant; one experiment-mode run per distinct
///   `users` among the simulated expectations.
package enum ExpectationChecker {
  /// Checks every expectation of `experiment`; `progress` hears each one as it is decided
  /// (how many are done, and how many there are).
  /// - Throws: ``SpecErrors`` when the experiment is invalid.
  package static func check(
    _ experiment: Experiment, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(SpecErrors) -> [ExpectationResult] {
    let expanded = experiment.expandingGrid()
    let errors = expanded.validationErrors() + experiment.expectationErrors()
    guard errors.isEmpty else { throw SpecErrors(source: experiment.name, errors: errors) }
    var context = Context(experiment: expanded, declared: experiment.variants.map(\.id))
    var results: [ExpectationResult] = []
    for expectation in experiment.expectations {
      results.append(try context.evaluate(expectation))
      progress(results.count, experiment.expectations.count)
    }
    return results
  }

  /// Caches exact solutions and simulated runs across expectations.
  struct Context {
    let experiment: Experiment
    /// The variants the spec declares, without its grid cells: the arms a `best` ranks by default.
    let declared: [String]
    /// The threshold rows of this check's compiles (the variants share the screens they leave alone).
    let memo = CompileMemo()
    var exact: [String: ExactFunnel] = [:]
    var runs: [RunKey: RunResult] = [:]

    /// An experiment-mode run: its users per arm and the arms besides the control.
    struct RunKey: Hashable {
      var users: Int
      var arms: [String]
    }

    var ids: [String] { experiment.variants.map(\.id) }
    var controlID: String { experiment.variants.first?.id ?? "control" }

    mutating func exactFunnel(_ id: String) throws(SpecErrors) -> ExactFunnel {
      if let cached = exact[id] { return cached }
      guard let index = experiment.variants.firstIndex(where: { $0.id == id }) else {
        throw SpecErrors(
          source: experiment.name, errors: [SpecError(.unknownReference, path: [.key("variants")], message: "no variant '\(id)'")])
      }
      let solved = ExactEngine.solve(try FlowCompiler.compile(experiment, variant: index, memo: memo))
      exact[id] = solved
      return solved
    }

    /// An experiment-mode run of the control and `arms` (in spec order) at `users` per arm.
    mutating func run(users: Int, arms: [String]) throws(SpecErrors) -> RunResult {
      let ordered = ids.filter { $0 != controlID && arms.contains($0) }
      let key = RunKey(users: users, arms: ordered)
      if let cached = runs[key] { return cached }
      let result = try ExperimentRunner.run(experiment, options: RunOptions(users: users, variants: ordered, mode: .experiment))
      runs[key] = result
      return result
    }

    /// The arms an expectation compares besides the control: its variant and `among`, in spec order.
    func comparedArms(_ e: FunnelExpectation) -> [String] {
      let named = Set([e.variant] + (e.among ?? []))
      return ids.filter { $0 != controlID && named.contains($0) }
    }

    /// The arms a `best` ranks: the control, the variant and `among`, or by default every declared variant.
    func rankedArms(_ e: FunnelExpectation) -> [String] {
      let named = Set([controlID, e.variant] + (e.among ?? declared))
      return ids.filter { named.contains($0) }
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
      case .varianceReduction: try varianceReduction(e)
      case .equivalent: try equivalent(e)
      }
    }

    /// The exact share of the variant-vs-control difference's variance that the method
    /// removes (``AdjustmentPlanner``); undefined without strata or covariate, without the
    /// method among those the population allows, or for a metric that is not a 0/1 outcome of every user.
    mutating func varianceReduction(_ e: FunnelExpectation) throws(SpecErrors) -> ExpectationResult {
      let strata = CompiledStrata(experiment)
      guard let method = SegmentReport.Method.allCases.first(where: { $0.specName == e.method }),
        case .outcome? = PerUserValue(e.metric), AdjustmentPlanner.methods(strata).contains(method),
        experiment.population.segments.count * experiment.simulation.traitBins <= AdjustmentPlanner.maxCells,
        let index = experiment.variants.firstIndex(where: { $0.id == e.variant })
      else { return result(e, passed: false, measured: nil, evidence: .undefined, failures: [.undefined]) }
      let flows = [
        try FlowCompiler.compile(experiment, variant: 0, memo: memo), try FlowCompiler.compile(experiment, variant: index, memo: memo),
      ]
      let models = flows.map { CellModel(flow: $0, metric: e.metric, strata: strata) }
      let plan = AdjustmentPlanner.plan(models, strata: strata, metric: e.metric, alpha: experiment.metrics.alpha, targetPower: 0.8)
      guard let v = plan.sizes.first(where: { $0.method == method })?.varianceReduction else {
        return result(e, passed: false, measured: nil, evidence: .undefined, failures: [.undefined])
      }
      let lo = e.min ?? -Double.infinity
      let hi = e.max ?? Double.infinity
      return result(
        e, passed: v >= lo && v <= hi, measured: v, evidence: .exactValue(v), failures: [.outOfRange(value: v, minimum: lo, maximum: hi)])
    }

    /// A result of `e`; a `beats` carries its α and compared arms, a `best` its ranked arms
    /// (and with users, the interval's α).
    func result(
      _ e: FunnelExpectation, passed: Bool, measured: Double?, basis: ExpectationResult.Basis = .exact,
      interval: ConfidenceInterval? = nil, evidence: ExpectationResult.Evidence, failures: [ExpectationResult.Failure]
    ) -> ExpectationResult {
      let (alpha, arms): (Double?, [String]) =
        switch e.kind {
        case .beats: (e.alpha, comparedArms(e))
        case .equivalent: (e.alpha, [e.variant])
        case .best: (e.users == nil ? nil : experiment.metrics.alpha, rankedArms(e))
        default: (nil, [])
        }
      return ExpectationResult(
        expectation: e, control: controlID, passed: passed, measured: measured, interval: interval, basis: basis, evidence: evidence,
        failures: failures, alpha: alpha, arms: arms)
    }

    /// The exact value, or with `relativeTo` its difference from that variant's (relative to it on the relative scale).
    mutating func range(_ e: FunnelExpectation) throws(SpecErrors) -> ExpectationResult {
      let lo = e.min ?? -Double.infinity
      let hi = e.max ?? Double.infinity
      guard let v = try exactValue(e.metric, e.variant) else {
        return result(e, passed: false, measured: nil, evidence: .undefined, failures: [.undefined])
      }
      var measured = v
      var evidence = ExpectationResult.Evidence.exactValue(v)
      if let reference = e.relativeTo {
        guard let r = try exactValue(e.metric, reference), let d = Self.difference(v, from: r, scale: e.scale) else {
          return result(e, passed: false, measured: nil, evidence: .undefined, failures: [.undefined])
        }
        (measured, evidence) = (d, .exactValues(variant: v, control: r))
      }
      return result(
        e, passed: measured >= lo && measured <= hi, measured: measured, evidence: evidence,
        failures: [.outOfRange(value: measured, minimum: lo, maximum: hi)])
    }

    /// `value − reference`, or relative to the reference (`nil` when the reference is 0).
    static func difference(_ value: Double, from reference: Double, scale: FunnelExpectation.Scale) -> Double? {
      // Exactly 0 for a tie (``DecisionRule/tied(_:_:)``): rounding is not an effect.
      switch scale {
      case .absolute: return DecisionRule.difference(value, control: reference)
      case .relative: return reference == 0 ? nil : DecisionRule.difference(value, control: reference) / abs(reference)
      }
    }

    /// The oriented improvement of `id` over the control (positive = better), absolute or
    /// relative to the control's value; `nil` when undefined.
    mutating func improvement(
      _ metric: FunnelMetric, _ id: String, scale: FunnelExpectation.Scale = .absolute
    ) throws(SpecErrors) -> (value: Double, variant: Double, control: Double)? {
      guard let v = try exactValue(metric, id), let c = try exactValue(metric, controlID),
        let d = Self.difference(v, from: c, scale: scale)
      else { return nil }
      return (d * (metric.higherIsBetter ? 1 : -1), v, c)
    }

    mutating func lift(_ e: FunnelExpectation) throws(SpecErrors) -> ExpectationResult {
      guard let d = try improvement(e.metric, e.variant, scale: e.scale) else {
        return result(e, passed: false, measured: nil, evidence: .undefined, failures: [.undefined])
      }
      var failures: [ExpectationResult.Failure] = []
      if let a = e.atLeast, d.value < a { failures.append(.liftShort(improvement: d.value, wanted: a)) }
      if let m = e.atMost, d.value > m { failures.append(.liftTooLarge(improvement: d.value, allowed: m)) }
      if let c = e.costsAtMost, d.value < -c { failures.append(.costsTooMuch(cost: -d.value, allowed: c)) }
      if let c = e.costsAtLeast, d.value > -c { failures.append(.costsTooLittle(cost: -d.value, wanted: c)) }
      if let w = e.within, abs(d.value) > w { failures.append(.notEquivalent(improvement: d.value, margin: w)) }
      return result(
        e, passed: failures.isEmpty, measured: d.value, evidence: .exactValues(variant: d.variant, control: d.control), failures: failures)
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

    mutating func beats(_ stated: FunnelExpectation) throws(SpecErrors) -> ExpectationResult {
      let users = stated.users ?? experiment.users
      let alpha = stated.alpha ?? experiment.metrics.alpha
      let wanted = stated.power ?? 0.8
      var e = stated
      (e.users, e.alpha, e.power) = (users, alpha, wanted)
      guard let d = try improvement(e.metric, e.variant) else {
        return result(e, passed: false, measured: nil, evidence: .undefined, failures: [.undefined])
      }
      let arms = comparedArms(e)
      let comparisons = Swift.max(arms.count, 1)
      let level = alpha / Double(comparisons)
      let n1 = Double(users) * (try denominatorShare(e.metric, e.variant))
      let n0 = Double(users) * (try denominatorShare(e.metric, controlID))
      var power = 0.0
      if d.value > 0, n1 > 0, n0 > 0, d.control > 0, d.control < 1 {
        let problem = PowerAnalysis.Problem(
          method: .pooledNormal, baseline: d.control, effect: d.variant, sampleSize: n1, power: nil, alpha: level, ratio: n0 / n1)
        power = (try? PowerAnalysis.solve(problem).power) ?? 0
      }
      var evidence = ExpectationResult.PowerEvidence(
        difference: d.value, power: power, comparisons: comparisons, level: level, arms: arms)
      var failures: [ExpectationResult.Failure] = []
      if d.value == 0 {
        failures.append(.tie(with: controlID, value: d.control))
      } else if d.value < 0 {
        failures.append(.notBetter(variant: d.variant, control: d.control))
      } else if power < wanted {
        failures.append(.underpowered(power: power, difference: d.value))
      }
      var basis = ExpectationResult.Basis.exact
      var interval: ConfidenceInterval?
      if e.simulate {
        let run = try run(users: users, arms: arms)
        basis = .exactAndExperiment(usersPerArm: users, seed: run.seed)
        let spec = MetricsSpec(primary: e.metric, alpha: alpha, correction: experiment.metrics.correction)
        let analysed = ExperimentReport.analyze(e.metric, observed: run, spec: spec)
        if let arm = analysed.arm(e.variant) {
          let p = arm.adjustedPValue ?? 1
          let observed = (arm.comparison?.difference?.estimate ?? 0) * (e.metric.higherIsBetter ? 1 : -1)
          interval = arm.comparison?.difference?.interval
          evidence.simulated = ExpectationResult.SimulatedComparison(difference: observed, adjustedPValue: p)
          if !(arm.significant && observed > 0) { failures.append(.notSignificantInSimulation(adjustedPValue: p)) }
        }
      }
      return result(
        e, passed: failures.isEmpty, measured: d.value, basis: basis, interval: interval, evidence: .power(evidence), failures: failures)
    }

    /// The power of a TOST at the exact rates and, with `simulate`, the TOST of a seeded run of
    /// the control and the variant (see ``FunnelExpectation/Kind/equivalent``).
    mutating func equivalent(_ stated: FunnelExpectation) throws(SpecErrors) -> ExpectationResult {
      var e = stated
      (e.users, e.alpha, e.power) = (stated.users ?? experiment.users, stated.alpha ?? experiment.metrics.alpha, stated.power ?? 0.8)
      let (users, alpha, wanted) = (e.users ?? 0, e.alpha ?? 0.05, e.power ?? 0.8)
      guard let v = try exactValue(e.metric, e.variant), let c = try exactValue(e.metric, controlID), let within = e.within,
        case let margin = e.scale == .relative ? within * abs(c) : within, margin > 0
      else { return result(e, passed: false, measured: nil, evidence: .undefined, failures: [.undefined]) }
      let d = v - c
      let n1 = Double(users) * (try denominatorShare(e.metric, e.variant))
      let n0 = Double(users) * (try denominatorShare(e.metric, controlID))
      let power =
        (try? TwoProportionEquivalenceTest.power(
          treatmentRate: v, controlRate: c, treatmentUsers: n1, controlUsers: n0, lower: -margin, upper: margin, alpha: alpha)) ?? 0
      var evidence = ExpectationResult.PowerEvidence(difference: d, power: power, comparisons: 1, level: alpha, arms: [e.variant])
      evidence.margin = margin
      var failures: [ExpectationResult.Failure] = []
      if abs(d) >= margin {
        failures.append(.notEquivalent(improvement: d, margin: margin))
      } else if power < wanted {
        failures.append(.underpowered(power: power, difference: d))
      }
      var basis = ExpectationResult.Basis.exact
      var interval: ConfidenceInterval?
      if e.simulate {
        let run = try run(users: users, arms: [e.variant])
        basis = .exactAndExperiment(usersPerArm: users, seed: run.seed)
        if let data = MetricAnalysis.data(e.metric, run.variants.map(\.aggregate)), case .proportions(let counts) = data,
          counts.count == 2,
          let tost = try? TwoProportionEquivalenceTest.test(treatment: counts[1], control: counts[0], lower: -margin, upper: margin)
        {
          let z = Normal.standardQuantile(p: 1 - alpha, q: alpha)
          interval = ConfidenceInterval(
            lower: tost.difference - z * tost.standardError, upper: tost.difference + z * tost.standardError,
            confidenceLevel: 1 - 2 * alpha, method: TwoProportionEquivalenceTest.methodName)
          evidence.simulated = ExpectationResult.SimulatedComparison(difference: tost.difference, adjustedPValue: tost.pValue)
          if !(tost.pValue < alpha) { failures.append(.notShownEquivalentInSimulation(pValue: tost.pValue)) }
        } else {
          failures.append(.undefined)
        }
      }
      return result(
        e, passed: failures.isEmpty, measured: d, basis: basis, interval: interval, evidence: .power(evidence), failures: failures)
    }

    mutating func best(_ stated: FunnelExpectation) throws(SpecErrors) -> ExpectationResult {
      let wanted = stated.probability ?? 0.9
      var e = stated
      e.probability = wanted
      let sign = e.metric.higherIsBetter ? 1.0 : -1.0
      let ranked = rankedArms(e)
      guard let users = e.users else {
        var values: [(String, Double)] = []
        for id in ranked { if let v = try exactValue(e.metric, id) { values.append((id, v * sign)) } }
        guard let mine = values.first(where: { $0.0 == e.variant })?.1 else {
          return result(e, passed: false, measured: nil, evidence: .undefined, failures: [.undefined])
        }
        let rival = values.filter { $0.0 != e.variant }.max { $0.1 < $1.1 }.map {
          ExpectationResult.RankedArm(id: $0.0, value: $0.1 * sign)
        }
        // A tie (``DecisionRule/tied(_:_:)``) is a tie: neither arm is best, neither beats the other.
        let tied = rival.map { DecisionRule.tied(mine * sign, $0.value) } ?? false
        let isBest = !tied && rival.map { mine > $0.value * sign } ?? true
        let p = isBest ? 1.0 : 0.0
        let failure: ExpectationResult.Failure? = rival.map { r in
          tied ? .tie(with: r.id, value: mine * sign) : .rivalIsBetter(r, value: mine * sign)
        }
        return result(
          e, passed: p >= wanted, measured: p, evidence: .exactRanking(value: mine * sign, runnerUp: rival),
          failures: isBest ? [] : failure.map { [$0] } ?? [])
      }
      let run = try run(users: users, arms: ranked)
      let probabilities = Self.probabilityToBeBest(e.metric, run: run)
      let index = run.variants.firstIndex { $0.variant.id == e.variant }
      let p = index.flatMap { probabilities?[$0] }
      let estimate = run.variant(e.variant).map { MetricAnalysis.estimate(e.metric, in: $0.aggregate, alpha: experiment.metrics.alpha) }
      let basis = ExpectationResult.Basis.experiment(usersPerArm: users, seed: run.seed)
      guard let p else {
        return result(e, passed: false, measured: nil, basis: basis, evidence: .undefined, failures: [.undefined])
      }
      var leader: ExpectationResult.RankedArm?
      if let probabilities, let top = probabilities.indices.max(by: { probabilities[$0] < probabilities[$1] }) {
        leader = ExpectationResult.RankedArm(id: run.variants[top].variant.id, value: probabilities[top])
      }
      return result(
        e, passed: p >= wanted, measured: p, basis: basis, interval: estimate?.interval,
        evidence: .probabilityToBeBest(p, estimate: estimate?.estimate), failures: [.probabilityTooLow(p, leader: leader)])
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

  }
}
