package import FunnelLab
package import FunnelStats

/// CSV, Markdown and HTML of an analysis of observed counts.
extension AnalysisRenderer {
  /// The columns of ``csv(_:)``, in order; interval bounds and lifts are fractions, not percent.
  package static let csvHeader = [
    "arm", "metric", "users", "conversions", "estimate", "lower", "upper", "difference", "difference_lower", "difference_upper",
    "relative_lift", "relative_lift_lower", "relative_lift_upper", "test", "p_value", "adjusted_p_value", "significant",
    "probability_to_beat_control", "probability_to_be_best", "expected_loss", "confidence_level", "verdict", "segment",
  ]

  /// One row per arm × metric (conversion, and revenue per user when given), RFC 4180.
  package static func csv(_ r: ExperimentAnalysis.Report, segments: SegmentReport? = nil) -> String {
    var csv = CSVWriter(header: csvHeader)
    for a in r.arms {
      let c = r.comparisons.first { $0.arm == a.name }
      csv.add([
        a.name, "conversion", String(a.users), String(a.conversions), CSVWriter.number(a.rate), CSVWriter.number(a.rateInterval.lower),
        CSVWriter.number(a.rateInterval.upper), CSVWriter.number(c?.absoluteLift?.estimate),
        CSVWriter.number(c?.absoluteLift?.interval?.lower), CSVWriter.number(c?.absoluteLift?.interval?.upper),
        CSVWriter.number(c?.relativeLift?.estimate), CSVWriter.number(c?.relativeLift?.interval?.lower),
        CSVWriter.number(c?.relativeLift?.interval?.upper), c?.test?.method ?? "", CSVWriter.number(c?.test?.pValue),
        CSVWriter.number(c?.adjustedPValue), c.map { $0.significant ? "true" : "false" } ?? "",
        CSVWriter.number(c?.probabilityToBeatControl), CSVWriter.number(a.probabilityToBeBest), CSVWriter.number(c?.expectedLoss),
        CSVWriter.number(1 - r.settings.alpha), c.map(\.conclusion.rawValue) ?? "", "",
      ])
      if let revenue = a.revenue {
        let w = c?.revenue?.welch
        csv.add([
          a.name, "revenuePerUser", String(a.users), "", CSVWriter.number(revenue.mean), "", "",
          CSVWriter.number(w?.difference.estimate), CSVWriter.number(w?.difference.interval?.lower),
          CSVWriter.number(w?.difference.interval?.upper), "", "", "", w?.test.method ?? "", CSVWriter.number(w?.test.pValue), "", "",
          CSVWriter.number(c?.revenue?.bayesian.probabilityToBeat), "", "", CSVWriter.number(1 - r.settings.alpha), "", "",
        ])
      }
    }
    if let segments { segmentRows(segments, level: 1 - r.settings.alpha, into: &csv) }
    return csv.text
  }

  /// Per arm and segment a row with `metric` `conversion` and the `segment`; then per arm
  /// and adjustment a row with `metric` `conversion, <method>`.
  static func segmentRows(_ s: SegmentReport, level: Double, into csv: inout CSVWriter) {
    for c in s.cells {
      let d = c.difference
      // Empty, never a trap, when the product leaves Int's range (a non-finite estimate).
      let conversions = Int(exactly: ((c.estimate ?? 0) * Double(c.users)).rounded()).map(String.init) ?? ""
      csv.add([
        c.arm, "conversion", String(max(c.users, 0)), conversions, CSVWriter.number(c.estimate), "", "",
        CSVWriter.number(d?.estimate), CSVWriter.number(d?.interval?.lower), CSVWriter.number(d?.interval?.upper), "", "", "",
        d == nil ? "" : SegmentReport.strataTestName, CSVWriter.number(c.pValue), CSVWriter.number(c.adjustedPValue), "", "", "", "",
        CSVWriter.number(level), "", s.strata.indices.contains(c.stratum) ? s.strata[c.stratum] : "",
      ])
    }
    for a in s.adjusted {
      csv.add([
        a.arm, "conversion, \(a.method.rawValue)", "", "", "", "", "", CSVWriter.number(a.difference.estimate),
        CSVWriter.number(a.difference.interval?.lower), CSVWriter.number(a.difference.interval?.upper), "", "", "",
        a.method.rawValue, CSVWriter.number(a.pValue), CSVWriter.number(a.adjustedPValue), a.adjustedPValue <= s.alpha ? "true" : "false",
        "", "", "", CSVWriter.number(level),
        "", "",
      ])
    }
  }

