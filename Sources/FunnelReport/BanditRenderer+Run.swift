package import FunnelLab
import FunnelStats

/// Renders a bandit run on the flow (`run --mode bandit`): its shares by day, what it would ship,
/// what it cost and its estimates beside the exact truth.
extension BanditRenderer {
  /// What the run was.
  static func setup(_ a: AdaptiveRun) -> [String] {
    let r = a.run
    return [
      "\(Vocabulary.plural(r.variants.count, "arm")) · \(Vocabulary.plural(a.usersPerDay, "user")) a day for \(Vocabulary.plural(a.shares.count, "day")) · seed \(r.seed)"
        + " · \(a.allocation.policy.label), shares updated once a day from \(a.metric.label) so far, \(Vocabulary.plural(a.allocation.burnInDays, "burn-in day"))"
        + " at an equal split, every arm kept at ≥ \(pct(a.allocation.minimumShare, a.allocation.minimumShare < 0.001 ? 2 : 1)).",
      "Every user walks the flow of the arm its hash gives against that day's shares; exact values come from the exact engine.",
    ]
  }

  /// The shares by day, with the leader and its probability of being best before the day.
  static func shareTable(_ a: AdaptiveRun) -> Table {
    let ids = a.run.variants.map(\.variant.id)
    let rows = a.shares.enumerated().map { d, shares -> [String] in
      let best = a.probabilityBest[safe: d] ?? []
      let leader = best.indices.max { best[$0] < best[$1] }
      let tied = best.allSatisfy { $0 == best.first }
      let leaderText: String = leader.flatMap { tied ? nil : "\(ids[$0]) (\(pct(best[$0])))" } ?? "—"
      return [String(d + 1)] + shares.map { pct($0) } + [leaderText]
    }
    return Table(
      title: "Share of each day's users, and the arm most likely to be best before the day", headers: ["day"] + ids + ["leader (P best)"],
      rows: rows)
  }

  /// Per arm: counts, the naive and weighted rates, the exact rate and the final probability of being best.
  static func armTable(_ t: BanditTimeline) -> Table {
    Table(
      title: "Per arm over every day",
      headers: ["arm", "users", t.metric.label, "naive rate", "weighted rate", "exact rate", "P(best) at the end"],
      rows: t.arms.map { arm in
        [
          arm.id, NumberText.grouped(arm.users), NumberText.grouped(arm.successes), pct(arm.naiveRate, 2), pct(arm.weightedRate, 2),
          pct(arm.exactRate, 2), pct(arm.probabilityBest),
        ]
      })
  }

  /// Per non-control arm: naive and weighted differences with the exact one.
  static func differenceTable(_ t: BanditTimeline) -> Table {
    let level = NumberText.level(alpha: 1 - t.level)
    return Table(
      title: "Difference with \(t.arms.first?.id ?? "the control"): naive (biased under adaptive allocation) and inverse-propensity"
        + " (unbiased; its normal interval is approximate)",
      headers: ["arm", "naive Δ", "weighted Δ", "≈\(level) CI (weighted)", "true Δ", "CI covers truth", "its coverage (measured)"],
      rows: t.differences.map { d in
        let ci = d.weightedInterval
        let covers = d.exact.map { ci.lower <= $0 && $0 <= ci.upper ? "yes" : "no" } ?? "n/a"
        return [
          d.id, NumberText.points(d.naive, decimals: 3), NumberText.points(d.weighted, decimals: 3),
          "[\(NumberText.points(ci.lower, decimals: 3)), \(NumberText.points(ci.upper, decimals: 3))]",
          NumberText.points(d.exact, decimals: 3),
          covers, pct(d.measuredCoverage, 1),
        ]
      })
  }

  /// The run's conclusions in words: what it decided (``decisionSentences(_:)``), then how to read its estimates.
  static func sentences(_ t: BanditTimeline) -> [String] { decisionSentences(t) + methodSentences(t) }

  /// Whether the arm the run ships is the right decision by the truth (``DecisionRule/design(_:)``:
  /// best, or within the margin of the best); `nil` when the truth is not known.
  static func shipsTheBest(_ t: BanditTimeline) -> Bool? {
    DecisionRule.design(t).map { $0.kind == .right }
  }

