package import FunnelLab
import FunnelStats

/// CSV, Markdown and HTML of an experiment-mode run.
extension ExperimentReportRenderer {
  static func sections(_ r: ExperimentReport) -> [(role: String, result: MetricResult)] {
    [("primary", r.primary)] + r.guardrails.map { ("guardrail", $0.result) } + r.secondary.map { ("secondary", $0) }
  }

  /// The columns of ``csv(_:)``, in order; `true_difference` is the exact difference the verdict is graded
  /// against, `role` is `primary`, `guardrail` or `secondary`, or `lifecycle` for the rows of realized revenue by `day`
  /// (`realized_revenue_by_day`) and renewal by `plan` and `period` (`renewal_rate`, `n` the subscribers who could renew),
  /// whose exact value is in `true_value`.
  package static let csvHeader =
    [
      "experiment", "role", "metric", "arm", "n", "estimate", "lower", "upper", "relative_lift", "relative_lift_lower",
      "relative_lift_upper", "difference", "difference_lower", "difference_upper", "test", "p_value", "adjusted_p_value", "significant",
      "probability_to_beat_control",
      "true_relative_lift", "true_difference", "verdict", "confidence_level", "true_value", "equivalence_margin",
    ] + LifecycleRenderer.csvKeyColumns + ["stratum", "variance_reduction"]

  /// One row per arm × metric (primary, guardrails, secondary), RFC 4180.
  package static func csv(_ r: ExperimentReport) -> String {
    var csv = CSVWriter(header: csvHeader)
    for (role, m) in sections(r) {
      for a in m.arms {
        let d = a.comparison?.difference
        csv.add([
          r.experiment, role, m.metric.rawValue, a.arm, String(a.estimate.n), CSVWriter.number(a.estimate.estimate),
          CSVWriter.number(a.estimate.interval?.lower), CSVWriter.number(a.estimate.interval?.upper),
          CSVWriter.number(a.relativeLift?.estimate), CSVWriter.number(a.relativeLift?.interval?.lower),
          CSVWriter.number(a.relativeLift?.interval?.upper), CSVWriter.number(d?.estimate),
          CSVWriter.number(d?.interval?.lower), CSVWriter.number(d?.interval?.upper),
          a.comparison?.test?.method ?? "", CSVWriter.number(a.comparison?.test?.pValue), CSVWriter.number(a.adjustedPValue),
          a.comparison == nil ? "" : (a.significant ? "true" : "false"), CSVWriter.number(a.probabilityToBeatControl),
          CSVWriter.number(a.trueRelativeLift), CSVWriter.number(a.trueDifference), a.verdict?.rawValue ?? "",
          CSVWriter.number(1 - r.spec.alpha),
          CSVWriter.number(a.trueValue), CSVWriter.number(a.equivalenceMargin), "", "", "", "", "",
        ])
      }
    }
    for (arm, lifecycle) in zip(r.arms, r.lifecycles) {
      for row in LifecycleRenderer.csvRows(lifecycle) {
        csv.add(
          [
            r.experiment, "lifecycle", row.metric, arm, String(row.n), CSVWriter.number(row.estimate), CSVWriter.number(row.lower),
            CSVWriter.number(row.upper),
          ] + Array(repeating: "", count: 14) + [CSVWriter.number(1 - r.spec.alpha), CSVWriter.number(row.exact), ""] + row.keyCells
            + ["", ""])
      }
    }
    if let segments = r.segments { segmentRows(segments, experiment: r.experiment, level: 1 - r.spec.alpha, into: &csv) }
    return csv.text
  }

