package import FunnelLab

/// CSV, Markdown and HTML of exact funnels: the metrics of every variant side by side,
/// then each variant's screens and plans. Rates and revenue that the flow cannot have
/// (no paywall, no plans) are left out rather than shown as zeros.
extension ExactRenderer {
  // MARK: - Shared rows

  /// The metrics shown, in order: the funnel rates, the time to finish, then paywall views,
  /// purchases, trials and revenue where the flows can have them
  /// (``RunHTMLRenderer/applies(_:to:)``); a metric no variant has a value of is left out.
  static func shownMetrics(_ variants: [Variant]) -> [FunnelMetric] {
    let order: [FunnelMetric] = [
      .completionRate, .abandonmentRate, .skipRate, .personalizationRate, .timeToFinish, .paywallViewRate, .purchaseConversion,
      .purchaseConversionOfViewers, .trialStartRate, .trialToPaid, .refundRate, .revenuePerUser, .revenuePerPayingUser,
      .revenuePerPaywallViewer,
      .realizedRevenuePerUser,
    ]
    let flows = variants.map(\.flow)
    return order.filter { metric in
      RunHTMLRenderer.applies(metric, to: flows) && variants.contains { $0.exact.value(of: metric) != nil }
    }
  }

  /// A metric's exact value as text: percentages for rates, seconds for time, money for revenue.
  static func text(_ metric: FunnelMetric, _ value: Double?) -> String {
    switch metric.definition {
    case .proportion: NumberText.percent(value, decimals: 2)
    case .mean(.timeToFinish): NumberText.seconds(value)
    case .mean: money(value)
    }
  }

  /// One row per shown metric, one column per variant.
  static func metricRows(_ variants: [Variant]) -> (headers: [String], rows: [[String]]) {
    let currency = variants.lazy.compactMap { $0.flow.plans.first?.plan.currency }.first
    let rows = shownMetrics(variants).map { metric in
      var label = metric.label
      if case .mean(.revenue) = metric.definition, let currency { label += " (\(currency))" }
      if case .mean(.realizedRevenue) = metric.definition, let currency { label += " (\(currency))" }
      return [label] + variants.map { text(metric, $0.exact.value(of: metric)) }
    }
    return (["metric"] + variants.map(\.variant.id), rows + curveRows(variants, currency: currency))
  }

  /// The realized-revenue curve as rows of the metric table, one per day of the first
  /// variant's curve (`realized by day 30 (USD)`); none for flows that sell no plan.
  static func curveRows(_ variants: [Variant], currency: String?) -> [[String]] {
    guard RunHTMLRenderer.applies(.revenuePerUser, to: variants.map(\.flow)), let days = variants.first?.exact.realizedRevenueCurve
    else { return [] }
    return days.indices.map { k in
      ["realized by day \(NumberText.fixed(days[k].day, 0))\(currency.map { " (\($0))" } ?? "")"]
        + variants.map { v in
          let curve = v.exact.realizedRevenueCurve
          return money(curve.indices.contains(k) ? curve[k].perUser : nil)
        }
    }
  }

  /// The screen table of one variant, as in the terminal report.
  static func screenRows(_ v: Variant) -> (headers: [String], rows: [[String]]) {
    let x = v.exact
    let f = v.flow
    let rows = (0..<f.screenCount).map { s in
      let views = x.views[s]
      return [
        f.screenIDs[s], f.screenKinds[s].rawValue, NumberText.percent(x.reach[s], decimals: 2),
        NumberText.percent(x.abandonedAt[s], decimals: 2),
        NumberText.percent(x.reach[s] > 0 ? x.abandonedAt[s] / x.reach[s] : nil, decimals: 1),
        NumberText.fixed(views, 3), views > 0 ? NumberText.fixed(x.screenMillis[s] / views / 1000, 1) : "n/a",
      ]
    }
    return (["screen", "kind", "reach", "quit here", "drop-off", "views/user", "s/view"], rows)
  }

  /// The plan mix of one variant: share of purchases, of users, renewal per period (`–` for
  /// a lifetime plan), revenue per purchase.
  static func planRows(_ v: Variant) -> (headers: [String], rows: [[String]]) {
    let x = v.exact
    let rows = v.flow.plans.indices.map { j in
      let p = v.flow.plans[j]
      return [
        p.plan.id + (p.isDefault ? " (pre-selected)" : ""), NumberText.percent(x.purchase > 0 ? x.planPurchases[j] / x.purchase : nil),
        NumberText.percent(x.planPurchases[j], decimals: 3), renewal(x, j), money(x.planRevenue[j]),
      ]
    }
    let currency = v.flow.plans.first.map { " (\($0.plan.currency))" } ?? ""
    return (["plan", "share of purchases", "of users", "renewal per period", "revenue per purchase\(currency)"], rows)
  }

