package import FunnelLab
import FunnelStats

/// Renders a ``RunResult`` as aligned terminal tables: per variant, the funnel
/// screen by screen and the purchase layer's outcomes, then a comparison of every
/// variant with the control (paired on the same users; see ``FunnelSummary/comparisons``).
package enum RunTableRenderer {
  /// The terminal report: per variant its funnel, purchase outcomes and estimates, then the comparison of
  /// every variant with the control. `summaries` are ``FunnelSummary/all(_:alpha:)`` of `result`: one per variant, the control first.
  package static func render(_ result: RunResult, summaries: [FunnelSummary], decision: DecisionSummary) -> String {
    var out = "\(result.experiment) · seed \(result.seed) · \(Vocabulary.plural(result.usersPerVariant, "user")) per variant"
    out += " · truth mode (the same users walk every variant)\n"
    out += "\n" + DecisionSummaryRenderer.text(decision)
    for (run, summary) in zip(result.variants, summaries) {
      out += "\n" + renderVariant(run, summary)
    }
    if summaries.count > 1 { out += "\n" + renderComparison(summaries, hasPlans: result.variants.contains { !$0.flow.plans.isEmpty }) }
    let lifecycle = lifecycleTables(result, summaries)
    if !lifecycle.isEmpty { out += "\n" + LifecycleRenderer.text(lifecycle) }
    return out
  }

  /// The realized-revenue and renewal tables of a run, one column per variant.
  static func lifecycleTables(_ result: RunResult, _ summaries: [FunnelSummary]) -> [LifecycleRenderer.Table] {
    LifecycleRenderer.tables(summaries.map { ($0.variant, $0.lifecycle) }, alpha: summaries.first?.alpha ?? 0.05)
  }

  static func ci(_ interval: ConfidenceInterval?, percent: Bool) -> String {
    guard let interval else { return "[n/a]" }
    if percent { return "[\(NumberText.fixed(interval.lower * 100, 1)), \(NumberText.fixed(interval.upper * 100, 1))]" }
    return "[\(NumberText.fixed(interval.lower, 2)), \(NumberText.fixed(interval.upper, 2))]"
  }

  static func withCI(_ e: MetricEstimate?) -> String {
    guard let e, let value = e.estimate else { return "n/a" }
    if e.metric.isProportion { return NumberText.percent(value) + " " + ci(e.interval, percent: true) }
    return NumberText.fixed(value, 2) + " " + ci(e.interval, percent: false)
  }

  static func renderVariant(_ run: VariantRun, _ s: FunnelSummary) -> String {
    var out = "Variant \(s.variant)"
    if let summary = run.variant.summary { out += " — \(summary)" }
    out += "\n"
    var table = TextTable(
      ["screen", "kind", "reached", "reach", "quit", "drop-off", "views", "s/view"],
      alignments: [.left, .left, .right, .right, .right, .right, .right, .right])
    for row in s.screens {
      table.add([
        row.id, row.kind.rawValue, NumberText.grouped(row.reached), NumberText.percent(row.reachRate),
        NumberText.grouped(row.droppedOff), NumberText.percent(row.dropOffRate), NumberText.grouped(row.views),
        row.meanSeconds.map { NumberText.fixed($0, 1) } ?? "n/a",
      ])
    }
    out += table.render()
    func metric(_ m: FunnelMetric) -> String { NumberText.percent(s.value(m)) }
    out += "  completion \(metric(.completionRate)) · skip \(metric(.skipRate))"
    if FunnelMetric.paywallViewRate.applies(to: [run.flow]) { out += " · paywall view \(metric(.paywallViewRate))" }
    if FunnelMetric.purchaseConversion.applies(to: [run.flow]) {
      out += " · purchase \(metric(.purchaseConversion)) (\(metric(.purchaseConversionOfViewers)) of viewers)"
    }
    out += "\n"
    out += "  time to finish: mean \(NumberText.seconds(s.value(.timeToFinish)))"
    if let exact = s.exactValue(.timeToFinish) { out += " (exact \(NumberText.seconds(exact)))" }
    out += ", median \(NumberText.seconds(s.medianSecondsToFinish)), p90 \(NumberText.seconds(s.p90SecondsToFinish))"
    out += " (percentiles: Monte Carlo estimates, the exact engine solves means)"
    if s.stepLimitReached > 0 { out += " · \(NumberText.grouped(s.stepLimitReached)) walks cut at the step limit" }
    out += "\n"
    guard !run.flow.plans.isEmpty else { return out }
    let a = run.aggregate
    let currency = run.flow.plans.first?.plan.currency ?? ""
    out += "  store: \(NumberText.grouped(a[.purchaseTaps])) plan taps · \(NumberText.grouped(a[.purchaseCancels])) sheets cancelled"
    out += " · \(NumberText.grouped(a[.purchaseFailures])) failed · \(NumberText.grouped(a[.purchasePendings])) pending"
    out += " (\(NumberText.grouped(a[.pendingApprovals])) approved later)"
    if a[.restoreAttempts] > 0 { out += " · \(NumberText.grouped(a[.restores])) of \(NumberText.grouped(a[.restoreAttempts])) restores" }
    out += "\n"
    out += "  purchase \(withCI(s.estimate(.purchaseConversion)))"
    if RunHTMLRenderer.applies(.trialStartRate, to: [run.flow]) {
      out += " · trial starts \(NumberText.percent(s.value(.trialStartRate))) · trial→paid \(withCI(s.estimate(.trialToPaid)))"
    }
    out += " · refunds \(withCI(s.estimate(.refundRate)))"
    out += " (\(NumberText.grouped(a[.refunds])))\n"
    let horizon = JSONValue.format(run.flow.revenue.horizonMonths)
    out += "  revenue per user (\(horizon) months, net, \(currency)) \(withCI(s.estimate(.revenuePerUser)))"
    out += " · LTV per payer \(withCI(s.estimate(.revenuePerPayingUser)))"
    out +=
      " · realized by day \(JSONValue.format(run.flow.revenue.analysisDay)) \(s.value(.realizedRevenuePerUser).map { NumberText.fixed($0, 2) } ?? "n/a")\n"
    out += "  plan mix: "
    out += zip(s.plans, s.planShares).map { p, share in
      "\(p.plan)\(p.isDefault ? "*" : "") \(NumberText.percent(p.share)) \(ci(share.interval, percent: true)) (\(NumberText.grouped(p.purchases)))"
    }.joined(separator: " · ")
    out += "   (* pre-selected)\n"
    return out
  }

  /// The paired interval and test of `metric`'s comparisons in truth mode, in words; `nil`
  /// for a metric compared unpaired (its denominator differs between variants).
  package static func pairedMethods(_ metric: FunnelMetric) -> String? {
    guard PairedTallies.covers(metric) else { return nil }
    return metric.isProportion ? "Tango score interval, McNemar score test" : "paired t on per-user differences"
  }

  /// The variants whose comparison on `metrics` (by default the paired mean metrics: revenue and
  /// realized revenue per user) fell back to Welch's unpaired test because too few users' revenue
  /// differs (``PairedTallies/minimumDiffering``). (In a truth-mode run, a mean with a test that is
  /// not paired is exactly that fallback.)
  static func unpairedRevenueVariants(_ summaries: [FunnelSummary], metrics: [FunnelMetric] = PairedTallies.meanMetrics) -> [String] {
    summaries.filter { s in metrics.contains { s.comparison($0).map { $0.test != nil && !$0.isPaired } ?? false } }.map(\.variant)
  }

  /// The fallback of ``unpairedRevenueVariants(_:metrics:)`` as a sentence; `nil` when every comparison is paired.
  static func unpairedRevenueNote(_ summaries: [FunnelSummary]) -> String? {
    let unpaired = unpairedRevenueVariants(summaries)
    guard !unpaired.isEmpty else { return nil }
    return "revenue of \(unpaired.joined(separator: ", ")): Welch's t, unpaired (fewer than"
      + " \(PairedTallies.minimumDiffering) users' revenue differs from the control's, too few for the paired t)"
  }

  /// How the comparisons of a truth-mode run are computed, as one sentence: revenue and the
  /// store's ratios only when the flows sell plans (`sells`); the variants whose revenue fell back
  /// to the unpaired test (``unpairedRevenueVariants(_:metrics:)``) are named.
  static func methodsNote(sells: Bool, summaries: [FunnelSummary]) -> String {
    let unpaired = unpairedRevenueVariants(summaries)
    let fallback =
      unpaired.isEmpty
      ? "" : "; here for \(unpaired.joined(separator: ", "))"
    return "Differences are Monte Carlo estimates over the same users (common random numbers), analysed paired:"
      + " rates of all users with Tango's score interval and McNemar's score test on each user's pair of outcomes"
      + (sells
        ? ", revenue and realized revenue per user with the paired t interval and test on per-user differences"
          + " (Welch's, unpaired, when fewer than \(PairedTallies.minimumDiffering) users' revenue differs: too few for the paired t\(fallback))."
          + " Metrics whose denominator differs between variants (conversion of viewers, trial to paid, time to finish,"
          + " refund rate, revenue per payer or viewer) are compared unpaired (Miettinen–Nurminen score interval and test; Welch)."
        : ". Time to finish, whose denominator (the completers) differs between variants, is compared unpaired (Welch).")
      + " Each lift (variant/control − 1) has an interval that excludes 0 exactly when the test beside it rejects:"
      + " Fieller's with that test's variance, or the score interval of the ratio."
  }

  /// The confidence level of the summaries' comparison intervals, e.g. `95%`.
  static func level(_ summaries: [FunnelSummary]) -> String {
    NumberText.level(alpha: summaries.first?.alpha ?? 0.05)
  }

  /// Δ, its interval and p, formatted for `metric` (empty cells for the control).
  static func delta(_ c: MetricComparison?, _ metric: FunnelMetric) -> [String] {
    guard let c, let d = c.difference?.estimate else { return ["", "", ""] }
    let interval =
      c.difference?.interval.map { i in
        switch metric {
        case _ where metric.isProportion: "[\(NumberText.bound(i.lower * 100, 2)), \(NumberText.bound(i.upper * 100, 2))] pp"
        case .revenuePerUser, .realizedRevenuePerUser: "[\(NumberText.bound(i.lower, 3)), \(NumberText.bound(i.upper, 3))]"
        default: "[\(NumberText.bound(i.lower, 2)), \(NumberText.bound(i.upper, 2))]"
        }
      } ?? "n/a"
    let p = c.test.map { $0.pValue < 0.0001 ? "<0.0001" : NumberText.fixed($0.pValue, 4) } ?? "n/a"
    return [value(d, metric, signed: true), interval, p]
  }

  /// The comparison columns every truth-mode table shows, relative lift first: lift with
  /// its interval, Δ, its interval, p, true lift, true Δ.
  static func comparisonCells(_ s: FunnelSummary, _ metric: FunnelMetric) -> [String] {
    let c = s.comparison(metric)
    return [c == nil ? "" : NumberText.lift(c?.relativeLift)] + delta(c, metric) + [
      NumberText.lift(s.exactRelativeLift(metric)), value(s.exactDifference(metric), metric, signed: true),
    ]
  }

  /// The headers of ``comparisonCells(_:_:)`` at confidence `level` (e.g. `95%`).
  static func comparisonHeaders(_ level: String) -> [String] {
    ["lift [\(level) CI]", "Δ", "\(level) CI", "p", "true lift", "true Δ"]
  }

  /// A metric's value (or a signed difference) as the comparison table shows it.
  static func value(_ x: Double?, _ metric: FunnelMetric, signed: Bool = false) -> String {
    guard let x else { return "n/a" }
    if metric.isProportion { return signed ? NumberText.points(x, decimals: 2) : NumberText.percent(x, decimals: 2) }
    let decimals = metric.isRevenue ? (signed ? 3 : 2) : (signed ? 2 : 1)
    return signed ? NumberText.signed(x, decimals) : NumberText.fixed(x, decimals)
  }

  /// Every variant against the control, one row per metric and variant: the Monte Carlo
  /// difference over the same users with its paired interval and p-value.
  static func renderComparison(_ summaries: [FunnelSummary], hasPlans: Bool) -> String {
    guard let control = summaries.first else { return "" }
    let level = level(summaries)
    var out = "Compared with \(control.variant): Monte Carlo differences over the same users (common random numbers),"
    out += " with paired \(level) intervals and tests; lift: variant/control − 1 (its interval agrees with the test);"
    out += " true lift and true Δ: the exact engine's (no sampling noise)\n"
    var metrics: [FunnelMetric] = [.completionRate, .paywallViewRate, .skipRate].filter { s in summaries.contains { $0.value(s) != nil } }
    if hasPlans { metrics += [.purchaseConversion, .revenuePerUser] }
    metrics.append(.timeToFinish)
    var table = TextTable(
      ["metric", "variant", control.variant, "variant"] + comparisonHeaders(level),
      alignments: [.left, .left] + Array(repeating: .right, count: 8), secondary: [5, 6, 9])
    for metric in metrics {
      for s in summaries.dropFirst() {
        table.add(
          [metric.label, s.variant, value(control.value(metric), metric), value(s.value(metric), metric)]
            + comparisonCells(s, metric))
      }
    }
    out += table.render()
    out += "  Rates: \(pairedMethods(.completionRate) ?? "") on each user's pair of outcomes"
    if hasPlans { out += "; revenue: \(pairedMethods(.revenuePerUser) ?? "")" }
    if hasPlans, let note = unpairedRevenueNote(summaries) { out += ";\n  \(note)" }
    out += ".\n  Time to finish (completers only): Welch's t, unpaired (the completers differ between variants).\n"
    return out
  }
}