  static func armRows(_ r: ExperimentAnalysis.Report, interim: Bool = false) -> [[String]] {
    r.arms.map { a in
      let c = r.comparisons.first { $0.arm == a.name }
      return [
        a.name, NumberText.grouped(a.users), NumberText.grouped(a.conversions), NumberText.percent(a.rate, decimals: 2),
        interval(a.rateInterval, percent: true), c.map { NumberText.lift($0.relativeLift) } ?? "",
        c.map { NumberText.points($0.absoluteLift?.estimate, decimals: 2) } ?? "",
        c.map { interval($0.absoluteLift?.interval, percent: true) } ?? "", c.map { pValue($0.test?.pValue) } ?? "",
        c.map { pValue($0.adjustedPValue) } ?? "",
        c.map { NumberText.percent($0.probabilityToBeatControl) } ?? "", c.map(expectedLoss) ?? "",
        NumberText.percent(a.probabilityToBeBest), c.map { call($0, interim: interim) } ?? "control",
      ]
    }
  }

  static func armHeaders(alpha: Double) -> [String] {
    let level = NumberText.level(alpha: alpha)
    return [
      "arm", "users", "conversions", "rate", "\(level) CI", "lift [\(level) CI]", "Δ", "\(level) CI (pp)", "p", "adj. p", "P(beat)",
      Vocabulary.expectedLoss, "P(best)", "verdict",
    ]
  }

  /// The arms table (rates and lifts in percent, P(beat) and beside it the expected loss in percentage points, with
  /// the comparison's verdict), the sample-ratio check and the methods, as GitHub-flavoured Markdown.
  package static func markdown(_ r: ExperimentAnalysis.Report, overTime: OverTime? = nil, segments: SegmentReport? = nil) -> String {
    var out = "## Experiment analysis\n\n"
    out += DecisionSummaryRenderer.markdown(DecisionSummary(analysis: r), overTime: overTime)
    if let margin = marginHeadline(r) { out += "**\(RunMarkdownRenderer.cell(Tone.render(margin, color: false)))**\n\n" }
    out += settings(r, control: RunMarkdownRenderer.code(r.control)).capitalizedFirst + ".\n\n"
    let headers = armHeaders(alpha: r.settings.alpha)
    out += RunMarkdownRenderer.header(headers, right: Set(1..<headers.count - 1))
    for row in armRows(r, interim: interim(overTime)) { out += RunMarkdownRenderer.row(row) }
    if let margin = marginTable(r) {
      out += "\n" + margin.note + "\n\n" + RunMarkdownRenderer.header(margin.headers, right: [1, 2, 4])
      for row in margin.rows { out += RunMarkdownRenderer.row(row) }
    }
    let srm = r.sampleRatioMismatch
    out += "\nSample ratio: χ² = \(NumberText.fixed(srm.test.statistic, 3)), \(pEquals(srm.test.pValue))"
    out += srm.mismatch ? " — **mismatch**: do not trust the results.\n" : " — no mismatch.\n"
    if let fisher = fisherNote(r) { out += "\n" + fisher + "\n" }
    if let untested = untestedNote(r) { out += "\n" + untested + "\n" }
    out += "\nMethods: " + methods(r).joined(separator: "; ") + "\n"
    if let segments { out += SegmentRenderer.markdown(segments) }
    if let overTime { out += SequentialRenderer.markdown(overTime.report, context: overTime.context) }
    return out
  }