  /// Plan slot `j`'s renewal probability per period, `–` for a lifetime plan.
  static func renewal(_ x: ExactFunnel, _ j: Int) -> String {
    (x.planRenewal.indices.contains(j) ? x.planRenewal[j] : nil).map { NumberText.percent($0) } ?? "–"
  }

  static func title(_ v: Variant) -> String {
    "Variant \(v.variant.id)" + (v.variant.summary.map { " — \($0)" } ?? "")
  }

  /// What the numbers are; the store and revenue only for flows that sell plans.
  static func note(_ variants: [Variant]) -> String {
    let sells = variants.contains { !$0.flow.plans.isEmpty }
    return "Exact solution: probabilities and expectations per user, with no sampling noise"
      + (sells ? "; store and revenue from the spec." : ".")
  }

  // MARK: - CSV

  /// One row per variant × item × measure, numbers at full precision: `section` is
  /// `metric` (item empty), `screen` (item the screen id), `plan` (item the plan id), `store`, or
  /// `realized_revenue` (item the day, measure `per_user`: the realized-revenue curve); the
  /// store and revenue rows only for a flow that sells plans.
  package static func csv(experiment: String, variants: [Variant]) -> String {
    var csv = CSVWriter(header: ["experiment", "variant", "section", "item", "measure", "value"])
    for v in variants {
      let x = v.exact
      let f = v.flow
      func add(_ section: String, _ item: String, _ measure: String, _ value: Double?) {
        csv.add([experiment, v.variant.id, section, item, measure, CSVWriter.number(value)])
      }
      for metric in FunnelMetric.allCases where metric.applies(to: [f]) { add("metric", "", metric.rawValue, x.value(of: metric)) }
      let sells = !f.plans.isEmpty
      if sells { for point in x.realizedRevenueCurve { add("realized_revenue", JSONValue.format(point.day), "per_user", point.perUser) } }
      for s in 0..<f.screenCount {
        add("screen", f.screenIDs[s], "reach", x.reach[s])
        add("screen", f.screenIDs[s], "abandoned", x.abandonedAt[s])
        add("screen", f.screenIDs[s], "views", x.views[s])
        add("screen", f.screenIDs[s], "failures", x.failures[s])
        add("screen", f.screenIDs[s], "mean_seconds_per_view", x.views[s] > 0 ? x.screenMillis[s] / x.views[s] / 1000 : nil)
      }
      for j in f.plans.indices {
        let id = f.plans[j].plan.id
        add("plan", id, "purchase", x.planPurchases[j])
        add("plan", id, "share", x.purchase > 0 ? x.planPurchases[j] / x.purchase : nil)
        add("plan", id, "approved_after_pending", x.planApprovals[j])
        add("plan", id, "renewal", x.planRenewal.indices.contains(j) ? x.planRenewal[j] : nil)
        add("plan", id, "revenue_per_purchase", x.planRevenue[j])
      }
      let s = x.store
      let store: [(String, Double)] = [
        ("purchase_taps", s.purchaseTaps), ("purchase_attempts", s.purchaseAttempts), ("purchase_cancels", s.purchaseCancels),
        ("purchase_failures", s.purchaseFailures), ("purchase_pendings", s.purchasePendings), ("pending_approvals", s.pendingApprovals),
        ("restore_attempts", s.restoreAttempts), ("restores", s.restores),
      ]
      if sells { for (measure, value) in store { add("store", "", measure, value) } }
      add("solution", "", "truncated_mass", x.truncatedMass)
    }
    return csv.text
  }

  // MARK: - Markdown

  /// The truth against the control first, then the metrics of every variant side by side, then each
  /// variant's screens and plan mix.
  package static func markdown(experiment: String, variants: [Variant], metrics: MetricsSpec) -> String {
    var out = "## \(RunMarkdownRenderer.cell(experiment)) · exact solution\n\n"
    func table(_ t: (headers: [String], rows: [[String]]), right: Set<Int>) {
      out += RunMarkdownRenderer.header(t.headers, right: right)
      for row in t.rows { out += RunMarkdownRenderer.row(row) }
      out += "\n"
    }
    let e = effects(variants, metrics: metrics)
    out += "**\(RunMarkdownRenderer.cell(Tone.render(headline(e), color: false)))**\n\n"
    if !e.rows.isEmpty {
      let t = effectRows(e)
      table(t, right: Set(1..<t.headers.count))
    }
    out += "\(note(variants))\n\n"
    let metrics = metricRows(variants)
    table(metrics, right: Set(1..<metrics.headers.count))
    for v in variants {
      out += "### \(RunMarkdownRenderer.cell(title(v)))\n\n"
      table(screenRows(v), right: Set(2..<7))
      if !v.flow.plans.isEmpty { table(planRows(v), right: Set(1..<planRows(v).headers.count)) }
    }
    return out
  }

