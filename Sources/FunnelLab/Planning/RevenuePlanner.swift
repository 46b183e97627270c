import FunnelStats

/// A plan for a test on revenue per user, from the spec alone: the exact mean and variance of
/// each arm's per-user revenue (``ExactFunnel/revenueDistribution``), the users per arm the
/// normal approximation needs, and replicate experiments at that size drawn from the exact
/// distributions, which say whether the approximation holds there (most users pay 0, so the
/// per-user revenue is far from normal; the mean of many is what has to be).
package struct RevenuePlan: Sendable {
  /// One arm's revenue per user, exactly.
  package struct Arm: Sendable {
    /// The variant's id.
    package var variant: String
    /// Expected net revenue per user over the horizon (``ExactFunnel/revenuePerUser``).
    package var mean: Double
    /// The standard deviation of one user's revenue.
    package var standardDeviation: Double
    /// The share of users who earn anything.
    package var payingShare: Double
  }

  /// One variant against the control.
  package struct Variant: Sendable {
    /// The variant's revenue.
    package var arm: Arm
    /// The true Δ, variant − control.
    package var difference: Double
    /// The true lift, variant / control − 1 (`nil` when the control earns nothing).
    package var relativeLift: Double?
    /// Users per arm for the target power by the normal approximation of Welch's test: the
    /// smallest whole `n` with `Φ(|Δ|√n/σ − z₁₋α/₂) + Φ(−|Δ|√n/σ − z₁₋α/₂) ≥ power`,
    /// `σ = √(σ²_c + σ²_v)` (both tails of the two-sided test; the closed form
    /// `(z₁₋α/₂ + z_power)² σ² / Δ²` drops the second term); `nil` when the variant does not move revenue.
    package var usersPerArm: Int?
    /// The share of replicate experiments at ``usersPerArm`` whose Welch test rejects in the
    /// direction of the truth; `nil` without a size.
    package var simulatedPower: Double?
    /// The Monte Carlo standard error of ``simulatedPower``.
    package var simulatedPowerStandardError: Double?
    /// Days to reach ``usersPerArm`` in both arms at the given traffic.
    package var durationDays: Int?
    /// The true effect by the decision rule: none (a tie), negligible (inside the margin), better or worse.
    package var trueEffect: PlannedEffect = .none

    /// Whether the variant moves revenue per user at all (its mean does not tie the control's,
    /// ``DecisionRule/tied(_:_:)``); one that does has no ``usersPerArm`` only when the size passes
    /// what the solver searches.
    package var movesRevenue: Bool { trueEffect != .none }

    /// Whether the replicates reach the target power within 3 standard errors (the normal
    /// approximation holds at this size); `nil` without a simulation.
    package func approximationHolds(target: Double) -> Bool? {
      guard let power = simulatedPower, let se = simulatedPowerStandardError else { return nil }
      return abs(power - target) <= 3 * max(se, 1e-12)
    }
  }

  /// The experiment's name.
  package var experiment: String
  /// The plans' currency, when a plan names one.
  package var currency: String?
  /// The two-sided significance level.
  package var alpha: Double
  /// The power the sizes are solved for.
  package var targetPower: Double
  /// The practical-equivalence margin of revenue per user, a share of the control's value.
  package var relativeMargin: Double = DecisionRule.defaultRelativeMargin
  /// Replicate experiments per variant.
  package var replicates: Int
  /// The seed of the replicates.
  package var seed: UInt64
  /// Eligible users per day over both arms, when given.
  package var usersPerDay: Int?
  /// The control's revenue.
  package var control: Arm
  /// One plan per variant other than the control, in the spec's order (only those asked for).
  package var variants: [Variant]
}

