package import FunnelLab

/// CSV, Markdown and HTML of planning by simulation (`funnellab power <spec>`).
extension PlanningRenderer {
  /// The columns of ``csv(_:)``, in order; rates, power and error rates are fractions, `type_m` a ratio of
  /// magnitudes, `duration_days` empty without a traffic figure.
  package static let csvHeader = [
    "experiment", "variant", "metric", "rule", "control_rate", "variant_rate", "users_per_arm", "replicates", "alpha", "power",
    "analytic_power", "false_positive_rate", "coverage", "type_s", "type_m", "analytic_users_per_arm", "simulated_users_per_arm",
    "simulated_users_per_arm_se", "duration_days", "expected_stopping_day",
  ]

  /// One row per variant for the fixed-horizon design (`rule` = `fixed`), then one per
  /// peeking rule when daily looks were simulated.
  package static func csv(_ r: PlanningReport) -> String {
    var csv = CSVWriter(header: csvHeader)
    for plan in r.plans {
      let d = plan.diagnosis
      csv.add([
        r.experiment, d.variant, d.metric.rawValue, "fixed", CSVWriter.number(d.controlRate), CSVWriter.number(d.variantRate),
        String(d.usersPerArm), String(d.replicates), CSVWriter.number(d.alpha), CSVWriter.number(d.hasEffect ? d.power : nil),
        CSVWriter.number(d.analyticPower), CSVWriter.number(d.falsePositiveRate), CSVWriter.number(d.coverage),
        CSVWriter.number(d.typeS), CSVWriter.number(d.typeM), plan.analyticUsersPerArm.map(String.init) ?? "",
        plan.simulatedUsersPerArm.map(String.init) ?? "", CSVWriter.number(plan.simulatedSize?.standardError),
        plan.durationDays.map(String.init) ?? "", "",
      ])
      for rule in plan.peeking?.rules ?? [] {
        csv.add([
          r.experiment, d.variant, d.metric.rawValue, rule.name, CSVWriter.number(d.controlRate), CSVWriter.number(d.variantRate),
          plan.peeking.map { String($0.usersPerDayPerArm * $0.days) } ?? "", plan.peeking.map { String($0.replicates) } ?? "",
          CSVWriter.number(plan.peeking?.alpha), CSVWriter.number(d.hasEffect ? rule.power : nil), "",
          CSVWriter.number(rule.falsePositiveRate), "", "",
          "", "", "", "", plan.peeking.map { String($0.days) } ?? "", CSVWriter.number(rule.expectedStoppingDay),
        ])
      }
    }
    if let adjustment = r.adjustment { for row in AdjustmentPlanRenderer.csvRows(r, adjustment) { csv.add(row) } }
    return csv.text
  }

  static func designRows(_ r: PlanningReport) -> [[String]] {
    r.plans.map { plan in
      let d = plan.diagnosis
      return [
        d.variant, NumberText.percent(d.controlRate, decimals: 2), NumberText.percent(d.variantRate, decimals: 2),
        NumberText.grouped(d.usersPerArm), ifEffect(d) { NumberText.percent(d.power) },
        ifEffect(d) { d.analyticPower.map { NumberText.percent($0) } ?? "n/a" }, NumberText.percent(d.falsePositiveRate, decimals: 2),
        NumberText.percent(d.coverage), ifEffect(d) { d.typeS.map { NumberText.percent($0) } ?? "n/a" }, typeM(d), simulatedSize(plan),
        plan.durationDays.map { "\($0) d" } ?? "n/a",
      ]
    }
  }

  static func designHeaders(alpha: Double) -> [String] {
    [
      "variant", "control", "variant rate", "users/arm", "power (sim.)", "power (formula)", "A/A false positives",
      "\(NumberText.level(alpha: alpha)) CI coverage", "type S", "type M", "users/arm for target", "duration",
    ]
  }

  /// The design table (one row per variant: rates, users per arm used, simulated and formula power, A/A
  /// false positives, interval coverage, type S and M errors, users per arm for the target power,
  /// duration) as Markdown.
  package static func markdown(_ r: PlanningReport) -> String {
    var out = "## Planning \(RunMarkdownRenderer.cell(r.experiment)) by simulation\n\n"
    out += "**\(RunMarkdownRenderer.cell(Tone.render(headline(r), color: false)))**\n\n"
    out += lines(r).map { "- " + RunMarkdownRenderer.cell(Tone.render($0, color: false)) + "\n" }.joined() + "\n"
    guard !r.nothingToCompare else { return out }
    out +=
      "Primary metric \(r.metric.label) · α = \(JSONValue.format(r.alpha)) · target power \(NumberText.percent(r.targetPower, decimals: 0))"
    out += " · seed \(r.seed).\n\n"
    let headers = designHeaders(alpha: r.alpha)
    out += RunMarkdownRenderer.header(headers, right: Set(1..<headers.count))
    for row in designRows(r) { out += RunMarkdownRenderer.row(row) }
    for note in infeasibleNotes(r) { out += "\n**" + note + ".**\n" }
    if let note = searchNote(r) { out += "\n" + note + "\n" }
    for plan in r.plans {
      guard let p = plan.peeking else { continue }
      out +=
        "\n### Daily looks at \(RunMarkdownRenderer.code(p.variant)): \(Vocabulary.days(p.days)), \(Vocabulary.plural(p.usersPerDayPerArm, "user"))/day/arm\n\n"
      out += RunMarkdownRenderer.header(["rule", "A/A false positives", "power", "mean stopping day"], right: [1, 2, 3])
      for rule in p.rules {
        out += RunMarkdownRenderer.row([
          rule.name, NumberText.percent(rule.falsePositiveRate, decimals: 2), ifEffect(plan.diagnosis) { NumberText.percent(rule.power) },
          rule.expectedStoppingDay.map { NumberText.fixed($0, 1) } ?? "n/a",
        ])
      }
    }
    for note in shortLookNotes(r) { out += "\n" + note + ".\n" }
    if let adjustment = r.adjustment { out += AdjustmentPlanRenderer.markdown(adjustment) }
    if let assurance = r.assurance { out += AssurancePlanRenderer.markdown(assurance, level: NumberText.level(alpha: r.alpha)) }
    return out
  }

