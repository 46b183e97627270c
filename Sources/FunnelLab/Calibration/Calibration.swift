import Foundation
package import FunnelStats

/// Fits a spec's explicit action probabilities to counts observed in production and
/// tests the spec's assumptions against them.
///
/// **What is fitted.** For every screen with observed data, the base probability
/// `p_a` of each explicit action `a` of the spec's (control) flow — segment
/// overrides and behavior parameters are kept. With `N_s` users viewing screen `s`
/// and `n_a` taking `a`, the fit makes the exact engine's expected per-view rate
/// `e_a(p) = E[taken a] / E[views of s]` equal the observed rate `r_a = n_a / N_s` by
/// the fixed-point iteration `p_a ← p_a · r_a / e_a(p)`, renormalised per screen.
/// When the flow's behavior effects are off, `e_a = p_a` and one step gives the
/// multinomial maximum-likelihood estimate `p̂_a = n_a / N_s`; with effects on, the
/// iteration matches the expected counts (the MLE of the per-screen rates) within
/// `1e-9` or stops after `maxIterations`.
///
/// **Goodness of fit.** Per screen the G statistic (Poisson deviance)
/// `G = 2 Σ_a [n_a ln(n_a / E_a) − (n_a − E_a)]` with `E_a = N_s e_a`, on `k − 1`
/// degrees of freedom, its p-value from ``ChiSquared``; before the fit (the
/// assumptions) and after. An action **contradicts** the assumption when the rate
/// the spec implies lies outside the observed rate's Wilson interval at level
/// `1 − 0.05 / m` (Bonferroni over the `m` actions observed).
///
/// - Complexity: one exact solve per iteration.
package struct Calibration: Sendable {
  /// One action's observed rate against the spec.
  package struct ActionFit: Sendable, Hashable {
    /// The screen's id.
    package var screen: String
    /// The action's id (an action of the spec with an explicit probability).
    package var action: String
    /// `n_a`: times the action was observed; 0 when the export has no row for it, and for `quit` without a
    /// row the views no logged action accounts for.
    package var count: UInt64
    /// `N_s`: users who viewed the screen (the export's `views` row, else the sum of its action counts).
    package var views: UInt64
    /// `n_a / N_s`.
    package var observedRate: Double
    /// Wilson interval of the observed rate at level `1 − 0.05 / m`.
    package var interval: ConfidenceInterval?
    /// The per-view rate the spec implies (exact engine).
    package var assumedRate: Double
    /// The spec's base probability.
    package var assumedProbability: Double
    /// The fitted base probability (written to the calibrated spec).
    package var fittedProbability: Double
    /// The assumed rate lies outside ``interval``.
    package var contradicted: Bool
  }

  /// One screen's goodness of fit.
  package struct ScreenFit: Sendable, Hashable {
    /// The screen's id.
    package var screen: String
    /// `N_s`: users who viewed the screen.
    package var views: UInt64
    /// `k − 1` for the screen's `k` fitted actions (0 for a single action, whose p-values are then 1).
    package var degreesOfFreedom: Int
    /// G of the spec's assumptions and its p-value.
    package var assumedG: Double
    /// The upper-tail χ² p-value of ``assumedG``: small when the data contradict the spec.
    package var assumedP: Double
    /// G after the fit and its p-value.
    package var fittedG: Double
    /// The upper-tail χ² p-value of ``fittedG``.
    package var fittedP: Double
  }

  /// Every fitted action, screen by screen in flow order, each screen's actions in the spec's order.
  package var actions: [ActionFit]
  /// Every screen with observed data, in flow order.
  package var screens: [ScreenFit]
  /// Iterations the fit took.
  package var iterations: Int
  /// The spec with the fitted probabilities.
  package var calibrated: Experiment
  /// The spec document with the fitted probabilities replaced (member order kept).
  package var document: JSONValue
  /// Patches changed so that the screens they patch still sum to 1 over the fitted
  /// probabilities (see ``rebalancingPatches(document:original:calibrated:screens:)``).
  package var rebalanced: [PatchRebalance]

  /// The sum of the screens' G and degrees of freedom, and the p-value, before the fit.
  package var assumedTotal: (g: Double, degreesOfFreedom: Int, p: Double) {
    let g = screens.reduce(0) { $0 + $1.assumedG }
    let df = screens.reduce(0) { $0 + $1.degreesOfFreedom }
    return (g, df, df > 0 ? ChiSquared(degreesOfFreedom: Double(df)).sf(g) : 1)
  }

  /// The same after the fit.
  package var fittedTotal: (g: Double, degreesOfFreedom: Int, p: Double) {
    let g = screens.reduce(0) { $0 + $1.fittedG }
    let df = screens.reduce(0) { $0 + $1.degreesOfFreedom }
    return (g, df, df > 0 ? ChiSquared(degreesOfFreedom: Double(df)).sf(g) : 1)
  }

  /// Observed counts per (screen index, explicit action id).
  struct Target {
    var screen: Int
    var views: UInt64
    var counts: [(action: String, count: UInt64)]
  }

  /// Fits `experiment` (its control) to `observed`.
  /// - Parameter document: the spec's JSON, to write the calibrated spec from.
  /// - Throws: ``SpecErrors`` for an invalid spec or counts naming unknown screens or actions.
  package static func fit(
    _ experiment: Experiment, document: JSONValue, observed: ObservedCounts, source: String = "observed", maxIterations: Int = 200
  ) throws(SpecErrors) -> Calibration {
    let targets = try targets(experiment, observed: observed, source: source)
    let initial = try rates(experiment, targets)
    let solution = try fixedPoint(experiment, targets: targets, initial: initial, maxIterations: maxIterations, source: source)
    var current = solution.current
    let actionCount = targets.reduce(0) { $0 + $1.counts.count }
    let level = 1 - 0.05 / Double(max(actionCount, 1))
    var actions: [ActionFit] = []
    var screens: [ScreenFit] = []
    var out = document
    for t in targets {
      let (screenActions, screen) = goodnessOfFit(
        t, experiment: experiment, current: current, initial: initial, fitted: solution.fitted, level: level)
      actions += screenActions
      screens.append(screen)
      writeRounded(t.screen, of: &current, into: &out)
    }
    let fittedScreens = targets.map { experiment.flow.screens[$0.screen].id }
    let (document, calibrated, rebalanced) = rebalancingPatches(
      document: out, original: experiment, calibrated: current, screens: fittedScreens)
    try refuseBrokenFlow(experiment, fitted: calibrated, source: source)
    return Calibration(
      actions: actions, screens: screens, iterations: solution.iterations, calibrated: calibrated, document: document,
      rebalanced: rebalanced)
  }

  /// The fixed-point iteration `p_a ← p_a · r_a / e_a(p)`, renormalised per screen, until every
  /// expected rate is within 1e-9 of the observed one or after `maxIterations`.
  private static func fixedPoint(
    _ experiment: Experiment, targets: [Target], initial: [Int: [String: Double]], maxIterations: Int, source: String
  ) throws(SpecErrors) -> (current: Experiment, fitted: [Int: [String: Double]], iterations: Int) {
    var current = experiment
    var iterations = 0
    var fitted = initial
    while iterations < maxIterations {
      var worst = 0.0
      for t in targets {
        guard t.views > 0 else { continue }
        var screen = current.flow.screens[t.screen]
        for (j, action) in screen.actions.enumerated() {
          guard let p = action.probability, let n = t.counts.first(where: { $0.action == action.id })?.count else { continue }
          let r = Double(n) / Double(t.views)
          let e = fitted[t.screen]?[action.id] ?? 0
          worst = max(worst, abs(r - e))
          screen.actions[j].probability = r == 0 ? 0 : (e > 0 ? p * r / e : p)
        }
        let sum = screen.actions.reduce(0.0) { $0 + ($1.probability ?? 0) }
        if sum > 0 { for j in screen.actions.indices { screen.actions[j].probability = screen.actions[j].probability.map { $0 / sum } } }
        current.flow.screens[t.screen] = screen
      }
      if worst < 1e-9 { break }
      iterations += 1
      do {
        fitted = try rates(current, targets)
      } catch {
        try refuseBrokenFlow(experiment, fitted: current, source: source)
        throw error
      }
    }
    return (current, fitted, iterations)
  }

  /// One screen's fit: each action's observed rate against the spec, and the screen's G before
  /// and after the fit.
  private static func goodnessOfFit(
    _ t: Target, experiment: Experiment, current: Experiment, initial: [Int: [String: Double]],
    fitted: [Int: [String: Double]], level: Double
  ) -> (actions: [ActionFit], screen: ScreenFit) {
    let id = experiment.flow.screens[t.screen].id
    var actions: [ActionFit] = []
    var gAssumed = 0.0
    var gFitted = 0.0
    for (action, n) in t.counts {
      let assumed = initial[t.screen]?[action] ?? 0
      let after = fitted[t.screen]?[action] ?? 0
      gAssumed += deviance(Double(n), Double(t.views) * assumed)
      gFitted += deviance(Double(n), Double(t.views) * after)
      let interval = (try? ProportionCount(successes: Int(clamping: n), trials: Int(clamping: t.views))).flatMap {
        try? ProportionInterval.wilson($0, confidenceLevel: level)
      }
      let p0 = experiment.flow.screens[t.screen].action(action)?.probability ?? 0
      let p1 = current.flow.screens[t.screen].action(action)?.probability ?? 0
      actions.append(
        ActionFit(
          screen: id, action: action, count: n, views: t.views, observedRate: t.views > 0 ? Double(n) / Double(t.views) : 0,
          interval: interval, assumedRate: assumed, assumedProbability: p0, fittedProbability: p1,
          contradicted: interval.map { !$0.contains(assumed) } ?? false))
    }
    let df = max(t.counts.count - 1, 0)
    let chi = ChiSquared(degreesOfFreedom: Double(max(df, 1)))
    let screen = ScreenFit(
      screen: id, views: t.views, degreesOfFreedom: df, assumedG: gAssumed, assumedP: df > 0 ? chi.sf(gAssumed) : 1,
      fittedG: gFitted, fittedP: df > 0 ? chi.sf(gFitted) : 1)
    return (actions, screen)
  }

  /// Rounds screen `index`'s fitted probabilities to 4 decimals (the rounding residue on the
  /// largest action) in both the calibrated experiment and the document.
  static func writeRounded(_ index: Int, of current: inout Experiment, into out: inout JSONValue) {
    // Four decimals; a positive probability below 0.00005 keeps four significant digits, so
    // that the written spec never closes a path the fit left open.
    var rounded = current.flow.screens[index].actions.compactMap { a in a.probability.map { (a.id, roundedProbability($0)) } }
    let residue = 1 - rounded.reduce(0) { $0 + $1.1 }
    if let k = rounded.indices.max(by: { rounded[$0].1 < rounded[$1].1 }) {
      // Eight decimals when a tiny probability kept its digits, so the screen still sums to 1.
      let scale = rounded.contains { $0.1 != ($0.1 * 10_000).rounded() / 10_000 } ? 100_000_000.0 : 10_000
      rounded[k].1 = ((rounded[k].1 + residue) * scale).rounded() / scale
    }
    for (action, p) in rounded {
      let path: SpecPath = [.key("flow"), .key("screens"), .index(index), .key("actions"), .key(action)]
      out = out.settingProbability(at: path, to: p)
      if let j = current.flow.screens[index].actions.firstIndex(where: { $0.id == action }) {
        current.flow.screens[index].actions[j].probability = p
      }
    }
  }

  /// `p` to four decimals, or to four significant digits when that would make it 0.
  static func roundedProbability(_ p: Double) -> Double {
    let fixed = (p * 10_000).rounded() / 10_000
    guard fixed == 0, p > 0, p.isFinite else { return fixed }
    let scale = Foundation.pow(10, 3 - Foundation.log10(p).rounded(.down))
    return (p * scale).rounded() / scale
  }

  /// `2 [n ln(n/E) − (n − E)]`, the Poisson deviance of one cell.
  static func deviance(_ n: Double, _ e: Double) -> Double {
    if e <= 0 { return n > 0 ? .infinity : 0 }
    return 2 * ((n > 0 ? n * (n / e).log : 0) - (n - e))
  }

  /// The observed counts matched to the spec's screens and explicit actions.
  static func targets(_ experiment: Experiment, observed: ObservedCounts, source: String) throws(SpecErrors) -> [Target] {
    var errors: [SpecError] = []
    var targets: [Target] = []
    let screenIDs = experiment.flow.screens.map(\.id)
    for id in Set(observed.views.keys).union(observed.actions.keys).sorted() where !screenIDs.contains(id) {
      errors.append(
        SpecError(
          .unknownReference, path: .root, message: "no screen '\(id)' in the spec", hint: NameSuggestion.hint(for: id, in: screenIDs)))
    }
    for (i, screen) in experiment.flow.screens.enumerated() {
      let counts = observed.actions[screen.id] ?? [:]
      guard observed.views[screen.id] != nil || !counts.isEmpty else { continue }
      let ids = screen.actions.map(\.id)
      for action in counts.keys.sorted() where !ids.contains(action) {
        errors.append(
          SpecError(
            .unknownReference, path: .root, message: "screen '\(screen.id)' has no action '\(action)'",
            hint: NameSuggestion.hint(for: action, in: ids) ?? "its actions: " + ids.joined(separator: ", ")))
      }
      // Each count is at most 10¹⁵ (``ObservedCounts``); stop adding past that: no overflow.
      let limit = UInt64(Limits.count)
      let taken = counts.values.reduce(UInt64(0)) { $0 <= limit ? $0 + $1 : $0 }
      if taken > limit {
        errors.append(
          SpecError(
            .limit, path: .root, message: "screen '\(screen.id)': its actions add up to more than \(limit)", hint: "check the export"))
        continue
      }
      let views = observed.views[screen.id] ?? taken
      if taken > views {
        errors.append(
          SpecError(path: .root, message: "screen '\(screen.id)': \(taken) actions but only \(views) views", hint: "check the export"))
      }
      var list = screen.actions.filter { $0.probability != nil }.map { (action: $0.id, count: counts[$0.id] ?? 0) }
      // Users who viewed the screen and did nothing logged: they quit.
      if views > taken, counts["quit"] == nil, let q = list.firstIndex(where: { $0.action == "quit" }) { list[q].count = views - taken }
      targets.append(Target(screen: i, views: views, counts: list))
    }
    guard errors.isEmpty else { throw SpecErrors(source: source, errors: errors) }
    return targets
  }

  /// The exact per-view rate of each explicit action of the target screens.
  static func rates(_ experiment: Experiment, _ targets: [Target]) throws(SpecErrors) -> [Int: [String: Double]] {
    return rates(try FlowCompiler.compile(experiment, variant: 0), targets)
  }

  /// The per-view rate of each explicit action of the target screens of `flow`, from the exact
  /// engine's expected views and action counts (``ExactEngine/visits(_:)``).
  static func rates(_ flow: CompiledFlow, _ targets: [Target]) -> [Int: [String: Double]] {
    let exact = ExactEngine.visits(flow)
    var rates: [Int: [String: Double]] = [:]
    for t in targets {
      let views = exact.views[t.screen]
      var perAction: [String: Double] = [:]
      for (k, slot) in flow.actions.enumerated() where slot.screen == t.screen && !slot.implicit {
        perAction[slot.id, default: 0] += views > 0 ? exact.actionCounts[k] / views : 0
      }
      rates[t.screen] = perAction
    }
    return rates
  }
}