/// Plans a test on revenue per user (``RevenuePlan``).
package enum RevenuePlanner {
  /// The plan of every variant (or `options.variants`) against the control.
  /// - Throws: ``SpecErrors`` when the spec is invalid, sells no plan, or names an unknown variant.
  package static func plan(
    _ e: Experiment, options: PlanningOptions, progress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws(SpecErrors) -> RevenuePlan {
    let flows = try FlowCompiler.compileAll(e)
    guard flows.contains(where: { !$0.plans.isEmpty }) else {
      throw SpecErrors(
        source: e.name,
        errors: [
          SpecError(
            path: [.key("metrics"), .key("primary")], message: "revenue per user: the flow sells no plan, so every user earns 0",
            hint: "plan a metric the flow has, such as completionRate")
        ])
    }
    let indices = try ExperimentPlanner.plannedIndices(e, options: options)
    let alpha = options.alpha ?? e.metrics.alpha
    let seed = options.seed ?? e.seed
    let margin = e.metrics.relativeMargin(for: .revenuePerUser)
    let solved = ExactEngine.solve(([0] + indices).map { flows[$0] }, threads: options.threads)
    let control = arm(e.variants[0].id, solved[0])
    var variants: [RevenuePlan.Variant] = []
    for (k, index) in indices.enumerated() {
      let variant = arm(e.variants[index].id, solved[k + 1])
      let difference = DecisionRule.difference(variant.mean, control: control.mean)
      var plan = RevenuePlan.Variant(
        arm: variant, difference: difference, relativeLift: DecisionRule.relativeLift(variant.mean, control: control.mean))
      plan.trueEffect = PlannedEffect(
        variant: variant.mean, control: control.mean, higherIsBetter: true, relativeMargin: margin)
      plan.usersPerArm = usersPerArm(control, variant, alpha: alpha, power: options.targetPower)
      if let n = plan.usersPerArm {
        let rejections = replicateRejections(
          control: solved[0].revenueDistribution, variant: solved[k + 1].revenueDistribution, usersPerArm: n,
          replicates: options.replicates, alpha: alpha, direction: difference > 0 ? 1 : -1,
          seed: SplitMix64.mix(seed ^ UInt64(index) ^ 0x5245_5645))
        let power = Double(rejections) / Double(max(options.replicates, 1))
        plan.simulatedPower = power
        plan.simulatedPowerStandardError = (power * (1 - power) / Double(max(options.replicates, 1))).squareRoot()
        if let perDay = options.usersPerDay, perDay >= 2 {
          plan.durationDays = Int(rounding: Double(n) * 2 / Double(perDay), .up)
        }
      }
      variants.append(plan)
      progress?(k + 1, indices.count)
    }
    return RevenuePlan(
      experiment: e.name, currency: flows.lazy.compactMap { $0.plans.first?.plan.currency }.first, alpha: alpha,
      targetPower: options.targetPower, relativeMargin: margin, replicates: options.replicates, seed: seed,
      usersPerDay: options.usersPerDay,
      control: control, variants: variants)
  }

  /// An arm's exact revenue per user, its spread and its paying share.
  static func arm(_ id: String, _ x: ExactFunnel) -> RevenuePlan.Arm {
    RevenuePlan.Arm(
      variant: id, mean: x.revenuePerUser, standardDeviation: (x.revenuePerUserVariance ?? 0).squareRoot(),
      payingShare: max(1 - (x.revenueDistribution[0] ?? 1), 0))
  }

  /// Users per arm by the normal approximation of Welch's test, with the two arms' own variances
  /// (``PowerAnalysis/Method/means`` with the common σ² = (σ²_c + σ²_v)/2, which is the same
  /// formula); `nil` when the means are equal or the size is beyond an Int.
  static func usersPerArm(_ control: RevenuePlan.Arm, _ variant: RevenuePlan.Arm, alpha: Double, power: Double) -> Int? {
    let difference = DecisionRule.difference(variant.mean, control: control.mean)
    let sigma = ((control.standardDeviation * control.standardDeviation + variant.standardDeviation * variant.standardDeviation) / 2)
      .squareRoot()
    guard difference != 0, sigma > 0 else { return nil }
    let problem = PowerAnalysis.Problem(
      method: .means, baseline: control.mean, effect: difference, standardDeviation: sigma, sampleSize: nil, power: power,
      alpha: alpha)
    guard let solved = try? PowerAnalysis.solve(problem) else { return nil }
    return Int(rounding: solved.sampleSize, .up)
  }

  /// How many of `replicates` experiments of `usersPerArm` users per arm, each user's revenue drawn
  /// from the exact distributions (a multinomial over the values, by conditional binomials in value
  /// order), have a two-sided Welch test at `alpha` that rejects with the observed difference's sign
  /// equal to `direction`.
  static func replicateRejections(
    control: [Int64: Double], variant: [Int64: Double], usersPerArm: Int, replicates: Int, alpha: Double, direction: Double,
    seed: UInt64
  ) -> Int {
    let c = control.sorted { $0.key < $1.key }
    let v = variant.sorted { $0.key < $1.key }
    var rng = Xoshiro256StarStar(seed: seed)
    var rejections = 0
    // Welch's critical value c(ν) lies between the normal quantile z (ν = ∞) and c(n − 1), since
    // Welch's ν is at least n − 1 with n users per arm and c falls as ν grows: a |t| outside that
    // band decides without the t distribution (whose tails above 2,000 degrees of freedom are
    // integrated numerically, the plan's whole cost); inside it, Welch's own p-value decides.
    let z = -Normal.standardQuantile(p: alpha / 2, q: 1 - alpha / 2)
    let widest = StudentT(degreesOfFreedom: Double(max(usersPerArm - 1, 1))).isf(alpha / 2)
    for _ in 0..<max(replicates, 0) {
      let a = sample(c, users: usersPerArm, using: &rng)
      let b = sample(v, users: usersPerArm, using: &rng)
      if let ma = a.mean, let mb = b.mean, let va = a.variance, let vb = b.variance, va + vb > 0 {
        let t = (mb - ma) / (va / Double(a.n) + vb / Double(b.n)).squareRoot()
        if abs(t) < z - 1e-9 { continue }
        if abs(t) > widest + 1e-9 {
          if t * direction > 0 { rejections += 1 }
          continue
        }
      }
      guard let test = try? WelchTTest.test(treatment: b, control: a, confidenceLevel: 1 - alpha),
        let d = test.difference.estimate
      else { continue }
      if test.test.pValue <= alpha, d * direction > 0 { rejections += 1 }
    }
    return rejections
  }

  /// The mean statistic of `users` users drawn from `values` (cents and probabilities, in value order).
  static func sample(_ values: [(key: Int64, value: Double)], users: Int, using rng: inout Xoshiro256StarStar)
    -> SampleMeanStatistic
  {
    var left = UInt64(max(users, 0))
    var mass = values.reduce(0) { $0 + $1.value }
    var sum = 0.0
    var squares = 0.0
    for (k, entry) in values.enumerated() where left > 0 {
      let count =
        k == values.count - 1 ? left : BinomialSampler.sample(trials: left, probability: mass > 0 ? entry.value / mass : 1, using: &rng)
      let x = Double(entry.key) / 100
      sum += Double(count) * x
      squares += Double(count) * x * x
      left -= count
      mass -= entry.value
    }
    return SampleMeanStatistic(n: max(users, 0), sum: sum, sumOfSquares: squares)
  }
}
