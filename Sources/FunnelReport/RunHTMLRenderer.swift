package import FunnelLab
import FunnelStats

/// Renders a ``RunResult`` as one self-contained HTML page: a summary table, a
/// funnel chart per variant, a forest plot per metric of each variant against the
/// control (``FunnelSummary/comparisons``), plan-mix bars and revenue per user with
/// intervals. No script, no external URL; the same result gives the same bytes.
package enum RunHTMLRenderer {
  /// The whole page (see the type's description); intervals at the level of the first summary's α.
  /// `summaries` are ``FunnelSummary/all(_:alpha:)`` of `result`: one per variant, the control first.
  package static func render(_ result: RunResult, summaries: [FunnelSummary], decision: DecisionSummary) -> String {
    var doc = HTMLDocument(title: "FunnelLab · \(result.experiment)")
    doc.heading(1, result.experiment)
    DecisionSummaryRenderer.html(decision, into: &doc)
    doc.paragraph(
      "Seed \(result.seed) · \(Vocabulary.plural(result.usersPerVariant, "user")) per variant · truth mode: the same synthetic users walk every variant.",
      cssClass: "note")
    summary(summaries, result: result, into: &doc)
    funnels(result.variants, summaries, heading: "Funnels", into: &doc)
    funnelComparisons(result.variants, summaries, into: &doc)
    forests(summaries, result: result, into: &doc)
    planMix(result, summaries, into: &doc)
    revenue(result, summaries, into: &doc)
    LifecycleRenderer.html(summaries.map { ($0.variant, $0.lifecycle) }, alpha: summaries.first?.alpha ?? 0.05, into: &doc)
    doc.methods([
      "\(RunTableRenderer.methodsNote(sells: result.variants.contains { !$0.flow.plans.isEmpty }, summaries: summaries)) Intervals at \(RunTableRenderer.level(summaries))."
    ])
    return doc.html
  }

  /// A heading, a note on how to read a funnel, then each variant's funnel (``SVGCharts/funnel(_:jumps:)``),
  /// its screens entered by a skip or jump marked. `runs` and `summaries` are in the same order.
  static func funnels(_ runs: [VariantRun], _ summaries: [FunnelSummary], heading: String, into doc: inout HTMLDocument) {
    let jumps = runs.map { FunnelJump.all(in: $0) }
    doc.heading(2, heading)
    doc.paragraph(
      "Bars: users who reached each screen, of all users. Then how they end: completed or abandoned (together, all users)"
        + (summaries.contains { $0.purchasers != nil }
          ? ", and the users who bought a plan, by plan (whether they completed or not; * the pre-selected plan)" : "")
        + "."
        + (jumps.contains { !$0.isEmpty }
          ? " ↪ marks a screen that a skip or jump from an earlier screen also enters: it can be reached by more users than the screen above it."
          : ""),
      cssClass: "note")
    doc.beginCharts()
    for (k, s) in summaries.enumerated() {
      if k == 1 { doc.foldRest(summaries.dropFirst().map(\.variant), "funnel") }
      let chart = SVGCharts.funnel(s, jumps: jumps.indices.contains(k) ? jumps[k] : [])
      let last = s.screens.last.map { "\($0.id) is reached by \(NumberText.percent($0.reachRate))" } ?? "no screens"
      let worst = s.screens.max { $0.droppedOff < $1.droppedOff }
      doc.chart(
        kind: "funnel", title: "Funnel of \(s.variant): users remaining at each screen, and how they end",
        description:
          "\(s.screens.count) screens; \(last) of \(Vocabulary.plural(s.users, "user")); completion \(NumberText.percent(s.value(.completionRate)))"
          + purchaseSentence(s) + "."
          + (worst.map { " Most users quit on \($0.id): \(NumberText.grouped($0.droppedOff))." } ?? "")
          + (jumps.indices.contains(k) ? jumps[k].map { " \(s.screens[$0.screen].id): \($0.note)." }.joined() : ""),
        width: SVGCharts.width, height: chart.height, content: chart.content)
    }
    doc.endFold()
    doc.endCharts()
  }

  /// For each variant after the control, the two funnels as paired bars per screen and
  /// outcome (``SVGCharts/funnelComparison(control:variant:jumps:)``); nothing when only the control ran.
  static func funnelComparisons(_ runs: [VariantRun], _ summaries: [FunnelSummary], into doc: inout HTMLDocument) {
    guard let control = summaries.first, summaries.count > 1 else { return }
    let entered = zip(runs, summaries).map { run, s in Set(FunnelJump.all(in: run).map { s.screens[$0.screen].id }) }
    doc.heading(2, "Funnels side by side: \(control.variant) and each variant")
    doc.paragraph(
      "For every screen (in the variant's order) and outcome, the share of all users: hatched bar \(control.variant), solid bar the variant; the numbers read \(control.variant) → variant, with the difference in percentage points. A screen the variant removed reads 'removed', one it added 'new'."
        + (summaries.contains { !$0.plans.isEmpty } ? " * marks the plan the variant pre-selects." : "")
        + (entered.contains { !$0.isEmpty } ? " ↪ marks a screen that a skip or jump also enters." : ""),
      cssClass: "note")
    doc.beginCharts()
    for (k, s) in summaries.enumerated().dropFirst() {
      if k == 2 { doc.foldRest(summaries.dropFirst(2).map { "\(control.variant) vs \($0.variant)" }, "comparison") }
      let chart = SVGCharts.funnelComparison(
        control: control, variant: s, jumps: entered[0].union(entered.indices.contains(k) ? entered[k] : []))
      doc.chart(
        kind: "funnel-comparison", title: "\(control.variant) vs \(s.variant): share of all users at each screen and outcome",
        description: SVGCharts.comparisonRows(control: control, variant: s).map { "\($0.label): \($0.text)" }.joined(separator: "; ") + ".",
        width: SVGCharts.width, height: chart.height, content: chart.content)
    }
    doc.endFold()
    doc.endCharts()
  }

  static func value(_ metric: FunnelMetric, _ v: Double?) -> String { RunMarkdownRenderer.value(metric, v) }

  /// `; 912 purchased a plan (4.6%)` for a flow that sells plans, else nothing.
  static func purchaseSentence(_ s: FunnelSummary) -> String {
    guard let purchasers = s.purchasers else { return "" }
    return "; \(NumberText.grouped(purchasers)) purchased a plan (\(NumberText.percent(s.value(.purchaseConversion))))"
  }

  /// ``FunnelMetric/applies(to:)`` for the flows of `flows`.
  static func applies(_ metric: FunnelMetric, to flows: [CompiledFlow]) -> Bool { metric.applies(to: flows) }

  /// ``applies(_:to:)`` for the flows of `result`.
  static func applies(_ metric: FunnelMetric, to result: RunResult) -> Bool {
    applies(metric, to: result.variants.map(\.flow))
  }

  static func summary(_ summaries: [FunnelSummary], result: RunResult, into doc: inout HTMLDocument) {
    let metrics = [FunnelMetric.completionRate, .skipRate, .paywallViewRate, .purchaseConversion, .timeToFinish, .revenuePerUser].filter {
      applies($0, to: result)
    }
    doc.table(
      ["variant", "users"] + metrics.map(\.label),
      summaries.map { s in [s.variant, NumberText.grouped(s.users)] + metrics.map { value($0, s.value($0)) } },
      right: Set(1...metrics.count + 1), caption: "Key metrics")
  }

  static func forests(_ summaries: [FunnelSummary], result: RunResult, into doc: inout HTMLDocument) {
    // Only a control: the decision summary already says there is nothing to compare.
    guard let control = summaries.first, summaries.count > 1 else { return }
    doc.heading(2, "Differences from the control")
    doc.paragraph(
      "Each variant minus \(control.variant) over the same users, with its \(RunTableRenderer.level(summaries)) interval (paired where the chart's title says so) and the exact engine's difference. A filled circle: the interval excludes zero; an open square: it includes zero. "
        + SVGCharts.sharedAxisNote(members: "variants"),
      cssClass: "note")
    let metrics = FunnelMetric.allCases.filter { applies($0, to: result) }
    // A metric that is 0 in every variant (no goal question: nobody answers one) has nothing to compare.
    let (drawn, allZero) = (
      metrics.filter { m in !summaries.allSatisfy { ($0.value(m) ?? 0) == 0 } },
      metrics.filter { m in summaries.allSatisfy { ($0.value(m) ?? 0) == 0 } }.map(\.label)
    )
    doc.beginCharts()
    for (k, metric) in drawn.enumerated() {
      if k == 1 { doc.foldRest(drawn.dropFirst().map(\.label), "metric") }
      forest(metric, summaries, levels: summaries.map { $0.value(metric) }, currency: currency(result), into: &doc)
    }
    doc.endFold()
    doc.endCharts()
    if !allZero.isEmpty {
      doc.paragraph("Not drawn: \(allZero.joined(separator: ", ")) (0 in every variant).", cssClass: "note")
    }
  }

  /// The forest of `metric`: each variant's difference from the control (the first summary) on an
  /// axis shared by all of them that spans at least ±``SVGCharts/minimumRelativeSpan`` × the largest of `levels` (the variants' values).
  static func forest(
    _ metric: FunnelMetric, _ summaries: [FunnelSummary], levels: [Double?], currency: String?, into doc: inout HTMLDocument
  ) {
    let control = summaries.first?.variant ?? "control"
    let factor = metric.isProportion ? 100.0 : 1.0
    let rows: [SVGCharts.ForestRow] = summaries.dropFirst().compactMap { s in
      guard let c = s.comparison(metric), let d = c.difference?.estimate, let i = c.difference?.interval else { return nil }
      let cells = RunTableRenderer.delta(c, metric)
      let (text, ci, p) = (cells[0], cells[1], cells[2])
      let lift = "lift \(NumberText.lift(c.relativeLift)) (exact \(NumberText.lift(s.exactRelativeLift(metric)))) · Δ"
      return SVGCharts.ForestRow(
        label: s.variant, estimate: d * factor, lower: i.lower * factor, upper: i.upper * factor,
        text: "\(lift) \(text) \(ci) · p \(p) · exact \(RunTableRenderer.value(s.exactDifference(metric), metric, signed: true))")
    }
    guard !rows.isEmpty else { return }
    let unit = units(metric, currency: currency)
    let scale = SVGCharts.differenceScale(
      rows, levels: levels.map { $0.map { $0 * factor } }, unit: unit.tick, percentagePoints: metric.isProportion)
    let chart = SVGCharts.forest(rows, scale: scale, axisTitle: "difference from \(control) (\(unit.words)); 0 = no difference")
    doc.chart(
      kind: "forest",
      title:
        "\(metric.label): difference from \(control) (\(unit.words); \(pairing(metric, summaries)))",
      description: rows.map { "\($0.label): \($0.text)" }.joined(separator: "; ") + ".",
      width: SVGCharts.width, height: chart.height, content: chart.content)
  }

  /// How `metric`'s differences were compared, for a chart's title: `paired: …`, with the variants
  /// whose revenue fell back to Welch's unpaired test named, or `unpaired`.
  static func pairing(_ metric: FunnelMetric, _ summaries: [FunnelSummary]) -> String {
    guard let paired = RunTableRenderer.pairedMethods(metric) else { return "unpaired" }
    let unpaired = RunTableRenderer.unpairedRevenueVariants(summaries, metrics: [metric])
    return "paired: " + paired + (unpaired.isEmpty ? "" : "; Welch's t, unpaired, for " + unpaired.joined(separator: ", "))
  }

  /// The unit of a difference in `metric` in words (`percentage points`, the currency, `seconds`)
  /// and on an axis tick (`pp`, the currency, `s`).
  static func units(_ metric: FunnelMetric, currency: String?) -> (words: String, tick: String) {
    if metric.isProportion { return ("percentage points", "pp") }
    if metric.isRevenue { return (currency ?? "currency units", currency ?? "") }
    return ("seconds", "s")
  }

  /// The currency of the first plan any variant sells; `nil` when none sells a plan.
  static func currency(_ result: RunResult) -> String? {
    result.variants.lazy.compactMap { $0.flow.plans.first?.plan.currency }.first
  }

  static func planMix(_ result: RunResult, _ summaries: [FunnelSummary], into doc: inout HTMLDocument) {
    guard summaries.contains(where: { !$0.plans.isEmpty }) else { return }
    doc.heading(2, "Plan mix")
    doc.paragraph(
      "Share of purchasers whose first purchase was each plan (bars span 0–100%), with \(NumberText.level(alpha: summaries.first?.alpha ?? 0.05)) Wilson intervals; * marks the pre-selected plan.",
      cssClass: "note")
    doc.beginCharts()
    for s in summaries where !s.plans.isEmpty {
      let rows = zip(s.plans, s.planShares).map { p, share in
        SVGCharts.ForestRow(
          label: p.plan + (p.isDefault ? "*" : ""), estimate: p.share * 100, lower: (share.interval?.lower ?? p.share) * 100,
          upper: (share.interval?.upper ?? p.share) * 100,
          text: "\(NumberText.percent(p.share)) \(RunTableRenderer.ci(share.interval, percent: true)) (\(NumberText.grouped(p.purchases)))")
      }
      let chart = SVGCharts.bars(
        rows, patterned: true, scale: ChartScale.levels([], atLeast: 100, unit: "%"), axisTitle: "share of purchasers")
      doc.chart(
        kind: "plans", title: "Plan mix of \(s.variant)",
        description: rows.map { "\($0.label): \($0.text)" }.joined(separator: "; ") + ".",
        width: SVGCharts.width, height: chart.height, content: chart.content)
    }
    doc.endCharts()
  }

  static func revenue(_ result: RunResult, _ summaries: [FunnelSummary], into doc: inout HTMLDocument) {
    guard result.variants.contains(where: { !$0.flow.plans.isEmpty }) else { return }
    let currency = result.variants.first?.flow.plans.first?.plan.currency ?? ""
    let months = result.variants.first.map { JSONValue.format($0.flow.revenue.horizonMonths) } ?? ""
    doc.heading(2, "Revenue per user")
    let rows: [SVGCharts.ForestRow] = summaries.compactMap { s in
      guard let e = s.estimate(.revenuePerUser), let v = e.estimate else { return nil }
      let ci = e.interval.map { "[\(NumberText.fixed($0.lower, 2)), \(NumberText.fixed($0.upper, 2))]" } ?? ""
      return SVGCharts.ForestRow(
        label: s.variant, estimate: v, lower: e.interval?.lower ?? v, upper: e.interval?.upper ?? v,
        text: "\(NumberText.fixed(v, 2)) \(currency) \(ci)")
    }
    guard !rows.isEmpty else { return }
    let chart = SVGCharts.bars(
      rows, patterned: false, scale: ChartScale.levels(rows.flatMap { [$0.estimate, $0.upper] }, unit: currency),
      axisTitle: "net revenue per user (\(currency))")
    doc.beginCharts()
    doc.chart(
      kind: "revenue",
      title:
        "Net revenue per user over \(months) months (\(currency)), \(NumberText.level(alpha: summaries.first?.alpha ?? 0.05)) Student t intervals",
      description: rows.map { "\($0.label): \($0.text)" }.joined(separator: "; ") + ".",
      width: SVGCharts.width, height: chart.height, content: chart.content)
    doc.endCharts()
  }
}
