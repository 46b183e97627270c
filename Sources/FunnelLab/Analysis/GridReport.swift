import FunnelStats

/// A grid run ranked by the exact value of the primary metric (``ExactEngine``, no
/// sampling noise), with the Monte Carlo estimate beside it: every cell against the
/// control, with raw, Holm- and Benjamini–Hochberg-adjusted p-values and the guardrails.
package struct GridReport: Sendable {
  /// One variant of the grid (or the control): its estimate, its exact value and its comparison with the control.
  package struct Cell: Sendable {
    /// The variant id: `factor=level,factor=level` for a cell, the control's own id for the control.
    package var variant: String
    /// `(factor, level)` of the cell, in factor order (empty for the control).
    package var levels: [(factor: String, level: String)]
    /// The simulated primary metric with its `1 − α` interval (Monte Carlo).
    package var primary: MetricEstimate
    /// The cell's exact solution (``ExactEngine``); `nil` when not solved.
    package var solution: ExactFunnel?
    /// The exact value of the primary metric; `nil` when not solved.
    package var exact: Double?
    /// The exact difference cell − control of the primary metric.
    package var exactDifference: Double?
    /// The primary metric against the control on the same users (paired when the metric allows it); `nil`
    /// for the control.
    package var comparison: MetricComparison?
    /// The Holm-adjusted p-value across all cells; `nil` for the control or when the cell has no test.
    package var holm: Double?
    /// The Benjamini–Hochberg-adjusted p-value (false discovery rate) across all cells; `nil` for the
    /// control or when the cell has no test.
    package var benjaminiHochberg: Double?
    /// Each guardrail in spec order with the simulated difference from the control and its status (always
    /// `ok` with no difference for the control).
    package var guardrails: [(guardrail: Guardrail, difference: Double?, status: GuardrailStatus)]
    /// 1 = the best cell on the exact primary metric (0 for the control, which is not
    /// ranked); cells without an exact value are ranked by their estimate, after those with one.
    package var rank: Int
    /// The cell's whole funnel, for reports that show more than the primary metric.
    package var summary: FunnelSummary
  }

  /// The experiment's name.
  package var experiment: String
  /// The run's seed.
  package var seed: UInt64
  /// Users walked through every cell (truth mode: the same users in each).
  package var usersPerVariant: Int
  /// The spec's metrics section: primary metric, guardrails, α.
  package var spec: MetricsSpec
  /// The grid's factors and their levels, in the spec's order.
  package var factors: [GridFactor]
  /// The control first, then the cells best first.
  package var cells: [Cell]

  /// The value a cell is ranked and drawn by: exact when solved, else its estimate.
  package static func rankingValue(_ c: Cell) -> Double? { c.exact ?? c.primary.estimate }

  /// - Parameter result: a truth-mode run whose first variant is the control and the
  ///   rest the grid's cells (as ``Experiment/gridExperiment()`` lays them out).
  package init(result: RunResult, grid: Grid, spec: MetricsSpec) {
    experiment = result.experiment
    seed = result.seed
    usersPerVariant = result.usersPerVariant
    self.spec = spec
    factors = grid.factors
    let summaries = FunnelSummary.all(result, alpha: spec.alpha)
    guard let control = result.control else {
      cells = []
      return
    }
    let levelsByVariant = Dictionary(grid.cells().map { ($0.variant.id, $0.levels) }, uniquingKeysWith: { first, _ in first })
    var built: [Cell] = []
    for (run, summary) in zip(result.variants, summaries) {
      let isControl = run.variant.id == control.variant.id
      let levels = isControl ? [] : levelsByVariant[run.variant.id] ?? []
      let guardrails = spec.guardrails.map { g -> (Guardrail, Double?, GuardrailStatus) in
        guard !isControl else { return (g, nil, .ok) }
        let c = MetricAnalysis.compare(g.metric, variant: run.aggregate, control: control.aggregate, paired: run.paired, alpha: spec.alpha)
        var arm = ArmMetricResult(arm: run.variant.id, estimate: MetricAnalysis.estimate(g.metric, in: run.aggregate, alpha: spec.alpha))
        arm.comparison = c
        return (g, c.difference?.estimate, ExperimentReport.status(of: arm, guardrail: g))
      }
      built.append(
        Cell(
          variant: run.variant.id, levels: levels,
          primary: MetricAnalysis.estimate(spec.primary, in: run.aggregate, alpha: spec.alpha),
          solution: run.exact, exact: run.exact?.value(of: spec.primary),
          exactDifference: isControl ? nil : result.exactDifference(spec.primary, variant: run.variant.id),
          comparison: isControl
            ? nil
            : MetricAnalysis.compare(
              spec.primary, variant: run.aggregate, control: control.aggregate, paired: run.paired, alpha: spec.alpha),
          holm: nil, benjaminiHochberg: nil, guardrails: guardrails, rank: 0, summary: summary))
    }
    let treated = Array(built.indices.dropFirst())
    let raw = treated.map { built[$0].comparison?.test?.pValue ?? 1 }
    if let holm = try? MultipleTestingCorrection.holm.adjust(raw),
      let bh = try? MultipleTestingCorrection.benjaminiHochberg.adjust(raw)
    {
      for (k, i) in treated.enumerated() where built[i].comparison?.test != nil {
        built[i].holm = holm[k]
        built[i].benjaminiHochberg = bh[k]
      }
    }
    let up = spec.primary.higherIsBetter
    // Exact values first (noise-free); a cell without one falls back to its estimate, after them.
    func key(_ c: Cell) -> (Int, Double) {
      if let x = c.exact { return (1, up ? x : -x) }
      if let x = c.primary.estimate { return (0, up ? x : -x) }
      return (0, -.infinity)
    }
    let order = built.indices.dropFirst().sorted { a, b in
      let (x, y) = (key(built[a]), key(built[b]))
      return x != y ? x > y : built[a].variant < built[b].variant
    }
    for (r, i) in order.enumerated() { built[i].rank = r + 1 }
    cells = [built[0]] + order.map { built[$0] }
  }
}

extension Experiment {
  /// The experiment whose variants are the control followed by every grid cell.
  public func gridExperiment() -> Experiment? {
    guard let grid, let control = variants.first else { return nil }
    var copy = self
    copy.variants = [control] + grid.variants().filter { $0.id != control.id }
    copy.grid = nil
    return copy
  }
}