  /// A standalone page: the arms table (as ``markdown(_:overTime:segments:)``'s), a forest plot of each arm's absolute
  /// lift in conversion (percentage points, with its confidence interval and adjusted p-value), the sample-ratio check
  /// and the methods.
  package static func html(_ r: ExperimentAnalysis.Report, overTime: OverTime? = nil, segments: SegmentReport? = nil) -> String {
    var doc = HTMLDocument(title: "FunnelLab · experiment analysis")
    doc.heading(1, "Experiment analysis")
    DecisionSummaryRenderer.html(DecisionSummary(analysis: r), overTime: overTime, into: &doc)
    if let margin = marginHeadline(r) { doc.addToDecision(margin) }
    doc.paragraph(settings(r, control: r.control).capitalizedFirst + ".", cssClass: "note")
    let headers = armHeaders(alpha: r.settings.alpha)
    let interim = interim(overTime)
    // The lift may break before its interval, so the expected loss does not turn a desktop's table into cards.
    doc.table(headers, armRows(r, interim: interim), right: Set(1..<headers.count - 1), wrap: [5, headers.count - 1], caption: "Arms")
    if let margin = marginTable(r) {
      doc.table(margin.headers, margin.rows, right: [1, 2, 4], caption: "Against the margin")
      doc.paragraph(margin.note, cssClass: "note")
    }
    let rows: [SVGCharts.ForestRow] = r.comparisons.compactMap { c in
      guard let d = c.absoluteLift?.estimate, let i = c.absoluteLift?.interval else { return nil }
      var row = SVGCharts.ForestRow(
        label: c.arm, estimate: d * 100, lower: i.lower * 100, upper: i.upper * 100,
        text: "\(NumberText.points(d, decimals: 2)) \(interval(i, percent: true)) adj. p \(pValue(c.adjustedPValue))")
      // The marker follows the verdict: significant after the correction, never under a sample ratio mismatch;
      // in an interim look no marker is a call.
      row.significant = c.conclusion == .significant && !interim
      row.tone = interim ? nil : d > 0 ? .good : .bad
      return row
    }
    if !rows.isEmpty {
      doc.heading(2, "Lift in conversion")
      let markers =
        interim
        ? "An interim look: the test is still running, so every marker is an open square (no fixed-horizon call decides it)."
        : "A filled circle: significant after the correction (blue when higher, vermillion when lower), as the verdict says; an open square: not significant."
      doc.paragraph(
        markers
          + " The axis spans at least ±\(NumberText.percent(SVGCharts.minimumRelativeSpan, decimals: 0)) of the arms' conversion (or of its complement, whichever is smaller), so a lift too small to matter is drawn small.",
        cssClass: "note")
      let chart = SVGCharts.forest(
        rows, scale: SVGCharts.differenceScale(rows, levels: r.arms.map { $0.rate.map { $0 * 100 } }, unit: "pp", percentagePoints: true),
        axisTitle: "difference from \(r.control) (percentage points); 0 = no difference")
      // In the charts grid, so the chart is as wide as the run report's, not the whole page.
      doc.beginCharts()
      doc.chart(
        kind: "forest", title: "Absolute lift in conversion vs \(r.control) (percentage points)",
        description: rows.map { "\($0.label): \($0.text)" }.joined(separator: "; ") + ".", width: SVGCharts.width,
        height: chart.height, content: chart.content)
      doc.endCharts()
    }
    let srm = r.sampleRatioMismatch
    doc.paragraph(
      "Sample ratio: χ² = \(NumberText.fixed(srm.test.statistic, 3)), \(pEquals(srm.test.pValue))"
        + (srm.mismatch ? " — mismatch: do not trust the results." : " — no mismatch."))
    if let fisher = fisherNote(r) { doc.paragraph(fisher, cssClass: "note") }
    if let untested = untestedNote(r) { doc.paragraph(untested, cssClass: "note") }
    if let segments { SegmentRenderer.html(segments, into: &doc) }
    if let overTime { SequentialRenderer.html(overTime.report, context: overTime.context, into: &doc) }
    doc.methods([methods(r).joined(separator: "; ").capitalizedFirst + "."])
    return doc.html
  }
}

