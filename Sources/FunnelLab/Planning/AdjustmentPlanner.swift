import Dispatch
import Foundation
import FunnelStats
import Synchronization

/// One arm's population as the exact engine sees it, cell by cell (segment × intent
/// bin): each cell's probability, the exact rate of the metric there, its stratum and
/// its covariate's law. Given the cell, the covariate and the outcome are independent
/// (both depend on the user only through segment and intent), which is what makes
/// their joint law, and so every adjustment's variance, exact.
package struct CellModel: Sendable {
  /// The arm's variant id.
  package var arm: String
  /// Per cell `segment · bins + bin`: its probability.
  package var weights: [Double]
  /// Per cell: the exact probability of the outcome (``ExactEngine`` on the cell alone).
  package var rates: [Double]
  /// Per cell: its stratum.
  package var strata: [Int]

  /// The model of `flow` for a per-user 0/1 `metric` (one exact walk of what the metric reads per cell).
  package init(flow: CompiledFlow, metric: FunnelMetric, strata: CompiledStrata) {
    arm = flow.variantID
    let bins = flow.traitBins
    let p = flow.segmentProbabilities
    weights = (0..<(flow.segmentCount * bins)).map { p[$0 / bins] / Double(bins) }
    rates = (0..<(flow.segmentCount * bins)).map { c in
      p[c / bins] == 0 ? 0 : ExactEngine.value(of: metric, flow, segment: c / bins, bin: c % bins) ?? 0
    }
    self.strata = (0..<(flow.segmentCount * bins)).map { strata.stratumOfSegment[$0 / bins] }
  }

  /// The exact rate over the population.
  package var rate: Double { zip(weights, rates).reduce(0) { $0 + $1.0 * $1.1 } }
}

/// What each adjustment would do to a planned test: the per-user variance it leaves
/// (exact, from the ``CellModel``s) and the users per arm it needs, for each arm
/// against the control; optionally checked by replicate experiments that draw
/// covariate and outcome jointly from the same exact model.
package struct AdjustmentPlan: Sendable {
  /// One arm's exact variances.
  package struct Arm: Sendable, Hashable {
    /// The variant id.
    package var arm: String
    /// The exact rate.
    package var rate: Double
    /// Per method (``SegmentReport/Method``, in that order; those available): the per-user
    /// variance left, `Var(y)` for ``SegmentReport/Method/unadjusted``. CUPED's slope is pooled
    /// over a pair of arms: the control's CUPED value here is with the first other arm.
    package var variances: [SegmentReport.Method: Double]
  }

  /// One arm against the control by one method.
  package struct Size: Sendable, Hashable {
    /// The variant id.
    package var arm: String
    /// The method.
    package var method: SegmentReport.Method
    /// `1 − (σ²₀′ + σ²₁′)/(σ²₀ + σ²₁)`: the share of the difference's variance removed.
    package var varianceReduction: Double
    /// Users per arm for the target power, two-sided z-test at α; `nil` for a zero effect or a size beyond `Int`.
    package var usersPerArm: Int?
    /// Whether the arm's exact rate equals the control's (no size reaches any power).
    package var noEffect: Bool
  }

  /// The metric (a per-user 0/1 outcome).
  package var metric: FunnelMetric
  /// The strata (observable segments, then `other`).
  package var strata: [String]
  /// The covariate's name, `nil` without one.
  package var covariate: String?
  /// The two-sided level.
  package var alpha: Double
  /// The power sizes are solved for.
  package var targetPower: Double
  /// The control first, then each planned arm.
  package var arms: [Arm]
  /// Per non-control arm, per method.
  package var sizes: [Size]
  /// The methods available, in order.
  package var methods: [SegmentReport.Method]
  /// Per non-control arm: the best method's planned size tried by replicate experiments
  /// drawn from the exact cell models (covariate and outcome jointly).
  package var checks: [Check] = []

  /// A planned size tried by simulation.
  package struct Check: Sendable, Hashable {
    /// The variant id.
    package var arm: String
    /// The users per arm tried (the method's planned size).
    package var usersPerArm: Int
    /// The replicates' result for the method.
    package var simulated: SimulatedAdjustment
  }
}

