package import FunnelLab
import FunnelStats

/// Renders a ``FlowInferenceReport`` (`funnellab infer`): whether the inferred spec holds
/// the log first (its predicted completion against the observed one, the first-order test),
/// then the screens, the actions, and the methods.
package enum InferenceRenderer {
  /// The `schemaVersion` of ``json(_:)``.
  package static let schemaVersion = 1

  static func percent(_ x: Double?) -> String { NumberText.percent(x, decimals: 2) }

  static func interval(_ i: ConfidenceInterval) -> String {
    "[\(NumberText.fixed(i.lower * 100, 2)), \(NumberText.fixed(i.upper * 100, 2))]"
  }

  /// The opening sentences: the fit of completion (and purchases), the Markov test, returns,
  /// rare screens.
  static func lead(_ r: FlowInferenceReport, spec: String) -> [String] {
    var out: [String] = []
    let c = r.completion
    let kept = r.screens.count - r.leftOut.count
    var first =
      "Inferred \(Vocabulary.plural(kept, "screen")) and \(Vocabulary.plural(r.actions.count, "action")) from \(Vocabulary.plural(r.users, "user"))"
      + " (spec: \(spec))."
    if let p = r.predictedCompletion {
      let inside = p >= c.interval.lower && p <= c.interval.upper
      first +=
        " The inferred spec predicts completion \(percent(p)); the log shows \(percent(c.rate)) \(interval(c.interval))"
        + (inside ? ", " + Tone.good.mark("within its interval") + "." : ", " + Tone.warning.mark("outside its interval") + ".")
    }
    out.append(first)
    if let window = windowSentence(r) { out.append(window) }
    if let p = r.predictedPurchase, r.purchasers > 0 || p > 0 {
      out.append(
        "Purchase conversion: predicted \(percent(p)), observed \(percent(Double(r.purchasers) / Double(max(r.users, 1))))"
          + " (\(Vocabulary.plural(r.purchasers, "buyer"))).")
    }
    let fails = r.markovFailures
    let tested = r.screens.filter { $0.markov != nil }.count
    if !fails.isEmpty {
      out.append(
        Tone.warning.mark("The first-order (Markov) model fails on \(NumberText.list(fails.map(\.id)))")
          + ": users act differently on a return visit than on their first, which the spec's one probability per action cannot hold.")
    } else if tested > 0 {
      out.append(
        "The first-order (Markov) model holds on the \(Vocabulary.plural(tested, "screen")) users returned to often enough to test.")
    }
    if let drift = driftSentence(r) { out.append(drift) }
    if r.returns > 0 {
      out.append(
        Tone.warning.mark("\(Vocabulary.plural(r.returns, "user")) came back after their walk ended")
          + ": a history the spec cannot hold (their return is read as a new walk).")
    }
    let rare = r.screens.filter(\.tooRare)
    if !rare.isEmpty {
      out.append(
        "Seen too rarely to fit (under \(FlowInferenceReport.minimumViews) views): \(NumberText.list(rare.map(\.id))); their probabilities are guesses."
      )
    }
    if r.segments.count >= 2 {
      let differ = r.segmentTests.filter(\.differ).map(\.screen)
      out.append(
        "\(r.segments.count) segments (\(NumberText.list(r.segments.map { "\($0.id) \(NumberText.grouped($0.users))" })))"
          + (differ.isEmpty
            ? ": they act alike on the \(r.segmentTests.count) screens tested, so the spec gives them the pooled probabilities."
            : ": they act differently on \(NumberText.list(differ)), where the spec gives each segment its own probabilities."))
    }
    if !r.leftOut.isEmpty {
      out.append(
        "Left out of the spec (one start): \(NumberText.list(r.leftOut)), seen only by users who started elsewhere than \(r.screens.first?.id ?? "the start")."
      )
    }
    if r.unfinished > 0 { out.append("\(Vocabulary.plural(r.unfinished, "user")) were still on the way at the end of the log: left out.") }
    return out
  }

  static func screenRows(_ r: FlowInferenceReport) -> (headers: [String], rows: [[String]]) {
    let level = NumberText.level(alpha: r.alpha)
    let headers = ["screen", "kind", "views", "reach [\(level) CI]", "predicted", "dwell median", "Markov p", "drift p"]
    let rows = r.screens.map { s in
      [
        s.id, s.kind, NumberText.grouped(s.views), "\(percent(s.reach)) \(interval(s.reachInterval))", percent(s.predictedReach),
        s.dwellMedian.map { NumberText.seconds($0) } ?? "n/a", s.markov.map { AnalysisRenderer.pValue($0.pValue) } ?? "n/a",
        s.drift.map { AnalysisRenderer.pValue($0.test.pValue) } ?? "n/a",
      ]
    }
    return (headers, rows)
  }

  static func actionRows(_ r: FlowInferenceReport) -> (headers: [String], rows: [[String]]) {
    let headers = ["screen", "action", "kind", "to", "count", "p [\(NumberText.level(alpha: r.alpha)) CI]"]
    let rows = r.actions.map { a in
      [a.screen, a.id, a.kind, a.target, NumberText.grouped(a.count), "\(percent(a.probability)) \(interval(a.interval))"]
    }
    return (headers, rows)
  }

  static let methods = [
    "probabilities: each action's share of the screen's actions in the log (maximum likelihood), Wilson intervals;"
      + " a count includes the failed attempts of an input's type, a task's continue, a purchase or a restore, which stay on the screen",
    "reach: users who viewed a screen out of every walk started (those still on the way at the end of the log included)",
    "graph: each edge's share is its transitions per user (a loop can pass 100%)",
    "prediction: the exact engine on the inferred spec (a first-order Markov chain under a neutral behavior model)",
    "Markov test: chi-square independence of a screen's actions and first against later views, failed below 0.001 split over the screens tested (Bonferroni)",
    "drift: chi-square independence of a screen's actions and equal-count time blocks (one per 400 actions, 2 to 16; actions under 10 a block folded into one;"
      + " tested where a screen's actions span a day or more),"
      + " failed below 0.001 split over the screens tested (Bonferroni); the period is the run of consecutive blocks most unlike the others"
      + " (the largest chi-square of the run against the rest)",
    "dwell: lognormal, median exp(mean ln t) and σ the SD of ln t over dwells above 0",
  ]

  /// The terminal report.
  package static func table(_ r: FlowInferenceReport, spec: String) -> String {
    let width = TerminalLayout.current.width ?? 10_000
    var out = lead(r, spec: spec).map { TextWrap.wrap($0, width: width).joined(separator: "\n") }.joined(separator: "\n") + "\n\n"
    for (title, part) in [("Screens", screenRows(r)), ("Actions", actionRows(r))] {
      var t = TextTable(part.headers, alignments: part.headers.indices.map { $0 >= 2 && title == "Screens" || $0 >= 4 ? .right : .left })
      for row in part.rows { t.add(row) }
      out += title + "\n" + t.render() + "\n"
    }
    if let reading = r.reading { out += TextWrap.wrap(readingNote(reading), width: width).joined(separator: "\n") + "\n\n" }
    return out + TextWrap.wrap("Methods: " + methods.joined(separator: "; ") + ".", width: width).joined(separator: "\n") + "\n"
  }

  /// The report as Markdown.
  package static func markdown(_ r: FlowInferenceReport, spec: String) -> String {
    func plain(_ text: String) -> String { RunMarkdownRenderer.cell(Tone.render(text, color: false)) }
    var out = "## Inferred flow\n\n" + lead(r, spec: spec).map { "- " + plain($0) + "\n" }.joined() + "\n"
    for (title, part) in [("Screens", screenRows(r)), ("Actions", actionRows(r))] {
      out += "### \(title)\n\n" + RunMarkdownRenderer.header(part.headers, right: title == "Screens" ? Set(2..<8) : [4, 5])
      for row in part.rows { out += RunMarkdownRenderer.row(row) }
      out += "\n"
    }
    if let reading = r.reading { out += plain(readingNote(reading)) + "\n\n" }
    return out + "Methods: " + methods.joined(separator: "; ") + ".\n"
  }

  /// A standalone page.
  package static func html(_ r: FlowInferenceReport, spec: String) -> String {
    var doc = HTMLDocument(title: "FunnelLab · inferred flow")
    doc.heading(1, "Inferred flow")
    let lines = lead(r, spec: spec).map { Tone.render($0, color: false) }
    let alert = !r.markovFailures.isEmpty || !r.driftFailures.isEmpty || r.returns > 0
    doc.decision(lines.first ?? "", lines: Array(lines.dropFirst()), alert: alert)
    graph(r, into: &doc)
    let screens = screenRows(r)
    doc.table(screens.headers, screens.rows, right: Set(2..<8), caption: "Screens")
    let actions = actionRows(r)
    doc.table(actions.headers, actions.rows, right: [4, 5], caption: "Actions")
    if let reading = r.reading { doc.paragraph(readingNote(reading)) }
    doc.methods([methods.joined(separator: "; ").capitalizedFirst + "."])
    return doc.html
  }

  /// The inferred flow as a graph: each screen with its reach and quits, each edge with the
  /// share of users who took it, drawn wide on a laptop and narrow on a phone.
  static func graph(_ r: FlowInferenceReport, into doc: inout HTMLDocument) {
    let left = Set(r.leftOut)
    let screens = r.screens.filter { !left.contains($0.id) }
    let index = Dictionary(uniqueKeysWithValues: screens.enumerated().map { ($1.id, $0) })
    let users = Double(max(r.users, 1))
    var shares: [Int: [Int: Int]] = [:]
    var quits: [String: Int] = [:]
    for a in r.actions {
      guard let from = index[a.screen] else { continue }
      if a.target == "abandoned" {
        quits[a.screen, default: 0] += a.count
      } else if let to = a.target == "completed" ? screens.count : index[a.target] {
        shares[from, default: [:]][to, default: 0] += a.count
      }
    }
    let edges = shares.flatMap { from, targets in
      targets.map { SVGCharts.FlowEdge(from: from, to: $0.key, share: Double($0.value) / users) }
    }
    let nodes = screens.map { s in
      (id: s.id, text: "reach \(percent(s.reach)) · quit \(NumberText.percent(Double(quits[s.id] ?? 0) / users))")
    }
    let wide = SVGCharts.flowGraph(nodes: nodes, edges: edges, width: 760)
    let narrow = SVGCharts.flowGraph(nodes: nodes, edges: edges, width: SVGCharts.width)
    let description = edges.sorted { ($0.from, $0.to) < ($1.from, $1.to) }.map { e in
      "\(nodes[e.from].id) to \(e.to < nodes.count ? nodes[e.to].id : "completed"): \(NumberText.percent(e.share)) of users"
    }.joined(separator: "; ")
    doc.wideChart(
      kind: "flow-graph", title: "The inferred flow: screens, and the share of users on each edge",
      description: description + ".", wide: (760, wide.height, wide.content), narrow: (SVGCharts.width, narrow.height, narrow.content))
  }

  /// The report as JSON: every number unrounded.
  package static func json(_ r: FlowInferenceReport, spec: String) -> String {
    func n(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    let body: [(String, JSONValue)] = [
      ("spec", .string(spec)), ("users", .integer(r.users)), ("completed", .integer(r.completed)),
      ("completionRate", .number(r.completion.rate)), ("completionInterval", AnalysisRenderer.ci(r.completion.interval)),
      ("predictedCompletionRate", n(r.predictedCompletion)), ("purchasers", .integer(r.purchasers)),
      ("predictedPurchaseConversion", n(r.predictedPurchase)), ("returns", .integer(r.returns)), ("unfinished", .integer(r.unfinished)),
      ("markovFailures", .array(r.markovFailures.map { .string($0.id) })),
      ("driftFailures", .array(r.driftFailures.map { .string($0.id) })), ("span", span(r.span)), ("window", window(r.window)),
      ("outsideWindow", .integer(r.outsideWindow)), ("reading", reading(r.reading)), ("leftOut", .array(r.leftOut.map { .string($0) })),
      ("segments", .array(r.segments.map { .object([("id", .string($0.id)), ("users", .integer($0.users))]) })),
      (
        "segmentTests",
        .array(
          r.segmentTests.map { t in
            .object([("screen", .string(t.screen)), ("test", AnalysisRenderer.test(t.test)), ("differ", .bool(t.differ))])
          })
      ),
      (
        "screens",
        .array(
          r.screens.map { s in
            .object([
              ("id", .string(s.id)), ("kind", .string(s.kind)), ("views", .integer(s.views)), ("users", .integer(s.users)),
              ("reach", .number(s.reach)), ("reachInterval", AnalysisRenderer.ci(s.reachInterval)), ("predictedReach", n(s.predictedReach)),
              ("dwellMedianSeconds", n(s.dwellMedian)), ("tooRare", .bool(s.tooRare)), ("markov", AnalysisRenderer.test(s.markov)),
              ("drift", drift(s.drift)),
            ])
          })
      ),
      (
        "actions",
        .array(
          r.actions.map { a in
            .object([
              ("screen", .string(a.screen)), ("id", .string(a.id)), ("kind", .string(a.kind)), ("to", .string(a.target)),
              ("count", .integer(a.count)), ("probability", .number(a.probability)), ("interval", AnalysisRenderer.ci(a.interval)),
            ])
          })
      ),
      ("methods", .array(methods.map { .string($0) })),
    ]
    return JSONWriter.write(JSONReportHead(schemaVersion: schemaVersion, command: "infer").document(body))
  }

  /// A time of the log in JSON: ISO 8601 in UTC, to the millisecond.
  static func time(_ milliseconds: Double) -> JSONValue {
    .string(LogTimestamp.text(milliseconds: UInt64(max(milliseconds, 0)), iso: true))
  }

  static func span(_ span: ClosedRange<Double>?) -> JSONValue {
    span.map { .object([("from", time($0.lowerBound)), ("to", time($0.upperBound))]) } ?? .null
  }

  static func window(_ window: Range<Double>?) -> JSONValue {
    guard let w = window else { return .null }
    return .object([
      ("since", w.lowerBound > 0 ? time(w.lowerBound) : .null),
      ("until", w.upperBound < FlowInference.timestamps.upperBound ? time(w.upperBound) : .null),
    ])
  }

  static func drift(_ d: FlowInferenceReport.Drift?) -> JSONValue {
    guard let d else { return .null }
    return .object([
      ("test", AnalysisRenderer.test(d.test)), ("blocks", .integer(d.blocks)),
      ("period", .object([("from", time(d.period.lowerBound)), ("to", time(d.period.upperBound))])), ("action", .string(d.action)),
      ("during", .number(d.during)), ("outside", .number(d.outside)),
    ])
  }

  static func reading(_ r: LogReading?) -> JSONValue {
    guard let r else { return .null }
    return .object([
      ("shape", .string(r.shape.rawValue)), ("walks", .string(r.session == nil ? "users" : "sessions")),
      ("session", r.session.map { .string($0) } ?? .null), ("idleMinutes", r.idleMinutes.map { .number($0) } ?? .null),
      ("idleEnds", .integer(r.idleEnds)),
      ("timeFormats", .array(r.timeFormats.map { .object([("format", .string($0.format.rawValue)), ("events", .integer($0.events))]) })),
      ("screenViews", .integer(r.screenViews)), ("completions", .integer(r.completions)), ("purchases", .integer(r.purchases)),
      ("otherEvents", .integer(r.sideEvents)), ("note", .string(readingNote(r))),
    ])
  }
}
