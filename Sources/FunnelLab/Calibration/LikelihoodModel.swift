import Foundation
import FunnelStats

/// The likelihood of several variants' observed counts as a function of the parameter
/// vector `φ` (base log-ratios, then behavior parameters): what ``BehaviorCalibration``
/// maximizes. Every evaluation solves the exact engine once per variant.
struct LikelihoodModel: Sendable {
  /// Scoring iterations before a fit is declared not converged.
  static let maxIterations = 100
  /// The forward-difference step of the rates' Jacobian.
  static let jacobianStep = 1e-6
  /// The central-difference step of the observed information. Its error is truncation
  /// (`O(h²)`) plus the round-off of `ℓ` (a sum over ~10⁶ counts, ~10⁻⁹ absolute) divided by
  /// `h²`: at 10⁻⁴ the round-off moved BetFree's standard errors in their 4th digit
  /// (0.0006964 against 0.0006963 at every step from 5·10⁻⁴ to 5·10⁻³); at 10⁻³ both parts
  /// are below the digits printed.
  static let hessianStep = 1e-3

  /// An observed screen of the base flow whose explicit probabilities are fitted.
  struct BaseScreen: Sendable {
    /// The screen's index in the base flow.
    var index: Int
    /// The indices (in the screen's actions) of its explicit actions with a positive
    /// probability; the first is the reference, whose log-ratio is 0.
    var actions: [Int]
    /// The sum of their probabilities in the spec (kept by the fit).
    var total: Double
    /// Explicit actions with a positive probability that no arm ever counted: their
    /// maximum-likelihood probability is 0, which a log-ratio cannot reach, so they are
    /// set to 0 and left out of ``actions``.
    var neverObserved: [Int] = []
  }

  /// The rates at `phi` and their Jacobian (one row per parameter), solved once and handed
  /// on: the identification solves them at the spec's values, where the fit starts.
  struct Linearization: Sendable {
    var phi: [Double]
    var rates: [Double]
    var jacobian: [[Double]]

    /// The same point in `model`'s layout, from `wider`'s, where `wider` is the model
    /// `model` was kept from (``LikelihoodModel/keep(_:)``): its base rows and its kept
    /// parameters' rows. The rates are the same: a parameter left out stays at the spec's
    /// value, which is where `wider`'s was; `nil` when `self` is not a point of `wider`'s, or a
    /// parameter `model` leaves out is not at the spec's value in it.
    func kept(by model: LikelihoodModel, from wider: LikelihoodModel) -> Linearization? {
      guard model.baseCount == wider.baseCount, self.phi.count == wider.count, jacobian.count == wider.count else { return nil }
      for (k, parameter) in wider.behaviors.enumerated() where !model.behaviors.contains(parameter) {
        guard self.phi[wider.baseCount + k] == model.base.behavior[parameter] else { return nil }
      }
      var phi = Array(self.phi.prefix(model.baseCount))
      var rows = Array(jacobian.prefix(model.baseCount))
      for parameter in model.behaviors {
        guard let k = wider.behaviors.firstIndex(of: parameter) else { return nil }
        phi.append(self.phi[wider.baseCount + k])
        rows.append(jacobian[wider.baseCount + k])
      }
      return Linearization(phi: phi, rates: rates, jacobian: rows)
    }
  }

  /// One variant's observed screens.
  struct Arm: Sendable {
    var variant: String
    var index: Int
    var targets: [Calibration.Target]
  }

  /// One screen of one arm in the flat cell layout: its explicit cells and its remainder.
  struct Group: Sendable {
    var cells: Range<Int>
    var views: Double
    /// Views no explicit action accounts for.
    var remainder: Double
  }

  let base: Experiment
  var screens: [BaseScreen]
  var behaviors: [BehaviorParameter]
  let arms: [Arm]
  let groups: [Group]
  /// `n_c` per explicit cell, in arm, target, action order.
  let counts: [Double]
  /// The threshold rows of the model's compiles: each trial `φ` moves a few screens, and the
  /// others' rows are found here (the model's own memo, shared by its copies).
  let memo = CompileMemo()
  /// Workers of ``rates(at:progress:)`` (`nil`: every core); the rates do not depend on it.
  var threads: Int?

  /// The number of base log-ratios at the front of `φ`.
  var baseCount: Int { screens.reduce(0) { $0 + $1.actions.count - 1 } }
  /// The length of `φ`.
  var count: Int { baseCount + behaviors.count }