/// Plans covariate adjustment from the exact engine and checks it by simulation.
package enum AdjustmentPlanner {
  /// The most replicates of the check of each planned size.
  package static let checkReplicates = 4_000
  /// The most population cells (segments × intent bins) planned: one exact solve per cell and arm.
  package static let maxCells = 4_096
  /// The most users per arm the check of one size simulates over all its replicates.
  package static let checkUsers = 200_000_000

  /// The adjustment plan of `e`'s primary metric for the control and `variants` (all
  /// when `nil`), each best method's size checked by `min(replicates, checkReplicates)`
  /// replicates; `nil` when the population has no observable segment and no covariate,
  /// or the primary metric is not a 0/1 outcome of every user.
  package static func plan(
    _ e: Experiment, variants: [String]?, alpha: Double, targetPower: Double, replicates: Int, seed: UInt64, threads: Int? = nil
  ) throws(SpecErrors) -> AdjustmentPlan? {
    guard e.population.covariate != nil || e.population.segments.contains(where: \.observable),
      case .outcome? = PerUserValue(e.metrics.primary), e.population.segments.count * e.simulation.traitBins <= maxCells
    else { return nil }
    let flows = try FlowCompiler.compileAll(e)
    let strata = CompiledStrata(e)
    let chosen = [0] + e.variants.indices.dropFirst().filter { variants?.contains(e.variants[$0].id) ?? true }
    let models = chosen.map { CellModel(flow: flows[$0], metric: e.metrics.primary, strata: strata) }
    var plan = plan(models, strata: strata, metric: e.metrics.primary, alpha: alpha, targetPower: targetPower)
    guard let best = plan.methods.last else { return plan }
    for (k, model) in models.enumerated().dropFirst() {
      guard let n = plan.sizes.first(where: { $0.arm == model.arm && $0.method == best })?.usersPerArm else { continue }
      // At most checkUsers simulated users per arm over all replicates: a size too large to try is left unchecked.
      let affordable = min(replicates, checkReplicates, checkUsers / max(n, 1))
      guard affordable >= 100 else { continue }
      // Only the best method is checked: its replicates are the same draws whichever others are analysed.
      let tried = simulate(
        control: models[0], treatment: model, strata: strata, usersPerArm: n, replicates: affordable,
        seed: SplitMix64.mix(seed ^ UInt64(chosen[k]) ^ 0x4144_4A55), alpha: alpha, threads: threads, methods: [best])
      if let result = tried.first(where: { $0.method == best }), result.replicates > 0 {
        plan.checks.append(AdjustmentPlan.Check(arm: model.arm, usersPerArm: n, simulated: result))
      }
    }
    return plan
  }

  /// The methods `strata` allows, in report order.
  package static func methods(_ strata: CompiledStrata) -> [SegmentReport.Method] {
    var m: [SegmentReport.Method] = [.unadjusted]
    if strata.strataIDs.count > 1 { m.append(.postStratified) }
    if strata.hasCovariate { m += [.cuped, .regression] }
    return m
  }

  /// The plan for `models` (the control first), or `nil` when nothing is observable.
  package static func plan(
    _ models: [CellModel], strata: CompiledStrata, metric: FunnelMetric, alpha: Double, targetPower: Double
  ) -> AdjustmentPlan {
    let methods = methods(strata)
    let moments = models.map { Moments($0, strata: strata) }
    // CUPED's slope is pooled over the two arms compared (equal sizes): the control's
    // CUPED variance depends on the arm it is compared with.
    func cuped(_ m: Moments, theta: Double) -> Double { m.varY + theta * theta * m.varX - 2 * theta * m.covXY }
    func pooledTheta(_ k: Int) -> Double {
      guard moments.indices.contains(k) else { return 0 }
      let v = moments[0].varX + moments[k].varX
      return v > 0 ? (moments[0].covXY + moments[k].covXY) / v : 0
    }
    var arms: [AdjustmentPlan.Arm] = []
    for (k, m) in moments.enumerated() {
      var v: [SegmentReport.Method: Double] = [:]
      for method in methods {
        switch method {
        case .unadjusted: v[method] = m.varY
        case .postStratified: v[method] = m.residual(strata: true, covariate: false)
        case .regression: v[method] = m.residual(strata: strata.strataIDs.count > 1, covariate: true)
        case .cuped: v[method] = cuped(m, theta: pooledTheta(k == 0 ? 1 : k))
        }
      }
      arms.append(AdjustmentPlan.Arm(arm: models[k].arm, rate: m.meanY, variances: v))
    }
    let z = Normal.standardQuantile(p: 1 - alpha / 2, q: alpha / 2) + Normal.standardQuantile(p: targetPower, q: 1 - targetPower)
    var sizes: [AdjustmentPlan.Size] = []
    for (k, arm) in arms.enumerated().dropFirst() {
      let delta = DecisionRule.difference(arm.rate, control: arms[0].rate)
      let plain = (arms[0].variances[.unadjusted] ?? 0) + (arm.variances[.unadjusted] ?? 0)
      for method in methods {
        let control = method == .cuped ? cuped(moments[0], theta: pooledTheta(k)) : (arms[0].variances[method] ?? 0)
        let v = control + (arm.variances[method] ?? 0)
        let n = delta == 0 ? nil : Int(rounding: (z * z * v / (delta * delta)).rounded(.up))
        sizes.append(
          AdjustmentPlan.Size(
            arm: arm.arm, method: method, varianceReduction: plain > 0 ? 1 - v / plain : 0, usersPerArm: n.map { max($0, 2) },
            noEffect: delta == 0))
      }
    }
    return AdjustmentPlan(
      metric: metric, strata: strata.strataIDs, covariate: strata.covariateName, alpha: alpha, targetPower: targetPower, arms: arms,
      sizes: sizes, methods: methods)
  }

  /// The population moments of `(strata indicators, x, y)` of one arm.
  struct Moments {
    var meanY = 0.0
    var varY = 0.0
    var meanX = 0.0
    var varX = 0.0
    var covXY = 0.0
    /// Per stratum: P, E[y·1{k}], E[x·1{k}].
    var share: [Double]
    var yIn: [Double]
    var xIn: [Double]

    init(_ model: CellModel, strata: CompiledStrata) {
      let k = strata.strataIDs.count
      share = Array(repeating: 0, count: k)
      yIn = share
      xIn = share
      var secondX = 0.0
      var xy = 0.0
      for c in model.weights.indices {
        let w = model.weights[c]
        let p = model.rates[c]
        let (m, v) = strata.hasCovariate ? strata.moments(cell: c) : (0, 0)
        meanY += w * p
        meanX += w * m
        secondX += w * (v + m * m)
        xy += w * m * p
        share[model.strata[c]] += w
        yIn[model.strata[c]] += w * p
        xIn[model.strata[c]] += w * m
      }
      varY = meanY * (1 - meanY)
      varX = secondX - meanX * meanX
      covXY = xy - meanX * meanY
    }

    /// `Var(y)` left after the projection on the strata's indicators (1…K−1) and/or x.
    func residual(strata: Bool, covariate: Bool) -> Double {
      var names: [(isX: Bool, k: Int)] = []
      // Indicators of the strata with users, the first of them the reference.
      if strata { for j in share.indices.filter({ share[$0] > 0 }).dropFirst() { names.append((false, j)) } }
      if covariate { names.append((true, 0)) }
      func cov(_ a: (isX: Bool, k: Int), _ b: (isX: Bool, k: Int)) -> Double {
        switch (a.isX, b.isX) {
        case (true, true): varX
        case (false, false): (a.k == b.k ? share[a.k] : 0) - share[a.k] * share[b.k]
        case (true, false): xIn[b.k] - share[b.k] * meanX
        case (false, true): xIn[a.k] - share[a.k] * meanX
        }
      }
      let c = names.map { $0.isX ? covXY : yIn[$0.k] - share[$0.k] * meanY }
      let sigma = names.flatMap { a in names.map { b in cov(a, b) } }
      return RegressionAdjustment.residualVariance(outcomeVariance: varY, covariances: c, covariateCovariance: sigma) ?? varY
    }
  }
}

