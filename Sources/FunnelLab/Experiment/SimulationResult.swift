import FunnelStats
import Synchronization

/// A simulated experiment, read by variant and metric (see ``Simulation``).
public struct SimulationResult: Sendable {
  /// The spec that was run.
  public var experiment: Experiment
  /// The raw run: aggregates per variant.
  package var run: RunResult {
    didSet { solutions = Self.solutions(of: run) }
  }
  /// Each variant's exact solution, in the order of `run.variants`, solved once for
  /// every ``Arm`` read from this result.
  private var solutions: [ExactSolution]

  /// Pairs a run with the spec it ran; `run` is expected to come from `experiment` (not checked).
  package init(experiment: Experiment, run: RunResult) {
    self.experiment = experiment
    self.run = run
    solutions = Self.solutions(of: run)
  }

  private static func solutions(of run: RunResult) -> [ExactSolution] {
    run.variants.map { ExactSolution(flow: $0.flow, solved: $0.exact) }
  }

  /// One variant's results.
  public struct Arm: Sendable {
    /// The variant's id.
    public var id: String
    /// The variant's counters.
    package var aggregate: FunnelAggregate
    /// The compiled flow the users walked.
    package var flow: CompiledFlow
    /// The exact solution: the one solved with the run (``VariantRun/exact``), else
    /// solved on the first call of ``exact(_:)`` and kept by the result.
    let solution: ExactSolution
    /// Truth mode: this variant's tallies against the control over the same users.
    package var paired: PairedTallies?
    let control: FunnelAggregate?
    let alpha: Double

    /// The estimate of `metric` with its `1 − α` interval (Wilson for rates,
    /// Student t for means; α is the spec's `metrics.alpha`).
    public func metric(_ metric: FunnelMetric) -> MetricEstimate {
      MetricAnalysis.estimate(metric, in: aggregate, alpha: alpha)
    }

    /// This variant against the control on `metric` (difference, interval, test);
    /// `nil` for the control itself. Paired on the same users in truth mode for the
    /// metrics over all users (see ``MetricAnalysis/comparePaired(_:tallies:variant:control:alpha:)``).
    public func comparison(_ metric: FunnelMetric) -> MetricComparison? {
      control.map { MetricAnalysis.compare(metric, variant: aggregate, control: $0, paired: paired, alpha: alpha) }
    }

    /// The exact value of `metric` (``ExactEngine``): what ``metric(_:)`` converges
    /// to as users grow, with no sampling noise.
    /// - Complexity: O(1) after the first call on a run without a solution, which
    ///   solves the flow once for every arm read from the same result.
    public func exact(_ metric: FunnelMetric) -> Double? {
      solution.funnel.value(of: metric)
    }
  }

  /// The ids of the variants run, control first.
  public var variantIDs: [String] { run.variants.map(\.variant.id) }

  /// The variant with this id.
  /// - Throws: ``SpecErrors`` naming the closest id when there is no such variant.
  public func variant(_ id: String) throws(SpecErrors) -> Arm {
    guard let index = run.variants.firstIndex(where: { $0.variant.id == id }) else {
      throw SpecErrors(
        source: experiment.name,
        errors: [
          SpecError(
            .unknownReference, path: [.key("variants")], message: "no variant '\(id)'",
            hint: NameSuggestion.hint(for: id, in: variantIDs) ?? "variants: " + variantIDs.joined(separator: ", "))
        ])
    }
    let v = run.variants[index]
    let isControl = v.variant.id == run.control?.variant.id
    return Arm(
      id: id, aggregate: v.aggregate, flow: v.flow, solution: solutions[index], paired: v.paired,
      control: isControl ? nil : run.control?.aggregate, alpha: experiment.metrics.alpha)
  }

  /// The control (the first variant).
  public func control() throws(SpecErrors) -> Arm {
    try variant(run.control?.variant.id ?? "control")
  }
}

/// One flow's exact solution, solved at most once and shared by the copies of an
/// ``SimulationResult/Arm`` (which is a value type): the first reader solves it.
final class ExactSolution: Sendable {
  private let flow: CompiledFlow
  private let solved: Mutex<ExactFunnel?>

  /// The solution of `flow`, already `solved` when the run solved it.
  init(flow: CompiledFlow, solved: ExactFunnel?) {
    self.flow = flow
    self.solved = Mutex(solved)
  }

  /// Whether the funnel has been solved (by the run or by a reader).
  var isSolved: Bool { solved.withLock { $0 != nil } }

  /// The exact funnel of the flow, solved now if no one has yet.
  var funnel: ExactFunnel {
    solved.withLock { solution in
      if let solution { return solution }
      let funnel = ExactEngine.solve(flow)
      solution = funnel
      return funnel
    }
  }
}