  init(
    _ experiment: Experiment, observed: [(variant: String, counts: ObservedCounts)], behaviors: [BehaviorParameter], source: String
  ) throws(SpecErrors) {
    base = experiment
    self.behaviors = behaviors
    var arms: [Arm] = []
    for (variant, counts) in observed {
      guard let index = experiment.variants.firstIndex(where: { $0.id == variant }) else {
        let ids = experiment.variants.map(\.id)
        throw SpecErrors(
          source: source,
          errors: [
            SpecError(
              .unknownReference, path: .root, message: "no variant '\(variant)' in the spec",
              hint: NameSuggestion.hint(for: variant, in: ids) ?? "variants: " + ids.joined(separator: ", "))
          ])
      }
      let patched = try experiment.experiment(forVariant: index)
      do {
        arms.append(Arm(variant: variant, index: index, targets: try Calibration.targets(patched, observed: counts, source: source)))
      } catch {
        // The same problem can differ by arm (a screen one variant removes): name the arm.
        throw SpecErrors(
          source: error.source,
          errors: error.errors.map {
            var e = $0
            e.message = "variant '\(variant)': " + e.message
            return e
          })
      }
    }
    self.arms = arms
    var groups: [Group] = []
    var counts: [Double] = []
    // Per viewed screen id, each action's count summed over the arms.
    var observedTotals: [String: [String: UInt64]] = [:]
    for arm in arms {
      let flow = try experiment.experiment(forVariant: arm.index).flow
      for t in arm.targets {
        let start = counts.count
        counts += t.counts.map { Double($0.count) }
        let taken = t.counts.reduce(UInt64(0)) { $0 + $1.count }
        groups.append(Group(cells: start..<counts.count, views: Double(t.views), remainder: Double(t.views - taken)))
        guard t.views > 0 else { continue }
        let id = flow.screens[t.screen].id
        for (action, count) in t.counts { observedTotals[id, default: [:]][action, default: 0] += count }
      }
    }
    self.groups = groups
    self.counts = counts
    screens = experiment.flow.screens.enumerated().compactMap { i, screen in
      guard let totals = observedTotals[screen.id] else { return nil }
      let positive = screen.actions.indices.filter { (screen.actions[$0].probability ?? 0) > 0 }
      // An action no arm lists (another arm's patch added it) is not judged unobserved.
      let never = positive.filter { totals[screen.actions[$0].id] == 0 }
      let actions = positive.filter { !never.contains($0) }
      guard actions.count >= 2 || (!never.isEmpty && !actions.isEmpty) else { return nil }
      return BaseScreen(
        index: i, actions: actions, total: positive.reduce(0) { $0 + (screen.actions[$1].probability ?? 0) }, neverObserved: never)
    }
  }

  /// The spec's values.
  var start: [Double] {
    var phi: [Double] = []
    for s in screens {
      let actions = base.flow.screens[s.index].actions
      let reference = actions[s.actions[0]].probability ?? 1
      for j in s.actions.dropFirst() { phi.append(log((actions[j].probability ?? 0) / reference)) }
    }
    return phi + behaviors.map { base.behavior[$0] }
  }

  /// Keeps only the behavior parameters `kept` (in their order).
  mutating func keep(_ kept: [BehaviorParameter]) { behaviors = behaviors.filter(kept.contains) }

  /// The softmax of a base screen's log-ratios (the reference's is 0), scaled to its total.
  func probabilities(of s: BaseScreen, in phi: [Double], from offset: Int) -> [Double] {
    let eta = [0] + phi[offset..<(offset + s.actions.count - 1)]
    let top = eta.max() ?? 0
    let weights = eta.map { exp($0 - top) }
    let sum = weights.reduce(0, +)
    return weights.map { s.total * $0 / sum }
  }

  /// The base experiment with `φ` written in.
  func experiment(at phi: [Double]) -> Experiment {
    var e = base
    var offset = 0
    for s in screens {
      let p = probabilities(of: s, in: phi, from: offset)
      for (k, j) in s.actions.enumerated() { e.flow.screens[s.index].actions[j].probability = p[k] }
      for j in s.neverObserved { e.flow.screens[s.index].actions[j].probability = 0 }
      offset += s.actions.count - 1
    }
    for (k, parameter) in behaviors.enumerated() { e.behavior[parameter] = phi[baseCount + k] }
    return e
  }

