import FunnelStats

/// Options of a plan (defaults in parentheses).
package struct PlanningOptions: Sendable {
  /// Users per arm; `nil`: the analytic size for ``targetPower``.
  package var usersPerArm: Int?
  /// Target power when solving for the size (0.8).
  package var targetPower = 0.8
  /// Eligible users per day (both arms): durations and daily looks.
  package var usersPerDay: Int?
  /// Daily looks for the peeking simulation (default: the planned duration, at most 100).
  package var days: Int?
  /// Replicate experiments per simulation (10,000); the sample-size search uses
  /// ``searchReplicates`` (four times as many).
  package var replicates = 10_000
  /// Significance level (the spec's `metrics.alpha`).
  package var alpha: Double?
  /// Only these variants (the control is the reference).
  package var variants: [String]?
  /// Seed of the replicates (the spec's `seed`); each variant's stream is derived from it and the variant's index.
  package var seed: UInt64?
  /// Worker threads; `nil`: every core. The result does not depend on it.
  package var threads: Int?

  /// The defaults above: analytic size, power 0.8, 10,000 replicates, no traffic figure, every variant.
  package init() {}

  /// Replicates of the sample-size search: 4 × ``replicates`` (40,000 by default, which
  /// puts the Monte Carlo standard error of the simulated size near 0.5 %).
  package var searchReplicates: Int { replicates.multipliedReportingOverflow(by: 4).overflow ? Int.max : replicates * 4 }
}

/// The plan of one variant against the control.
package struct VariantPlan: Sendable {
  /// The replicate experiments at ``PlanningOptions/usersPerArm``, else at the analytic size, else (zero
  /// effect) at 10,000 users per arm.
  package var diagnosis: DesignDiagnosis
  /// Users per arm the pooled z-test formula needs for the target power (nil for a zero effect).
  package var analyticUsersPerArm: Int?
  /// The users per arm at which simulated power reaches the target, found by
  /// ``SampleSizeSearch`` (nil for a zero effect).
  package var simulatedSize: SimulatedSampleSize?
  /// ``simulatedSize``'s users per arm when the search found the target inside its range.
  package var simulatedUsersPerArm: Int? { simulatedSize.flatMap { $0.position == .found ? $0.usersPerArm : nil } }
  /// Days to reach `usersPerArm` in both arms at the given daily traffic.
  package var durationDays: Int?
  /// A test longer than this many days is not a plan: the product, the users and the
  /// season change under it, and no team waits that long for an onboarding answer.
  package static let feasibleDays = 365
  /// Whether the test fits in ``feasibleDays`` at the given traffic (`nil` without traffic).
  package var isFeasible: Bool? { durationDays.map { $0 <= Self.feasibleDays } }
  /// The daily-look simulation; `nil` without ``PlanningOptions/usersPerDay`` (or fewer than 2 users a day).
  package var peeking: PeekingDiagnosis?
  /// The variant's true effect by the decision rule: none (a tie), negligible (inside the
  /// margin), better or worse.
  package var trueEffect: PlannedEffect = .none
}

/// Planning before launch for every variant against the control.
package struct PlanningReport: Sendable {
  /// Only the control was planned: no variant, so no test to plan (the one decision rule's
  /// ``DecisionRule/Standing/nothingToCompare``, which every format words the same way).
  package var nothingToCompare: Bool { plans.isEmpty }

  /// The experiment's name.
  package var experiment: String
  /// The primary metric planned for: always a proportion.
  package var metric: FunnelMetric
  /// The two-sided significance level used (the options' `alpha`, else the spec's `metrics.alpha`).
  package var alpha: Double
  /// The power the sizes are solved for, a probability.
  package var targetPower: Double
  /// The practical-equivalence margin of the planned metric, a share of the control's value
  /// (the spec's `metrics`): a true effect inside it is negligible.
  package var relativeMargin: Double = DecisionRule.defaultRelativeMargin
  /// The seed the replicates were drawn with: the same seed, spec and options give the same report.
  package var seed: UInt64
  /// Eligible users per day over both arms, when given; durations and peeking need it.
  package var usersPerDay: Int?
  /// One plan per variant other than the control, in the spec's order (only those asked for, when filtered).
  package var plans: [VariantPlan]
  /// What adjusting for the observable segments and the pre-period covariate would save;
  /// `nil` when the population has neither.
  package var adjustment: AdjustmentPlan?
  /// The assurance of each plan over uncertain behavior parameters (`power --parameter-uncertainty`); `nil` otherwise.
  package var assurance: AssurancePlan? = nil
}