  /// The rows of a ``SegmentReport``: role `segment` per arm and stratum, role `adjustment` per arm and method
  /// (the method in `test`, the share of variance it removed in `variance_reduction`).
  static func segmentRows(_ s: SegmentReport, experiment: String, level: Double, into csv: inout CSVWriter) {
    let blankKeys = Array(repeating: "", count: LifecycleRenderer.csvKeyColumns.count)
    for c in s.cells {
      let d = c.difference
      csv.add(
        [
          experiment, "segment", s.metric.rawValue, c.arm, String(max(c.users, 0)), CSVWriter.number(c.estimate), "", "", "", "", "",
          CSVWriter.number(d?.estimate), CSVWriter.number(d?.interval?.lower), CSVWriter.number(d?.interval?.upper),
          d == nil ? "" : SegmentReport.strataTestName, CSVWriter.number(c.pValue), CSVWriter.number(c.adjustedPValue), "", "", "",
          CSVWriter.number(c.trueDifference), "", CSVWriter.number(level), CSVWriter.number(c.trueValue), "",
        ] + blankKeys + [s.strata.indices.contains(c.stratum) ? s.strata[c.stratum] : "", ""])
    }
    for a in s.adjusted {
      csv.add(
        [
          experiment, "adjustment", s.metric.rawValue, a.arm, "", "", "", "", "", "", "", CSVWriter.number(a.difference.estimate),
          CSVWriter.number(a.difference.interval?.lower), CSVWriter.number(a.difference.interval?.upper), a.method.rawValue,
          CSVWriter.number(a.pValue), CSVWriter.number(a.adjustedPValue), a.adjustedPValue <= s.alpha ? "true" : "false", "", "",
          CSVWriter.number(a.trueDifference), a.verdict?.rawValue ?? "", CSVWriter.number(level), "", "",
        ] + blankKeys + ["", CSVWriter.number(a.varianceReduction)])
    }
  }

  static func markdownTable(_ m: MetricResult, alpha: Double) -> String {
    var out = RunMarkdownRenderer.header(
      [
        "arm", "n", m.metric.label, "lift [\(NumberText.level(alpha: alpha)) CI]", "Δ", "\(NumberText.level(alpha: alpha)) CI",
        "adj. p", "P(beat)", "true lift", "true Δ", "verdict",
      ],
      right: Set(1...9))
    for a in m.arms {
      out += RunMarkdownRenderer.row([
        a.arm, NumberText.grouped(a.estimate.n), value(a.estimate.estimate, m.metric),
        a.comparison == nil ? "" : NumberText.lift(a.relativeLift),
        a.comparison == nil ? "" : difference(a.comparison?.difference?.estimate, m.metric),
        a.comparison == nil ? "" : interval(a.comparison?.difference?.interval, m.metric),
        a.comparison == nil ? "" : p(a.adjustedPValue) + (a.significant ? " *" : ""),
        a.probabilityToBeatControl.map { NumberText.percent($0) } ?? "",
        a.comparison == nil ? "" : NumberText.lift(a.trueRelativeLift), a.trueDifference.map { difference($0, m.metric) } ?? "",
        a.verdict.map(Vocabulary.word) ?? "",
      ])
    }
    return out
  }

