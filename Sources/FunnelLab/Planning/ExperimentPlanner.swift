public import FunnelStats

/// Options of a plan (defaults in parentheses).
public struct PlanningOptions: Sendable {
  /// Users per arm; `nil`: the analytic size for ``targetPower``.
  public var usersPerArm: Int?
  /// Target power when solving for the size (0.8).
  public var targetPower = 0.8
  /// Eligible users per day (both arms): durations and daily looks.
  public var usersPerDay: Int?
  /// Daily looks for the peeking simulation (default: the planned duration, at most 100).
  public var days: Int?
  /// Replicate experiments per simulation (10,000).
  public var replicates = 10_000
  /// Significance level (the spec's `metrics.alpha`).
  public var alpha: Double?
  /// Only these variants (the control is the reference).
  public var variants: [String]?
  public var seed: UInt64?

  public init() {}
}

/// The plan of one variant against the control.
public struct VariantPlan: Sendable {
  public var diagnosis: DesignDiagnosis
  /// Users per arm the pooled z-test formula needs for the target power (nil for a zero effect).
  public var analyticUsersPerArm: Int?
  /// The smallest size on a grid around the analytic one whose simulated power reaches the target.
  public var simulatedUsersPerArm: Int?
  /// Days to reach `usersPerArm` in both arms at the given daily traffic.
  public var durationDays: Int?
  public var peeking: PeekingDiagnosis?
}

/// Planning before launch for every variant against the control.
public struct PlanningReport: Sendable {
  public var experiment: String
  public var metric: FunnelMetric
  public var alpha: Double
  public var targetPower: Double
  public var seed: UInt64
  public var usersPerDay: Int?
  public var plans: [VariantPlan]
}

/// Plans an experiment: exact rates from the ``ExactEngine``, replicate experiments
/// drawn from them, sizes, durations and the cost of peeking.
public enum ExperimentPlanner {
  public static func plan(
    _ e: Experiment, options: PlanningOptions = PlanningOptions(), progress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws(SpecErrors) -> PlanningReport {
    let metric = e.metrics.primary
    guard metric.isProportion else {
      throw SpecErrors(source: e.name, errors: [SpecError(
        path: [.key("metrics"), .key("primary")], message: "planning simulates proportion metrics; \(metric.rawValue) is a mean",
        hint: "use a proportion such as purchaseConversion or completionRate as the primary metric")])
    }
    let flows = try FlowCompiler.compileAll(e)
    let alpha = options.alpha ?? e.metrics.alpha
    let seed = options.seed ?? e.seed
    var indices = Array(e.variants.indices.dropFirst())
    if let wanted = options.variants {
      let unknown = wanted.filter { id in !e.variants.contains { $0.id == id } }
      guard unknown.isEmpty else {
        throw SpecErrors(source: e.name, errors: unknown.map { id in
          SpecError(path: [.key("variants")], message: "no variant '\(id)'", hint: NameSuggestion.hint(for: id, in: e.variants.map(\.id)))
        })
      }
      indices = indices.filter { wanted.contains(e.variants[$0].id) }
    }
    let rates = ([0] + indices).map { ExactEngine.solve(flows[$0]).value(of: metric) ?? 0 }
    let p0 = rates[0]
    var plans: [VariantPlan] = []
    for (k, i) in indices.enumerated() {
      let p1 = rates[k + 1]
      let id = e.variants[i].id
      let variantSeed = SplitMix64.mix(seed ^ UInt64(i))
      let analytic = p1 == p0 ? nil : (try? PowerAnalysis.solve(PowerAnalysis.Problem(
        method: .pooledNormal, baseline: p0, effect: p1, sampleSize: nil, power: options.targetPower, alpha: alpha)))
        .map { Int($0.sampleSize.rounded(.up)) }
      let n = options.usersPerArm ?? analytic ?? 10_000
      let diagnosis = DesignDiagnosis.simulate(
        variant: id, metric: metric, controlRate: p0, variantRate: p1, usersPerArm: n, replicates: options.replicates,
        alpha: alpha, seed: variantSeed)
      var simulated: Int?
      if let analytic {
        for factor in [0.6, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0] {
          let candidate = max(2, Int((Double(analytic) * factor).rounded()))
          let power = DesignDiagnosis.simulate(
            variant: id, metric: metric, controlRate: p0, variantRate: p1, usersPerArm: candidate,
            replicates: min(options.replicates, 4_000), alpha: alpha, seed: variantSeed ^ 0x5349_5A45
          ).power
          if power >= options.targetPower {
            simulated = candidate
            break
          }
        }
      }
      var duration: Int?
      var peeking: PeekingDiagnosis?
      if let perDay = options.usersPerDay, perDay >= 2 {
        duration = Int((Double(2 * n) / Double(perDay)).rounded(.up))
        let days = min(100, max(1, options.days ?? duration ?? 28))
        peeking = try? PeekingDiagnosis.simulate(
          variant: id, controlRate: p0, variantRate: p1, usersPerDayPerArm: perDay / 2, days: days,
          replicates: options.replicates, alpha: alpha, seed: variantSeed)
      }
      plans.append(VariantPlan(
        diagnosis: diagnosis, analyticUsersPerArm: analytic, simulatedUsersPerArm: simulated, durationDays: duration, peeking: peeking))
      progress?(k + 1, indices.count)
    }
    return PlanningReport(
      experiment: e.name, metric: metric, alpha: alpha, targetPower: options.targetPower, seed: seed,
      usersPerDay: options.usersPerDay, plans: plans)
  }
}
