import FunnelLab
import FunnelStats

/// Realized revenue by day and renewal by period (``LifecycleSummary``) as the tables every
/// human format shows (one column per arm; the terminal, Markdown and HTML differ only in
/// syntax), and as the JSON and CSV values of one arm.
enum LifecycleRenderer {
  /// A table in cells: its title (which says how to read a cell), headers and rows.
  struct Table {
    /// A short name (the HTML caption).
    var caption: String
    /// How to read a cell (the text formats' heading; a note above the HTML table).
    var title: String
    var headers: [String]
    var rows: [[String]]
  }

  /// Renewal periods shown per plan in the human formats; the JSON and CSV hold them all.
  static let shownPeriods = 12

  /// The tables of `arms` (name and summary, the control first): realized revenue per user
  /// by day, and renewal by plan and period when some plan renewed within the horizon.
  /// Empty when no arm sells plans.
  static func tables(_ arms: [(name: String, summary: LifecycleSummary?)], alpha: Double) -> [Table] {
    let present = arms.compactMap { arm in arm.summary.map { (name: arm.name, summary: $0) } }
    guard let first = present.first?.summary else { return [] }
    let level = NumberText.level(alpha: alpha)
    let hasExact = present.contains { $0.summary.revenueByDay.contains { $0.exact != nil } }
    let exactWords = hasExact ? " (exact: the exact engine's, no sampling noise)" : ""
    let revenue = Table(
      caption: "Realized revenue per user by day (\(first.currency))",
      title:
        "Realized revenue per user by day (\(first.currency), net, all users): mean [\(level) CI]\(exactWords); payments made before the day count",
      headers: ["day"] + present.map(\.name),
      rows: first.revenueByDay.indices.map { i in
        [dayLabel(first.revenueByDay[i].day, first)]
          + present.map { arm in arm.summary.revenueByDay.indices.contains(i) ? revenueCell(arm.summary.revenueByDay[i]) : "" }
      })
    guard let renewals = renewalTable(present, level: level, exactWords: exactWords) else { return [revenue] }
    return [revenue, renewals]
  }

  /// Renewal by plan (in the order the arms list them) and period, the first
  /// ``shownPeriods`` of each; `nil` when no plan renewed within the horizon. The exact
  /// renewal is one column when every arm has the same on every row (no variant changed it).
  static func renewalTable(_ arms: [(name: String, summary: LifecycleSummary)], level: String, exactWords: String) -> Table? {
    var keys: [(plan: String, period: Int)] = []
    var plans: [String] = []
    for r in arms.flatMap(\.summary.renewals) {
      if !keys.contains(where: { $0 == (r.plan, r.period) }) { keys.append((r.plan, r.period)) }
      if !plans.contains(r.plan) { plans.append(r.plan) }
    }
    keys.sort { (plans.firstIndex(of: $0.plan) ?? 0, $0.period) < (plans.firstIndex(of: $1.plan) ?? 0, $1.period) }
    let hidden = keys.filter { $0.period > shownPeriods }.count
    keys.removeAll { $0.period > shownPeriods }
    guard !keys.isEmpty else { return nil }
    let more = hidden > 0 ? "; periods after \(shownPeriods) (\(hidden) rows) are in the JSON and CSV" : ""
    let cells = keys.map { key in arms.map { arm in arm.summary.renewals.first { $0.plan == key.plan && $0.period == key.period } } }
    let sharedExact = !exactWords.isEmpty && cells.allSatisfy { row in Set(row.map { $0?.exact }).count == 1 }
    return Table(
      caption: "Renewal by period",
      title:
        "Renewal by period: subscribers who paid a period with the next payment before the horizon, and the share who renewed [\(level) CI]\(exactWords); churn is 1 − renewal\(more)",
      headers: ["plan", "renewal"] + (sharedExact ? ["exact"] : []) + arms.map(\.name),
      rows: zip(keys, cells).map { key, row in
        [key.plan, "\(key.period) → \(key.period + 1)"]
          + (sharedExact ? [NumberText.percent(row.compactMap { $0?.exact }.first)] : [])
          + row.map { $0.map { renewalCell($0, withExact: !sharedExact) } ?? "" }
      })
  }

  /// `7`, `14 (analysis day)`, `365 (horizon)`: a curve day, whole days, with its role.
  static func dayLabel(_ day: Double, _ s: LifecycleSummary) -> String {
    var label = NumberText.fixed(day, 0)
    if day == s.analysisDay { label += " (analysis day)" }
    if day == s.revenueByDay.last?.day { label += " (horizon)" }
    return label
  }

  /// `2.75 [2.69, 2.81] · exact 2.74`.
  static func revenueCell(_ point: LifecycleSummary.RevenueByDay) -> String {
    guard let v = point.estimate.estimate else { return "n/a" }
    var cell = NumberText.fixed(v, 2)
    if let i = point.estimate.interval { cell += " [\(NumberText.fixed(i.lower, 2)), \(NumberText.fixed(i.upper, 2))]" }
    if let exact = point.exact { cell += " · exact \(NumberText.fixed(exact, 2))" }
    return cell
  }

  /// `70.1% [68.2, 72.0] of 712`, then ` · exact 70.0%` when `withExact`.
  static func renewalCell(_ r: LifecycleSummary.Renewal, withExact: Bool) -> String {
    var cell = NumberText.percent(r.estimate.estimate)
    if let i = r.estimate.interval { cell += " [\(NumberText.fixed(i.lower * 100, 1)), \(NumberText.fixed(i.upper * 100, 1))]" }
    cell += " of \(NumberText.grouped(r.eligible))"
    if withExact, let exact = r.exact { cell += " · exact \(NumberText.percent(exact))" }
    return cell
  }