  /// Tables for a pull request: arms, the sample-ratio check, each metric, the decisions.
  package static func markdown(_ r: ExperimentReport, overTime: AnalysisRenderer.OverTime? = nil) -> String {
    var out = "## \(RunMarkdownRenderer.cell(r.experiment)) (experiment mode)\n\n"
    out += DecisionSummaryRenderer.markdown(DecisionSummary(r), overTime: overTime)
    out +=
      "Seed \(r.seed) · \(settings(r))\(r.comparesArms ? " · * significant after correction" : "").\n\n"
    out += RunMarkdownRenderer.header(["arm", "users", "planned share"], right: [1, 2])
    for (i, arm) in r.arms.enumerated() {
      out += RunMarkdownRenderer.row([
        arm, r.armUsers.indices.contains(i) ? NumberText.grouped(r.armUsers[i]) : "",
        r.plannedShares.indices.contains(i) ? NumberText.percent(r.plannedShares[i]) : "",
      ])
    }
    if let s = r.sampleRatio, r.comparesArms {
      out += "\nSample ratio check: χ² p = \(p(s.test.pValue))\(s.mismatch ? " — **mismatch**" : " (ok)").\n"
    }
    if !r.comparesArms {
      out += "\n### The control's metrics\n\n" + RunMarkdownRenderer.header(controlHeader(r), right: [1, 2, 3])
      for row in controlRows(r) { out += RunMarkdownRenderer.row(row) }
    }
    for (role, m) in sections(r) where r.comparesArms {
      out += "\n### \(role): \(m.metric.label)\n\n" + markdownTable(m, alpha: r.spec.alpha)
    }
    if !r.decisions.isEmpty {
      out += "\n### Decisions\n\n" + RunMarkdownRenderer.header(["arm", "decision"], right: [])
      for d in r.decisions { out += RunMarkdownRenderer.row([d.arm, Vocabulary.word(d.decision)]) }
    }
    if let segments = r.segments { out += SegmentRenderer.markdown(segments) }
    let lifecycle = lifecycleTables(r)
    if !lifecycle.isEmpty { out += "\n### Revenue over time and renewals\n\n" + LifecycleRenderer.markdown(lifecycle) }
    if let overTime { out += SequentialRenderer.markdown(overTime.report, context: overTime.context) }
    return out
  }

  /// The observed run's page (funnels, plan mix, revenue) with the experiment's
  /// forest plots of the primary metric and guardrails, and the decisions.
  package static func html(_ r: ExperimentReport, observed: RunResult, overTime: AnalysisRenderer.OverTime? = nil) -> String {
    var doc = HTMLDocument(title: "FunnelLab · \(r.experiment) · experiment")
    doc.heading(1, "\(r.experiment) (experiment mode)")
    DecisionSummaryRenderer.html(DecisionSummary(r), overTime: overTime, into: &doc)
    doc.paragraph(
      r.comparesArms
        ? "Seed \(r.seed) · users split among arms by hash, analysed like an A/B test · α = \(JSONValue.format(r.spec.alpha)), \(Vocabulary.correction(r.spec.correction)) · intervals are \(NumberText.level(alpha: r.spec.alpha))."
        : "Seed \(r.seed) · only the control: no test · intervals are \(NumberText.level(alpha: r.spec.alpha)).",
      cssClass: "note")
    doc.table(
      ["arm", "users", "planned share", "decision"],
      r.arms.indices.map { i in
        [
          r.arms[i], r.armUsers.indices.contains(i) ? NumberText.grouped(r.armUsers[i]) : "",
          r.plannedShares.indices.contains(i) ? NumberText.percent(r.plannedShares[i]) : "",
          r.decisions.first { $0.arm == r.arms[i] }.map { Vocabulary.word($0.decision) } ?? (i == 0 ? "control" : ""),
        ]
      }, right: [1, 2], caption: "Arms")
    if let s = r.sampleRatio, r.comparesArms {
      doc.paragraph("Sample ratio check: χ² p = \(p(s.test.pValue))\(s.mismatch ? " — mismatch: do not trust this split." : " (ok).")")
    }
    if r.comparesArms {
      differences(r, observed: observed, into: &doc)
    } else {
      doc.table(controlHeader(r), controlRows(r), right: [1, 2, 3], caption: "The control's metrics (exact: the exact engine's value)")
    }
    if let segments = r.segments { SegmentRenderer.html(segments, into: &doc) }
    let summaries = FunnelSummary.all(observed, alpha: r.spec.alpha)
    RunHTMLRenderer.funnels(observed.variants, summaries, heading: "Funnels of the observed arms", into: &doc)
    RunHTMLRenderer.funnelComparisons(observed.variants, summaries, into: &doc)
    RunHTMLRenderer.planMix(observed, summaries, into: &doc)
    RunHTMLRenderer.revenue(observed, summaries, into: &doc)
    LifecycleRenderer.html(Array(zip(r.arms, r.lifecycles)), alpha: r.spec.alpha, into: &doc)
    if let overTime { SequentialRenderer.html(overTime.report, context: overTime.context, into: &doc) }
    return doc.html
  }

