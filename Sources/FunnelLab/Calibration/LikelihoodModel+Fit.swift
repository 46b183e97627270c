import Foundation
import FunnelStats

extension LikelihoodModel {
  /// Splits the candidate behavior parameters into those the design identifies and those
  /// it does not (``BehaviorCalibration`` explains the rule), from the expected information at `phi`;
  /// `progress` hears the Jacobian's rows solved, one per parameter. Also returns the rates
  /// and Jacobian it solved at `phi`, for the fit that starts there (``Linearization/kept(by:from:)``).
  func identify(
    at phi: [Double], progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) -> (identified: [BehaviorParameter], unidentified: [BehaviorCalibration.Unidentified], solved: Linearization) {
    let e = rates(phi)
    let d = jacobian(phi, rates: e, progress: progress)
    let information = scoreAndInformation(rates: e, jacobian: d).information
    var accepted = Array(0..<baseCount)
    var identified: [BehaviorParameter] = []
    var unidentified: [BehaviorCalibration.Unidentified] = []
    let names = parameterNames
    for (k, parameter) in behaviors.enumerated() {
      let j = baseCount + k
      let own = information[j][j]
      guard own.isFinite, own > 1e-9 else {
        unidentified.append(.init(parameter: parameter, confoundedWith: [], unexplainedShare: 0))
        continue
      }
      let (residual, coefficients) = schurComplement(information, of: j, given: accepted)
      let share = residual / own
      if share >= BehaviorCalibration.identifiabilityShare {
        accepted.append(j)
        identified.append(parameter)
      } else {
        // The parameters whose columns carry most of its information.
        let weights = zip(accepted, coefficients).map { (i, c) in (i, abs(c) * information[i][i].squareRoot() / own.squareRoot()) }
        let main = weights.filter { $0.1 >= 0.1 }.sorted { $0.1 > $1.1 }.prefix(3).map { names[$0.0] }
        unidentified.append(.init(parameter: parameter, confoundedWith: main, unexplainedShare: max(share, 0)))
      }
    }
    return (identified, unidentified, Linearization(phi: phi, rates: e, jacobian: d))
  }

  /// `F_jj − F_jA F_AA⁻¹ F_Aj` and the regression coefficients `F_AA⁻¹ F_Aj`.
  func schurComplement(_ f: [[Double]], of j: Int, given a: [Int]) -> (Double, [Double]) {
    guard !a.isEmpty else { return (f[j][j], []) }
    let block = a.flatMap { r in a.map { f[r][$0] } }
    guard let solver = _SymmetricSolve(block, size: a.count) else { return (0, a.map { _ in 0 }) }
    let column = a.map { f[$0][j] }
    let c = solver.solve(column)
    return (f[j][j] - zip(column, c).reduce(0) { $0 + $1.0 * $1.1 }, c)
  }

  /// Each parameter's name: `screen.action` for a base log-ratio, else the behavior parameter's.
  var parameterNames: [String] {
    var names: [String] = []
    for s in screens {
      let screen = base.flow.screens[s.index]
      names += s.actions.dropFirst().map { "\(screen.id).\(screen.actions[$0].id)" }
    }
    return names + behaviors.map(\.rawValue)
  }

