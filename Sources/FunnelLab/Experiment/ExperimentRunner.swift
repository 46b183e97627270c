import Dispatch
import Synchronization

/// One variant's simulated users.
package struct VariantRun: Sendable {
  /// The spec's variant that was run.
  package var variant: Variant
  /// The variant's compiled flow: its indices (screens, actions, plans) label the aggregate's counters.
  package var flow: CompiledFlow
  /// The Monte Carlo engine's counts over the users this variant walked (all of them in truth mode, its
  /// arm's in experiment mode).
  package var aggregate: FunnelAggregate
  /// Truth mode: this variant's per-user outcomes tallied against the control's for the
  /// same users (paired inference). `nil` for the control and in experiment mode.
  package var paired: PairedTallies?
  /// Experiment mode, when the population has observable segments or a pre-period
  /// covariate: the primary metric's per-user values and the covariate by stratum.
  package var strata: StrataTally?
  /// The exact solution of ``flow`` (``ExactEngine``): the truth the aggregate's
  /// estimates are graded against; `nil` when not solved (a shard, a custom
  /// purchase layer, or ``RunOptions/solveExact`` off).
  package var exact: ExactFunnel?

  /// Creates a variant's run.
  package init(
    variant: Variant, flow: CompiledFlow, aggregate: FunnelAggregate, paired: PairedTallies? = nil, exact: ExactFunnel? = nil
  ) {
    self.variant = variant
    self.flow = flow
    self.aggregate = aggregate
    self.paired = paired
    self.exact = exact
  }
}

/// How users meet variants.
public enum RunMode: String, Sendable, Hashable, CaseIterable {
  /// Every user walks every variant (common random numbers): differences between variants are
  /// paired estimates over the same users, analysed as such (``PairedTallies``).
  case truth
  /// Users are split among the arms by ``HashAssignment``, as a live A/B test would.
  case experiment
}

/// The result of simulating the variants of an experiment.
///
/// In ``RunMode/truth`` the same users, by index and random stream, walk every
/// variant, in lockstep, and each variant carries its ``VariantRun/paired`` tallies. In ``RunMode/experiment`` users `0..<usersPerVariant × arms` are split
/// among the arms by hashing; each walks only their own arm, with the same stream
/// they would have in truth mode.
public struct RunResult: Sendable {
  /// The experiment's name.
  package var experiment: String
  /// The seed the users' random streams came from (the options', else the spec's): same seed, same result.
  package var seed: UInt64
  /// Whether every user walked every variant (truth) or one arm each (experiment).
  package var mode: RunMode
  /// Truth mode: users per variant. Experiment mode: the average per arm (total / arms).
  package var usersPerVariant: Int
  /// One run per variant selected, in the spec's order, the control first.
  package var variants: [VariantRun]
  /// Experiment mode: the assignment used.
  package var assignment: HashAssignment?
  /// The strata and covariate the variants' ``VariantRun/strata`` are tallied by; `nil` when none were recorded.
  package var strata: CompiledStrata?

  /// The run of the variant with this id.
  package func variant(_ id: String) -> VariantRun? { variants.first { $0.variant.id == id } }
  /// The control: the first variant.
  package var control: VariantRun? { variants.first }
}

/// Options of a run that override the spec's own values.
public struct RunOptions: Sendable {
  /// Users per variant (truth mode) or per arm on average (experiment mode); `nil`: the spec's `users`.
  /// 1 to ``Limits/users``.
  public var users: Int?
  /// The seed; `nil`: the spec's `seed`.
  public var seed: UInt64?
  /// Worker threads; `nil`: ``MonteCarloEngine/defaultThreadCount``. Results do not depend on it.
  public var threads: Int?
  /// Only these variant ids (in spec order); `nil` runs all. The control always runs.
  public var variants: [String]?
  /// Truth (every user walks every variant, paired) or experiment (users split by hash); default truth.
  public var mode: RunMode
  /// Only this shard of the users (for runs split across machines; see ``Shard``).
  package var shard: Shard?
  /// Whether to solve every variant exactly (``RunResult/solveExact(threads:)``)
  /// after simulating it, so that results carry their truth. Default `true`;
  /// shards never solve (their merge does), nor do runs with a custom purchase layer.
  public var solveExact: Bool = true

  /// Options that override the spec's values where given; ``shard`` `nil` and ``solveExact`` `true`.
  public init(users: Int? = nil, seed: UInt64? = nil, threads: Int? = nil, variants: [String]? = nil, mode: RunMode = .truth) {
    self.users = users
    self.seed = seed
    self.threads = threads
    self.variants = variants
    self.mode = mode
  }
}