  /// What the run decided, against the truth, and what it cost: the report's first lines, led
  /// by a wrong call by the truth when there is one (``DecisionRule/design(_:)``).
  static func decisionSentences(_ t: BanditTimeline) -> [String] {
    let design = DecisionRule.design(t)
    let metric = DecisionSummary.Metric(
      id: t.metric.rawValue, label: t.metric.label, higherIsBetter: t.metric.higherIsBetter, relativeMargin: t.relativeMargin)
    var out = design.flatMap { DecisionSummaryRenderer.design($0, metric: metric, control: t.arms.first?.id ?? "") }.map { [$0] } ?? []
    let shipped = t.arms.first { $0.id == t.shippedArm }
    let threshold = pct(BanditSimulation.defaultDecisionThreshold, 0)
    var ship =
      t.decided
      ? "At the end it is decided: \(t.shippedArm) is best with probability \(pct(shipped?.probabilityBest)) (≥ \(threshold))"
      : "At the end it is not decided (no arm has a \(threshold) probability of being best); shipping now it would pick the leader, \(t.shippedArm)"
        + " (\(pct(shipped?.probabilityBest)))"
    switch design?.kind {
    case .right?:
      ship +=
        ": " + Tone.good.mark("right")
        + " by the truth (no arm beats it by more than the \(DecisionSummaryRenderer.margin(metric)) margin)."
    case _?: ship += ": " + Tone.bad.mark("wrong") + " by the truth (above)."
    case nil: ship += "."
    }
    out.append(ship)
    if let regret = t.regret, let equal = t.equalSplitRegret, let best = t.bestArm {
      out.append(
        "It lost \(NumberText.grouped(regret, rounding: .toNearestOrAwayFromZero)) expected \(Vocabulary.outcomes(t.metric)) (\(t.metric.label)) against showing \(best)"
          + " to every user; an equal split of the same users would have lost \(NumberText.grouped(equal, rounding: .toNearestOrAwayFromZero))."
      )
    }
    return out
  }

  /// How to read the run's estimates: the naive rates' bias, the interval's measured coverage.
  static func methodSentences(_ t: BanditTimeline) -> [String] {
    var out: [String] = []
    out.append(
      "Adaptive shares bias the naive rates (an arm unlucky early is shown less); the inverse-propensity estimate weights each day's"
        + " successes by 1 / that day's share and is unbiased. Use it, not the naive one, to report a bandit's effect.")
    if let worst = t.differences.compactMap(\.measuredCoverage).min() {
      out.append(
        "Its interval is approximate: over \(NumberText.grouped(BanditTimeline.coverageReplicates)) replicates of this design"
          + " at the exact rates it covered the exact difference \(pct(worst, 1)) of the time at worst, against a nominal"
          + " \(pct(t.level, 0)).")
    }
    return out
  }

  /// The terminal report of a bandit run.
  package static func table(_ a: AdaptiveRun, timeline t: BanditTimeline) -> String {
    var out = "\(a.run.experiment) · bandit run on \(t.metric.label)\n\n"
    out += decisionSentences(t).joined(separator: "\n") + "\n\n"
    for line in setup(a) { out += line + "\n" }
    for table in [shareTable(a), armTable(t), differenceTable(t)] {
      out += "\n" + table.title + "\n"
      var text = TextTable(table.headers, alignments: [.left] + Array(repeating: .right, count: table.headers.count - 1))
      for row in table.rows { text.add(row) }
      out += text.render()
    }
    out += "\n" + methodSentences(t).joined(separator: "\n") + "\n"
    return out
  }

  /// The bandit run as Markdown.
  package static func markdown(_ a: AdaptiveRun, timeline t: BanditTimeline) -> String {
    var out = "## Bandit run: \(RunMarkdownRenderer.cell(a.run.experiment)), \(t.metric.label)\n\n"
    out += decisionSentences(t).map { "**\(Tone.render($0, color: false))**" }.joined(separator: "\n\n") + "\n\n"
    out += setup(a).joined(separator: "\n\n") + "\n"
    for table in [shareTable(a), armTable(t), differenceTable(t)] {
      out += "\n**\(table.title)**\n\n" + RunMarkdownRenderer.header(table.headers, right: Set(1..<table.headers.count))
      for row in table.rows { out += RunMarkdownRenderer.row(row) }
    }
    return out + "\n" + methodSentences(t).map { "- " + $0 }.joined(separator: "\n") + "\n"
  }