  /// Fisher scoring with step halving from `phi` (updated in place), `fixed` held constant;
  /// a behavior parameter on its range bound whose step points out is held for that step.
  ///
  /// Returns whether it converged, the iterations, and `ℓ` and the rates at the final `phi`.
  /// The rates of the point accepted are kept for the next iteration, not solved again, and
  /// so are `solved`'s at the start when it was solved at `phi` (with no parameter `fixed`).
  /// `progress` hears each iteration (from 1) and its Jacobian's rows solved, one per free
  /// parameter (all at once for rows taken from `solved`).
  func maximize(
    from phi: inout [Double], fixed: Int?, solved: Linearization? = nil,
    progress: (@Sendable (_ iteration: Int, _ done: Int, _ total: Int) -> Void)? = nil
  ) -> (converged: Bool, iterations: Int, logLikelihood: Double, rates: [Double]) {
    phi = clamped(phi)
    let known = solved.flatMap { $0.phi == phi && fixed == nil ? $0 : nil }
    var reused = known?.jacobian
    var e = known?.rates ?? rates(phi)
    var current = logLikelihood(rates: e)
    guard current.isFinite else { return (false, 0, current, e) }
    let scale = max(1, groups.reduce(0) { $0 + $1.views } / 1000)
    for iteration in 0..<Self.maxIterations {
      var rows: (@Sendable (Int, Int) -> Void)?
      if let progress { rows = { done, total in progress(iteration + 1, done, total) } }
      let d: [[Double]]
      if let rowsSolved = reused.take() {
        rows?(0, count)
        rows?(count, count)
        d = rowsSolved
      } else {
        d = jacobian(phi, rates: e, fixed: fixed, progress: rows)
      }
      let (score, information) = scoreAndInformation(rates: e, jacobian: d)
      guard var (free, step) = newtonStep(score, information, excluding: fixed.map { [$0] } ?? []) else {
        return (false, iteration, current, e)
      }
      let blocked = free.indices.filter { k in
        let i = free[k]
        guard i >= baseCount else { return false }
        let range = behaviors[i - baseCount].range
        return (phi[i] <= range.lowerBound && step[k] < 0) || (phi[i] >= range.upperBound && step[k] > 0)
      }
      if !blocked.isEmpty {
        let held = blocked.map { free[$0] } + (fixed.map { [$0] } ?? [])
        guard let retry = newtonStep(score, information, excluding: held) else { return (false, iteration, current, e) }
        (free, step) = retry
      }
      let decrement = zip(step, free).reduce(0) { $0 + $1.0 * score[$1.1] }
      // The decrement ≈ 2(ℓ_max − ℓ); its floor grows with the counts (round-off of ℓ and of
      // the forward differences), so the tolerance is per thousand views.
      if decrement < 1e-9 * scale { return (true, iteration, current, e) }
      var t = 1.0
      var accepted = false
      for _ in 0..<40 {
        var next = phi
        for (k, i) in free.enumerated() { next[i] += t * step[k] }
        next = clamped(next)
        let nextRates = rates(next)
        let value = logLikelihood(rates: nextRates)
        if value.isFinite, value >= current + 1e-4 * t * decrement {
          accepted = next != phi
          phi = next
          current = value
          e = nextRates
          break
        }
        t /= 2
      }
      // No step improves ℓ: the decrement is round-off.
      if !accepted { return (decrement < 1e-4 * scale, iteration + 1, current, e) }
    }
    return (false, Self.maxIterations, current, e)
  }

  /// The free coordinates and the Newton step `F⁻¹U` over them; `nil` when the information is singular.
  func newtonStep(_ score: [Double], _ information: [[Double]], excluding held: [Int]) -> ([Int], [Double])? {
    let free = (0..<count).filter { !held.contains($0) }
    guard !free.isEmpty else { return ([], []) }
    let block = free.flatMap { r in free.map { information[r][$0] } }
    guard let solver = _SymmetricSolve(block, size: free.count) else { return nil }
    return (free, solver.solve(free.map { score[$0] }))
  }