  /// The exact per-view rate of every explicit cell at `φ`. A variant that sets a
  /// probability on a fitted screen has it rebalanced by the rule the calibrated spec is
  /// written with (``Calibration/rebalancingPatches(document:original:calibrated:screens:rounded:)``,
  /// unrounded), so the model fitted is the model written.
  func rates(_ phi: [Double]) -> [Double] {
    let ids = screens.map { base.flow.screens[$0.index].id }
    let e = Calibration.rebalancingPatches(
      document: JSONValue(.object([]), line: 0), original: base, calibrated: experiment(at: phi), screens: ids, rounded: false
    ).1
    var rates: [Double] = []
    rates.reserveCapacity(counts.count)
    for arm in arms {
      // The patches applied to the spec's values; they apply to any φ (they are structural).
      guard let patched = try? e.experiment(forVariant: arm.index) else {
        return [Double](repeating: .nan, count: counts.count)
      }
      let flow = FlowCompiler.compileValidated(patched, variantID: arm.variant, memo: memo)
      let perScreen = Calibration.rates(flow, arm.targets)
      for t in arm.targets { rates += t.counts.map { perScreen[t.screen]?[$0.action] ?? 0 } }
    }
    return rates
  }

  /// `ℓ` of the rates `e`: `−∞` when a count is observed where the model has none.
  func logLikelihood(rates e: [Double]) -> Double {
    var l = 0.0
    for g in groups {
      var taken = 0.0
      for c in g.cells {
        taken += e[c]
        guard counts[c] > 0 else { continue }
        guard e[c] > 0 else { return -.infinity }
        l += counts[c] * log(e[c])
      }
      if g.remainder > 0 {
        let rest = 1 - taken
        guard rest > 0 else { return -.infinity }
        l += g.remainder * log(rest)
      }
    }
    return l.isNaN ? -.infinity : l
  }

  func logLikelihood(_ phi: [Double]) -> Double { logLikelihood(rates: rates(phi)) }

  /// `φ` with every behavior parameter clamped to its range.
  func clamped(_ phi: [Double]) -> [Double] {
    var phi = phi
    for (k, parameter) in behaviors.enumerated() {
      let i = baseCount + k
      phi[i] = min(max(phi[i], parameter.range.lowerBound), parameter.range.upperBound)
    }
    return phi
  }

  /// The rates at every point, solved in parallel (each point's rates are those of ``rates(_:)``);
  /// `progress` hears `(0, total)` first, then the points solved so far, one call at a time.
  func rates(at points: [[Double]], progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) -> [[Double]] {
    progress?(0, points.count)
    var tick: (@Sendable (Int) -> Void)?
    if let progress {
      let ticks = SerialProgress(total: points.count, progress)
      tick = { _ in ticks.tick() }
    }
    return ExactTruth.solve(count: points.count, threads: threads, progress: tick) { k -> Result<[Double], Never> in
      .success(rates(points[k]))
    }
    .map {
      switch $0 {
      case .success(let rates): rates
      }
    }
  }

  /// The derivatives of the rates by forward differences: one row per parameter. The row of
  /// a parameter held `fixed` is zeros, without its solve (a fit that holds it never reads it).
  /// `progress` hears the rows solved and their total (``rates(at:progress:)``).
  func jacobian(
    _ phi: [Double], rates e: [Double], fixed: Int? = nil, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) -> [[Double]] {
    let steps = phi.map { Self.jacobianStep * max(1, abs($0)) }
    let moving = phi.indices.filter { $0 != fixed }
    let points = moving.map { i in
      var moved = phi
      moved[i] += steps[i]
      return moved
    }
    var rows = [[Double]](repeating: [Double](repeating: 0, count: e.count), count: phi.count)
    for (i, row) in zip(moving, rates(at: points, progress: progress)) { rows[i] = zip(row, e).map { ($0 - $1) / steps[i] } }
    return rows
  }

  /// The score `∂ℓ/∂φ` and the expected (Fisher) information at rates `e` with Jacobian `d`.
  func scoreAndInformation(rates e: [Double], jacobian d: [[Double]]) -> (score: [Double], information: [[Double]]) {
    let p = d.count
    var score = [Double](repeating: 0, count: p)
    var information = [[Double]](repeating: [Double](repeating: 0, count: p), count: p)
    for g in groups {
      let rest = 1 - g.cells.reduce(0) { $0 + e[$1] }
      let restDerivative = d.map { row in -g.cells.reduce(0) { $0 + row[$1] } }
      for i in 0..<p {
        for c in g.cells where e[c] > 0 { score[i] += counts[c] * d[i][c] / e[c] }
        if rest > 1e-12 { score[i] += g.remainder * restDerivative[i] / rest }
        for j in 0...i {
          var f = 0.0
          for c in g.cells where e[c] > 0 { f += d[i][c] * d[j][c] / e[c] }
          if rest > 1e-12 { f += restDerivative[i] * restDerivative[j] / rest }
          information[i][j] += g.views * f
          if i != j { information[j][i] = information[i][j] }
        }
      }
    }
    return (score, information)
  }
}
