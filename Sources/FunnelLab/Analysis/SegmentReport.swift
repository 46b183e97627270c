public import FunnelStats

/// An experiment's primary metric broken down by what is observable at assignment,
/// and adjusted for it: per stratum (the observable segments, and `other`), each arm's
/// value and difference from the control with the exact per-stratum values beside
/// them; a heterogeneity test per arm; and the overall difference unadjusted,
/// post-stratified, CUPED-adjusted and regression-adjusted (Lin), each with the
/// variance it removed and graded against the exact difference.
///
/// Every estimate comes from the arms' ``StrataTally`` (exact integer sums of the
/// per-user value and pre-period covariate by stratum), so it is the same on any
/// thread count. Standard errors are HC1 (``RegressionAdjustment``), except CUPED's,
/// which are gbstats' (``CUPED``).
public struct SegmentReport: Sendable {
  /// How the overall difference is estimated.
  public enum Method: String, Sendable, Hashable, CaseIterable {
    /// The difference of the arms' means.
    case unadjusted = "unadjusted"
    /// Stratum means weighted by the pooled stratum shares (Lin's regression on the strata's indicators).
    case postStratified = "post-stratified"
    /// One pooled slope on the pre-period covariate, gbstats' CUPED.
    case cuped = "CUPED"
    /// Lin's interacted regression on the strata's indicators and the covariate.
    case regression = "regression (Lin)"

    /// The method's name in a spec (a `varianceReduction` expectation's `method`).
    public var specName: String {
      switch self {
      case .unadjusted: "unadjusted"
      case .postStratified: "postStratified"
      case .cuped: "cuped"
      case .regression: "regression"
      }
    }
  }

  /// One arm in one stratum.
  public struct Cell: Sendable, Hashable {
    /// The arm's variant id.
    public var arm: String
    /// Index into ``SegmentReport/strata``.
    public var stratum: Int
    /// The arm's users in the stratum.
    public var users: Int
    /// Their mean value of the metric (`nil` without users).
    public var estimate: Double?
    /// The stratum's exact value in this arm (``ExactEngine`` over the stratum's segments).
    public var trueValue: Double?
    /// Against the control in the same stratum (HC1, normal); `nil` for the control or too few users.
    public var difference: IntervalEstimate?
    /// The difference's standard error.
    public var standardError: Double?
    /// The comparison's p-value.
    public var pValue: Double?
    /// After the spec's correction across the arm's strata.
    public var adjustedPValue: Double?
    /// The exact difference in the stratum.
    public var trueDifference: Double?
  }

  /// One arm's overall difference by one method.
  public struct Adjusted: Sendable, Hashable {
    /// The arm's variant id.
    public var arm: String
    /// How the difference was estimated.
    public var method: Method
    /// The difference and its `1 − α` interval.
    public var difference: IntervalEstimate
    /// Its standard error.
    public var standardError: Double
    /// Its two-sided p-value.
    public var pValue: Double
    /// `1 − SE²/SE²_unadjusted`: the variance the method removed.
    public var varianceReduction: Double
    /// The exact difference (the same for every method: they all estimate it).
    public var trueDifference: Double?
    /// The verdict of `p ≤ α` against ``trueDifference``.
    public var verdict: Verdict?
    /// Whether the interval contains ``trueDifference``.
    public var covers: Bool?
  }

  /// The metric broken down (the spec's primary metric).
  public var metric: FunnelMetric
  /// The strata: observable segments, then `other`.
  public var strata: [String]
  /// Each stratum's exact share of the population.
  public var strataShares: [Double]
  /// The pre-period covariate's name, `nil` without one.
  public var covariate: String?
  /// The spec's α and correction (applied across each arm's strata).
  public var alpha: Double
  /// The correction of the per-stratum p-values.
  public var correction: MultipleTestingCorrection
  /// Per arm (control first), per stratum.
  public var cells: [Cell]
  /// Per non-control arm, Cochran's Q across the strata with a defined difference (`nil` with fewer than two).
  public var heterogeneity: [(arm: String, result: HeterogeneityTest.Result?)]
  /// Per non-control arm, per method available.
  public var adjusted: [Adjusted]

