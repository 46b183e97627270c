package import FunnelLab
import FunnelStats

/// Renders a ``BanditComparison``: "bandit or A/B test?" for one spec, in every format.
package enum BanditRenderer {
  /// The `schemaVersion` written by ``json(_:)`` (docs/json-output.md).
  package static let schemaVersion = 1

  /// A titled table shared by the text formats.
  struct Table {
    var title: String
    var headers: [String]
    var rows: [[String]]
  }

  static func pct(_ x: Double?, _ d: Int = 1) -> String { NumberText.percent(x, decimals: d) }

  /// `mean ± SE` of a tally, in whole conversions.
  static func conversions(_ m: BanditSimulation.Moments) -> String {
    guard let mean = m.mean else { return "n/a" }
    return NumberText.grouped(mean, rounding: .toNearestOrAwayFromZero)
      + (m.standardError.map { " ± " + NumberText.grouped($0, rounding: .up) } ?? "")
  }

  /// A share of replicates.
  static func share(_ count: Int, _ c: BanditComparison) -> Double { c.share(count) }

  /// The bandit's mean share of each arm on each day.
  static func sharesByDay(_ c: BanditComparison) -> [[Double]] { c.sharesByDay }

  /// The lines above the tables: what was simulated.
  static func setup(_ c: BanditComparison) -> [String] {
    let d = c.design
    let a = d.allocation
    return [
      "\(Vocabulary.plural(c.arms.count, "arm")) · \(Vocabulary.plural(d.usersPerDay, "user")) a day · \(Vocabulary.plural(d.days, "test day")), then \(Vocabulary.plural(d.horizonDays, "day")) with the shipped arm for everyone"
        + " · \(NumberText.grouped(c.counts.replicates)) replicates drawn from the exact rates · seed \(c.seed)",
      "Bandit: \(a.policy.label), weights updated once a day from the data so far, \(Vocabulary.plural(a.burnInDays, "burn-in day")) at an equal split,"
        + " every arm kept at ≥ \(pct(a.minimumShare, a.minimumShare < 0.001 ? 2 : 1)); it ships the arm most likely to be best at the end;"
        + " 'decided on' is the first day one arm's probability of being best reaches \(pct(d.decisionThreshold, 0)).",
      "Fixed test: an equal split for the same days, each arm against \(c.arms[0]) by the pooled z-test at α \(JSONValue.format(d.alpha))"
        + (c.arms.count > 2 ? " / \(c.arms.count - 1) (Bonferroni)" : "")
        + "; it ships the significantly better arm with the best rate, else keeps \(c.arms[0]).",
    ]
  }

  /// The two designs side by side.
  static func designTable(_ c: BanditComparison) -> Table {
    let k = c.counts
    let decided =
      k.banditDecided > 0
      ? "day \(NumberText.fixed(Double(k.banditDecisionDays) / Double(k.banditDecided), 1)) (mean); \(pct(share(k.banditDecided, c), 0)) by day \(c.design.days)"
      : "not by day \(c.design.days)"
    return Table(
      title:
        "Bandit or A/B test? Expected \(Vocabulary.outcomes(c.metric)) (\(c.metric.label)) lost against showing the best arm (\(c.bestArm)) to everyone,"
        + " mean ± one Monte Carlo SE",
      headers: [
        "design", "lost during the test", "lost incl. \(Vocabulary.plural(c.design.horizonDays, "day")) after", "ships a worse arm",
        "decided on",
      ],
      rows: [
        [
          "fixed A/B test", conversions(k.fixedRegret), conversions(k.fixedTotalRegret), pct(share(k.fixedWrongShips, c)),
          "day \(c.design.days) (planned)",
        ],
        ["bandit", conversions(k.banditRegret), conversions(k.banditTotalRegret), pct(share(k.banditWrongShips, c)), decided],
      ])
  }

  /// Per arm: the truth, the bandit's shares and both estimates, and each test's significance.
  static func armTable(_ c: BanditComparison) -> Table {
    let shares = sharesByDay(c).last ?? []
    let rows = c.arms.indices.map { i -> [String] in
      let truth = c.trueDifferences[i]
      func estimate(_ m: BanditSimulation.Moments) -> [String] {
        guard i > 0, let mean = m.mean else { return ["—", "—"] }
        return [
          NumberText.points(mean, decimals: 3),
          NumberText.points(mean - truth, decimals: 3) + (m.standardError.map { " ± " + NumberText.fixed($0 * 100, 3) } ?? ""),
        ]
      }
      return [c.arms[i], pct(c.design.rates[i], 2), i == 0 ? "—" : NumberText.points(truth, decimals: 3), pct(shares[safe: i])]
        + estimate(c.counts.naiveDifference[i]) + estimate(c.counts.weightedDifference[i])
        + [i == 0 ? "—" : pct(share(c.counts.naiveSignificant[i], c)), i == 0 ? "—" : pct(share(c.counts.fixedSignificant[i], c))]
    }
    return Table(
      title: "Per arm: exact rate and difference with \(c.arms[0]); the bandit's share on its last day; its naive and inverse-propensity"
        + " estimates of the difference (mean over replicates, bias ± SE); how often each test called the difference significant"
        + " (the bandit's naive z-test at α, the fixed test at its Bonferroni level)",
      headers: [
        "arm", "exact rate", "true Δ", "bandit share, last day", "naive Δ", "naive bias", "weighted Δ", "weighted bias",
        "bandit, naive p < \(JSONValue.format(c.design.alpha))",
        "fixed, p < \(SequentialRenderer.alphaText(c.design.alpha / Double(max(c.arms.count - 1, 1))))",
      ],
      rows: rows)
  }

  /// The bandit's mean share of each arm, day by day.
  static func dayTable(_ c: BanditComparison) -> Table {
    Table(
      title: "The bandit's mean share of each arm by day (over replicates)", headers: ["day"] + c.arms,
      rows: sharesByDay(c).enumerated().map { day, shares in [String(day + 1)] + shares.map { pct($0) } })
  }

  /// The conclusions in words.
  static func sentences(_ c: BanditComparison) -> [String] {
    let k = c.counts
    var out: [String] = []
    if let (bandit, fixed, gap, se, who) = c.regretComparison {
      let winner =
        switch who {
        case .neither: "neither design loses clearly fewer (the gap is within 2 SE)"
        case .bandit: "the bandit loses fewer"
        case .fixed: "the fixed test loses fewer"
        }
      out.append(
        "Over the test and the \(Vocabulary.plural(c.design.horizonDays, "day")) after it, the bandit loses \(NumberText.grouped(bandit, rounding: .toNearestOrAwayFromZero)) \(Vocabulary.outcomes(c.metric))"
          + " and the fixed test \(NumberText.grouped(fixed, rounding: .toNearestOrAwayFromZero)): \(winner)"
          + " (\(NumberText.grouped(gap, rounding: .toNearestOrAwayFromZero)) ± \(NumberText.grouped(se, rounding: .up))).")
    }
    out.append(
      "The bandit ships a worse arm than \(c.bestArm) in \(pct(share(k.banditWrongShips, c))) of replicates, the fixed test in \(pct(share(k.fixedWrongShips, c)))."
    )
    let naiveBiased = c.biasedArms(k.naiveDifference)
    if !naiveBiased.isEmpty {
      out.append(
        "The bandit's naive differences are biased beyond 3 SE for \(naiveBiased.map { c.arms[$0] }.joined(separator: ", ")); report a bandit's effect"
          + " with the inverse-propensity estimate, which is unbiased by construction.")
    }
    let weightedBiased = c.biasedArms(k.weightedDifference)
    if !weightedBiased.isEmpty {
      out.append(
        "The inverse-propensity differences also miss the truth by over 3 SE for \(weightedBiased.map { c.arms[$0] }.joined(separator: ", "))"
          + " (1 check in 370 does by chance; more replicates tell).")
    }
    let nothingToShip = c.design.rates.dropFirst().allSatisfy { $0 <= (c.design.rates.first ?? 0) }
    if let h = c.holdout {
      out.append(
        "A \(pct(h.share, 0)) holdout kept on \(c.arms[0]) for \(Vocabulary.plural(c.design.horizonDays, "day")) after shipping \(h.shippedArm)"
          + " (\(Vocabulary.plural(h.holdoutUsers, "user")) against \(NumberText.grouped(h.shippedUsers))) detects its exact effect with power \(pct(h.power))"
          + (h.minimumDetectableEffect.map {
            "; the smallest difference it detects with 80% power is \(NumberText.points($0, decimals: 2))"
          } ?? "") + ".")
    } else if nothingToShip {
      out.append("No variant beats \(c.arms[0]) exactly: there is nothing to ship and no holdout to plan.")
    } else if let share = c.holdoutShare {
      out.append(
        "A \(pct(share, 0)) holdout over \(Vocabulary.plural(c.design.horizonDays, "day")) has too few users on one side (or too many for the power formula)"
          + " to plan: no holdout power is given.")
    }
    return out
  }

  /// The tables in their order.
  static func tables(_ c: BanditComparison) -> [Table] { [designTable(c), armTable(c), dayTable(c)] }

  /// The terminal report.
  package static func table(_ c: BanditComparison) -> String {
    var out = "\(c.experiment) · bandit or A/B test on \(c.metric.label)\n\n"
    for s in sentences(c) { out += s + "\n" }
    out += "\n"
    for line in setup(c) { out += line + "\n" }
    for t in tables(c) {
      out += "\n" + t.title + "\n"
      var table = TextTable(t.headers, alignments: [.left] + Array(repeating: .right, count: t.headers.count - 1))
      for row in t.rows { table.add(row) }
      out += table.render()
    }
    return out
  }

  /// The report as Markdown.
  package static func markdown(_ c: BanditComparison) -> String {
    var out = "## Bandit or A/B test? \(RunMarkdownRenderer.cell(c.experiment)), \(c.metric.label)\n\n"
    out += sentences(c).map { "- " + $0 }.joined(separator: "\n") + "\n\n"
    out += setup(c).joined(separator: "\n\n") + "\n"
    for t in tables(c) {
      out += "\n**\(t.title)**\n\n" + RunMarkdownRenderer.header(t.headers, right: Set(1..<t.headers.count))
      for row in t.rows { out += RunMarkdownRenderer.row(row) }
    }
    return out
  }

  /// The report as a self-contained page: the answer, the tables and the bandit's shares by day as a chart.
  package static func html(_ c: BanditComparison) -> String {
    var doc = HTMLDocument(title: "FunnelLab · bandit or A/B test · \(c.experiment)")
    doc.heading(1, "Bandit or A/B test? \(c.experiment)")
    let answer = sentences(c)
    doc.decision(answer.first ?? "", lines: Array(answer.dropFirst()))
    for line in setup(c) { doc.paragraph(line, cssClass: "note") }
    let days = sharesByDay(c)
    let spreads = c.shareSpreadByDay
    let series = c.arms.indices.map { i in
      SVGCharts.CurveSeries(
        name: c.arms[i],
        points: days.indices.map { d in
          let mean = days[d][i]
          let spread = spreads[d][i]
          return (Double(d + 1), 100 * mean, 100 * max(0, mean - spread), 100 * min(1, mean + spread), nil)
        })
    }
    doc.curves(
      series, scale: ChartScale(lower: 0, upper: 100, step: 20, unit: "%", signed: false),
      axisTitle: "share of the day's users (band: ± 1 SD)", dayTitle: "day of the test", title: "The bandit's share of users by day",
      description: c.arms.indices.map { "\(c.arms[$0]): \(pct(days.last?[safe: $0])) on day \(days.count)" }.joined(separator: "; ") + ".")
    for t in tables(c) {
      doc.heading(2, t.title)
      doc.table(t.headers, t.rows, right: Set(1..<t.headers.count))
    }
    return doc.html
  }

  /// One row per design and per arm and day, long format: `section,design,arm,day,statistic,value,standard_error`.
  package static func csv(_ c: BanditComparison) -> String {
    var w = CSVWriter(header: ["section", "design", "arm", "day", "statistic", "value", "standard_error"])
    let k = c.counts
    func moments(_ section: String, _ design: String, _ arm: String, _ statistic: String, _ m: BanditSimulation.Moments) {
      w.add([section, design, arm, "", statistic, CSVWriter.number(m.mean), CSVWriter.number(m.standardError)])
    }
    moments("design", "fixed", "", "regret", k.fixedRegret)
    moments("design", "fixed", "", "total_regret", k.fixedTotalRegret)
    w.add(["design", "fixed", "", "", "wrong_ship_rate", CSVWriter.number(share(k.fixedWrongShips, c)), ""])
    moments("design", "bandit", "", "regret", k.banditRegret)
    moments("design", "bandit", "", "total_regret", k.banditTotalRegret)
    w.add(["design", "bandit", "", "", "wrong_ship_rate", CSVWriter.number(share(k.banditWrongShips, c)), ""])
    w.add(["design", "bandit", "", "", "decided_rate", CSVWriter.number(share(k.banditDecided, c)), ""])
    for (i, arm) in c.arms.enumerated() {
      w.add(["arm", "", arm, "", "exact_rate", CSVWriter.number(c.design.rates[i]), ""])
      guard i > 0 else { continue }
      w.add(["arm", "", arm, "", "true_difference", CSVWriter.number(c.trueDifferences[i]), ""])
      moments("arm", "bandit", arm, "naive_difference", k.naiveDifference[i])
      moments("arm", "bandit", arm, "weighted_difference", k.weightedDifference[i])
      w.add(["arm", "bandit", arm, "", "naive_significant_rate", CSVWriter.number(share(k.naiveSignificant[i], c)), ""])
      w.add(["arm", "fixed", arm, "", "significant_rate", CSVWriter.number(share(k.fixedSignificant[i], c)), ""])
      w.add(["arm", "bandit", arm, "", "weighted_interval_coverage", CSVWriter.number(share(k.weightedCovered[i], c)), ""])
    }
    for (d, shares) in sharesByDay(c).enumerated() {
      for (i, arm) in c.arms.enumerated() { w.add(["day", "bandit", arm, String(d + 1), "mean_share", CSVWriter.number(shares[i]), ""]) }
    }
    return w.text
  }

  /// The report as JSON (`command` `"power"`, `mode` `"bandit"`), every number at full precision.
  package static func json(_ c: BanditComparison) -> String {
    func opt(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    func moments(_ m: BanditSimulation.Moments) -> JSONValue { .object([("mean", opt(m.mean)), ("standardError", opt(m.standardError))]) }
    let k = c.counts
    let a = c.design.allocation
    let head = JSONReportHead(schemaVersion: schemaVersion, command: "power", experiment: c.experiment, mode: "bandit", seed: c.seed)
    let shares = sharesByDay(c)
    return JSONWriter.write(
      head.document([
        ("metric", .string(c.metric.rawValue)), ("alpha", .number(c.design.alpha)), ("usersPerDay", .integer(c.design.usersPerDay)),
        ("days", .integer(c.design.days)), ("horizonDays", .integer(c.design.horizonDays)), ("replicates", .integer(k.replicates)),
        (
          "policy",
          .object([
            ("name", .string(a.policy.name)), ("label", .string(a.policy.label)), ("minimumShare", .number(a.minimumShare)),
            ("burnInDays", .integer(a.burnInDays)), ("decisionThreshold", .number(c.design.decisionThreshold)),
          ])
        ),
        ("bestArm", .string(c.bestArm)),
        (
          "fixed",
          .object([
            ("regret", moments(k.fixedRegret)), ("totalRegret", moments(k.fixedTotalRegret)),
            ("wrongShipRate", .number(share(k.fixedWrongShips, c))),
          ])
        ),
        (
          "bandit",
          .object([
            ("regret", moments(k.banditRegret)), ("totalRegret", moments(k.banditTotalRegret)),
            ("wrongShipRate", .number(share(k.banditWrongShips, c))), ("decidedRate", .number(share(k.banditDecided, c))),
            ("meanDecisionDay", k.banditDecided > 0 ? .number(Double(k.banditDecisionDays) / Double(k.banditDecided)) : .null),
          ])
        ),
        (
          "arms",
          .array(
            c.arms.indices.map { i in
              .object([
                ("id", .string(c.arms[i])), ("exactRate", .number(c.design.rates[i])), ("trueDifference", .number(c.trueDifferences[i])),
                ("lastDayShare", opt(shares.last?[safe: i])), ("averageShare", moments(k.averageWeight[i])),
                ("naiveDifference", i == 0 ? .null : moments(k.naiveDifference[i])),
                ("weightedDifference", i == 0 ? .null : moments(k.weightedDifference[i])),
                ("naiveSignificantRate", i == 0 ? .null : .number(share(k.naiveSignificant[i], c))),
                ("fixedSignificantRate", i == 0 ? .null : .number(share(k.fixedSignificant[i], c))),
                ("weightedCoverage", i == 0 ? .null : .number(share(k.weightedCovered[i], c))),
              ])
            })
        ),
        ("sharesByDay", .array(shares.map { .array($0.map { .number($0) }) })),
        (
          "holdout",
          c.holdout.map { h in
            .object([
              ("share", .number(h.share)), ("shippedArm", .string(h.shippedArm)), ("holdoutUsers", .integer(h.holdoutUsers)),
              ("shippedUsers", .integer(h.shippedUsers)), ("power", .number(h.power)),
              ("minimumDetectableEffect", opt(h.minimumDetectableEffect)),
            ])
          } ?? .null
        ),
      ]))
  }
}