  /// The inverse of the observed information (the negative Hessian of `ℓ` by central
  /// differences) at `phi`; `nil` when it is not positive definite. A mixed derivative
  /// reuses the points of the two diagonal ones and adds two of its own:
  /// `∂²ℓ/∂i∂j ≈ [ℓ(+i+j) − ℓ(+i) − ℓ(+j) + 2ℓ − ℓ(−i) − ℓ(−j) + ℓ(−i−j)] / 2h²`, also
  /// `O(h²)`, so the Hessian costs `p + p²` solves (and the center's, unless `centerRates`
  /// holds them) instead of `1 + 2p²`; `progress` hears them solved.
  func covariance(
    at phi: [Double], centerRates: [Double]? = nil, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) -> [[Double]]? {
    let p = count
    let h = Self.hessianStep
    // The points, in order: the center; per i, +h and −h; per j < i, ++ and −−.
    var points: [[Double]] = [phi]
    func point(_ moves: [(Int, Double)]) -> [Double] {
      var x = phi
      for (i, d) in moves { x[i] += d }
      return x
    }
    for i in 0..<p {
      points += [point([(i, h)]), point([(i, -h)])]
      for j in 0..<i { points += [point([(i, h), (j, h)]), point([(i, -h), (j, -h)])] }
    }
    let solved =
      centerRates.map { [$0] + rates(at: Array(points.dropFirst()), progress: progress) } ?? rates(at: points, progress: progress)
    let values = solved.map { logLikelihood(rates: $0) }
    let center = values[0]
    // Where each index's ±h values and each pair's ++/−− values are.
    var single = [Int](repeating: 0, count: p)
    var pair = [[Int]](repeating: [], count: p)
    var next = 1
    for i in 0..<p {
      single[i] = next
      next += 2
      for _ in 0..<i {
        pair[i].append(next)
        next += 2
      }
    }
    var information = [Double](repeating: 0, count: p * p)
    for i in 0..<p {
      let (plusI, minusI) = (values[single[i]], values[single[i] + 1])
      information[i * p + i] = -(plusI - 2 * center + minusI) / (h * h)
      for j in 0..<i {
        let (plusJ, minusJ) = (values[single[j]], values[single[j] + 1])
        let (both, neither) = (values[pair[i][j]], values[pair[i][j] + 1])
        let hij = -(both - plusI - plusJ + 2 * center - minusI - minusJ + neither) / (2 * h * h)
        information[i * p + j] = hij
        information[j * p + i] = hij
      }
    }
    guard information.allSatisfy(\.isFinite), let solver = _SymmetricSolve(information, size: p) else { return nil }
    var covariance: [[Double]] = []
    for i in 0..<p {
      var unit = [Double](repeating: 0, count: p)
      unit[i] = 1
      covariance.append(solver.solve(unit))
    }
    return covariance
  }

  /// The fitted base probabilities with their delta-method standard errors, screen by screen.
  func probabilityParameters(_ phi: [Double], covariance: [[Double]], z: Double) -> [BehaviorCalibration.FittedParameter] {
    var out: [BehaviorCalibration.FittedParameter] = []
    var offset = 0
    for s in screens {
      let screen = base.flow.screens[s.index]
      let p = probabilities(of: s, in: phi, from: offset)
      let m = s.actions.count - 1
      for (k, j) in s.actions.enumerated() {
        // ∂p_k/∂η_b = total · p̃_k (δ_kb − p̃_b) for the non-reference b.
        let shares = p.map { $0 / s.total }
        let gradient = (1...max(m, 1)).prefix(m).map { b in s.total * shares[k] * ((k == b ? 1 : 0) - shares[b]) }
        var variance = 0.0
        for a in 0..<m { for b in 0..<m { variance += gradient[a] * gradient[b] * covariance[offset + a][offset + b] } }
        let se = max(variance, 0).squareRoot()
        out.append(
          BehaviorCalibration.FittedParameter(
            kind: .probability(screen: screen.id, action: screen.actions[j].id), assumed: screen.actions[j].probability ?? 0,
            fitted: p[k], standardError: se, interval: max(0, p[k] - z * se)...min(1, p[k] + z * se)))
      }
      offset += m
    }
    return out
  }