  // MARK: - HTML

  /// One self-contained page: the truth against the control first (`data-role="decision"`), then the
  /// metrics side by side, then each variant's screens and plan mix.
  /// Per metric a chart of every variant's exact difference from the control (a point, no
  /// interval: the truth has no sampling noise), blue when better and vermillion when worse by
  /// more than the metric's margin (the decision rule's call, ``PlannedEffect``), grey inside
  /// it, open when equal; all variants of a metric share one axis.
  static func effectCharts(_ e: ExactEffects, _ variants: [Variant], metrics: MetricsSpec, into doc: inout HTMLDocument) {
    let currency = variants.lazy.compactMap { $0.flow.plans.first?.plan.currency }.first
    doc.beginCharts()
    for (k, metric) in e.metrics.enumerated() {
      let scale = metric.isProportion ? 100.0 : 1.0
      let rows: [SVGCharts.ForestRow] = e.rows.compactMap { r in
        guard let d = r.differences[k] else { return nil }
        var row = SVGCharts.ForestRow(
          label: r.variant, estimate: d * scale, lower: d * scale, upper: d * scale,
          text: "lift \(NumberText.lift(r.relativeLifts[k])) · Δ \(ExperimentReportRenderer.difference(d, metric))")
        row.significant = abs(d) > DecisionRule.tieTolerance
        row.tone = tone(of: r.variant, metric, variants, control: e.control, metrics: metrics)
        return row
      }
      guard !rows.isEmpty else { continue }
      let unit = RunHTMLRenderer.units(metric, currency: currency)
      let levels = variants.map { $0.exact.value(of: metric).map { $0 * scale } }
      let chart = SVGCharts.forest(
        rows, scale: SVGCharts.differenceScale(rows, levels: levels, unit: unit.tick, percentagePoints: metric.isProportion),
        axisTitle: "true difference from \(e.control) (\(unit.words)); 0 = no difference")
      doc.chart(
        kind: "forest", title: "\(metric.label): the truth against \(e.control)",
        description: rows.map { "\($0.label): \($0.text)" }.joined(separator: "; ") + ".", width: SVGCharts.width,
        height: chart.height, content: chart.content)
    }
    doc.endCharts()
  }

  /// The colour of `variant`'s true effect on `metric`: good or bad only beyond the margin.
  static func tone(of variant: String, _ metric: FunnelMetric, _ variants: [Variant], control: String, metrics: MetricsSpec) -> Tone? {
    guard let value = variants.first(where: { $0.variant.id == variant })?.exact.value(of: metric),
      let base = variants.first(where: { $0.variant.id == control })?.exact.value(of: metric)
    else { return nil }
    switch PlannedEffect(
      variant: value, control: base, higherIsBetter: metric.higherIsBetter, relativeMargin: metrics.relativeMargin(for: metric))
    {
    case .better: return .good
    case .worse: return .bad
    case .negligible, .none: return nil
    }
  }

  package static func html(experiment: String, variants: [Variant], metrics: MetricsSpec) -> String {
    var doc = HTMLDocument(title: "FunnelLab · \(experiment) · exact")
    doc.heading(1, "\(experiment): exact solution")
    let e = effects(variants, metrics: metrics)
    doc.decision(Tone.render(headline(e), color: false))
    if !e.rows.isEmpty {
      let t = effectRows(e, differences: true)
      doc.table(t.headers, t.rows, right: Set(1..<t.headers.count), caption: "The truth against \(e.control): true lift and Δ per metric")
      effectCharts(e, variants, metrics: metrics, into: &doc)
    }
    doc.paragraph(note(variants), cssClass: "note")
    let metrics = metricRows(variants)
    doc.table(metrics.headers, metrics.rows, right: Set(1..<metrics.headers.count), caption: "Metrics by variant")
    for v in variants {
      doc.heading(2, title(v))
      let screens = screenRows(v)
      doc.table(screens.headers, screens.rows, right: Set(2..<7), caption: "Screens")
      if !v.flow.plans.isEmpty {
        let plans = planRows(v)
        doc.table(plans.headers, plans.rows, right: Set(1..<plans.headers.count), caption: "Plan mix")
      }
    }
    return doc.html
  }
}
