import FunnelStats

/// A simulated experiment, read by variant and metric (see ``Simulation``).
public struct SimulationResult: Sendable {
  /// The spec that was run.
  public var experiment: Experiment
  /// The raw run: aggregates per variant.
  public var run: RunResult

  /// Pairs a run with the spec it ran; `run` is expected to come from `experiment` (not checked).
  public init(experiment: Experiment, run: RunResult) {
    self.experiment = experiment
    self.run = run
  }

  /// One variant's results.
  public struct Arm: Sendable {
    /// The variant's id.
    public var id: String
    /// The variant's counters.
    public var aggregate: FunnelAggregate
    /// The compiled flow the users walked.
    public var flow: CompiledFlow
    /// The exact solution solved with the run (``VariantRun/exact``).
    let solution: ExactFunnel?
    /// Truth mode: this variant's tallies against the control over the same users.
    public var paired: PairedTallies?
    let control: FunnelAggregate?
    let alpha: Double

    /// The estimate of `metric` with its `1 − α` interval (Wilson for rates,
    /// Student t for means; α is the spec's `metrics.alpha`).
    public func metric(_ metric: FunnelMetric) -> MetricEstimate {
      MetricAnalysis.estimate(metric, in: aggregate, alpha: alpha)
    }

    /// This variant against the control on `metric` (difference, interval, test);
    /// `nil` for the control itself. Paired on the same users in truth mode for the
    /// metrics over all users (see ``MetricAnalysis/comparePaired(_:tallies:alpha:)``).
    public func comparison(_ metric: FunnelMetric) -> MetricComparison? {
      control.map { MetricAnalysis.compare(metric, variant: aggregate, control: $0, paired: paired, alpha: alpha) }
    }

    /// The exact value of `metric` (``ExactEngine``): what ``metric(_:)`` converges
    /// to as users grow, with no sampling noise.
    /// - Complexity: O(1): the solution was computed once with the run (a run
    ///   without one solves the flow on each call).
    public func exact(_ metric: FunnelMetric) -> Double? {
      (solution ?? ExactEngine.solve(flow)).value(of: metric)
    }
  }

  /// The ids of the variants run, control first.
  public var variantIDs: [String] { run.variants.map(\.variant.id) }

  /// The variant with this id.
  /// - Throws: ``SpecErrors`` naming the closest id when there is no such variant.
  public func variant(_ id: String) throws(SpecErrors) -> Arm {
    guard let v = run.variant(id) else {
      throw SpecErrors(
        source: experiment.name,
        errors: [
          SpecError(
            .unknownReference, path: [.key("variants")], message: "no variant '\(id)'",
            hint: NameSuggestion.hint(for: id, in: variantIDs) ?? "variants: " + variantIDs.joined(separator: ", "))
        ])
    }
    let isControl = v.variant.id == run.control?.variant.id
    return Arm(
      id: id, aggregate: v.aggregate, flow: v.flow, solution: v.exact, paired: v.paired,
      control: isControl ? nil : run.control?.aggregate, alpha: experiment.metrics.alpha)
  }

  /// The control (the first variant).
  public func control() throws(SpecErrors) -> Arm {
    try variant(run.control?.variant.id ?? "control")
  }
}
