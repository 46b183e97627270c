public import FunnelLab
import FunnelStats

/// Renders a ``RunResult`` as aligned terminal tables: per variant, the funnel
/// screen by screen and the purchase layer's outcomes, then a comparison of every
/// variant with the control.
public enum RunTableRenderer {
  public static func render(_ result: RunResult, summaries: [FunnelSummary]) -> String {
    var out = "\(result.experiment) · seed \(result.seed) · \(NumberText.grouped(result.usersPerVariant)) users per variant"
    out += " · truth mode (the same users walk every variant)\n"
    for (run, summary) in zip(result.variants, summaries) {
      out += "\n" + renderVariant(run, summary)
    }
    if summaries.count > 1 { out += "\n" + renderComparison(summaries, hasPlans: result.variants.contains { !$0.flow.plans.isEmpty }) }
    return out
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
      ["screen", "kind", "reached", "reach", "quit here", "drop-off", "views", "s/view"],
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
    out += "  completion \(metric(.completionRate)) · skip \(metric(.skipRate)) · paywall view \(metric(.paywallViewRate))"
    out += " · purchase \(metric(.purchaseConversion)) (\(metric(.purchaseConversionOfViewers)) of viewers)\n"
    out += "  time to finish: mean \(NumberText.seconds(s.value(.timeToFinish))), median \(NumberText.seconds(s.medianSecondsToFinish)),"
    out += " p90 \(NumberText.seconds(s.p90SecondsToFinish))"
    if s.stepLimitReached > 0 { out += " · \(NumberText.grouped(s.stepLimitReached)) walks cut at the step limit" }
    out += "\n"
    guard !run.flow.plans.isEmpty else { return out }
    let a = run.aggregate
    let currency = run.flow.plans.first?.plan.currency ?? ""
    out += "  store: \(NumberText.grouped(a.purchaseTaps)) plan taps · \(NumberText.grouped(a.purchaseCancels)) sheets cancelled"
    out += " · \(NumberText.grouped(a.purchaseFailures)) failed · \(NumberText.grouped(a.purchasePendings)) pending"
    out += " (\(NumberText.grouped(a.pendingApprovals)) approved later)"
    if a.restoreAttempts > 0 { out += " · \(NumberText.grouped(a.restores)) of \(NumberText.grouped(a.restoreAttempts)) restores" }
    out += "\n"
    out += "  purchase \(withCI(s.estimate(.purchaseConversion))) · trial starts \(NumberText.percent(s.value(.trialStartRate)))"
    out += " · trial→paid \(NumberText.percent(s.value(.trialToPaid))) · refunds \(NumberText.grouped(a.refunds))\n"
    let horizon = JSONValue.format(run.flow.revenue.horizonMonths)
    out += "  revenue per user (\(horizon) months, net, \(currency)) \(withCI(s.estimate(.revenuePerUser)))"
    out += " · LTV per payer \(withCI(s.estimate(.revenuePerPayingUser)))"
    out += " · realized by day \(JSONValue.format(run.flow.revenue.analysisDay)) \(s.value(.realizedRevenuePerUser).map { NumberText.fixed($0, 2) } ?? "n/a")\n"
    out += "  plan mix: "
    out += zip(s.plans, s.planShares).map { p, share in
      "\(p.plan)\(p.isDefault ? "*" : "") \(NumberText.percent(p.share)) \(ci(share.interval, percent: true)) (\(NumberText.grouped(p.purchases)))"
    }.joined(separator: " · ")
    out += "   (* pre-selected)\n"
    return out
  }

  static func delta(_ c: MetricComparison?, percent: Bool) -> [String] {
    guard let c, let d = c.difference?.estimate else { return ["", "", ""] }
    let value = percent ? NumberText.points(d) : (d >= 0 ? "+" : "") + NumberText.fixed(d, 2)
    let interval = c.difference?.interval.map { i in
      percent ? "[\(NumberText.fixed(i.lower * 100, 1)), \(NumberText.fixed(i.upper * 100, 1))]" : "[\(NumberText.fixed(i.lower, 2)), \(NumberText.fixed(i.upper, 2))]"
    } ?? "n/a"
    let p = c.test.map { $0.pValue < 0.0001 ? "<0.0001" : NumberText.fixed($0.pValue, 4) } ?? "n/a"
    return [value, interval, p]
  }

  static func renderComparison(_ summaries: [FunnelSummary], hasPlans: Bool) -> String {
    guard let control = summaries.first else { return "" }
    var out = "Compared with \(control.variant) (the same users walk every variant: common random numbers)\n"
    let metrics: [FunnelMetric] = [.completionRate, .paywallViewRate, .skipRate]
    var headers = ["variant"]
    var alignments: [TextTable.Alignment] = [.left]
    for m in metrics {
      headers += [m.label, "Δ"]
      alignments += [.right, .right]
    }
    headers += ["time (s)", "Δ"]
    alignments += [.right, .right]
    var table = TextTable(headers, alignments: alignments)
    for s in summaries {
      var row = [s.variant]
      for m in metrics {
        row.append(NumberText.percent(s.value(m)))
        if s.variant == control.variant {
          row.append("")
        } else if let v = s.value(m), let c = control.value(m) {
          row.append(NumberText.points(v - c))
        } else {
          row.append("n/a")
        }
      }
      let t = s.value(.timeToFinish)
      row.append(t.map { NumberText.fixed($0, 1) } ?? "n/a")
      if s.variant == control.variant {
        row.append("")
      } else if let t, let c = control.value(.timeToFinish) {
        let d = t - c
        row.append((d >= 0 ? "+" : "") + NumberText.fixed(d, 1))
      } else {
        row.append("n/a")
      }
      table.add(row)
    }
    out += table.render()
    guard hasPlans else { return out }
    let level = NumberText.level(alpha: control.alpha)
    out += "\nConversion and revenue (\(level) intervals; paired over the same users: McNemar score test with Tango's"
    out += " interval for purchase, paired t for revenue per user)\n"
    var money = TextTable(
      ["variant", "purchase", "Δ", "\(level) CI (pp)", "p", "revenue/user", "Δ", "\(level) CI", "p", "LTV/payer"],
      alignments: [.left, .right, .right, .right, .right, .right, .right, .right, .right, .right])
    for s in summaries {
      let isControl = s.variant == control.variant
      var row: [String] = [s.variant, NumberText.percent(s.value(.purchaseConversion), decimals: 2)]
      row += isControl ? ["", "", ""] : delta(s.comparison(.purchaseConversion), percent: true)
      row.append(s.value(.revenuePerUser).map { NumberText.fixed($0, 3) } ?? "n/a")
      row += isControl ? ["", "", ""] : delta(s.comparison(.revenuePerUser), percent: false)
      row.append(s.value(.revenuePerPayingUser).map { NumberText.fixed($0, 2) } ?? "n/a")
      money.add(row)
    }
    out += money.render()
    return out
  }
}