  /// The design table, then for each variant with daily looks the peeking chart: each
  /// rule's A/A false-positive rate against α, and its power.
  package static func html(_ r: PlanningReport) -> String {
    var doc = HTMLDocument(title: "FunnelLab · planning \(r.experiment)")
    doc.heading(1, "Planning \(r.experiment) by simulation")
    doc.decision(headline(r), lines: lines(r), alert: quickest(r) == nil && !r.nothingToCompare)
    guard !r.nothingToCompare else { return doc.html }
    doc.paragraph(
      "Primary metric \(r.metric.label) · α = \(JSONValue.format(r.alpha)) · target power \(NumberText.percent(r.targetPower, decimals: 0)) · seed \(r.seed). Rates from the exact engine; replicate experiments drawn from them.",
      cssClass: "note")
    let headers = designHeaders(alpha: r.alpha)
    doc.table(headers, designRows(r), right: Set(1..<headers.count), caption: "Fixed-horizon design")
    for note in infeasibleNotes(r) { doc.paragraph(note + ".", cssClass: "warning") }
    if let note = searchNote(r) { doc.paragraph(note, cssClass: "note") }
    if let adjustment = r.adjustment { AdjustmentPlanRenderer.html(adjustment, into: &doc) }
    if let assurance = r.assurance { AssurancePlanRenderer.html(assurance, level: NumberText.level(alpha: r.alpha), into: &doc) }
    let peeking = r.plans.compactMap(\.peeking)
    guard !peeking.isEmpty else { return doc.html }
    peekingCharts(peeking, into: &doc)
    for note in shortLookNotes(r) { doc.paragraph(note + ".", cssClass: "note") }
    return doc.html
  }

  /// The cost of peeking: every variant's A/A false-positive chart on one axis (so the α line
  /// sits at the same place in each and equal rates have equal bars), then every variant's
  /// power chart on 0–100%.
  static func peekingCharts(_ peeking: [PeekingDiagnosis], into doc: inout HTMLDocument) {
    doc.heading(2, "The cost of peeking")
    doc.paragraph(
      "Looking every day and stopping at the first p < α (naive) inflates false positives; group-sequential boundaries and always-valid tests keep them at α. Bars: share of A/A replicates that ever reject (dashed line: α), every variant on the same axis; then the power of each rule under the true effect.",
      cssClass: "note")
    let falsePositives = ChartScale.levels(
      peeking.flatMap { $0.rules.map { $0.falsePositiveRate * 100 } }, atLeast: (peeking.map(\.alpha).max() ?? 0) * 100 * 4, unit: "%")
    doc.heading(3, "A/A false positives with daily looks")
    doc.beginCharts()
    for p in peeking {
      let fp = p.rules.map { rule in
        SVGCharts.ForestRow(
          label: rule.name, estimate: rule.falsePositiveRate * 100, lower: rule.falsePositiveRate * 100,
          upper: rule.falsePositiveRate * 100, text: NumberText.percent(rule.falsePositiveRate, decimals: 2))
      }
      let chart = SVGCharts.bars(
        fp, patterned: true, scale: falsePositives, axisTitle: "A/A replicates that ever reject",
        marker: (p.alpha * 100, "α = \(JSONValue.format(p.alpha))"))
      doc.chart(
        kind: "peeking",
        title:
          "\(p.variant): A/A false positives with daily looks over \(Vocabulary.plural(p.days, "day")) (α = \(JSONValue.format(p.alpha)))",
        description: fp.map { "\($0.label): \($0.text) false positives" }.joined(separator: "; ") + ".", width: SVGCharts.width,
        height: chart.height, content: chart.content)
    }
    doc.endCharts()
    doc.heading(3, "Power of each rule under the true effect")
    doc.beginCharts()
    for p in peeking {
      let power = p.rules.map { rule in
        SVGCharts.ForestRow(
          label: rule.name, estimate: rule.power * 100, lower: rule.power * 100, upper: rule.power * 100,
          text: NumberText.percent(rule.power) + (rule.expectedStoppingDay.map { " · day \(NumberText.fixed($0, 1))" } ?? ""))
      }
      let chart = SVGCharts.bars(
        power, patterned: true, scale: ChartScale.levels([], atLeast: 100, unit: "%"), axisTitle: "power under the true effect")
      doc.chart(
        kind: "peeking-power", title: "\(p.variant): power of each rule under the true effect, and its mean day of stopping",
        description: power.map { "\($0.label): \($0.text)" }.joined(separator: "; ") + ".", width: SVGCharts.width,
        height: chart.height, content: chart.content)
    }
    doc.endCharts()
  }
}