/// Replicate experiments of one arm against the control, drawn from the exact cell models.
package struct SimulatedAdjustment: Sendable, Hashable {
  /// The method.
  package var method: SegmentReport.Method
  /// Replicates run.
  package var replicates: Int
  /// Replicates with a two-sided p ≤ α.
  package var significant: Int
  /// Replicates whose `1 − α` interval contains the exact difference.
  package var covered: Int
  /// The mean standard error over replicates.
  package var meanStandardError: Double
  /// The mean estimate over replicates.
  package var meanEstimate: Double

  /// `significant / replicates`: the power (or, with no effect, the false-positive rate).
  package var rejectionRate: Double { Double(significant) / Double(max(replicates, 1)) }

  /// The Monte Carlo standard error of ``rejectionRate``, `√(p(1 − p)/replicates)`.
  package var rejectionRateStandardError: Double {
    let p = rejectionRate
    return (p * (1 - p) / Double(max(replicates, 1))).squareRoot()
  }
  /// `covered / replicates`.
  package var coverage: Double { Double(covered) / Double(max(replicates, 1)) }
}

extension AdjustmentPlanner {
  /// Replicate experiments of `usersPerArm` users in each arm: each user's cell, covariate
  /// and outcome are drawn from the arm's ``CellModel`` (replicate `r` from stream `r` of
  /// `seed`), then every method (or only those in `methods`) analyses the same data, as
  /// experiment mode would. Identical for any `threads`; a method's result does not depend on
  /// which others are analysed.
  package static func simulate(
    control: CellModel, treatment: CellModel, strata: CompiledStrata, usersPerArm: Int, replicates: Int, seed: UInt64,
    alpha: Double, threads: Int? = nil, methods only: [SegmentReport.Method]? = nil
  ) -> [SimulatedAdjustment] {
    let methods = methods(strata).filter { only?.contains($0) ?? true }
    let truth = treatment.rate - control.rate
    let tables = [control, treatment].map { DrawTables($0, strata: strata) }
    let rows = ParallelWork.map(replicates, threads: threads) { r -> [Replicate?] in
      var rng = Xoshiro256StarStar(seed: seed, stream: UInt64(r))
      let tallies = tables.map { $0.draw(users: usersPerArm, strata: strata, using: &rng) }
      return methods.map { analyse($0, tallies[1], tallies[0], strata: strata, alpha: alpha) }
    }
    return methods.indices.map { m in
      var s = SimulatedAdjustment(
        method: methods[m], replicates: 0, significant: 0, covered: 0, meanStandardError: 0, meanEstimate: 0)
      var seSum = 0.0
      var estimateSum = 0.0
      for row in rows {
        guard let one = row[m] else { continue }
        s.replicates += 1
        if one.pValue <= alpha { s.significant += 1 }
        if one.interval.contains(truth) { s.covered += 1 }
        seSum += one.standardError
        estimateSum += one.estimate
      }
      s.meanStandardError = seSum / Double(max(s.replicates, 1))
      s.meanEstimate = estimateSum / Double(max(s.replicates, 1))
      return s
    }
  }