  /// The bandit run as a page: the conclusions, the shares by day as a chart, the tables.
  package static func html(_ a: AdaptiveRun, timeline t: BanditTimeline) -> String {
    var doc = HTMLDocument(title: "FunnelLab · bandit run · \(a.run.experiment)")
    doc.heading(1, "Bandit run: \(a.run.experiment)")
    let decision = decisionSentences(t)
    doc.decision(decision.first ?? "", lines: Array(decision.dropFirst()))
    for line in setup(a) { doc.paragraph(line, cssClass: "note") }
    let ids = a.run.variants.map(\.variant.id)
    let series = ids.indices.map { i in
      SVGCharts.CurveSeries(
        name: ids[i],
        points: a.shares.indices.map { d in (Double(d + 1), 100 * a.shares[d][i], 100 * a.shares[d][i], 100 * a.shares[d][i], nil) })
    }
    doc.curves(
      series, scale: ChartScale(lower: 0, upper: 100, step: 20, unit: "%", signed: false), axisTitle: "share of the day's users",
      dayTitle: "day of the test", title: "Share of users by day",
      description: ids.indices.map { "\(ids[$0]): \(pct(a.shares.last?[safe: $0])) on day \(a.shares.count)" }.joined(separator: "; ")
        + ".")
    for table in [armTable(t), differenceTable(t), shareTable(a)] {
      doc.heading(2, table.title)
      doc.table(table.headers, table.rows, right: Set(1..<table.headers.count))
    }
    return doc.html
  }

  /// One row per day and arm: `day,arm,share,probability_best_before,probability_best_after,cumulative_users,cumulative_successes`
  /// (the probability of being best from the data before the day, then after it).
  package static func csv(_ a: AdaptiveRun) -> String {
    var w = CSVWriter(header: [
      "day", "arm", "share", "probability_best_before", "probability_best_after", "cumulative_users", "cumulative_successes",
    ])
    for (d, aggregates) in a.cumulative.enumerated() {
      guard case .proportions(let counts)? = MetricAnalysis.data(a.metric, aggregates) else { continue }
      for (i, run) in a.run.variants.enumerated() {
        w.add([
          String(d + 1), run.variant.id, CSVWriter.number(a.shares[safe: d]?[safe: i]),
          CSVWriter.number(a.probabilityBest[safe: d]?[safe: i]),
          String(counts[i].trials), String(counts[i].successes),
        ])
      }
    }
    return w.text
  }

  /// The bandit run as JSON (`command` `"run"`, `mode` `"bandit"`).
  package static func json(_ a: AdaptiveRun, timeline t: BanditTimeline) -> String {
    func opt(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    let head = JSONReportHead(schemaVersion: schemaVersion, command: "run", experiment: a.run.experiment, mode: "bandit", seed: a.run.seed)
    let policy = a.allocation
    return JSONWriter.write(
      head.document([
        (
          "summary",
          .object([
            ("shippedArm", .string(t.shippedArm)), ("decided", .bool(t.decided)), ("bestArm", t.bestArm.map { .string($0) } ?? .null),
            ("shipsTheBest", shipsTheBest(t).map { .bool($0) } ?? .null),
            ("design", DecisionRule.design(t).map(DecisionSummaryRenderer.design) ?? .null), ("regret", opt(t.regret)),
            ("equalSplitRegret", opt(t.equalSplitRegret)),
          ])
        ),
        ("metric", .string(t.metric.rawValue)), ("usersPerDay", .integer(a.usersPerDay)), ("days", .integer(a.shares.count)),
        (
          "policy",
          .object([
            ("name", .string(policy.policy.name)), ("label", .string(policy.policy.label)), ("minimumShare", .number(policy.minimumShare)),
            ("burnInDays", .integer(policy.burnInDays)),
          ])
        ),
        ("sharesByDay", .array(a.shares.map { .array($0.map { .number($0) }) })),
        ("probabilityBestByDay", .array(a.probabilityBest.map { .array($0.map { .number($0) }) })),
        (
          "arms",
          .array(
            t.arms.map { arm in
              .object([
                ("id", .string(arm.id)), ("users", .integer(arm.users)), ("successes", .integer(arm.successes)),
                ("naiveRate", opt(arm.naiveRate)), ("weightedRate", .number(arm.weightedRate)), ("exactRate", opt(arm.exactRate)),
                ("probabilityBest", .number(arm.probabilityBest)),
              ])
            })
        ),
        (
          "differences",
          .array(
            t.differences.map { d in
              .object([
                ("id", .string(d.id)), ("naive", opt(d.naive)), ("weighted", .number(d.weighted)),
                ("weightedStandardError", .number(d.weightedStandardError)),
                ("weightedInterval", .array([.number(d.weightedInterval.lower), .number(d.weightedInterval.upper)])),
                ("exact", opt(d.exact)), ("weightedIntervalCoverage", opt(d.measuredCoverage)),
              ])
            })
        ),
        ("level", .number(t.level)), ("shippedArm", .string(t.shippedArm)), ("decided", .bool(t.decided)),
        ("bestArm", t.bestArm.map { .string($0) } ?? .null),
        ("regret", opt(t.regret)), ("equalSplitRegret", opt(t.equalSplitRegret)),
      ]))
  }
}
