import FunnelStats

extension MetricAnalysis {
  /// A variant against the control on `metric` from their paired tallies (truth mode,
  /// where the same users walk both): for a proportion of all users, Tango's score
  /// interval with McNemar's score test on the users' 2×2 table, and the relative lift's
  /// Fieller interval with McNemar's variance; for revenue and realized revenue per user,
  /// the paired t interval and test on the per-user differences, and the relative lift's
  /// paired Fieller interval from the arms' statistics in `variant` and `control` (no lift
  /// without them). Each lift interval excludes 0 exactly when the test beside it rejects.
  /// `nil` for a metric without a paired tally (its denominator is not every user: see
  /// ``PairedTallies/covers(_:)``), an empty run, or a mean where fewer than
  /// ``PairedTallies/minimumDiffering`` users differ.
  ///
  /// These are Monte Carlo estimates of the difference over the simulated users; the
  /// exact difference comes from ``ExactEngine``.
  package static func comparePaired(
    _ metric: FunnelMetric, tallies: PairedTallies, variant: FunnelAggregate? = nil, control: FunnelAggregate? = nil,
    alpha: Double = 0.05
  ) -> MetricComparison? {
    let level = 1 - alpha
    if let table = tallies.table(metric) {
      guard table.pairs > 0, let interval = try? PairedProportionDifference.tangoInterval(table, confidenceLevel: level),
        let test = try? PairedProportionDifference.mcnemarTest(table)
      else { return nil }
      let lift = try? RelativeLift.pairedInterval(table, confidenceLevel: level)
      return MetricComparison(metric: metric, difference: interval, relativeLift: lift, test: test, isPaired: true)
    }
    if let differences = tallies.differences(metric) {
      // Too few users differ for the paired t: the caller compares as independent samples.
      guard let sums = tallies.differenceSums(metric), sums.differing >= PairedTallies.minimumDiffering else { return nil }
      guard differences.n > 0, let paired = try? PairedTTest.test(differences: differences, confidenceLevel: level) else { return nil }
      var lift: IntervalEstimate?
      if let variant, let control, case .mean(let t) = metric.data(in: variant), case .mean(let c) = metric.data(in: control) {
        lift = try? RelativeLift.pairedMeanInterval(treatment: t, control: c, differences: differences, confidenceLevel: level)
      }
      return MetricComparison(metric: metric, difference: paired.difference, relativeLift: lift, test: paired.test, isPaired: true)
    }
    return nil
  }

  /// `variant` against `control` on `metric`: paired (``comparePaired(_:tallies:variant:control:alpha:)``)
  /// when `paired` tallies are given and cover the metric, otherwise as independent samples
  /// (``compare(_:variant:control:alpha:)``).
  package static func compare(
    _ metric: FunnelMetric, variant: FunnelAggregate, control: FunnelAggregate, paired: PairedTallies?, alpha: Double = 0.05
  ) -> MetricComparison {
    if let paired, let comparison = comparePaired(metric, tallies: paired, variant: variant, control: control, alpha: alpha) {
      return comparison
    }
    return compare(metric, variant: variant, control: control, alpha: alpha)
  }
}