  /// One replicate's result by one method.
  struct Replicate: Sendable {
    var estimate: Double
    var standardError: Double
    var pValue: Double
    var interval: ConfidenceInterval
  }

  /// One replicate's estimate, standard error, p-value and interval by `method`; `nil` when undefined.
  static func analyse(
    _ method: SegmentReport.Method, _ treatment: StrataTally, _ control: StrataTally, strata: CompiledStrata, alpha: Double
  ) -> Replicate? {
    let level = 1 - alpha
    if method == .cuped {
      guard
        let r = try? CUPED.compare(
          treatment: treatment.cupedArm(proportion: true), control: control.cupedArm(proportion: true), confidenceLevel: level),
        let d = r.difference.estimate, let i = r.difference.interval
      else { return nil }
      return Replicate(estimate: d, standardError: r.standardError, pValue: r.test.pValue, interval: i)
    }
    let byStrata = method != .unadjusted && strata.strataIDs.count > 1 && method != .cuped
    let byCovariate = method == .regression
    guard
      let r = try? RegressionAdjustment.compare(
        treatment: treatment.stratumSums(), control: control.stratumSums(), strata: byStrata, covariate: byCovariate,
        confidenceLevel: level),
      let d = r.difference.estimate, let i = r.difference.interval
    else { return nil }
    return Replicate(estimate: d, standardError: r.standardError, pValue: r.test.pValue, interval: i)
  }

  /// An arm's cell model as sampling tables: cell probabilities, rates, strata, and each
  /// cell's covariate law.
  struct DrawTables: Sendable {
    let weights: [Double]
    let rates: [Double]
    let strata: [Int]
    /// Per cell, the covariate's law (its smallest value and probabilities).
    let laws: [(low: Int, probabilities: [Double])]
    /// 53-bit thresholds of the cells and, per cell, of the outcome (user-by-user draws).
    let cellThresholds: [UInt64]
    let outcomeThresholds: [UInt64]
    /// The law of one user's (stratum, covariate value, outcome), the cells mixed by their
    /// weights: `P(s, x, y) = Σ_{c in s} w_c · P(x | c) · P(y | c)`, in (stratum, x, y) order,
    /// without the categories of probability 0. Users are independent, so a replicate's counts
    /// over these categories are multinomial with these probabilities: the same law as drawing
    /// each user's cell, covariate and outcome, in far fewer draws.
    let mixture: [(stratum: Int, x: Int, y: Int, probability: Double)]