  /// The forest plots of every metric's differences from the control, under their heading.
  static func differences(_ r: ExperimentReport, observed: RunResult, into doc: inout HTMLDocument) {
    doc.heading(2, "Differences from the control")
    doc.paragraph(
      "A filled circle: significant \(Vocabulary.afterCorrection(r.spec.correction)) (blue when better, vermillion when worse), as the verdict says; an open square: not significant\(r.sampleRatio?.mismatch == true ? " (every arm, under the sample ratio mismatch)" : ""). The hollow diamond is the true Δ: the exact difference, with no sampling noise. A guardrail's chart draws its margin as a short dashed line. "
        + SVGCharts.sharedAxisNote(members: "arms"),
      cssClass: "note")
    doc.beginCharts()
    let trusted = r.sampleRatio?.mismatch != true
    // The metrics with a difference to draw: the first stays in sight on a phone, the rest fold.
    let drawn = sections(r).filter {
      $0.result.arms.dropFirst().contains { $0.comparison?.difference?.estimate != nil && $0.comparison?.difference?.interval != nil }
    }
    for (k, (role, m)) in drawn.enumerated() {
      if k == 1 { doc.foldRest(drawn.dropFirst().map { "\($0.role): \($0.result.metric.label)" }, "metric") }
      let guardrail = r.guardrails.first { $0.result.metric == m.metric && role == "guardrail" }?.guardrail
      let rows: [SVGCharts.ForestRow] = m.arms.dropFirst().compactMap { a in
        guard let d = a.comparison?.difference?.estimate, let i = a.comparison?.difference?.interval else { return nil }
        let scale = m.metric.isProportion ? 100.0 : 1.0
        var text =
          "lift \(NumberText.lift(a.relativeLift)) · Δ \(difference(d, m.metric)) \(interval(i, m.metric)) · p adj. \(p(a.adjustedPValue))"
        if let t = a.trueDifference { text += " · true \(NumberText.lift(a.trueRelativeLift)), \(difference(t, m.metric))" }
        var row = SVGCharts.ForestRow(
          label: a.arm, estimate: d * scale, lower: i.lower * scale, upper: i.upper * scale, text: text,
          reference: a.trueDifference.map { $0 * scale })
        // The marker follows the verdict beside it: significant after the correction, and never under a mismatch.
        row.significant = trusted && a.significant
        row.tone = (d > 0) == m.metric.higherIsBetter ? .good : .bad
        return row
      }
      guard !rows.isEmpty else { continue }
      let unit = RunHTMLRenderer.units(m.metric, currency: RunHTMLRenderer.currency(observed))
      let levels = m.arms.map { $0.estimate.estimate.map { $0 * (m.metric.isProportion ? 100 : 1) } }
      let scale = m.metric.isProportion ? 100.0 : 1.0
      let margin = guardrail.map { ($0.metric.higherIsBetter ? -$0.margin : $0.margin) * scale }
      var bounded = rows
      if let margin { bounded.append(SVGCharts.ForestRow(label: "", estimate: margin, lower: margin, upper: margin, text: "")) }
      let chart = SVGCharts.forest(
        rows, scale: SVGCharts.differenceScale(bounded, levels: levels, unit: unit.tick, percentagePoints: m.metric.isProportion),
        axisTitle: "difference from \(r.control) (\(unit.words)); 0 = no difference",
        margin: margin)
      doc.chart(
        kind: "forest", title: "\(role): \(m.metric.label), difference from \(r.control)",
        description: rows.map { "\($0.label): \($0.text)" }.joined(separator: "; ") + ".", width: SVGCharts.width,
        height: chart.height, content: chart.content)
    }
    doc.endFold()
    doc.endCharts()
  }
}