  /// The breakdown of `observed` (a run that recorded strata: ``VariantRun/strata``),
  /// or `nil` when it recorded none or the metric has no per-user value.
  public init?(observed: RunResult, spec: MetricsSpec) {
    guard let strata = observed.strata, let value = PerUserValue(spec.primary),
      let control = observed.variants.first, let controlTally = control.strata
    else { return nil }
    metric = spec.primary
    self.strata = strata.strataIDs
    covariate = strata.covariateName
    alpha = spec.alpha
    correction = spec.correction
    let segmentP = control.flow.segmentProbabilities
    strataShares = strata.strataIDs.indices.map { k in
      zip(segmentP, strata.stratumOfSegment).reduce(0) { $0 + ($1.1 == k ? $1.0 : 0) }
    }
    let exact = Self.exactByStratum(observed, strata: strata, metric: spec.primary)
    let controlSums = controlTally.stratumSums(scale: value.scale)
    var cells: [Cell] = []
    var heterogeneity: [(String, HeterogeneityTest.Result?)] = []
    var adjusted: [Adjusted] = []
    for (a, run) in observed.variants.enumerated() {
      guard let tally = run.strata else { continue }
      let sums = tally.stratumSums(scale: value.scale)
      var armCells = sums.indices.map { k in
        Cell(
          arm: run.variant.id, stratum: k, users: Int(sums[k].users), estimate: sums[k].users > 0 ? sums[k].sums[5] / sums[k].users : nil,
          trueValue: exact[a][k])
      }
      if a > 0 {
        Self.compareStrata(&armCells, sums: sums, control: controlSums, exactControl: exact[0], spec: spec)
        let defined = armCells.compactMap { c -> (Double, Double)? in
          guard let d = c.difference?.estimate, let se = c.standardError, se > 0 else { return nil }
          return (d, se)
        }
        heterogeneity.append(
          (run.variant.id, try? HeterogeneityTest.test(effects: defined.map(\.0), standardErrors: defined.map(\.1))))
        let truth = observed.exactDifference(spec.primary, variant: run.variant.id)
        adjusted += Self.adjust(
          arm: run.variant.id, treatment: (tally, sums), control: (controlTally, controlSums), strata: strata, value: value,
          alpha: spec.alpha, truth: truth,
          margin: control.exact?.value(of: spec.primary).map { spec.equivalenceMargin(for: spec.primary, control: $0) } ?? 0)
      }
      cells += armCells
    }
    self.cells = cells
    self.heterogeneity = heterogeneity
    self.adjusted = adjusted
  }

  /// Per arm, per stratum: the exact value of the metric over the stratum's segments.
  static func exactByStratum(_ observed: RunResult, strata: CompiledStrata, metric: FunnelMetric) -> [[Double?]] {
    observed.variants.map { run in
      guard run.exact != nil else { return strata.strataIDs.map { _ in nil } }
      let p = run.flow.segmentProbabilities
      return strata.strataIDs.indices.map { k in
        let weights = p.indices.map { strata.stratumOfSegment[$0] == k ? p[$0] : 0 }
        guard weights.reduce(0, +) > 0 else { return nil }
        return ExactEngine.solve(run.flow, segmentWeights: weights).value(of: metric)
      }
    }
  }

  /// Each stratum's difference from the control (HC1), corrected across the strata.
  static func compareStrata(
    _ cells: inout [Cell], sums: [StratumSums], control: [StratumSums], exactControl: [Double?], spec: MetricsSpec
  ) {
    let level = 1 - spec.alpha
    for k in cells.indices {
      guard
        let r = try? RegressionAdjustment.compare(
          treatment: [sums[k]], control: [control[k]], strata: false, covariate: false, confidenceLevel: level)
      else { continue }
      cells[k].difference = r.difference
      cells[k].standardError = r.standardError
      cells[k].pValue = r.test.pValue
      if let v = cells[k].trueValue, let c = exactControl[k] { cells[k].trueDifference = v - c }
    }
    let tested = cells.indices.filter { cells[$0].pValue != nil }
    if let adjusted = try? spec.correction.adjust(tested.compactMap { cells[$0].pValue }) {
      for (k, p) in zip(tested, adjusted) { cells[k].adjustedPValue = p }
    }
  }

  /// The arm's overall difference by every method its strata and covariate allow.
  static func adjust(
    arm: String, treatment: (StrataTally, [StratumSums]), control: (StrataTally, [StratumSums]), strata: CompiledStrata,
    value: PerUserValue, alpha: Double, truth: Double?, margin: Double
  ) -> [Adjusted] {
    let level = 1 - alpha
    var methods: [(Method, Bool, Bool)] = [(.unadjusted, false, false)]
    if strata.strataIDs.count > 1 { methods.append((.postStratified, true, false)) }
    if strata.hasCovariate {
      methods.append((.cuped, false, true))
      methods.append((.regression, strata.strataIDs.count > 1, true))
    }
    var unadjustedVariance: Double?
    var results: [Adjusted] = []
    for (method, byStrata, byCovariate) in methods {
      let estimate: (IntervalEstimate, Double, Double)?
      if method == .cuped {
        let proportion = value.scale == 1
        estimate =
          (try? CUPED.compare(
            treatment: treatment.0.cupedArm(scale: value.scale, proportion: proportion),
            control: control.0.cupedArm(scale: value.scale, proportion: proportion), confidenceLevel: level))
          .map { ($0.difference, $0.standardError, $0.test.pValue) }
      } else {
        estimate =
          (try? RegressionAdjustment.compare(
            treatment: treatment.1, control: control.1, strata: byStrata, covariate: byCovariate, confidenceLevel: level))
          .map { ($0.difference, $0.standardError, $0.test.pValue) }
      }
      guard let (difference, se, p) = estimate, let d = difference.estimate else { continue }
      if method == .unadjusted { unadjustedVariance = se * se }
      let reduction = unadjustedVariance.map { $0 > 0 ? 1 - se * se / $0 : 0 } ?? 0
      results.append(
        Adjusted(
          arm: arm, method: method, difference: difference, standardError: se, pValue: p, varianceReduction: reduction,
          trueDifference: truth,
          verdict: truth.map { Verdict.judge(significant: p <= alpha, observed: d, truth: $0, margin: margin) },
          covers: truth.flatMap { t in difference.interval.map { $0.contains(t) } }))
    }
    return results
  }
}