  /// The profile-likelihood interval of parameter `i` (a behavior parameter), written into
  /// `parameter`; `ended` is called with 1 and 2 as each end is found.
  ///
  /// Each profile point is a fit with `i` held, started on the line through the two points
  /// nearest it of the estimate and the points found since on that side
  /// (``start(_:from:path:slopes:of:)``); the first, where the estimates' covariance
  /// (`covarianceRow`, row `i` of the inverse information) predicts the others move with it.
  /// The ends are searched on the signed root `√(2[ℓ̂ − ℓ_p(t)])`, which is nearly linear in
  /// `t` (exactly so where ℓ is quadratic), so a step from the Wald end lands near the crossing.
  func profile(
    _ i: Int, estimate: [Double], logLikelihood best: Double, se: Double, z: Double, covarianceRow: [Double],
    into parameter: inout BehaviorCalibration.FittedParameter, ended: (Int) -> Void = { _ in }
  ) {
    let range = behaviors[i - baseCount].range
    let critical = z * z
    let slopes = covarianceRow.map { covarianceRow[i] > 0 ? $0 / covarianceRow[i] : 0 }
    // The profile points found so far on this side: each one's `t` and maximizing `φ`.
    var path: [(t: Double, phi: [Double])] = []
    // 2[ℓ̂ − ℓ_p(t)] − χ²: negative inside the interval.
    func excess(_ t: Double) -> Double {
      var phi = start(t, from: (estimate[i], estimate), path: path, slopes: slopes, of: i)
      let value = maximize(from: &phi, fixed: i).logLikelihood
      path.append((t, phi))
      return value.isFinite ? 2 * (best - value) - critical : .infinity
    }
    var ends: [Double] = []
    var bounded: [Bool] = []
    for direction in [-1.0, 1.0] {
      path = []
      let bound = direction < 0 ? range.lowerBound : range.upperBound
      var inside = (t: estimate[i], f: -critical)
      var outside: (t: Double, f: Double)?
      // The Wald end first (where a quadratic ℓ crosses), then as far as the signed root's
      // secant through the last two points says the crossing is: a little past it, so that the
      // point is outside (at least 1 % and at most 200 % further than the last step).
      var step = z * max(se, 1e-6)
      var last = (step: 0.0, root: 0.0)
      for _ in 0..<30 {
        let t = direction < 0 ? max(estimate[i] - step, bound) : min(estimate[i] + step, bound)
        let f = excess(t)
        if f >= 0 {
          outside = (t, f)
          break
        }
        inside = (t, f)
        if t == bound { break }
        let root = (f + critical).squareRoot()
        let further = root > last.root ? (1.02 * z - root) * (step - last.step) / (root - last.root) : 2 * step
        last = (step, root)
        step += min(max(further, 0.01 * step), 2 * step)
      }
      if let out = outside {
        ends.append(crossing(inside: inside, outside: out, tolerance: 1e-3 * max(se, 1e-6), critical: critical, excess))
        bounded.append(false)
      } else {
        // The bound inside the interval (or, past 30 widenings, the widest point reached).
        ends.append(inside.t)
        bounded.append(true)
      }
      ended(ends.count)
    }
    parameter.profileInterval = min(ends[0], ends[1])...max(ends[0], ends[1])
    parameter.lowerBounded = bounded[0]
    parameter.upperBounded = bounded[1]
  }

  /// Where the profile fit at `t` starts: on the line through the two points nearest `t` of
  /// `origin` (the estimate) and `path` (the points found since), between them when `t` is
  /// (as in most steps of a root search) and past them otherwise; with `origin` alone, where
  /// the estimates' covariance (`slopes`) predicts the others move with parameter `i`.
  func start(
    _ t: Double, from origin: (t: Double, phi: [Double]), path: [(t: Double, phi: [Double])], slopes: [Double], of i: Int
  ) -> [Double] {
    let points = [origin] + path
    let a = points.min { abs($0.t - t) < abs($1.t - t) } ?? origin
    var phi = a.phi
    if let b = points.filter({ $0.t != a.t }).min(by: { abs($0.t - t) < abs($1.t - t) }) {
      let u = (t - a.t) / (b.t - a.t)
      for j in phi.indices { phi[j] = a.phi[j] + u * (b.phi[j] - a.phi[j]) }
    } else {
      for j in phi.indices where j != i { phi[j] += slopes[j] * (t - a.t) }
    }
    phi[i] = t
    return phi
  }