/// The integer tallies of a plan, per variant: what a shard computes and `merge` adds.
package struct PlanningCounts: Sendable, Hashable {
  /// One variant's tallies: each part adds separately across shards.
  package struct Variant: Sendable, Hashable {
    /// The fixed-size replicate experiments.
    package var diagnosis = DesignDiagnosis.Counts()
    /// The tallies of the simulated size search (nil for a zero effect).
    package var sizeSearch: SampleSizeSearch.Counts?
    /// The daily-look replicates; `nil` without a traffic figure.
    package var peeking: PeekingDiagnosis.Counts?
  }

  /// One entry per planned variant, in the order of ``PlanningReport/plans``.
  package var variants: [Variant]

  /// Adds two shards' tallies variant by variant; an optional part stays only when both shards have it.
  package static func + (a: PlanningCounts, b: PlanningCounts) -> PlanningCounts {
    PlanningCounts(
      variants: zip(a.variants, b.variants).map { x, y in
        Variant(
          diagnosis: x.diagnosis + y.diagnosis, sizeSearch: x.sizeSearch.flatMap { s in y.sizeSearch.map { s + $0 } },
          peeking: x.peeking.flatMap { p in y.peeking.map { p + $0 } })
      })
  }
}

/// Plans an experiment: exact rates from the ``ExactEngine``, replicate experiments
/// drawn from them, sizes, durations and the cost of peeking.
package enum ExperimentPlanner {
  /// The parts of a plan that do not depend on random draws.
  struct Frame {
    var metric: FunnelMetric
    var alpha: Double
    var seed: UInt64
    var ids: [String]
    var indices: [Int]
    var p0: Double
    var rates: [Double]
    var analytic: [Int?]

    func usersPerArm(_ k: Int, _ options: PlanningOptions) -> Int { options.usersPerArm ?? analytic[k] ?? 10_000 }
    func variantSeed(_ k: Int) -> UInt64 { SplitMix64.mix(seed ^ UInt64(indices[k])) }
    func days(_ k: Int, _ options: PlanningOptions) -> Int? {
      guard let perDay = options.usersPerDay, perDay >= 2 else { return nil }
      let duration = Int(rounding: Double(usersPerArm(k, options)) * 2 / Double(perDay), .up) ?? 100
      return min(100, max(1, options.days ?? duration))
    }
  }

  /// The indices of the variants to plan: every one but the control, or those of `options.variants`.
  /// - Throws: ``SpecErrors`` naming each unknown variant.
  static func plannedIndices(_ e: Experiment, options: PlanningOptions) throws(SpecErrors) -> [Int] {
    let indices = Array(e.variants.indices.dropFirst())
    guard let wanted = options.variants else { return indices }
    let unknown = wanted.filter { id in !e.variants.contains { $0.id == id } }
    guard unknown.isEmpty else {
      throw SpecErrors(
        source: e.name,
        errors: unknown.map { id in
          SpecError(
            .unknownReference, path: [.key("variants")], message: "no variant '\(id)'",
            hint: NameSuggestion.hint(for: id, in: e.variants.map(\.id)))
        })
    }
    return indices.filter { wanted.contains(e.variants[$0].id) }
  }

  static func frame(_ e: Experiment, options: PlanningOptions) throws(SpecErrors) -> Frame {
    let metric = e.metrics.primary
    guard metric.isProportion else {
      throw SpecErrors(
        source: e.name,
        errors: [
          SpecError(
            path: [.key("metrics"), .key("primary")], message: "planning simulates proportion metrics; \(metric.rawValue) is a mean",
            hint: "use a proportion such as purchaseConversion or completionRate as the primary metric")
        ])
    }
    let flows = try FlowCompiler.compileAll(e)
    let alpha = options.alpha ?? e.metrics.alpha
    let indices = try plannedIndices(e, options: options)
    let rates = ([0] + indices).map { ExactEngine.solve(flows[$0]).value(of: metric) ?? 0 }
    let p0 = rates[0]
    let analytic: [Int?] = rates.dropFirst().map { p1 in
      DecisionRule.tied(p1, p0)
        ? nil
        : (try? PowerAnalysis.solve(
          PowerAnalysis.Problem(
            method: .pooledNormal, baseline: p0, effect: p1, sampleSize: nil, power: options.targetPower, alpha: alpha)))
          .flatMap { Int(rounding: $0.sampleSize, .up) }
    }
    return Frame(
      metric: metric, alpha: alpha, seed: options.seed ?? e.seed, ids: indices.map { e.variants[$0].id }, indices: indices, p0: p0,
      rates: Array(rates.dropFirst()), analytic: analytic)
  }

  /// The tallies of the replicates in `shard` (all replicates when `nil`).
  package static func tally(
    _ e: Experiment, options: PlanningOptions, shard: Shard? = nil, progress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws(SpecErrors) -> PlanningCounts {
    let f = try frame(e, options: options)
    func slice(_ n: Int) -> Range<Int> {
      let r = shard.map { $0.range(of: 0..<UInt64(n)) } ?? 0..<UInt64(n)
      return Int(r.lowerBound)..<Int(r.upperBound)
    }
    let (replicates, search) = (slice(options.replicates), slice(options.searchReplicates))
    // Progress counts replicates: each variant's diagnosis, its size search, and its peeking (two scenarios).
    let work = f.ids.indices.map { k in
      let peeks = f.days(k, options) != nil && options.usersPerDay != nil
      return replicates.count + (f.analytic[k] == nil ? 0 : search.count) + (peeks ? 2 * replicates.count : 0)
    }
    let total = work.reduce(0, +)
    var done = 0
    func report(_ count: Int) {
      done += count
      progress?(done, total)
    }
    var variants: [PlanningCounts.Variant] = []
    for k in f.ids.indices {
      let p1 = f.rates[k]
      let n = f.usersPerArm(k, options)
      var v = PlanningCounts.Variant()
      v.diagnosis = inChunks(replicates, report, +) {
        DesignDiagnosis.tally(controlRate: f.p0, variantRate: p1, usersPerArm: n, replicates: $0, alpha: f.alpha, seed: f.variantSeed(k))
      }
      if let analytic = f.analytic[k] {
        v.sizeSearch = inChunks(search, report, +) {
          SampleSizeSearch.tally(
            controlRate: f.p0, variantRate: p1, sizes: SampleSizeSearch.sizes(around: analytic), replicates: $0, alpha: f.alpha,
            seed: f.variantSeed(k) ^ 0x5349_5A45)
        }
      }
      if let days = f.days(k, options), let perDay = options.usersPerDay {
        let design = try? PeekingDiagnosis.design(days: days, alpha: f.alpha)
        v.peeking = inChunks(replicates, { report(2 * $0) }, { a, b in a.flatMap { x in b.map { x + $0 } } }) { range in
          design.flatMap { design in
            try? PeekingDiagnosis.tally(
              controlRate: f.p0, variantRate: p1, usersPerDayPerArm: perDay / 2, days: days, replicates: range, alpha: f.alpha,
              seed: f.variantSeed(k), design: design)
          }
        }
      }
      variants.append(v)
    }
    return PlanningCounts(variants: variants)
  }

  /// `tally` of `range` in at most 20 chunks, summed with `add`, each chunk's size reported to
  /// `done` as it ends, so that progress moves during a long tally. The same counts as one call:
  /// a replicate's draws depend on its index only, and counts add exactly.
  static func inChunks<Counts>(
    _ range: Range<Int>, _ done: (Int) -> Void, _ add: (Counts, Counts) -> Counts, _ tally: (Range<Int>) -> Counts
  ) -> Counts {
    let size = max(1, (range.count + 19) / 20)
    var end = min(range.upperBound, range.lowerBound + size)
    var sum = tally(range.lowerBound..<end)
    done(end - range.lowerBound)
    while end < range.upperBound {
      let start = end
      end = min(range.upperBound, start + size)
      sum = add(sum, tally(start..<end))
      done(end - start)
    }
    return sum
  }

  /// The plan that `counts` (all replicates, summed over shards) amount to.
  package static func report(_ e: Experiment, options: PlanningOptions, counts: PlanningCounts) throws(SpecErrors) -> PlanningReport {
    let f = try frame(e, options: options)
    guard counts.variants.count == f.ids.count else {
      throw SpecErrors(
        source: e.name, errors: [SpecError(.mismatch, path: .root, message: "the tallies do not match the variants", hint: nil)])
    }
    var plans: [VariantPlan] = []
    for k in f.ids.indices {
      let n = f.usersPerArm(k, options)
      let v = counts.variants[k]
      let diagnosis = DesignDiagnosis(
        variant: f.ids[k], metric: f.metric, controlRate: f.p0, variantRate: f.rates[k], usersPerArm: n, alpha: f.alpha,
        counts: v.diagnosis)
      let simulated = f.analytic[k].flatMap { analytic in
        v.sizeSearch.flatMap { SampleSizeSearch.solve($0, sizes: SampleSizeSearch.sizes(around: analytic), target: options.targetPower) }
      }
      let duration = options.usersPerDay.flatMap { perDay in
        perDay >= 2 ? Int(rounding: Double(n) * 2 / Double(perDay), .up) : nil
      }
      var peeking: PeekingDiagnosis?
      if let tally = v.peeking, let days = f.days(k, options) {
        peeking = PeekingDiagnosis(
          variant: f.ids[k], usersPerDayPerArm: (options.usersPerDay ?? 0) / 2, days: days, alpha: f.alpha, counts: tally)
      }
      let effect = PlannedEffect(
        variant: f.rates[k], control: f.p0, higherIsBetter: f.metric.higherIsBetter,
        relativeMargin: e.metrics.relativeMargin(for: f.metric))
      plans.append(
        VariantPlan(
          diagnosis: diagnosis, analyticUsersPerArm: f.analytic[k], simulatedSize: simulated, durationDays: duration,
          peeking: peeking, trueEffect: effect))
    }
    let adjustment = try AdjustmentPlanner.plan(
      e, variants: options.variants, alpha: f.alpha, targetPower: options.targetPower, replicates: options.replicates, seed: f.seed,
      threads: options.threads)
    return PlanningReport(
      experiment: e.name, metric: f.metric, alpha: f.alpha, targetPower: options.targetPower,
      relativeMargin: e.metrics.relativeMargin(for: f.metric), seed: f.seed, usersPerDay: options.usersPerDay, plans: plans,
      adjustment: adjustment)
  }

  /// Tallies every replicate in this process and reports: ``tally(_:options:shard:progress:)`` then
  /// ``report(_:options:counts:)``. `progress` is called with (replicates done, replicates) as they are tallied.
  /// - Throws: ``SpecErrors`` when the spec is invalid, its primary metric is a mean, or an asked-for
  /// variant does not exist.
  package static func plan(
    _ e: Experiment, options: PlanningOptions = PlanningOptions(), progress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws(SpecErrors) -> PlanningReport {
    try report(e, options: options, counts: tally(e, options: options, progress: progress))
  }
}