/// CSV, Markdown and HTML of a solved power problem: one row per quantity.
extension PowerRenderer {
  static func rows(_ r: PowerAnalysis.Result, isMeans: Bool, usersPerDay: Int?, days: Int?) -> [(String, String, String, Bool)] {
    // (name, exact value, readable value, solved)
    var rows: [(String, String, String, Bool)] = [
      ("method", r.method, r.method, false), ("alternative", r.alternative.rawValue, Vocabulary.word(r.alternative), false),
      (
        "baseline", JSONValue.format(r.baseline), isMeans ? NumberText.fixed(r.baseline, 4) : NumberText.percent(r.baseline, decimals: 2),
        false
      ),
      (
        isMeans ? "meanDifference" : "treatmentRate", JSONValue.format(r.effect),
        isMeans ? NumberText.fixed(r.effect, 4) : NumberText.percent(r.effect, decimals: 2), r.solvedFor == .effect
      ),
      ("absoluteEffect", JSONValue.format(r.absoluteEffect), NumberText.fixed(r.absoluteEffect, 4), false),
      ("relativeEffect", CSVWriter.number(r.relativeEffect), r.relativeEffect.map { NumberText.percent($0) } ?? "n/a", false),
      ("standardizedEffect", JSONValue.format(r.standardizedEffect), NumberText.fixed(standardized(r, isMeans: isMeans), 4), false),
      ("alpha", JSONValue.format(r.alpha), NumberText.fixed(r.alpha, 4), r.solvedFor == .alpha),
      ("power", JSONValue.format(r.power), NumberText.percent(r.power, decimals: 1), r.solvedFor == .power),
      ("treatmentUsers", JSONValue.format(r.sampleSize), NumberText.grouped(r.sampleSize, rounding: .up), r.solvedFor == .sampleSize),
      ("controlUsers", JSONValue.format(r.controlSampleSize), NumberText.grouped(r.controlSampleSize, rounding: .up), false),
      ("totalUsers", String(r.totalUsers), NumberText.grouped(r.totalUsers), false),
      ("ratio", JSONValue.format(r.ratio), JSONValue.format(r.ratio), false),
    ]
    if let usersPerDay { rows.append(("usersPerDay", String(usersPerDay), NumberText.grouped(usersPerDay), false)) }
    if let days { rows.append(("days", String(days), String(days), false)) }
    return rows
  }

  /// The standardized effect a reader is shown: Cohen's d for means; Cohen's h, `2 asin √p₁ − 2 asin √p₀`,
  /// for proportions, whatever the method (the normal methods' own `standardizedEffect` is the absolute
  /// difference, which the table already shows).
  static func standardized(_ r: PowerAnalysis.Result, isMeans: Bool) -> Double {
    isMeans ? r.standardizedEffect : PowerAnalysis.cohensH(r.effect, r.baseline)
  }

  /// A quantity's name for a reader (Markdown, HTML); CSV and JSON keep the field name. The standardized
  /// effect is named after its measure: `Cohen's d` for means (`isMeans`), `Cohen's h` for proportions.
  static func label(_ quantity: String, isMeans: Bool) -> String {
    let labels = [
      "baseline": "baseline", "treatmentRate": "treatment rate", "meanDifference": "mean difference",
      "absoluteEffect": "absolute effect", "relativeEffect": "relative effect",
      "standardizedEffect": isMeans ? "standardized effect (Cohen's d)" : "standardized effect (Cohen's h)",
      "alpha": "α", "treatmentUsers": "users in treatment", "controlUsers": "users in control", "totalUsers": "users in total",
      "ratio": "control : treatment", "usersPerDay": "users per day", "days": "duration (days)",
    ]
    return labels[quantity] ?? quantity
  }

