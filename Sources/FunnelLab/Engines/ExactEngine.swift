/// Solves a ``CompiledFlow`` exactly: the probability of every per-user outcome
/// and the expected counts, by propagating probability mass through the very
/// tables the ``MonteCarloEngine`` walks.
///
/// **The chain.** Per population cell `c = (segment, intent bin)`, of probability
/// `w_c = P(segment) / bins` (the Monte Carlo draws both exactly so), a user's state
/// before step `t` is `x = (personalized, label, screen)` with `seen = min(t − 1, cap)`
/// screens seen. Step `t` views the screen and takes outcome `o` with the compiled
/// probability `p(o | seen, personalized, screen)`, the width of its 53-bit threshold.
/// The mass before step `t + 1` is
/// ```
/// m_{t+1}(x') = Σ_{x, o : x →o x'} m_t(x) · p(o | x),     m_1 = δ(start).
/// ```
/// This *is* the absorbing chain: screens-seen saturates at `cap`, after which the
/// transition matrix is constant, and back navigation makes it cyclic. Iterating
/// it step by step (value iteration on the distribution) rather than solving
/// `(I − Q)⁻¹` gives the step-limited chain the Monte Carlo simulates: after
/// `stepLimit` steps the remaining mass is exactly P(step limit reached), which a
/// fundamental-matrix solve would spread over the outcomes instead.
///
/// **Stopping and error.** The iteration stops at the step limit, or earlier when
/// the mass still walking in a cell falls to ``tolerance`` or below. That mass,
/// summed over cells (``ExactFunnel/truncatedMass``, at most `1e-16`), bounds the
/// absolute error of every probability; expected counts per view are off by at
/// most `truncatedMass · stepLimit`. Acyclic flows (no back navigation, no
/// failure that repeats a screen) stop after at most `screens + 1` steps; a loop
/// of return probability `ρ` per step needs about `log(1e-16)/log ρ` steps, never
/// more than `stepLimit`.
///
/// **Outcomes and first passages.** Completion, abandonment per screen, views,
/// actions, failures and options are linear in the visits `Σ_t m_t`. Facts of
/// the form "at least once" or "the first" need first-passage probabilities; they
/// are tracked exactly by a label on the state (the Monte Carlo's per-user flags):
/// the first plan bought (`0` none, `j + 1` plan slot `j`), saw a paywall, skipped,
/// went back; "personalized" is already in the state. A label only ever grows, so
/// it never feeds back into the transition probabilities. Reach of screen `s`
/// (seen at least once) is the first-passage probability of a second pass in
/// which `s` absorbs: `reach(s) = Σ_t m_t^{(s)}(s)`, mass removed on arrival.
///
/// **Time to finish.** Dwell times are drawn independently of the path, so with
/// `D_t(x) = E[T_so_far · 1{X_t = x}]` and `E_t(x) = E[T_so_far² · 1{X_t = x}]`
/// the recursions `D' = Σ p·(D + m·μ)`, `E' = Σ p·(E + 2Dμ + m·μ₂)` (`μ`, `μ₂` the
/// first two moments of the screen's 1024-quantile dwell table, in ms) give
/// `E[T · 1{completed}]` and `E[T² · 1{completed}]` exactly.
///
/// **Traits.** The intent trait is the compiled flow's equiprobable bins, the
/// same quadrature the Monte Carlo samples: exact for the compiled chain; against
/// a continuous trait the error is that of ``Discretisation``, `O(1/bins²)`.
public enum ExactEngine {
  /// Mass per cell below which the iteration stops before the step limit.
  public static let tolerance = 1e-16

  /// The exact funnel of `flow`.
  ///
  /// - Complexity: `O(cells · T · 2 · L · Σ outcomes)` for the labelled pass plus
  ///   `O(cells · T · screens · 2 · Σ outcomes)` for the reach passes, where
  ///   `cells = segments · bins`, `L = 8·(plans + 1)` labels and `T ≤ stepLimit` the
  ///   steps until the mass is negligible. Memory `O(2 · L · screens)` per cell.
  public static func solve(_ flow: CompiledFlow) -> ExactFunnel {
    let layout = _ExactLayout(flow)
    var acc = _ExactAccumulators(layout)
    let segmentP = flow.segmentProbabilities
    for segment in 0..<flow.segmentCount {
      for bin in 0..<flow.traitBins {
        let weight = segmentP[segment] / Double(flow.traitBins)
        if weight == 0 { continue }
        let probabilities = layout.probabilities(segment: segment, bin: bin)
        labelledPass(layout, probabilities, weight: weight, into: &acc)
        for target in 0..<layout.screens {
          let (reached, left) = firstPassage(layout, probabilities, to: target)
          acc.reach[target] += weight * reached
          acc.reachTruncated[target] += weight * left
        }
      }
    }
    return acc.funnel(layout)
  }