  /// The tables as aligned terminal text, each under its title.
  static func text(_ tables: [Table]) -> String {
    tables.map { t in
      var table = TextTable(t.headers, alignments: t.headers.indices.map { $0 == 0 ? .left : .right })
      for row in t.rows { table.add(row) }
      return t.title + "\n" + table.render()
    }.joined(separator: "\n")
  }

  /// The tables as Markdown, each under its title in italics.
  static func markdown(_ tables: [Table]) -> String {
    tables.map { t in
      "*\(RunMarkdownRenderer.cell(t.title))*\n\n" + RunMarkdownRenderer.header(t.headers, right: Set(1..<t.headers.count))
        + t.rows.map { RunMarkdownRenderer.row($0) }.joined() + "\n"
    }.joined()
  }

  /// The realized-revenue curves of `arms` on one chart, then the tables, under one heading.
  static func html(_ arms: [(name: String, summary: LifecycleSummary?)], alpha: Double, into doc: inout HTMLDocument) {
    let tables = tables(arms, alpha: alpha)
    guard !tables.isEmpty else { return }
    doc.heading(2, "Revenue over time and renewals")
    let series = arms.compactMap { arm in
      arm.summary.map { s in
        SVGCharts.CurveSeries(
          name: arm.name,
          points: s.revenueByDay.compactMap { p in
            p.estimate.estimate.map { m in
              (p.day, m, p.estimate.interval?.lower ?? m, p.estimate.interval?.upper ?? m, p.exact)
            }
          })
      }
    }
    let currency = arms.compactMap(\.summary).first?.currency ?? ""
    let values: [Double] = series.flatMap { s in s.points.flatMap { p -> [Double] in [p.upper, p.exact ?? 0] } }
    doc.curves(
      series, scale: ChartScale.levels(values, unit: currency),
      axisTitle: "net revenue per user earned by the day (\(currency)), \(NumberText.level(alpha: alpha)) bands",
      dayTitle: "days since the purchase screen", title: "Realized revenue per user by day (\(currency))",
      description: arms.compactMap { arm -> String? in
        guard let last = arm.summary?.revenueByDay.last else { return nil }
        return "\(arm.name): \(revenueCell(last)) by day \(NumberText.fixed(last.day, 0))"
      }.joined(separator: "; ") + ".")
    for t in tables {
      doc.paragraph(t.title, cssClass: "note")
      doc.table(t.headers, t.rows, right: Set(1..<t.headers.count), caption: t.caption)
    }
  }

  /// One CSV row of an arm's summary, in the columns both CSV reports share.
  struct CSVRow {
    /// `realized_revenue_by_day` or `renewal_rate`.
    var metric: String
    /// `mean` or `proportion`.
    var kind: String
    var estimate, lower, upper, exact: Double?
    /// Users (revenue) or eligible subscribers (renewal).
    var n: UInt64
    var method: String
    var day: Double?
    var plan: String?
    var period: Int?

    /// The `day`, `plan` and `period` cells that both CSV headers end with.
    var keyCells: [String] { [CSVWriter.number(day), plan ?? "", period.map(String.init) ?? ""] }
  }

  /// The last columns of both CSV reports: where a lifecycle row sits in time.
  static let csvKeyColumns = ["day", "plan", "period"]

  /// One row per curve day and per renewal period (all of them) of an arm.
  static func csvRows(_ s: LifecycleSummary?) -> [CSVRow] {
    guard let s else { return [] }
    let days = s.revenueByDay.map { p in
      CSVRow(
        metric: "realized_revenue_by_day", kind: "mean", estimate: p.estimate.estimate, lower: p.estimate.interval?.lower,
        upper: p.estimate.interval?.upper, exact: p.exact, n: s.users, method: p.estimate.interval?.method ?? "", day: p.day)
    }
    let renewals = s.renewals.map { r in
      CSVRow(
        metric: "renewal_rate", kind: "proportion", estimate: r.estimate.estimate, lower: r.estimate.interval?.lower,
        upper: r.estimate.interval?.upper, exact: r.exact, n: r.eligible, method: r.estimate.interval?.method ?? "",
        plan: r.plan, period: r.period)
    }
    return days + renewals
  }

  /// One arm's summary as JSON: `revenueByDay` (day, perUser, lower, upper, exact) and
  /// `renewals` (plan, period, eligible, renewed, rate, lower, upper, exact); every period.
  static func json(_ s: LifecycleSummary?) -> JSONValue {
    guard let s else { return .null }
    func optional(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    return .object([
      (
        "revenueByDay",
        .array(
          s.revenueByDay.map { p in
            .object([
              ("day", .number(p.day)), ("perUser", optional(p.estimate.estimate)), ("lower", optional(p.estimate.interval?.lower)),
              ("upper", optional(p.estimate.interval?.upper)), ("exact", optional(p.exact)),
            ])
          })
      ),
      (
        "renewals",
        .array(
          s.renewals.map { r in
            .object([
              ("plan", .string(r.plan)), ("period", .integer(r.period)), ("eligible", .integer(r.eligible)),
              ("renewed", .integer(r.renewed)), ("rate", optional(r.estimate.estimate)),
              ("lower", optional(r.estimate.interval?.lower)), ("upper", optional(r.estimate.interval?.upper)),
              ("exact", optional(r.exact)),
            ])
          })
      ),
    ])
  }
}
