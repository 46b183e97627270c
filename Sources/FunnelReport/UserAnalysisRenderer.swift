package import FunnelLab
import FunnelStats

/// Renders a ``UserMetricAnalysis/Report`` (`analyze --users-file`): the decision first,
/// then the primary comparison, the adjusted and unadjusted estimates side by side, the
/// ratio, the arms, the split, the days, and the methods last.
package enum UserAnalysisRenderer {
  /// The `schemaVersion` of ``json(_:)``.
  package static let schemaVersion = 1

  /// A titled table of plain cells (the terminal, Markdown and HTML draw the same ones).
  struct Section {
    var title: String
    var headers: [String]
    var rows: [[String]]
    /// Right-aligned columns.
    var right: Set<Int>
  }

  static func number(_ x: Double?, _ decimals: Int) -> String { x.map { NumberText.fixed($0, decimals) } ?? "n/a" }

  static func difference(_ e: IntervalEstimate?) -> String {
    guard let d = e?.estimate else { return "n/a" }
    guard let i = e?.interval else { return NumberText.signed(d, 3) }
    return NumberText.signed(d, 3) + " [\(NumberText.fixed(i.lower, 3)), \(NumberText.fixed(i.upper, 3))]"
  }

  static func verdict(_ c: UserMetricAnalysis.Comparison) -> String {
    switch c.conclusion {
    case .significant: Vocabulary.word((c.difference.estimate ?? 0) > 0 ? DecisionSummary.Call.wins : .loses)
    case .notSignificant:
      // An interval that excludes 0 beside a call that is not significant: the correction decided.
      Vocabulary.word(DecisionSummary.Call.noDetectableDifference)
        + ((c.difference.interval.map { $0.lower > 0 || $0.upper < 0 } ?? false) ? " (after correction)" : "")
    case .notTested: "not tested"
    case .sampleRatioMismatch: Vocabulary.word(DecisionSummary.Call.doNotTrust)
    }
  }

  static func methodWord(_ p: UserMetricAnalysis.Primary) -> String {
    switch p {
    case .cuped: "CUPED"
    case .welch: "Welch"
    case .ratio: "delta method"
    }
  }

  /// The report's first line after the title: what it compares, how.
  static func subtitle(_ r: UserMetricAnalysis.Report) -> String {
    var text = "Per-user analysis · \(r.metricLabel)"
    if let x = r.columns.covariate { text += " adjusted for \(x)" }
    return text + " · control arm: \(r.control) · α = \(JSONValue.format(r.settings.alpha))"
  }

  /// Each arm against the control on the primary comparison, with the verdict.
  static func primary(_ r: UserMetricAnalysis.Report) -> Section {
    let level = NumberText.level(alpha: r.settings.alpha)
    return Section(
      title: "\(r.metricLabel) against \(r.control) (\(methodWord(r.primary)))",
      headers: ["arm vs \(r.control)", "Δ [\(level) CI]", "lift [\(level) CI]", "p", "adj. p", "verdict"],
      rows: r.comparisons.map { c in
        [
          c.arm, difference(c.difference), NumberText.lift(c.relativeLift), AnalysisRenderer.pValue(c.test.pValue),
          AnalysisRenderer.pValue(c.adjustedPValue), verdict(c),
        ]
      }, right: [1, 2, 3, 4])
  }

  /// With a covariate: the unadjusted difference, CUPED and Lin's regression side by side.
  static func adjustment(_ r: UserMetricAnalysis.Report) -> Section? {
    guard let x = r.columns.covariate else { return nil }
    let rows = r.comparisons.compactMap { c -> [String]? in
      guard let w = c.welch, let cuped = c.cuped, let lin = c.regression else { return nil }
      return [
        c.arm, NumberText.signed(w.difference.estimate ?? 0, 3), NumberText.fixed(w.standardError, 3),
        NumberText.signed(cuped.difference.estimate ?? 0, 3), NumberText.fixed(cuped.standardError, 3),
        NumberText.fixed(cuped.theta, 4), NumberText.percent(cuped.varianceReduction),
        NumberText.signed(lin.difference.estimate ?? 0, 3), NumberText.fixed(lin.standardError, 3),
      ]
    }
    return Section(
      title: "Adjusted for \(x): the same difference three ways",
      headers: ["arm", "Welch Δ", "SE", "CUPED Δ", "SE", "θ", "variance removed", "Lin Δ (HC1)", "SE"], rows: rows,
      right: Set(1..<9))
  }

  /// With a ratio that is not the primary: each arm's ratio against the control's.
  static func ratio(_ r: UserMetricAnalysis.Report) -> Section? {
    guard let num = r.columns.numerator, let den = r.columns.denominator, r.primary != .ratio else { return nil }
    let level = NumberText.level(alpha: r.settings.alpha)
    let rows = r.comparisons.compactMap { c -> [String]? in
      guard let q = c.ratio else { return nil }
      return [
        c.arm, number(q.ratios.last, 2), number(q.ratios.first, 2), difference(q.difference), NumberText.lift(q.relativeLift),
        AnalysisRenderer.pValue(q.test.pValue),
      ]
    }
    return Section(
      title: "\(num)/\(den) (delta method)",
      headers: ["arm vs \(r.control)", "ratio", "control's", "Δ [\(level) CI]", "lift [\(level) CI]", "p"], rows: rows, right: Set(1..<6))
  }

  /// Each arm on its own: users, mean, spread, skewness and whether its normal interval holds.
  static func arms(_ r: UserMetricAnalysis.Report) -> Section {
    var headers = ["arm", "users"]
    if r.columns.metric != nil { headers += ["mean", "SD", "skewness", "normal CI from"] }
    if r.columns.numerator != nil { headers += ["ratio"] }
    let rows = r.arms.map { a in
      var row = [a.name, NumberText.grouped(a.users)]
      if r.columns.metric != nil {
        row += [
          number(a.mean, 2), number(a.standardDeviation, 2), number(a.skewness, 2),
          a.usersForNormalInterval.map { NumberText.grouped($0, rounding: .up) + " users" } ?? "n/a",
        ]
      }
      if r.columns.numerator != nil { row.append(number(a.ratio, 2)) }
      return row
    }
    return Section(title: "Arms", headers: headers, rows: rows, right: Set(1..<headers.count))
  }

  /// The arms whose mean is too skewed for its size (Kohavi's 355·s² rule), in words.
  static func skewNote(_ r: UserMetricAnalysis.Report) -> String? {
    let short = r.arms.filter { a in a.usersForNormalInterval.map { Double(a.users) < $0 } ?? false }
    guard !short.isEmpty else { return nil }
    return "Skewed: "
      + NumberText.list(short.map { "\($0.name) (\(Vocabulary.plural($0.users, "user")), skewness \(number($0.skewness, 1)))" })
      + " \(short.count == 1 ? "has" : "have") fewer users than 355·skewness², below which the normal interval of a mean"
      + " can miss more often than it says: read the intervals with care, or collect more users."
  }

  /// The split: the chi-square check and the anytime-valid one.
  static func split(_ r: UserMetricAnalysis.Report) -> String {
    let s = r.sampleRatio
    let q = r.sequentialSampleRatio
    let looks = q.pValues.count
    var text = "Sample ratio: χ² = \(NumberText.fixed(s.test.statistic, 3)), \(AnalysisRenderer.pEquals(s.test.pValue));"
    text += " anytime-valid \(AnalysisRenderer.pEquals(q.pValue)) over \(Vocabulary.plural(looks, "look"))"
    text +=
      r.mismatch
      ? " — MISMATCH: the arms' sizes do not match the planned allocation; do not trust any verdict."
      : " — no mismatch with the planned allocation."
    return text
  }

  /// The days: users so far and each arm's running difference with its always-valid interval.
  static func days(_ r: UserMetricAnalysis.Report) -> Section? {
    guard !r.looks.isEmpty else { return nil }
    let others = r.comparisons.map(\.arm)
    let level = NumberText.level(alpha: r.settings.alpha)
    var headers = ["day", "users"]
    for arm in others { headers += ["\(arm) Δ", "always-valid \(level) CI"] }
    let rows = r.looks.map { look in
      var row = [look.day, NumberText.grouped(look.users.reduce(0, &+))]
      for s in look.sequences {
        row += [s.map { NumberText.signed($0.estimate, 3) } ?? "n/a", s.map { interval($0.interval) } ?? "n/a"]
      }
      return row
    }
    return Section(
      title: "\(r.metricLabel) day by day (confidence sequence: valid however often you look)", headers: headers, rows: rows,
      right: Set(1..<headers.count))
  }

  static func interval(_ i: ConfidenceInterval) -> String {
    func f(_ x: Double) -> String { x.isFinite ? NumberText.fixed(x, 3) : (x < 0 ? "−∞" : "∞") }
    return "[\(f(i.lower)), \(f(i.upper))]"
  }

  /// The methods, named from the report.
  static func methods(_ r: UserMetricAnalysis.Report) -> [String] {
    var m: [String] = []
    if r.columns.metric != nil { m.append("unadjusted: \(WelchTTest.methodName)") }
    if r.columns.covariate != nil {
      m.append("CUPED: one slope θ = cov(y, x)/var(x) over all users pooled (gbstats), Welch–Satterthwaite t")
      m.append("Lin: OLS of y on [1, T, x − x̄, T·(x − x̄)], HC1 standard error, normal p-value (statsmodels cov_type=\"HC1\")")
    }
    if r.columns.numerator != nil { m.append("ratio: \(RatioMetric.methodName), Welch–Satterthwaite t") }
    m.append("decided on \(methodWord(r.primary)); p-values \(Vocabulary.adjusted(r.settings.correction)); significant when adjusted p ≤ α")
    m.append("lift: Δ over the control's mean, its interval the difference's over that mean")
    m.append("skewness: normal interval trusted from 355·skewness² users (Kohavi et al. 2020)")
    m.append(
      "SRM: chi-square goodness of fit and \(SequentialSampleRatioMismatch.methodName), concentration "
        + "\(JSONValue.format(r.sequentialSampleRatio.concentration)), each flagged at p < 0.001")
    if !r.looks.isEmpty { m.append("day by day: asymptotic confidence sequence on the difference of means (gbstats)") }
    return m
  }

  static func sections(_ r: UserMetricAnalysis.Report) -> [Section] {
    [primary(r)] + [adjustment(r), ratio(r)].compactMap { $0 } + [arms(r)]
  }

  /// The terminal report.
  package static func table(_ r: UserMetricAnalysis.Report) -> String {
    var out = subtitle(r) + "\n\n"
    out += DecisionSummaryRenderer.lead(DecisionSummary(users: r), overTime: nil) + "\n"
    let width = TerminalLayout.current.width ?? 10_000
    func block(_ s: Section) {
      out += s.title.capitalizedFirst + "\n"
      var t = TextTable(s.headers, alignments: s.headers.indices.map { s.right.contains($0) ? .right : .left })
      for row in s.rows { t.add(row) }
      out += t.render() + "\n"
    }
    sections(r).forEach(block)
    for note in [skewNote(r), split(r)].compactMap({ $0 }) {
      out += TextWrap.wrap(note, width: width).joined(separator: "\n") + "\n"
    }
    if let d = days(r) {
      out += "\n"
      block(d)
    } else {
      out += "\n"
    }
    out += TextWrap.wrap("Methods: " + methods(r).joined(separator: "; ") + ".", width: width).joined(separator: "\n") + "\n"
    return out
  }

  /// The report as Markdown.
  package static func markdown(_ r: UserMetricAnalysis.Report) -> String {
    var out = "## Per-user analysis\n\n" + DecisionSummaryRenderer.markdown(DecisionSummary(users: r))
    out += subtitle(r).replacingOccurrences(of: "Per-user analysis · ", with: "").capitalizedFirst + ".\n\n"
    for s in sections(r) + [days(r)].compactMap({ $0 }) {
      out += "### \(s.title.capitalizedFirst)\n\n" + RunMarkdownRenderer.header(s.headers, right: s.right)
      for row in s.rows { out += RunMarkdownRenderer.row(row) }
      out += "\n"
    }
    for note in [skewNote(r), split(r)].compactMap({ $0 }) { out += note + "\n\n" }
    return out + "Methods: " + methods(r).joined(separator: "; ") + ".\n"
  }

  /// A standalone page.
  package static func html(_ r: UserMetricAnalysis.Report) -> String {
    var doc = HTMLDocument(title: "FunnelLab · per-user analysis")
    doc.heading(1, "Per-user analysis")
    DecisionSummaryRenderer.html(DecisionSummary(users: r), into: &doc)
    doc.paragraph(subtitle(r).replacingOccurrences(of: "Per-user analysis · ", with: "").capitalizedFirst + ".", cssClass: "note")
    for s in sections(r) + [days(r)].compactMap({ $0 }) {
      doc.table(
        s.headers, s.rows, right: s.right, wrap: s.headers.last == "verdict" ? [s.headers.count - 1] : [], caption: s.title.capitalizedFirst
      )
    }
    for note in [skewNote(r), split(r)].compactMap({ $0 }) { doc.paragraph(note) }
    doc.methods([methods(r).joined(separator: "; ").capitalizedFirst + "."])
    return doc.html
  }
}