  /// Propagates one cell's mass over (personalized, label, screen) to the end.
  private static func labelledPass(
    _ g: _ExactLayout, _ probabilities: [Double], weight w: Double, into acc: inout _ExactAccumulators
  ) {
    let s = g.screens
    let labels = g.labels
    var mass = [Double](repeating: 0, count: 2 * labels * s)
    var next = mass
    var timeD = [Double](repeating: 0, count: 2 * s)
    var timeE = timeD
    var nextD = timeD
    var nextE = timeD
    var viewedLabel = [Int](repeating: 0, count: labels)
    mass[g.start] = 1
    for t in 1...g.stepLimit {
      let seen = min(t - 1, g.maxSeen)
      for i in next.indices { next[i] = 0 }
      for i in nextD.indices {
        nextD[i] = 0
        nextE[i] = 0
      }
      for pers in 0..<2 {
        for screen in 0..<s {
          var total = 0.0
          for label in 0..<labels { total += mass[(pers * labels + label) * s + screen] }
          if total == 0 { continue }
          for label in 0..<labels { viewedLabel[label] = g.viewed(label, screen: screen) }
          acc.views[screen] += w * total
          let mu = g.dwellMean[screen]
          let d0 = timeD[pers * s + screen]
          let d = d0 + total * mu
          let e = timeE[pers * s + screen] + 2 * d0 * mu + total * g.dwellSecondMoment[screen]
          let probabilityBase = ((seen * 2 + pers) * s + screen) * g.stride
          let first = g.outcomeStart[screen]
          for k in 0..<g.outcomeCount[screen] {
            let p = probabilities[probabilityBase + k]
            if p == 0 { continue }
            let o = first + k
            acc.outcomeFlow[o] += w * total * p
            let newPers = g.personalizes[o] ? 1 : pers
            let target = g.target[o]
            if target >= 0 {
              nextD[newPers * s + target] += d * p
              nextE[newPers * s + target] += e * p
              for label in 0..<labels {
                let m = mass[(pers * labels + label) * s + screen]
                if m == 0 { continue }
                next[(newPers * labels + g.after(viewedLabel[label], outcome: o)) * s + target] += m * p
              }
            } else {
              let end = target == Int(CompiledFlow.completedTarget) ? 0 : 1 + screen
              if end == 0 {
                acc.timeSum += w * d * p
                acc.timeSquaredSum += w * e * p
              }
              for label in 0..<labels {
                let m = mass[(pers * labels + label) * s + screen]
                if m == 0 { continue }
                acc.classMass[(end * 2 + newPers) * labels + g.after(viewedLabel[label], outcome: o)] += w * m * p
              }
            }
          }
        }
      }
      swap(&mass, &next)
      swap(&timeD, &nextD)
      swap(&timeE, &nextE)
      let remaining = mass.reduce(0, +)
      if t == g.stepLimit {
        let end = s + 1
        for pers in 0..<2 {
          for label in 0..<labels {
            var m = 0.0
            for screen in 0..<s { m += mass[(pers * labels + label) * s + screen] }
            acc.classMass[(end * 2 + pers) * labels + label] += w * m
          }
        }
      } else if remaining <= tolerance {
        acc.truncated += w * remaining
        break
      }
    }
  }