/// Runs every variant of an experiment through the Monte Carlo engine.
public enum ExperimentRunner {
  /// Validates, compiles and simulates `experiment`.
  /// - Parameter progress: called with users finished so far and users in total.
  /// - Throws: ``SpecErrors`` when the experiment is invalid; nothing is simulated then.
  public static func run(
    _ experiment: Experiment, options: RunOptions = RunOptions(),
    progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> RunResult {
    try run(experiment, options: options, paywall: nil as MockPaywallManager?, progress: progress)
  }

  /// Like ``run(_:options:progress:)``, with a purchase layer of your own instead of
  /// the mock configured by each variant's `store` settings.
  package static func run<Manager: PaywallManager>(
    _ experiment: Experiment, options: RunOptions = RunOptions(), paywall: Manager?,
    progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> RunResult {
    let plan = try Plan(experiment, options: options)
    let engine = MonteCarloEngine(threads: options.threads)
    let armCount = plan.assignment == nil ? 1 : plan.selected.count
    let population = UInt64(plan.users) * UInt64(armCount)
    let total = Int(population) * plan.selected.count
    let counter = ProgressCounter()
    let report: @Sendable (Int) -> Void = { finished in
      if let progress { progress(counter.add(finished), total) }
    }
    let all = 0..<population
    let range = options.shard.map { $0.range(of: all) } ?? all
    let runs =
      if let assignment = plan.assignment {
        arms(experiment, plan, assignment: assignment, range: range, engine: engine, paywall: paywall, report: report)
      } else {
        lockstep(experiment, plan, range: range, engine: engine, paywall: paywall, report: report)
      }
    var result = RunResult(
      experiment: experiment.name, seed: plan.seed, mode: options.mode, usersPerVariant: plan.users, variants: runs,
      assignment: plan.assignment, strata: plan.recording?.strata)
    if options.solveExact, options.shard == nil, paywall == nil { result.solveExact(threads: options.threads) }
    return result
  }

  /// Truth mode: every selected variant walks users `range` in lockstep with the control.
  static func lockstep<Manager: PaywallManager>(
    _ experiment: Experiment, _ plan: Plan, range: Range<UInt64>, engine: MonteCarloEngine, paywall: Manager?,
    report: @escaping @Sendable (Int) -> Void
  ) -> [VariantRun] {
    let flows = plan.selected.map { plan.flows[$0] }
    let walked =
      if let paywall {
        engine.runPaired(flows, users: range, seed: plan.seed, paywall: paywall, progress: report)
      } else {
        engine.runPaired(flows, users: range, seed: plan.seed, progress: report)
      }
    return plan.selected.indices.map { k in
      VariantRun(
        variant: experiment.variants[plan.selected[k]], flow: flows[k], aggregate: walked.aggregates[k], paired: walked.paired[k])
    }
  }

  /// Experiment mode: each arm walks only the users `assignment` gives it.
  static func arms<Manager: PaywallManager>(
    _ experiment: Experiment, _ plan: Plan, assignment: HashAssignment, range: Range<UInt64>, engine: MonteCarloEngine,
    paywall: Manager?, report: @escaping @Sendable (Int) -> Void
  ) -> [VariantRun] {
    let chosen = plan.selected
    let simulate: @Sendable (Int, MonteCarloEngine) -> VariantRun = { armIndex, runner in
      let i = chosen[armIndex]
      let include: @Sendable (UInt64) -> Bool = { user in assignment.arm(of: user) == armIndex }
      let walked =
        if let paywall {
          runner.run(
            plan.flows[i], users: range, seed: plan.seed, paywall: paywall, recording: plan.recording, include: include, progress: report)
        } else {
          runner.run(
            plan.flows[i], users: range, seed: plan.seed, paywall: MockPaywallManager(settings: plan.flows[i].store),
            recording: plan.recording, include: include, progress: report)
        }
      var run = VariantRun(variant: experiment.variants[i], flow: plan.flows[i], aggregate: walked.aggregate)
      run.strata = walked.strata
      return run
    }
    guard engine.threads > 1, chosen.count >= 2 * engine.threads else { return chosen.indices.map { simulate($0, engine) } }
    // Many arms: one arm per worker at a time, each on one thread. Every arm's aggregate
    // depends only on its own users, so the result is the same.
    return ParallelWork.map(chosen.count, threads: engine.threads) { k in simulate(k, MonteCarloEngine(threads: 1)) }
  }
}

extension ExperimentRunner {
  /// What a run of `experiment` under `options` consists of: the compiled flows, the
  /// variants selected (the control first), users, seed and assignment.
  struct Plan: Sendable {
    var flows: [CompiledFlow]
    var users: Int
    var seed: UInt64
    var selected: [Int]
    var assignment: HashAssignment?
    /// Experiment mode with observable segments or a covariate, and a primary metric over all users: what each user adds to its arm's ``StrataTally``.
    var recording: StrataRecording?

    init(_ experiment: Experiment, options: RunOptions) throws(SpecErrors) {
      flows = try FlowCompiler.compileAll(experiment)
      users = options.users ?? experiment.users
      seed = options.seed ?? experiment.seed
      selected = Array(experiment.variants.indices)
      guard Limits.users.contains(users) else {
        throw SpecErrors(
          source: experiment.name,
          errors: [
            SpecError(
              users > Limits.users.upperBound ? .limit : .invalidValue,
              path: [.key("users")], message: "users must be from 1 to \(Limits.users.upperBound), got \(users)", hint: "use e.g. 100000")
          ])
      }
      if let wanted = options.variants {
        var errors: [SpecError] = []
        for id in wanted where !experiment.variants.contains(where: { $0.id == id }) {
          errors.append(
            SpecError(
              .unknownReference, path: [.key("variants")], message: "no variant '\(id)'",
              hint: NameSuggestion.hint(for: id, in: experiment.variants.map(\.id))))
        }
        guard errors.isEmpty else { throw SpecErrors(source: experiment.name, errors: errors) }
        selected = experiment.variants.indices.filter { $0 == 0 || wanted.contains(experiment.variants[$0].id) }
      }
      let arms = selected.map { experiment.variants[$0].id }
      if options.mode == .experiment, arms.allSatisfy({ (experiment.design.allocation[$0] ?? 1) == 0 }) {
        throw SpecErrors(
          source: experiment.name,
          errors: [
            SpecError(
              path: [.key("design"), .key("allocation")], message: "every arm of this run has allocation weight 0",
              hint: "give one of " + arms.joined(separator: ", ") + " a positive weight")
          ])
      }
      assignment =
        options.mode == .experiment
        ? HashAssignment(salt: experiment.assignmentSalt, arms: arms, weights: experiment.design.allocation) : nil
      recording = options.mode == .experiment && options.shard == nil ? Self.recording(experiment) : nil
    }

    /// The strata recording of `experiment`: when its population has an observable
    /// segment or a covariate and its primary metric a per-user value.
    static func recording(_ experiment: Experiment) -> StrataRecording? {
      let population = experiment.population
      guard population.covariate != nil || population.segments.contains(where: \.observable),
        let value = PerUserValue(experiment.metrics.primary)
      else { return nil }
      return StrataRecording(strata: CompiledStrata(experiment), value: value)
    }
  }

  /// The result a run of `experiment` under `options` has when its per-variant
  /// aggregates are `aggregates` and its paired tallies `paired` (the sums of its shards'
  /// parts, in variant order; `paired` empty for experiment mode).
  package static func result(
    of experiment: Experiment, options: RunOptions, aggregates: [FunnelAggregate], paired: [PairedTallies?] = []
  ) throws(SpecErrors) -> RunResult {
    let plan = try Plan(experiment, options: options)
    guard aggregates.count == plan.selected.count, paired.isEmpty || paired.count == aggregates.count else {
      throw SpecErrors(
        source: experiment.name,
        errors: [
          SpecError(
            .mismatch, path: .root, message: "\(aggregates.count) aggregates for \(plan.selected.count) variants",
            hint: "the shard belongs to another run")
        ])
    }
    let runs = plan.selected.indices.map { k in
      VariantRun(
        variant: experiment.variants[plan.selected[k]], flow: plan.flows[plan.selected[k]], aggregate: aggregates[k],
        paired: paired.isEmpty ? nil : paired[k])
    }
    var result = RunResult(
      experiment: experiment.name, seed: plan.seed, mode: options.mode, usersPerVariant: plan.users, variants: runs,
      assignment: plan.assignment)
    if options.solveExact { result.solveExact(threads: options.threads) }
    return result
  }

  /// The flows of the variants a run selects, in order (to read shard aggregates).
  package static func selectedFlows(of experiment: Experiment, options: RunOptions) throws(SpecErrors) -> [CompiledFlow] {
    let plan = try Plan(experiment, options: options)
    return plan.selected.map { plan.flows[$0] }
  }
}

/// A thread-safe running total for progress reports.
final class ProgressCounter: Sendable {
  private let value = Atomic<Int>(0)
  func add(_ n: Int) -> Int { value.add(n, ordering: .relaxed).newValue }
}
