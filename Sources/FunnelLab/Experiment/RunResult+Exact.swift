import Dispatch
import Synchronization

extension RunResult {
  /// Solves every variant's compiled flow with ``ExactEngine`` and keeps the
  /// solution in ``VariantRun/exact``: the noise-free value of every metric, which
  /// every "true" value and every verdict of FunnelLab is graded against.
  ///
  /// The variants are solved independently (one worker per variant, up to
  /// `threads`), so the result does not depend on scheduling. A run with a custom
  /// ``PaywallManager`` has no exact counterpart: leave ``VariantRun/exact`` `nil`
  /// there (see ``RunOptions/solveExact``).
  ///
  /// - Complexity: one ``ExactEngine/solve(_:)`` per variant.
  package mutating func solveExact(threads: Int? = nil) {
    let flows = variants.map(\.flow)
    let solutions = ExactTruth.solve(flows, threads: threads)
    for i in variants.indices { variants[i].exact = solutions[i] }
  }

  /// The exact difference variant − control of `metric` (``ExactEngine``), `nil`
  /// when either exact value is undefined or was not solved; exactly 0 for a tie
  /// (``DecisionRule/tied(_:_:)``: a variant whose change no user reaches before the metric is
  /// decided), which grades its significant results as false positives.
  package func exactDifference(_ metric: FunnelMetric, variant id: String) -> Double? {
    guard let v = variant(id), let c = control, let ev = v.exact, let ec = c.exact else { return nil }
    guard let a = ev.value(of: metric), let b = ec.value(of: metric) else { return nil }
    return DecisionRule.difference(a, control: b)
  }
}

/// Exact solutions of several compiled flows, solved in parallel in a fixed order.
enum ExactTruth {
  static func solve(
    _ flows: [CompiledFlow], threads: Int? = nil, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) -> [ExactFunnel] {
    var tick: (@Sendable (Int) -> Void)?
    if let progress {
      let ticks = SerialProgress(total: flows.count, progress)
      tick = { _ in ticks.tick() }
    }
    return solve(count: flows.count, threads: threads, progress: tick) { k -> Result<ExactFunnel, Never> in
      .success(ExactEngine.solve(flows[k]))
    }
    .map { result in
      switch result {
      case .success(let funnel): funnel
      }
    }
  }

  /// `body(k)` for `k` in `0..<count` on up to `threads` workers, the results in the order
  /// of `k`, ending at the first failure (``ParallelWork/mapUntilFailure(_:threads:progress:_:)``).
  static func solve<Success: Sendable, Failure: Error>(
    count: Int, threads: Int?, progress: (@Sendable (Int) -> Void)? = nil,
    _ body: @Sendable (Int) -> Result<Success, Failure>
  ) -> [Result<Success, Failure>] {
    ParallelWork.mapUntilFailure(count, threads: threads, progress: progress, body)
  }
}

extension ExactEngine {
  /// The exact funnels of `flows`, in their order, solved on up to `threads` workers
  /// (default: ``MonteCarloEngine/defaultThreadCount``); each equals ``solve(_:)`` of its flow.
  /// `progress` hears each flow as it is solved (how many are done, and how many there are),
  /// one call at a time.
  public static func solve(
    _ flows: [CompiledFlow], threads: Int? = nil, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) -> [ExactFunnel] {
    ExactTruth.solve(flows, threads: threads, progress: progress)
  }

  /// The exact funnel of every variant of `experiment`, in the order of its variants
  /// (for a grid, pass ``Experiment/gridExperiment()``: one variant per cell).
  ///
  /// Every variant's patches are applied and checked first. Variants that differ only in
  /// what revenue reads (a plan's trial, intro offer or renewal) then form one group,
  /// whose walk is solved once (``CompiledFlow/walksLike(_:)`` confirms it on the
  /// compiled tables; a variant that turns out to walk differently is solved on its
  /// own), so a grid crossing trial lengths costs one walk per other cell. Each worker
  /// takes a group, compiles its variants one at a time and lets their tables go, so
  /// memory holds at most `threads` groups' two flows however many variants there are
  /// (a 1,000-cell grid of Klick would need about 0.9 GB of tables at once). Each
  /// funnel equals ``solve(_:)`` of its variant, so the result is the same for any
  /// `threads`.
  /// - Parameters:
  ///   - threads: workers (default: ``MonteCarloEngine/defaultThreadCount``).
  ///   - progress: called from the workers with 1 after each variant.
  /// - Throws: ``SpecErrors`` of the first variant (in order) that does not compile;
  ///   nothing is solved then.
  /// - Complexity: one ``FlowCompiler/compile(_:variant:)`` per variant and one
  ///   ``solve(_:)`` per group.
  public static func solveVariants(
    of experiment: Experiment, threads: Int? = nil, progress: (@Sendable (Int) -> Void)? = nil
  ) throws(SpecErrors) -> [ExactFunnel] {
    let checked = ExactTruth.solve(count: experiment.variants.count, threads: threads) { k in
      Result { () throws(SpecErrors) -> Experiment in try FlowCompiler.validatedVariant(experiment, k) }
    }
    var patched: [Experiment] = []
    patched.reserveCapacity(checked.count)
    for result in checked { patched.append(try result.get()) }
    let specs = patched
    let groups = walkGroups(specs)
    let solved = ExactTruth.solve(count: groups.count, threads: threads) { g -> Result<[ExactFunnel], Never> in
      let members = groups[g]
      return .success(
        solveSharingTheWalk(count: members.count, done: { progress?(1) }) { i in
          FlowCompiler.compileValidated(specs[members[i]], variantID: experiment.variants[members[i]].id)
        })
    }
    var funnels = [ExactFunnel?](repeating: nil, count: specs.count)
    for (members, result) in zip(groups, solved) {
      guard case .success(let solutions) = result else { continue }
      for (k, funnel) in zip(members, solutions) { funnels[k] = funnel }
    }
    return funnels.compactMap { $0 }
  }

  /// The variants (by index, in order of their first member) whose specs are equal once
  /// each plan's trial, intro offer and renewal are set aside: the candidates to share a walk.
  static func walkGroups(_ variants: [Experiment]) -> [[Int]] {
    var groups: [[Int]] = []
    var groupOf: [Experiment: Int] = [:]
    for (k, variant) in variants.enumerated() {
      let key = variant.settingAsideRevenueTerms()
      if let g = groupOf[key] {
        groups[g].append(k)
      } else {
        groupOf[key] = groups.count
        groups.append([k])
      }
    }
    return groups
  }
}

extension Experiment {
  /// The spec without its list of variants and with every plan's trial, intro offer and
  /// renewal at their defaults: what the walk of a patched variant can depend on.
  func settingAsideRevenueTerms() -> Experiment {
    var key = self
    key.variants = []
    for i in key.flow.screens.indices {
      guard case .paywall(var paywall) = key.flow.screens[i].content else { continue }
      for j in paywall.plans.indices {
        paywall.plans[j].trialDays = 0
        paywall.plans[j].introPrice = nil
        paywall.plans[j].introPeriods = 0
        paywall.plans[j].renewalProbability = nil
      }
      key.flow.screens[i].content = .paywall(paywall)
    }
    return key
  }
}