  /// P(the walk views `target` at least once within the step limit), and the mass
  /// left when the iteration stopped early.
  private static func firstPassage(_ g: _ExactLayout, _ probabilities: [Double], to target: Int) -> (Double, Double) {
    if g.start == target { return (1, 0) }
    let s = g.screens
    var mass = [Double](repeating: 0, count: 2 * s)
    var next = mass
    mass[g.start] = 1
    var reached = 0.0
    for t in 1...g.stepLimit {
      reached += mass[target] + mass[s + target]
      mass[target] = 0
      mass[s + target] = 0
      let seen = min(t - 1, g.maxSeen)
      for i in next.indices { next[i] = 0 }
      for pers in 0..<2 {
        for screen in 0..<s {
          let m = mass[pers * s + screen]
          if m == 0 { continue }
          let probabilityBase = ((seen * 2 + pers) * s + screen) * g.stride
          let first = g.outcomeStart[screen]
          for k in 0..<g.outcomeCount[screen] {
            let p = probabilities[probabilityBase + k]
            let to = g.target[first + k]
            if p == 0 || to < 0 { continue }
            next[(g.personalizes[first + k] ? s : pers * s) + to] += m * p
          }
        }
      }
      swap(&mass, &next)
      if t == g.stepLimit { break }
      let remaining = mass.reduce(0, +)
      if remaining <= tolerance { return (reached, remaining) }
    }
    return (reached, 0)
  }
}

/// The compiled flow's tables, rearranged for the exact engine.
struct _ExactLayout {
  static let paywallFlag = 1
  static let skipFlag = 2
  static let backFlag = 4

  let flow: CompiledFlow
  let screens, stride, planCodes, labels, maxSeen, start, stepLimit: Int
  let outcomeStart, outcomeCount, target, plan: [Int]
  let personalizes, purchases, skips, backs, isPaywall: [Bool]
  /// First and second moments of each screen's dwell table, in ms and ms².
  let dwellMean, dwellSecondMoment: [Double]

  init(_ flow: CompiledFlow) {
    self.flow = flow
    screens = flow.screenCount
    stride = flow.stride
    planCodes = flow.plans.count + 1
    labels = 8 * planCodes
    maxSeen = flow.seenLevels - 1
    start = flow.start
    stepLimit = max(1, flow.stepLimit)
    outcomeStart = flow.outcomeStart.map(Int.init)
    outcomeCount = flow.outcomeCount.map(Int.init)
    target = flow.outcomeTarget.map(Int.init)
    plan = flow.outcomePlan.map(Int.init)
    personalizes = flow.outcomeEffects.map { $0 & CompiledFlow.Effect.personalizes != 0 }
    purchases = flow.outcomeEffects.map { $0 & CompiledFlow.Effect.purchase != 0 }
    skips = flow.outcomeEffects.map { $0 & CompiledFlow.Effect.skip != 0 }
    backs = flow.outcomeEffects.map { $0 & CompiledFlow.Effect.back != 0 }
    isPaywall = flow.screenKinds.map { $0 == .paywall }
    let size = Discretisation.dwellTableSize
    var mean = [Double](repeating: 0, count: flow.screenCount)
    var second = mean
    for i in 0..<flow.screenCount where flow.hasDwell[i] {
      var sum = 0.0
      var sumSquares = 0.0
      for q in 0..<size {
        let d = Double(flow.dwellMillis[i * size + q])
        sum += d
        sumSquares += d * d
      }
      mean[i] = sum / Double(size)
      second[i] = sumSquares / Double(size)
    }
    dwellMean = mean
    dwellSecondMoment = second
  }

  /// Outcome probabilities of one cell, indexed `((seen·2 + pers)·screens + screen)·stride + k`.
  func probabilities(segment: Int, bin: Int) -> [Double] {
    var result = [Double](repeating: 0, count: (maxSeen + 1) * 2 * screens * stride)
    var index = 0
    for seen in 0...maxSeen {
      for pers in 0..<2 {
        for screen in 0..<screens {
          let base = flow.row(segment: segment, bin: bin, seen: seen, personalized: pers, screen: screen)
          var previous: UInt64 = 0
          for k in 0..<outcomeCount[screen] {
            let t = flow.thresholds[base + k]
            result[index + k] = Double(t - previous) / Double(CompiledFlow.thresholdScale)
            previous = t
          }
          index += stride
        }
      }
    }
    return result
  }

  /// The label once `screen` has been viewed.
  @inline(__always) func viewed(_ label: Int, screen: Int) -> Int {
    guard isPaywall[screen] else { return label }
    return (label / planCodes | Self.paywallFlag) * planCodes + label % planCodes
  }

  /// The label after taking outcome `o`.
  @inline(__always) func after(_ label: Int, outcome o: Int) -> Int {
    var code = label % planCodes
    var flags = label / planCodes
    if purchases[o], code == 0 { code = plan[o] + 1 }
    if skips[o] { flags |= Self.skipFlag }
    if backs[o] { flags |= Self.backFlag }
    return flags * planCodes + code
  }
}

