package import FunnelStats

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
package struct SegmentReport: Sendable {
  /// How the overall difference is estimated.
  package enum Method: String, Sendable, Hashable, CaseIterable {
    /// The difference of the arms' means.
    case unadjusted = "unadjusted"
    /// Stratum means weighted by the pooled stratum shares (Lin's regression on the strata's indicators).
    case postStratified = "post-stratified"
    /// One pooled slope on the pre-period covariate, gbstats' CUPED.
    case cuped = "CUPED"
    /// Lin's interacted regression on the strata's indicators and the covariate.
    case regression = "regression (Lin)"

    /// The method's name in a spec (a `varianceReduction` expectation's `method`).
    package var specName: String {
      switch self {
      case .unadjusted: "unadjusted"
      case .postStratified: "postStratified"
      case .cuped: "cuped"
      case .regression: "regression"
      }
    }
  }

  /// One arm in one stratum.
  package struct Cell: Sendable, Hashable {
    /// The arm's variant id.
    package var arm: String
    /// Index into ``SegmentReport/strata``.
    package var stratum: Int
    /// The arm's users in the stratum.
    package var users: Int
    /// Their mean value of the metric (`nil` without users).
    package var estimate: Double?
    /// The stratum's exact value in this arm (``ExactEngine`` over the stratum's segments).
    package var trueValue: Double?
    /// Against the control in the same stratum (HC1, normal); `nil` for the control or too few users.
    package var difference: IntervalEstimate?
    /// The difference's standard error.
    package var standardError: Double?
    /// The comparison's p-value.
    package var pValue: Double?
    /// After the spec's correction across the arm's strata.
    package var adjustedPValue: Double?
    /// The exact difference in the stratum.
    package var trueDifference: Double?
  }

  /// One arm's overall difference by one method.
  package struct Adjusted: Sendable, Hashable {
    /// The arm's variant id.
    package var arm: String
    /// How the difference was estimated.
    package var method: Method
    /// The difference and its `1 − α` interval.
    package var difference: IntervalEstimate
    /// Its standard error.
    package var standardError: Double
    /// Its two-sided p-value.
    package var pValue: Double
    /// The p-value after the spec's correction across the arms (each method separately), as the primary metric's table.
    package var adjustedPValue: Double
    /// `1 − SE²/SE²_unadjusted`: the variance the method removed.
    package var varianceReduction: Double
    /// The exact difference (the same for every method: they all estimate it).
    package var trueDifference: Double?
    /// The verdict of `adjustedPValue ≤ α` against ``trueDifference``.
    package var verdict: Verdict?
    /// Whether the interval contains ``trueDifference``.
    package var covers: Bool?
  }

  /// The name of the by-stratum comparison: a difference of means with its HC1 standard error and the normal.
  package static let strataTestName = "difference of means (HC1)"

  /// The metric broken down (the spec's primary metric).
  package var metric: FunnelMetric
  /// The metric's name in reports (the metric's label, or `conversion` for observed counts).
  package var label: String
  /// The strata: observable segments, then `other`.
  package var strata: [String]
  /// Each stratum's exact share of the population.
  package var strataShares: [Double]
  /// The pre-period covariate's name, `nil` without one.
  package var covariate: String?
  /// The spec's α and correction (applied across each arm's strata).
  package var alpha: Double
  /// The correction of the per-stratum p-values.
  package var correction: MultipleTestingCorrection
  /// Per arm (control first), per stratum.
  package var cells: [Cell]
  /// Per non-control arm, Cochran's Q across the strata with a defined difference (`nil` with fewer than two).
  package var heterogeneity: [(arm: String, result: HeterogeneityTest.Result?)]
  /// Per non-control arm, per method available.
  package var adjusted: [Adjusted]

  /// One arm's users by stratum, as the report reads them.
  package struct ArmStrata: Sendable {
    /// The arm's id.
    package var arm: String
    /// Per stratum, the power sums of the metric's per-user value (and covariate).
    package var sums: [StratumSums]
    /// All strata's raw sums for CUPED, `nil` without a covariate.
    package var cuped: CUPED.Arm?
    /// Per stratum, the exact value (empty when unknown: observed data).
    package var trueValues: [Double?]
    /// The exact overall difference from the control (`nil` for the control or observed data).
    package var trueDifference: Double?

    /// An arm's strata; `trueValues` empty and `trueDifference` `nil` for observed data.
    package init(arm: String, sums: [StratumSums], cuped: CUPED.Arm? = nil, trueValues: [Double?] = [], trueDifference: Double? = nil) {
      self.arm = arm
      self.sums = sums
      self.cuped = cuped
      self.trueValues = trueValues
      self.trueDifference = trueDifference
    }
  }

  /// The breakdown of `observed` (a run that recorded strata: ``VariantRun/strata``),
  /// or `nil` when it recorded none or the metric has no per-user value.
  package init?(observed: RunResult, spec: MetricsSpec) {
    guard let strata = observed.strata, let value = PerUserValue(spec.primary),
      let control = observed.variants.first, control.strata != nil
    else { return nil }
    let segmentP = control.flow.segmentProbabilities
    let shares = strata.strataIDs.indices.map { k in
      zip(segmentP, strata.stratumOfSegment).reduce(0) { $0 + ($1.1 == k ? $1.0 : 0) }
    }
    let exact = Self.exactByStratum(observed, strata: strata, metric: spec.primary)
    let arms = observed.variants.enumerated().compactMap { a, run -> ArmStrata? in
      guard let tally = run.strata else { return nil }
      return ArmStrata(
        arm: run.variant.id, sums: tally.stratumSums(scale: value.scale),
        cuped: strata.hasCovariate ? tally.cupedArm(scale: value.scale, proportion: value.scale == 1) : nil, trueValues: exact[a],
        trueDifference: a == 0 ? nil : observed.exactDifference(spec.primary, variant: run.variant.id))
    }
    let margin = control.exact?.value(of: spec.primary).map { spec.equivalenceMargin(for: spec.primary, control: $0) } ?? 0
    self.init(
      metric: spec.primary, strata: strata.strataIDs, strataShares: shares, covariate: strata.covariateName, arms: arms,
      alpha: spec.alpha, correction: spec.correction, margin: margin)
  }

  /// The breakdown of arms given by stratum (the control first): by-stratum
  /// comparisons, Cochran's Q, and the overall difference unadjusted, post-stratified
  /// (more than one stratum) and, with CUPED sums, CUPED-adjusted and regression-adjusted.
  /// `margin` is the practical-equivalence margin of the verdicts.
  package init(
    metric: FunnelMetric, strata: [String], strataShares: [Double], covariate: String?, arms: [ArmStrata], alpha: Double,
    correction: MultipleTestingCorrection, margin: Double = 0, label: String? = nil
  ) {
    self.metric = metric
    self.label = label ?? metric.label
    self.strata = strata
    self.strataShares = strataShares
    self.covariate = covariate
    self.alpha = alpha
    self.correction = correction
    var cells: [Cell] = []
    var heterogeneity: [(String, HeterogeneityTest.Result?)] = []
    var adjusted: [Adjusted] = []
    let control = arms.first
    for (a, arm) in arms.enumerated() {
      var armCells = arm.sums.indices.map { k in
        Cell(
          arm: arm.arm, stratum: k, users: Int(arm.sums[k].users),
          estimate: arm.sums[k].users > 0 ? arm.sums[k].sums[5] / arm.sums[k].users : nil,
          trueValue: arm.trueValues.indices.contains(k) ? arm.trueValues[k] : nil)
      }
      if a > 0, let control {
        Self.compareStrata(
          &armCells, sums: arm.sums, control: control.sums, exactControl: control.trueValues, alpha: alpha, correction: correction)
        let defined = armCells.compactMap { c -> (Double, Double)? in
          guard let d = c.difference?.estimate, let se = c.standardError, se > 0 else { return nil }
          return (d, se)
        }
        heterogeneity.append((arm.arm, try? HeterogeneityTest.test(effects: defined.map(\.0), standardErrors: defined.map(\.1))))
        adjusted += Self.adjust(arm, control: control, strata: strata.count, alpha: alpha)
      }
      cells += armCells
    }
    self.cells = cells
    self.heterogeneity = heterogeneity
    self.adjusted = Self.corrected(adjusted, correction: correction, alpha: alpha, margin: margin)
  }

  /// Each method's p-values corrected across the arms, as the primary metric's are, and
  /// the verdicts graded on the corrected p-value.
  static func corrected(_ rows: [Adjusted], correction: MultipleTestingCorrection, alpha: Double, margin: Double) -> [Adjusted] {
    var rows = rows
    for method in Method.allCases {
      let indices = rows.indices.filter { rows[$0].method == method }
      guard let adjusted = try? correction.adjust(indices.map { rows[$0].pValue }) else { continue }
      for (i, p) in zip(indices, adjusted) { rows[i].adjustedPValue = p }
    }
    for i in rows.indices {
      guard let truth = rows[i].trueDifference, let d = rows[i].difference.estimate else { continue }
      rows[i].verdict = Verdict.judge(significant: rows[i].adjustedPValue <= alpha, observed: d, truth: truth, margin: margin)
    }
    return rows
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
    _ cells: inout [Cell], sums: [StratumSums], control: [StratumSums], exactControl: [Double?], alpha: Double,
    correction: MultipleTestingCorrection
  ) {
    let level = 1 - alpha
    for k in cells.indices {
      guard control.indices.contains(k),
        let r = try? RegressionAdjustment.compare(
          treatment: [sums[k]], control: [control[k]], strata: false, covariate: false, confidenceLevel: level)
      else { continue }
      cells[k].difference = r.difference
      cells[k].standardError = r.standardError
      cells[k].pValue = r.test.pValue
      if let v = cells[k].trueValue, exactControl.indices.contains(k), let c = exactControl[k] { cells[k].trueDifference = v - c }
    }
    let tested = cells.indices.filter { cells[$0].pValue != nil }
    if let adjusted = try? correction.adjust(tested.compactMap { cells[$0].pValue }) {
      for (k, p) in zip(tested, adjusted) { cells[k].adjustedPValue = p }
    }
  }

  /// The arm's overall difference by every method its strata and covariate allow.
  static func adjust(_ arm: ArmStrata, control: ArmStrata, strata: Int, alpha: Double) -> [Adjusted] {
    let level = 1 - alpha
    let truth = arm.trueDifference
    var methods: [(Method, Bool, Bool)] = [(.unadjusted, false, false)]
    if strata > 1 { methods.append((.postStratified, true, false)) }
    if arm.cuped != nil, control.cuped != nil {
      methods.append((.cuped, false, true))
      methods.append((.regression, strata > 1, true))
    }
    var unadjustedVariance: Double?
    var results: [Adjusted] = []
    for (method, byStrata, byCovariate) in methods {
      let estimate: (IntervalEstimate, Double, Double, Double?)?
      if method == .cuped, let t = arm.cuped, let c = control.cuped {
        // CUPED's own reduction: gbstats' variance against gbstats' unadjusted one.
        estimate = (try? CUPED.compare(treatment: t, control: c, confidenceLevel: level))
          .map { ($0.difference, $0.standardError, $0.test.pValue, $0.varianceReduction) }
      } else {
        estimate =
          (try? RegressionAdjustment.compare(
            treatment: arm.sums, control: control.sums, strata: byStrata, covariate: byCovariate, confidenceLevel: level))
          .map { ($0.difference, $0.standardError, $0.test.pValue, nil) }
      }
      guard let (difference, se, p, own) = estimate, difference.estimate != nil else { continue }
      if method == .unadjusted { unadjustedVariance = se * se }
      let reduction = own ?? unadjustedVariance.map { $0 > 0 ? 1 - se * se / $0 : 0 } ?? 0
      results.append(
        Adjusted(
          arm: arm.arm, method: method, difference: difference, standardError: se, pValue: p, adjustedPValue: p,
          varianceReduction: reduction, trueDifference: truth, verdict: nil,
          covers: truth.flatMap { t in difference.interval.map { $0.contains(t) } }))
    }
    return results
  }
}