  /// The root of `excess` between `inside` (f < 0) and `outside` (f ≥ 0) by regula falsi
  /// with the Illinois weighting; bisection where `f` is infinite (ℓ = −∞ at that point).
  ///
  /// With `critical` (`f` = D − critical for a deviance D ≥ 0), the steps interpolate the
  /// signed root `√D − √critical` instead of `f`: linear where D is quadratic, so one step
  /// lands near the root. It stops when the bracket is narrower than `tolerance`, when an
  /// end's `f` is within 10⁻⁴ of 0, or when the last point is within `tolerance` of the root
  /// by the secants through it (an estimate never too short where the slope is monotone).
  func crossing(
    inside start: (t: Double, f: Double), outside end: (t: Double, f: Double), tolerance: Double, critical: Double? = nil,
    _ excess: (Double) -> Double
  ) -> Double {
    // The value interpolated: the signed root with `critical`, else `f` itself.
    func g(_ f: Double) -> Double {
      guard let critical, f.isFinite else { return f }
      return max(f + critical, 0).squareRoot() - critical.squareRoot()
    }
    var inside = start
    var out = end
    // The weights of the Illinois rule, kept apart from the true values the stop uses.
    var weightIn = 1.0
    var weightOut = 1.0
    var side = 0
    // How far `p` is from the root: its interpolated value over the smaller of two secant
    // slopes, through the bracket end it replaced and through the other end. Where the slope
    // is monotone over the bracket, one of them is at most the mean slope between `p` and
    // the root (the first where it grows towards the other end, else the second), so the
    // distance is never too short.
    func distanceToRoot(of p: (t: Double, f: Double), replacing q: (t: Double, f: Double), other b: (t: Double, f: Double)) -> Double {
      let slope = min(abs((g(p.f) - g(q.f)) / (p.t - q.t)), abs((g(b.f) - g(p.f)) / (b.t - p.t)))
      guard p.f.isFinite, q.f.isFinite, b.f.isFinite, slope.isFinite, slope > 0 else { return .infinity }
      return abs(g(p.f)) / slope
    }
    var distance = Double.infinity
    for _ in 0..<40 where abs(out.t - inside.t) > tolerance && min(-inside.f, out.f) > 1e-4 && distance > tolerance {
      let gi = g(inside.f) * weightIn
      let go = g(out.f) * weightOut
      let t = out.f.isFinite ? out.t - go * (out.t - inside.t) / (go - gi) : (inside.t + out.t) / 2
      let f = excess(t)
      let (replaced, other) = f < 0 ? (inside, out) : (out, inside)
      distance = distanceToRoot(of: (t, f), replacing: replaced, other: other)
      if f < 0 {
        inside = (t, f)
        weightIn = 1
        if side == -1 { weightOut /= 2 }
        side = -1
      } else {
        out = (t, f)
        weightOut = 1
        if side == 1 { weightIn /= 2 }
        side = 1
      }
    }
    guard out.f.isFinite, out.f > inside.f else { return (inside.t + out.t) / 2 }
    let (gi, go) = (g(inside.f), g(out.f))
    guard go > gi else { return (inside.t + out.t) / 2 }
    return inside.t + (out.t - inside.t) * (0 - gi) / (go - gi)
  }