    init(_ model: CellModel, strata compiled: CompiledStrata) {
      weights = model.weights
      rates = model.rates.map { min(max($0, 0), 1) }
      strata = model.strata
      cellThresholds = CompiledFlow.thresholds(of: model.weights)
      outcomeThresholds = rates.map { UInt64(rounding: $0 * Double(CompiledFlow.thresholdScale)) ?? 0 }
      laws = model.weights.indices.map { compiled.distribution(cell: $0) }
      mixture = Self.mixture(weights: weights, rates: rates, strata: strata, laws: laws)
    }

    /// ``mixture`` of the cells: their weights normalised, each cell's covariate law and rate.
    static func mixture(
      weights: [Double], rates: [Double], strata: [Int], laws: [(low: Int, probabilities: [Double])]
    ) -> [(stratum: Int, x: Int, y: Int, probability: Double)] {
      struct Category: Hashable, Comparable {
        var stratum, x, y: Int
        static func < (a: Self, b: Self) -> Bool { (a.stratum, a.x, a.y) < (b.stratum, b.x, b.y) }
      }
      let total = weights.reduce(0, +)
      guard total > 0 else { return [] }
      var law: [Category: Double] = [:]
      for c in weights.indices where weights[c] > 0 {
        let w = weights[c] / total
        for (offset, px) in laws[c].probabilities.enumerated() where px > 0 {
          let x = laws[c].low + offset
          law[Category(stratum: strata[c], x: x, y: 1), default: 0] += w * px * rates[c]
          law[Category(stratum: strata[c], x: x, y: 0), default: 0] += w * px * (1 - rates[c])
        }
      }
      return law.keys.sorted().compactMap { k in law[k].flatMap { $0 > 0 ? (k.stratum, k.x, k.y, $0) : nil } }
    }

    /// One arm's users drawn one by one: cell, covariate, outcome.
    func drawEach(users: Int, strata compiled: CompiledStrata, using rng: inout Xoshiro256StarStar) -> StrataTally {
      let stride = StratumSums.monomials.count
      let buffer = ZeroedSums(count: compiled.strataIDs.count * stride)
      let sums = buffer.sums
      for _ in 0..<max(users, 0) {
        let r = rng.next() >> 11
        var lo = 0
        var hi = cellThresholds.count - 1
        while lo < hi {
          let mid = (lo + hi) >> 1
          if r < cellThresholds[mid] { hi = mid } else { lo = mid + 1 }
        }
        let x: Int128 = compiled.hasCovariate ? Int128(compiled.value(cell: lo, draw: rng.next() >> 11)) : 0
        let y: Int128 = (rng.next() >> 11) < outcomeThresholds[lo] ? 1 : 0
        StrataRecorder.add(x: x, y: y, into: sums, at: strata[lo] * stride)
      }
      return StrataTally(strata: compiled.strataIDs.count, reading: buffer.sums)  // buffer lives to here
    }

    /// One arm's users of a replicate, drawn in aggregate with the same law as user by
    /// user: a multinomial split of the users over the ``mixture``'s (stratum, covariate value,
    /// outcome) categories (sequential binomials). The counts per category give the exact
    /// power sums.
    func draw(users: Int, strata compiled: CompiledStrata, using rng: inout Xoshiro256StarStar) -> StrataTally {
      // Few users: drawing them one by one (3 draws each) costs less than a binomial per category.
      if 3 * users < mixture.count { return drawEach(users: users, strata: compiled, using: &rng) }
      let stride = StratumSums.monomials.count
      let buffer = ZeroedSums(count: compiled.strataIDs.count * stride)
      var remaining = UInt64(max(users, 0))
      var mass = mixture.reduce(0) { $0 + $1.probability }
      for (k, category) in mixture.enumerated() where remaining > 0 {
        let share = k == mixture.count - 1 || mass <= 0 ? 1 : min(category.probability / mass, 1)
        let n = BinomialSampler.sample(trials: remaining, probability: share, using: &rng)
        remaining -= n
        mass -= category.probability
        guard n > 0 else { continue }
        StrataRecorder.add(
          x: Int128(category.x), y: Int128(category.y), count: Int128(n), into: buffer.sums, at: category.stratum * stride)
      }
      return StrataTally(strata: compiled.strataIDs.count, reading: buffer.sums)  // buffer lives to here
    }
  }
}

/// Zeroed `Int128` sums for one replicate's tally, owned by one value: `~Copyable`, so no copy
/// can free them twice, and freed in `deinit` however the scope is left.
private struct ZeroedSums: ~Copyable {
  /// The sums, all 0 at first.
  let sums: UnsafeMutableBufferPointer<Int128>

  init(count: Int) {
    sums = .allocate(capacity: count)
    sums.initialize(repeating: 0)
  }

  deinit { sums.deallocate() }
}
