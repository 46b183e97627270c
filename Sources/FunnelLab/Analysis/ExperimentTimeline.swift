package import FunnelStats

/// A day-by-day experiment-mode run (``DailyRun``) read as the running test it simulates:
/// the primary metric's cumulative counts each day through ``SequentialAnalysis`` (the planned
/// end is the last day's users), with the exact lift beside it and each arm's decision graded
/// against it (``Verdict``), so a team sees before launch what reading a live test day by day
/// would conclude, and whether that would be right.
package struct ExperimentTimeline: Sendable {
  /// The primary metric, read day by day.
  package var metric: FunnelMetric
  /// The analysis of the daily looks.
  package var report: SequentialAnalysis.Report
  /// The exact relative lift of the primary metric per non-control arm (``ExactEngine``).
  package var trueRelativeLift: [String: Double]
  /// Each non-control arm's group-sequential conclusion graded against the exact difference:
  /// significant when it stopped or ended significant.
  package var verdicts: [String: Verdict]

  /// Reads `daily` under `spec` (its primary metric, α and correction: α is split over the
  /// arms by Bonferroni unless the correction is `none`).
  ///
  /// - Returns: `nil` when the primary metric is not a rate (a mean is not read over time yet)
  ///   or the run has no day.
  /// - Throws: ``StatsError`` from the analysis.
  package init?(_ daily: DailyRun, spec: MetricsSpec) throws(StatsError) {
    let metric = spec.primary
    let names = daily.run.variants.map(\.variant.id)
    var looks: [SequentialAnalysis.Look] = []
    for (day, aggregates) in daily.cumulative.enumerated() {
      guard case .proportions(let counts)? = MetricAnalysis.data(metric, aggregates) else { return nil }
      looks.append(
        SequentialAnalysis.Look(
          day: String(day + 1),
          arms: zip(names, counts).map { ArmData(name: $0, users: $1.trials, conversions: $1.successes) }))
    }
    guard let control = names.first, !looks.isEmpty else { return nil }
    let comparisons = max(names.count - 1, 1)
    let users = looks.last?.arms.reduce(0) { $0 + $1.users } ?? 0
    let settings = SequentialAnalysis.Settings(
      alpha: SequentialAnalysis.comparisonAlpha(spec.alpha, comparisons: comparisons, split: spec.correction != .none),
      plannedUsers: max(users, 1))
    self.metric = metric
    report = try SequentialAnalysis.analyze(looks: looks, control: control, settings: settings)
    var lifts: [String: Double] = [:]
    var verdicts: [String: Verdict] = [:]
    let controlRun = daily.run.variants.first
    for run in daily.run.variants.dropFirst() {
      let id = run.variant.id
      guard let truth = daily.run.exactDifference(metric, variant: id), let base = controlRun?.exact?.value(of: metric) else {
        continue
      }
      if base != 0 { lifts[id] = truth / base }
      let rows = report.rows.filter { $0.arm == id }
      let decided = rows.first { [.stopForEfficacy, .finalSignificant, .finalNotSignificant].contains($0.decision) }
      guard let decided else { continue }
      let significant = decided.decision != .finalNotSignificant
      verdicts[id] = Verdict.judge(
        significant: significant, observed: decided.relativeLift ?? 0, truth: truth,
        margin: spec.equivalenceMargin(for: metric, control: base))
    }
    trueRelativeLift = lifts
    self.verdicts = verdicts
  }
}