  /// Columns `quantity,value,solved`: each quantity's exact value (shortest round-trip text) and whether it
  /// is the one solved for. `usersPerDay` and `days` add their rows when given; `isMeans` names the effect row
  /// `meanDifference` instead of `treatmentRate`.
  package static func csv(
    _ r: PowerAnalysis.Result, isMeans: Bool, usersPerDay: Int?, days: Int?, sequential: GroupSequentialPlan? = nil
  ) -> String {
    var csv = CSVWriter(header: ["quantity", "value", "solved"])
    for row in rows(r, isMeans: isMeans, usersPerDay: usersPerDay, days: days) { csv.add([row.0, row.1, row.3 ? "true" : "false"]) }
    for row in sequential.map(sequentialCSVRows) ?? [] { csv.add(row) }
    return csv.text
  }

  /// The quantities as a Markdown table with readable names and values (percent, grouped user counts
  /// rounded up), the solved one marked `← solved`.
  package static func markdown(
    _ r: PowerAnalysis.Result, isMeans: Bool, usersPerDay: Int?, days: Int?, sequential: GroupSequentialPlan? = nil
  ) -> String {
    var out =
      "## Power analysis\n\n**\(headline(r, isMeans: isMeans, usersPerDay: usersPerDay, days: days, sequential: sequential))**\n\n"
      + RunMarkdownRenderer.header(["quantity", "value", "solved"], right: [1])
    for row in rows(r, isMeans: isMeans, usersPerDay: usersPerDay, days: days) {
      out += RunMarkdownRenderer.row([label(row.0, isMeans: isMeans), row.2, row.3 ? "← solved" : ""])
    }
    if let sequential { out += sequentialMarkdown(sequential) }
    return out
  }

  /// The quantity a power analysis solved for, in words: `the sample size`, `the effect`, …
  static func solvedWords(_ u: PowerAnalysis.Unknown) -> String {
    switch u {
    case .sampleSize: "the sample size"
    case .effect: "the minimal detectable effect"
    case .power: "the power"
    case .alpha: "the significance level"
    }
  }

  /// The design as a table and, when given, the power curve around it.
  package static func html(
    _ r: PowerAnalysis.Result, isMeans: Bool, usersPerDay: Int?, days: Int?, curve: PowerCurve? = nil,
    sequential: GroupSequentialPlan? = nil
  ) -> String {
    var doc = HTMLDocument(title: "FunnelLab · power analysis")
    doc.heading(1, "Power analysis")
    doc.decision(headline(r, isMeans: isMeans, usersPerDay: usersPerDay, days: days, sequential: sequential))
    doc.paragraph("\(r.method) · \(Vocabulary.word(r.alternative)) · solved for \(solvedWords(r.solvedFor)).", cssClass: "note")
    doc.table(
      ["quantity", "value", "solved"],
      rows(r, isMeans: isMeans, usersPerDay: usersPerDay, days: days).map {
        [label($0.0, isMeans: isMeans), $0.2, $0.3 ? "← solved" : ""]
      },
      right: [1], caption: "Design")
    if let curve, !curve.points.isEmpty {
      doc.heading(2, "Power by sample size")
      let points = curve.points.map { (x: $0.usersPerArm, y: $0.power) }
      let chart = SVGCharts.curve(
        points, marked: (curve.design.usersPerArm, curve.design.power),
        markedLabel:
          "design: \(NumberText.grouped(curve.design.usersPerArm, rounding: .up)) users, \(NumberText.percent(curve.design.power, decimals: 0))",
        target: curve.design.power, xLabel: "users in the treatment arm",
        xText: { NumberText.grouped($0, rounding: .toNearestOrAwayFromZero) })
      doc.beginCharts()
      doc.chart(
        kind: "power", title: "Power against users per treatment arm, same effect and alpha",
        description: points.map {
          "\(NumberText.grouped($0.x, rounding: .toNearestOrAwayFromZero)) users: power \(NumberText.percent($0.y))"
        }.joined(
          separator: "; ")
          + ".", width: SVGCharts.width, height: chart.height, content: chart.content)
      doc.endCharts()
      doc.table(
        ["users per treatment arm", "power"],
        curve.points.map { [NumberText.grouped($0.usersPerArm, rounding: .toNearestOrAwayFromZero), NumberText.percent($0.power)] },
        right: [1],
        caption: "The curve's points")
    }
    if let sequential { sequentialHTML(sequential, into: &doc) }
    return doc.html
  }
}