  /// Every arm's G per screen at the spec's values and at the estimate, from their rates.
  func goodnessOfFit(assumed before: [Double], fitted after: [Double]) -> [BehaviorCalibration.VariantFit] {
    var out: [BehaviorCalibration.VariantFit] = []
    var g = 0
    for arm in arms {
      let flow = (try? base.experiment(forVariant: arm.index).flow) ?? base.flow
      var screens: [Calibration.ScreenFit] = []
      for t in arm.targets {
        let group = groups[g]
        g += 1
        let gBefore = deviance(group, before)
        let gAfter = deviance(group, after)
        let df = degreesOfFreedom(group, after)
        let chi = ChiSquared(degreesOfFreedom: Double(max(df, 1)))
        screens.append(
          Calibration.ScreenFit(
            screen: flow.screens[t.screen].id, views: t.views, degreesOfFreedom: df, assumedG: gBefore,
            assumedP: df > 0 ? chi.sf(gBefore) : 1, fittedG: gAfter, fittedP: df > 0 ? chi.sf(gAfter) : 1))
      }
      out.append(BehaviorCalibration.VariantFit(variant: arm.variant, screens: screens))
    }
    return out
  }

  /// The multinomial deviance of one screen: its explicit cells and its remainder; never
  /// below 0 (a sum of cells that cancel can leave −1e-13 of rounding).
  func deviance(_ g: Group, _ e: [Double]) -> Double {
    var sum = 0.0
    var taken = 0.0
    for c in g.cells {
      sum += Calibration.deviance(counts[c], g.views * e[c])
      taken += e[c]
    }
    return max(0, sum + Calibration.deviance(g.remainder, g.views * max(1 - taken, 0)))
  }

  /// The categories of a screen that can occur (its explicit actions the model gives a
  /// positive rate, and the remainder) minus 1; 0 for a screen nobody viewed.
  func degreesOfFreedom(_ g: Group, _ e: [Double]) -> Int {
    guard g.views > 0 else { return 0 }
    let rest = 1 - g.cells.reduce(0) { $0 + e[$1] }
    let categories = g.cells.filter { e[$0] > 0 }.count + (g.remainder > 0 || rest > 1e-12 ? 1 : 0)
    return max(categories - 1, 0)
  }
}

extension LikelihoodModel {
  /// The first screen whose counts the model gives probability 0 at the rates `e` (no fit
  /// can reach them): an action counted that the spec never takes there, or views no
  /// explicit action accounts for where the spec has no other way out.
  func impossibleScreen(rates e: [Double]) -> (variant: String, screen: String, problem: String)? {
    var g = 0
    for arm in arms {
      let flow = (try? base.experiment(forVariant: arm.index).flow) ?? base.flow
      for t in arm.targets {
        let group = groups[g]
        g += 1
        let id = flow.screens[t.screen].id
        for (c, entry) in zip(group.cells, t.counts) where counts[c] > 0 && !(e[c] > 0) {
          return (arm.variant, id, "\(entry.count) '\(entry.action)' counted, but the spec gives it probability 0")
        }
        if group.remainder > 0, !(1 - group.cells.reduce(0) { $0 + e[$1] } > 1e-12) {
          return (arm.variant, id, "\(Int(group.remainder)) views no counted action accounts for, and the spec has no other way out")
        }
      }
    }
    return nil
  }

  /// The calibrated document and experiment: the fitted probabilities rounded to 4
  /// decimals (``Calibration/writeRounded(_:of:into:)``), the fitted behavior parameters
  /// to 4 decimals in `behavior`, and the variants' patches rebalanced.
  func write(_ phi: [Double], into document: JSONValue) -> (JSONValue, Experiment) {
    var current = experiment(at: phi)
    var out = document
    for s in screens { Calibration.writeRounded(s.index, of: &current, into: &out) }
    for parameter in behaviors {
      let value = (current.behavior[parameter] * 10_000).rounded() / 10_000
      current.behavior[parameter] = value
      out = out.settingMember(["behavior", parameter.rawValue], to: .number(value))
    }
    let ids = screens.map { base.flow.screens[$0.index].id }
    let (document, calibrated, _) = Calibration.rebalancingPatches(document: out, original: base, calibrated: current, screens: ids)
    return (document, calibrated)
  }
}