/// Weighted sums over cells, turned into an ``ExactFunnel`` at the end.
struct _ExactAccumulators {
  var views, reach, reachTruncated, outcomeFlow, classMass: [Double]
  var timeSum = 0.0
  var timeSquaredSum = 0.0
  var truncated = 0.0

  init(_ g: _ExactLayout) {
    views = Array(repeating: 0, count: g.screens)
    reach = views
    reachTruncated = views
    outcomeFlow = Array(repeating: 0, count: g.target.count)
    classMass = Array(repeating: 0, count: (g.screens + 2) * 2 * g.labels)
  }

  func funnel(_ g: _ExactLayout) -> ExactFunnel {
    let flow = g.flow
    var classes: [ExactFunnel.OutcomeClass] = []
    var classP: [Double] = []
    var abandonedAt = [Double](repeating: 0, count: g.screens)
    var planPurchases = [Double](repeating: 0, count: flow.plans.count)
    var completion = 0.0
    var stepLimit = 0.0
    var paywall = 0.0
    var skipped = 0.0
    var wentBack = 0.0
    var personalized = 0.0
    for end in 0..<(g.screens + 2) {
      for pers in 0..<2 {
        for label in 0..<g.labels {
          let p = classMass[(end * 2 + pers) * g.labels + label]
          guard p > 0 else { continue }
          let code = label % g.planCodes
          let flags = label / g.planCodes
          let e: ExactFunnel.End
          switch end {
          case 0:
            e = .completed
            completion += p
          case g.screens + 1:
            e = .stepLimit
            stepLimit += p
          default:
            e = .abandoned(screen: end - 1)
            abandonedAt[end - 1] += p
          }
          let c = ExactFunnel.OutcomeClass(
            end: e, firstPlan: code == 0 ? nil : code - 1, sawPaywall: flags & _ExactLayout.paywallFlag != 0,
            skipped: flags & _ExactLayout.skipFlag != 0, wentBack: flags & _ExactLayout.backFlag != 0, personalized: pers == 1)
          if let j = c.firstPlan { planPurchases[j] += p }
          if c.sawPaywall { paywall += p }
          if c.skipped { skipped += p }
          if c.wentBack { wentBack += p }
          if c.personalized { personalized += p }
          classes.append(c)
          classP.append(p)
        }
      }
    }
    var actionCounts = [Double](repeating: 0, count: flow.actions.count)
    var failures = [Double](repeating: 0, count: g.screens)
    var optionCounts = [Double](repeating: 0, count: flow.options.count)
    for o in outcomeFlow.indices {
      actionCounts[Int(flow.outcomeAction[o])] += outcomeFlow[o]
      if flow.outcomeEffects[o] & CompiledFlow.Effect.failure != 0 { failures[g.target[o]] += outcomeFlow[o] }
      let table = Int(flow.outcomeOptionTable[o])
      if table >= 0 {
        let start = Int(flow.optionTableStart[table])
        let count = Int(flow.optionTableCount[table])
        let widths = CompiledFlow.widths(Array(flow.optionThresholds[start..<(start + count)]))
        for j in 0..<count { optionCounts[start + j] += outcomeFlow[o] * widths[j] }
      }
    }
    var mean: Double? = nil
    var sd: Double? = nil
    if completion > 0 {
      let m = timeSum / completion
      mean = m / 1000
      sd = max(timeSquaredSum / completion - m * m, 0).squareRoot() / 1000
    }
    return ExactFunnel(
      variantID: flow.variantID, segmentProbabilities: flow.segmentProbabilities, completion: completion,
      abandonedAt: abandonedAt, stepLimitReached: stepLimit, planPurchases: planPurchases,
      purchase: planPurchases.reduce(0, +), reach: reach.map { min($0, 1) }, paywallViewers: paywall, skipped: skipped, wentBack: wentBack,
      personalized: personalized, views: views, actionCounts: actionCounts, failures: failures, optionCounts: optionCounts,
      screenMillis: zip(views, g.dwellMean).map { $0 * $1 }, expectedScreens: views.reduce(0, +),
      meanSecondsToFinish: mean, standardDeviationSecondsToFinish: sd, outcomeClasses: classes,
      outcomeClassProbabilities: classP, truncatedMass: max(truncated, reachTruncated.max() ?? 0))
  }
}
