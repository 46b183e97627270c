package import FunnelLab
package import FunnelStats

/// A running test read day by day (``SequentialAnalysis``) in every format: a table by day
/// (the cumulative lift, the fixed-horizon interval and p-value, the confidence sequence and
/// always-valid p-values, the group-sequential boundary and decision), a sentence per arm
/// with where its test stands, and in HTML a chart of each arm's lift over time.
package enum SequentialRenderer {
  /// How the counts were read and what α each comparison used, stated in every format.
  package struct Context: Sendable {
    /// `daily` (each row a day's own counts, summed here) or `cumulative` (running totals).
    package var counts: String
    /// A sentence on α when it was split over several arms; `nil` for one comparison.
    package var alphaNote: String?
    /// The exact relative lift per arm, when the test was simulated (experiment mode).
    package var truth: [String: Double]
    /// Each arm's conclusion graded against the truth (a ``Verdict``'s words).
    package var verdicts: [String: Verdict]

    /// Creates a context.
    package init(counts: String, alphaNote: String? = nil, truth: [String: Double] = [:], verdicts: [String: Verdict] = [:]) {
      self.counts = counts
      self.alphaNote = alphaNote
      self.truth = truth
      self.verdicts = verdicts
    }

    /// The context of a simulated test: counts are the simulation's daily totals, the truth exact.
    package init(_ timeline: ExperimentTimeline, alphaNote: String?) {
      self.init(
        counts: "simulated cumulative", alphaNote: alphaNote, truth: timeline.trueRelativeLift,
        verdicts: timeline.verdicts)
    }
  }

  /// A look's decision in words; without a planned size the boundary is not defined, so no
  /// look stops or ends the test (``DecisionRule/SequentialArm/State/plannedSizeUnknown``).
  static func decision(_ row: SequentialAnalysis.Row, planned: Bool) -> String {
    let direction = (row.relativeLift ?? 0) > 0 ? "better" : "worse"
    guard planned || row.decision == .notALook else { return Self.plannedSizeUnknown }
    switch row.decision {
    case .continueTest: return "continue"
    case .stopForEfficacy: return "STOP: \(row.arm) \(direction)"
    case .finalSignificant: return "end: \(row.arm) \(direction)"
    case .finalNotSignificant: return "end: no difference shown"
    case .ended: return "(ended)"
    case .notALook: return "not a look"
    }
  }

  /// The state of a test read without a planned size, in words.
  static let plannedSizeUnknown = "planned size unknown"

  /// The decision's identifier in CSV and JSON: the analysis's, or `planned-size-unknown`.
  static func decisionID(_ row: SequentialAnalysis.Row, planned: Bool) -> String {
    planned || row.decision == .notALook ? row.decision.rawValue : "planned-size-unknown"
  }

  static func interval(_ c: ConfidenceInterval?) -> String {
    guard let c else { return "n/a" }
    return "[\(NumberText.bound(c.lower * 100, 1)), \(NumberText.bound(c.upper * 100, 1))]%"
  }

  static func lift(_ x: Double?) -> String {
    guard let x else { return "n/a" }
    return NumberText.signed(x * 100, 1) + "%"
  }

  static func headers(_ r: SequentialAnalysis.Report) -> [String] {
    let level = NumberText.level(alpha: r.settings.alpha)
    return [
      "day", "arm", "users", "rate vs \(r.control)", "lift", "fixed \(level) CI", "p fixed", "info", "|z| / bound", "sequential CI",
      "decision", "conf. sequence", "p always-valid", "p mSPRT",
    ]
  }

  /// The column of the decision, the one text column after the arm.
  static let decisionColumn = 10

  /// The rows as shown: without a planned size, no information fraction, boundary or
  /// sequential CI (the analysis drew them against the last day, which is no plan).
  static func rows(_ r: SequentialAnalysis.Report) -> [SequentialAnalysis.Row] {
    guard r.settings.plannedUsers == nil else { return r.rows }
    return r.rows.map { row in
      var shown = row
      shown.informationFraction = nil
      shown.boundary = nil
      shown.repeatedInterval = nil
      return shown
    }
  }

  static func cells(_ r: SequentialAnalysis.Report) -> [[String]] {
    let planned = r.settings.plannedUsers != nil
    return rows(r).map { row in
      [
        row.day, row.arm, NumberText.grouped(row.users),
        "\(NumberText.percent(row.rate, decimals: 2)) vs \(NumberText.percent(row.controlRate, decimals: 2))", lift(row.relativeLift),
        interval(row.fixedInterval), AnalysisRenderer.pValue(row.fixedPValue),
        row.informationFraction.map { NumberText.percent($0, decimals: 0) } ?? "",
        row.boundary.map { c in "\(row.zStatistic.map { NumberText.fixed(abs($0), 2) } ?? "n/a") / \(NumberText.fixed(c, 2))" } ?? "",
        row.boundary == nil ? "" : interval(row.repeatedInterval), decision(row, planned: planned), interval(row.confidenceSequence),
        AnalysisRenderer.pValue(row.alwaysValidPValue), AnalysisRenderer.pValue(row.msprtPValue),
      ]
    }
  }

  /// Where each arm's test stands after the last day (``DecisionRule/sequentialRead(_:)``), one
  /// sentence each, with the exact lift and the verdict when the test was simulated.
  static func summary(_ r: SequentialAnalysis.Report, context: Context) -> [String] {
    DecisionRule.sequentialRead(r).arms.map { a in
      let sentence = standing(a, r)
      guard let truth = context.truth[a.arm] else { return sentence }
      let verdict = context.verdicts[a.arm].map { "; verdict: \(Vocabulary.word($0))" } ?? ""
      return sentence + " True lift \(lift(truth)) (exact engine)\(verdict)."
    }
  }

  /// Where one arm's test stands after the last day, in one sentence: only a test with a
  /// planned size stops or ends; without one it is running, its planned size unknown.
  static func standing(_ a: DecisionRule.SequentialArm, _ r: SequentialAnalysis.Report) -> String {
    let look = a.look
    let day = look?.day ?? ""
    let crossing =
      "|z| = \(NumberText.fixed(abs(look?.zStatistic ?? 0), 2)) ≥ \(NumberText.fixed(look?.boundary ?? 0, 2)), "
      + "lift \(lift(look?.relativeLift)) (sequential CI \(interval(look?.repeatedInterval)))"
    let alwaysValid =
      "the always-valid p-value is \(AnalysisRenderer.pValue(look?.alwaysValidPValue)) (reject at ≤ \(alphaText(r.settings.alpha)))"
    switch a.state {
    case .stoppedEarly:
      return "\(a.arm): stopped early on day \(day), its boundary crossed: \(crossing)."
    case .crossedAtPlannedSize:
      return "\(a.arm): crossed its boundary at the planned size on day \(day): \(crossing)."
    case .noDifferenceAtPlannedSize:
      return "\(a.arm): reached the planned size on day \(day) without crossing its boundary: no difference shown."
    case .running:
      let share = look?.informationFraction ?? r.design.informationFractions.last
      let z = look?.zStatistic.map { NumberText.fixed(abs($0), 2) } ?? "n/a"
      let bound = look?.boundary.map { " < \(NumberText.fixed($0, 2))" } ?? ""
      return "\(a.arm): continue — \(share.map { NumberText.percent($0, decimals: 0) } ?? "n/a") of the planned users so far, "
        + "lift \(lift(look?.relativeLift)), |z| = \(z)\(bound) (boundary not crossed); \(alwaysValid)."
    case .plannedSizeUnknown:
      return "\(a.arm): running, lift \(lift(look?.relativeLift)) on day \(day) (no boundary without a planned size); \(alwaysValid)."
    }
  }

  /// α as written (`0.05`), or to 4 decimals when it has more (`0.0167` for 0.05/3).
  static func alphaText(_ alpha: Double) -> String {
    let exact = JSONValue.format(alpha)
    return exact.count > 6 ? NumberText.fixed(alpha, 4) : exact
  }

  static func methods(_ r: SequentialAnalysis.Report, _ context: Context) -> String {
    let planned =
      r.settings.plannedUsers.map { "planned users \(NumberText.grouped($0)) (information fraction = users so far / planned)" }
      ?? "planned size unknown: no boundary decides (give --planned-users or --planned-days)"
    let tuning = AsymptoticConfidenceSequence.tuningText(r.settings.tuningParameter)
    let tau = JSONValue.format(r.settings.mixingStandardDeviation)
    let parts: [String] = [
      "Counts read as \(context.counts) totals. Lift = rate/control − 1 with the delta-method SE.",
      "Group-sequential: Lan–DeMets \(r.settings.spending.rawValue) spending, \(planned); the boundary is on |z| = |lift|/SE",
      "and the sequential CI (repeated confidence interval) is lift ± bound·SE. Confidence sequence: Waudby-Smith et al. (2023), n* = \(tuning) (GrowthBook's);",
      "p always-valid is its running minimum. mSPRT: normal mixture on the difference, τ = \(tau).",
      "The fixed CI and p are valid only at the planned end: read every day they reject too often.",
      "Two-sided, α = \(alphaText(r.settings.alpha))",
    ]
    var text = parts.joined(separator: " ")
    text += context.alphaNote.map { " (\($0))." } ?? "."
    return text
  }

  /// The terminal section.
  package static func table(_ r: SequentialAnalysis.Report, context: Context) -> String {
    let h = headers(r)
    var table = TextTable(h, alignments: h.indices.map { [0, 1, decisionColumn].contains($0) ? .left : .right })
    for row in cells(r) { table.add(row) }
    var out = "\nOver time · \(Vocabulary.plural(r.days.count, "day")) · control arm: \(r.control)\n\n" + table.render()
    out += "\n" + summary(r, context: context).joined(separator: "\n") + "\n"
    out += "Methods (over time): " + methods(r, context) + "\n"
    return out
  }

  /// The Markdown section.
  package static func markdown(_ r: SequentialAnalysis.Report, context: Context) -> String {
    let h = headers(r)
    var out = "\n## Over time\n\n"
    out += summary(r, context: context).map { "- \($0)\n" }.joined() + "\n"
    out += RunMarkdownRenderer.header(h, right: Set(2..<h.count).subtracting([decisionColumn]))
    for row in cells(r) { out += RunMarkdownRenderer.row(row) }
    out += "\n" + methods(r, context) + "\n"
    return out
  }

  /// The HTML section: the summary, one chart per arm, the table, the methods.
  package static func html(_ r: SequentialAnalysis.Report, context: Context, into doc: inout HTMLDocument) {
    doc.heading(2, "Over time")
    let sentences = summary(r, context: context)
    for sentence in sentences { doc.paragraph(sentence) }
    let byArm = Dictionary(grouping: rows(r), by: \.arm)
    let arms = r.rows.reduce(into: [String]()) { if !$0.contains($1.arm) { $0.append($1.arm) } }
    let series = arms.map { arm in (arm, points(byArm[arm] ?? [], days: r.days)) }
    let scale = liftScale(series.flatMap(\.1), days: r.days.count, truth: Array(context.truth.values))
    doc.beginCharts()
    let drawn = series.filter { !$0.1.isEmpty }
    for (k, (arm, points)) in drawn.enumerated() {
      if k == 1 { doc.foldRest(drawn.dropFirst().map(\.0), "arm") }
      let stop = (byArm[arm] ?? []).first { $0.decision == .stopForEfficacy && r.settings.plannedUsers != nil }
        .flatMap { r.days.firstIndex(of: $0.day) }
      let chart = SVGCharts.sequentialLift(
        points, scale: scale, lastLook: Double(r.days.count), stopLook: stop.map { Double($0 + 1) },
        truth: context.truth[arm].map { $0 * 100 },
        axisTitle: "lift of \(arm) vs \(r.control) (%); 0 = no difference")
      doc.chart(
        kind: "sequential", title: "\(arm): cumulative lift by day",
        description: sentences.first { $0.hasPrefix("\(arm):") } ?? "", width: SVGCharts.width, height: chart.height,
        content: chart.content)
    }
    doc.endFold()
    doc.endCharts()
    byDay(r, into: &doc)
    doc.paragraph(methods(r, context), cssClass: "note")
  }

  /// The table by day in two: the last day's rows (where each arm stands now, its decisions
  /// verdicts a phone keeps in sight), then the earlier days', a log folded on a phone when
  /// longer than ``HTMLDocument/foldRows`` rows (its decisions are then history, not verdicts:
  /// the verdict is never folded away).
  static func byDay(_ r: SequentialAnalysis.Report, into doc: inout HTMLDocument) {
    let h = headers(r)
    let (right, wrap) = (Set(2..<h.count).subtracting([decisionColumn]), Set([decisionColumn]))
    let all = cells(r)
    guard let last = r.days.last, all.contains(where: { $0.first != last }) else {
      return doc.table(h, all, right: right, wrap: wrap, caption: "By day")
    }
    doc.table(h, all.filter { $0.first == last }, right: right, wrap: wrap, caption: "By day: \(last), the last day")
    let earlier = all.filter { $0.first != last }
    let folds = earlier.count > HTMLDocument.foldRows
    if folds { doc.beginFold("Earlier days · \(Vocabulary.plural(earlier.count, "row"))") }
    doc.table(h, earlier, right: right, wrap: wrap, caption: "By day: earlier days", verdicts: !folds)
    doc.endFold()
  }

  /// Chart points of one arm, in percent; days without a lift are skipped.
  static func points(_ rows: [SequentialAnalysis.Row], days: [String]) -> [SVGCharts.SequentialPoint] {
    rows.compactMap { row in
      guard let lift = row.relativeLift, let fixed = row.fixedInterval, let look = days.firstIndex(of: row.day) else { return nil }
      return SVGCharts.SequentialPoint(
        look: Double(look + 1), lift: lift * 100, fixed: fixed.lower * 100...fixed.upper * 100,
        sequence: row.confidenceSequence.map { $0.lower * 100...$0.upper * 100 },
        boundary: row.boundary.flatMap { c in row.standardError.map { c * $0 * 100 } })
    }
  }

  /// One axis for every arm: the lifts and fixed intervals of all days, the boundaries and
  /// confidence sequences from the second quarter of the days on (the first days' are very
  /// wide and would flatten the rest; they are drawn to the edge).
  static func liftScale(_ points: [SVGCharts.SequentialPoint], days: Int, truth: [Double] = []) -> ChartScale {
    let from = Double(days) / 4
    var values: [Double] = []
    for p in points {
      values += [p.lift, p.fixed.lowerBound, p.fixed.upperBound]
      guard Double(p.look) >= from else { continue }
      if let b = p.boundary { values += [b, -b] }
      if let s = p.sequence { values += [s.lowerBound, s.upperBound] }
    }
    return ChartScale.differences(values + truth.map { $0 * 100 }, unit: "%")
  }

  /// The CSV columns of ``csv(_:)``; lifts and intervals are fractions.
  package static let csvHeader = [
    "day", "arm", "users", "conversions", "rate", "control_rate", "relative_lift", "standard_error", "z", "fixed_lower", "fixed_upper",
    "fixed_p_value", "information_fraction", "boundary", "repeated_lower", "repeated_upper", "decision", "sequence_lower", "sequence_upper",
    "always_valid_p_value", "msprt_p_value",
  ]

  /// One row per day and arm, RFC 4180.
  package static func csv(_ r: SequentialAnalysis.Report) -> String {
    var csv = CSVWriter(header: csvHeader)
    let planned = r.settings.plannedUsers != nil
    for row in rows(r) {
      csv.add([
        row.day, row.arm, String(row.users), String(row.conversions), CSVWriter.number(row.rate), CSVWriter.number(row.controlRate),
        CSVWriter.number(row.relativeLift), CSVWriter.number(row.standardError), CSVWriter.number(row.zStatistic),
        CSVWriter.number(row.fixedInterval?.lower), CSVWriter.number(row.fixedInterval?.upper), CSVWriter.number(row.fixedPValue),
        CSVWriter.number(row.informationFraction), CSVWriter.number(row.boundary), CSVWriter.number(row.repeatedInterval?.lower),
        CSVWriter.number(row.repeatedInterval?.upper), decisionID(row, planned: planned), CSVWriter.number(row.confidenceSequence?.lower),
        CSVWriter.number(row.confidenceSequence?.upper), CSVWriter.number(row.alwaysValidPValue), CSVWriter.number(row.msprtPValue),
      ])
    }
    return csv.text
  }

  /// The `overTime` object of the analysis JSON.
  package static func json(_ r: SequentialAnalysis.Report, context: Context) -> JSONValue {
    let ci = AnalysisRenderer.ci
    let number = AnalysisRenderer.optional
    let planned = r.settings.plannedUsers != nil
    let read = DecisionRule.sequentialRead(r)
    return .object([
      ("counts", .string(context.counts)), ("alpha", .number(r.settings.alpha)), ("spending", .string(r.settings.spending.rawValue)),
      ("plannedUsers", r.settings.plannedUsers.map { .integer($0) } ?? .null), ("reachedPlannedEnd", .bool(planned && r.reachedPlannedEnd)),
      ("tuningParameter", .number(r.settings.tuningParameter)), ("mixingStandardDeviation", .number(r.settings.mixingStandardDeviation)),
      (
        "looks",
        .array(
          zip(r.design.informationFractions, r.design.boundaries).filter { _ in planned }.map { t, c -> JSONValue in
            .object([("informationFraction", .number(t)), ("boundary", .number(c))])
          })
      ),
      (
        "rows",
        .array(
          rows(r).map { row -> JSONValue in
            .object([
              ("day", .string(row.day)), ("arm", .string(row.arm)), ("users", .integer(row.users)),
              ("conversions", .integer(row.conversions)),
              ("rate", number(row.rate)), ("controlRate", number(row.controlRate)), ("relativeLift", number(row.relativeLift)),
              ("standardError", number(row.standardError)), ("zStatistic", number(row.zStatistic)),
              ("fixedInterval", ci(row.fixedInterval)),
              ("fixedPValue", number(row.fixedPValue)), ("informationFraction", number(row.informationFraction)),
              ("boundary", number(row.boundary)), ("repeatedInterval", ci(row.repeatedInterval)),
              ("decision", .string(decisionID(row, planned: planned))),
              ("confidenceSequence", ci(row.confidenceSequence)), ("alwaysValidPValue", number(row.alwaysValidPValue)),
              ("confidenceSequenceAtLook", ci(row.confidenceSequenceAtLook)), ("sequencePValueAtLook", number(row.sequencePValueAtLook)),
              ("msprtPValue", number(row.msprtPValue)),
            ])
          })
      ),
      (
        "arms",
        .array(
          read.arms.map { a -> JSONValue in
            .object([("arm", .string(a.arm)), ("state", .string(a.state.rawValue)), ("day", a.look.map { .string($0.day) } ?? .null)])
          })
      ),
      ("progress", DecisionSummaryRenderer.progressJSON(read.progress)),
      ("summary", .array(summary(r, context: context).map { .string($0) })),
      (
        "truth",
        .array(
          context.truth.keys.sorted().map { arm -> JSONValue in
            .object([
              ("arm", .string(arm)), ("trueRelativeLift", number(context.truth[arm])),
              ("verdict", context.verdicts[arm].map { .string($0.rawValue) } ?? .null),
            ])
          })
      ),
    ])
  }
}