extension Double {
  fileprivate var log: Double { Foundation.log(self) }
}

extension JSONValue {
  /// This document with the action at `path` given probability `p`: a bare number
  /// is replaced, an object's `probability` member is set (member order kept).
  func settingProbability(at path: SpecPath, to p: Double) -> JSONValue {
    guard let first = path.components.first else {
      switch kind {
      case .number: return JSONValue(.number(p, literal: JSONValue.format(p)), line: line)
      case .object(var members):
        if let i = members.firstIndex(where: { $0.key == "probability" }) {
          members[i].value = JSONValue(.number(p, literal: JSONValue.format(p)), line: members[i].value.line)
        } else {
          members.append(Member(key: "probability", value: .number(p)))
        }
        return JSONValue(.object(members), line: line)
      default: return self
      }
    }
    let rest = SpecPath(Array(path.components.dropFirst()))
    switch (first, kind) {
    case (.key(let key), .object(var members)):
      guard let i = members.firstIndex(where: { $0.key == key }) else { return self }
      members[i].value = members[i].value.settingProbability(at: rest, to: p)
      return JSONValue(.object(members), line: line)
    case (.index(let i), .array(var elements)):
      guard elements.indices.contains(i) else { return self }
      elements[i] = elements[i].settingProbability(at: rest, to: p)
      return JSONValue(.array(elements), line: line)
    default:
      return self
    }
  }
}
