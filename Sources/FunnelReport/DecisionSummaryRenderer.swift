package import FunnelLab
package import FunnelStats

/// The words of a ``DecisionSummary``: what was decided, arm by arm, before how. The terminal
/// block fits a given width; the JSON object carries the same content as identifiers and
/// numbers.
package enum DecisionSummaryRenderer {
  /// `effect`'s lift with its interval, its chance to beat the control, then the truth and how
  /// the test's conclusion compares with it: `lift +14.57% [11.46, 17.77], P(beat) 100.0%;
  /// truth +12.46% (correct)`. An interval that excludes 0 beside a call that is not
  /// significant says why (the correction), so the words never contradict the interval.
  static func lift(_ effect: DecisionSummary.Effect) -> String {
    var text = "lift \(NumberText.lift(effect.relativeLift))"
    if let i = effect.relativeLift?.interval, !effect.significant, i.lower > 0 || i.upper < 0 {
      text += " (not significant after correction)"
    }
    if let p = effect.probabilityToBeatControl { text += ", P(beat) \(NumberText.percent(p))" }
    if let truth = effect.trueRelativeLift {
      text += "; truth \(NumberText.lift(truth))" + (effect.verdict.map { " (\(Vocabulary.toned($0)))" } ?? "")
    }
    return text
  }

  /// The first sentence: the recommendation (``DecisionRule/recommend(_:progress:)``), led by
  /// a warning when the truth says the test would decide wrongly, then how many arms money
  /// contradicts. Nothing here ranks or decides: it words the library's recommendation.
  static func headline(_ s: DecisionSummary) -> String {
    let r = s.recommendation
    var text = r.design.flatMap { design($0, s) }.map { $0 + " " } ?? ""
    text += sentence(r, s)
    let conflicts = s.arms.filter { $0.conflict != nil }.count
    if conflicts > 0 {
      text += " " + Tone.warning.mark("Revenue per user disagrees for \(Vocabulary.plural(conflicts, "arm")) (!).")
    }
    return text
  }

  /// The margin in words: `±1%`.
  static func margin(_ m: DecisionSummary.Metric) -> String {
    "±" + NumberText.percent(m.relativeMargin, decimals: m.relativeMargin * 100 == (m.relativeMargin * 100).rounded() ? 0 : 1)
  }

  /// The recommendation in one sentence, the action first.
  static func sentence(_ r: Recommendation, _ s: DecisionSummary) -> String {
    let label = s.primary.label
    let action = Vocabulary.mark(Vocabulary.word(r.action), Vocabulary.tone(r.action))
    func arm(_ id: String?) -> DecisionSummary.Arm? { id.flatMap { id in s.arms.first { $0.arm == id } } }
    func observed(_ a: DecisionSummary.Arm) -> String { "\(label) \(NumberText.lift(a.primary.relativeLift?.estimate))" }
    let equivalents =
      r.equivalentArms.isEmpty
      ? ""
      : "; \(NumberText.list(r.equivalentArms)) \(r.equivalentArms.count == 1 ? "is" : "are") equivalent (within \(margin(s.primary)) of it)"
    switch (r.action, r.reason) {
    case (.nothingToCompare, _):
      return "\(action): the experiment has only its control (\(s.control))."
    case (.doNotTrust, .sampleRatioMismatch):
      return "\(action) this test: the sample-ratio check flagged the split."
    case (.doNotTrust, _):
      let a = arm(r.arm)
      let broken = a?.guardrails.filter { $0.status == .violated }.map(\.metric.label) ?? []
      return "\(action) \(r.arm ?? "")'s win (\(a.map(observed) ?? label)): it breaks the \(NumberText.list(broken)) guardrail."
    case (.ship, _) where s.judgedByTruth:
      let a = arm(r.arm)
      let truth = a?.primary.trueRelativeLift.map { "true lift \(NumberText.lift($0)), " } ?? ""
      return
        "\(action) \(Tone.good.mark(r.arm ?? "")): best on \(label) by the truth (\(truth)this run \(NumberText.lift(a?.primary.relativeLift)))\(equivalents)."
    case (.ship, _):
      return "\(action) \(Tone.good.mark(r.arm ?? "")) (\(arm(r.arm).map(observed) ?? label))\(equivalents)."
    case (.keepRunning, .guardrailInconclusive):
      let a = arm(r.arm)
      let open = a?.guardrails.filter { $0.status == .inconclusive }.map(\.metric.label) ?? []
      return
        "\(action): \(r.arm ?? "") wins on \(a.map(observed) ?? label), but the \(NumberText.list(open)) guardrail is not yet shown within its margin."
    case (.keepRunning, _):
      return "\(action): \(progress(r.progress)); no arm has decided on \(label) yet."
    case (.stop, .negligible):
      return "\(action): nothing worth shipping; every effect on \(label) is inside the \(margin(s.primary)) margin."
    case (.stop, .tie):
      return "\(action): nothing worth shipping; every arm ties \(s.control) on \(label) exactly (true difference 0)."
    case (.stop, .worse):
      return "\(action): nothing worth shipping; no arm beats \(s.control) on \(label) by more than \(margin(s.primary))."
    case (.stop, .futility):
      return "\(action): nothing worth shipping; the futility boundary was crossed on \(label)."
    case (.stop, _):
      return "\(action): nothing worth shipping; no arm differs detectably from \(s.control) on \(label)."
    }
  }

  /// How far along a test that keeps running is: `40% of the planned size, about 6 days left`.
  static func progress(_ p: Recommendation.Progress?) -> String {
    guard let share = p?.shareOfPlannedSize else { return "planned size unknown (give --planned-users or --planned-days)" }
    let days = p?.daysLeft.map { ", about \($0) \($0 == 1 ? "day" : "days") left" } ?? ""
    return "\(NumberText.percent(share, decimals: 0)) of the planned size\(days)"
  }

  /// The design against the truth, when the test would decide wrongly: `nil` when right (the
  /// recommendation's own line says enough).
  static func design(_ d: Recommendation.DesignCheck, _ s: DecisionSummary) -> String? {
    design(d, metric: s.primary, control: s.control, keepsRunning: s.recommendation.action == .keepRunning)
  }

  /// The design against the truth of a test on `metric` against `control`.
  /// A test that `keepsRunning` has not shipped yet rather than held back.
  static func design(
    _ d: Recommendation.DesignCheck, metric: DecisionSummary.Metric, control: String, keepsRunning: Bool = false
  ) -> String? {
    let label = metric.label
    let best = d.best.map { "the truly best arm, \($0) (true lift \(NumberText.lift(d.bestTrueLift)))" }
    let shipped = d.shipped.map { "\($0) (true lift \(NumberText.lift(d.shippedTrueLift)))" } ?? ""
    var text: String
    switch d.kind {
    case .right: return nil
    case .shipsNegligible:
      text =
        "this test ships \(shipped), inside the \(margin(metric)) margin on \(label)" + (best.map { ", and holds back \($0)" } ?? "")
    case .shipsWorse:
      text = "this test ships \(shipped), worse than \(control) on \(label)" + (best.map { ", and holds back \($0)" } ?? "")
    case .shipsNotBest:
      text = "this test ships \(shipped) and holds back \(best ?? "")"
    case .holdsBackBest:
      text = "this test ships nothing and holds back \(best ?? "")"
      if keepsRunning { text = "this test does not ship \(best ?? "") yet" }
    }
    return Tone.bad.mark("! Wrong call by the truth:") + " " + text + "."
  }

  /// One arm's sentences: the decision (when there is a rule) and the call, the guardrails,
  /// and revenue per user (as a conflict when it contradicts the decision or the call).
  /// In an `interim` look (the fixed-horizon read of a test still running) the call is
  /// worded as an interim one (``Vocabulary/interim(_:)``), without a decision and without
  /// colour: it is never a win.
  static func sentences(_ a: DecisionSummary.Arm, primary: DecisionSummary.Metric, interim: Bool = false) -> [String] {
    guard a.call != .doNotTrust else {
      return ["\(a.decision.map(Vocabulary.toned) ?? Vocabulary.toned(a.call)); the split is broken, so no difference shown is evidence"]
    }
    if interim {
      let lines = sentences(a, primary: primary).dropFirst()
      return ["\(Vocabulary.interim(a.call)) on \(primary.label), \(lift(a.primary))"] + lines.map { Tone.render($0, color: false) }
    }
    let call = "\(Vocabulary.toned(a.call)) on \(primary.label), \(lift(a.primary))"
    var lines = [a.decision.map { "\(Vocabulary.toned($0)): \(call)" } ?? call]
    if !a.guardrails.isEmpty {
      lines.append("guardrails: " + a.guardrails.map { "\($0.metric.label) \(Vocabulary.toned($0.status))" }.joined(separator: ", "))
    }
    if let money = a.revenue {
      let observed = "observed \(NumberText.lift(money.relativeLift))"
      let truth = money.trueRelativeLift.map { "truth \(NumberText.lift($0))" }
      let what = a.decision == nil ? "wins" : "ships"
      switch a.conflict?.kind {
      case .shipsButLosesRevenue?:
        lines.append(
          Tone.warning.mark("! \(what) on \(primary.label) but loses revenue per user:") + " "
            + [truth, observed].compactMap { $0 }.joined(separator: ", "))
      case .heldBackButGainsRevenue?:
        let held = a.decision == nil ? "does not win" : "held back"
        lines.append(
          Tone.warning.mark("! \(held) on \(primary.label) but gains revenue per user:") + " "
            + [truth, observed].compactMap { $0 }.joined(separator: ", "))
      case nil:
        lines.append("revenue per user: " + [observed, truth].compactMap { $0 }.joined(separator: ", "))
      }
    }
    return lines
  }

  /// The terminal block: a heading, then per arm its id and its sentences, each line at most
  /// `width` display columns (sentences fold at spaces; the arm's id goes on a line of its
  /// own when beside it would leave less than 60 columns).
  package static func text(_ s: DecisionSummary, width: Int = TerminalLayout.current.width ?? 10_000) -> String {
    let out = TextWrap.wrap(headline(s), width: width, indent: 2).joined(separator: "\n") + "\n"
    guard !s.arms.isEmpty else { return out }
    return out + armLines(s, heading: "Each arm against \(s.control):", width: width)
  }

  /// The arms' block of ``text(_:width:)`` under `heading`, `interim` as in
  /// ``sentences(_:primary:interim:)``.
  static func armLines(_ s: DecisionSummary, heading: String, width: Int, interim: Bool = false) -> String {
    var out = TextWrap.wrap(heading, width: width, indent: 2).joined(separator: "\n") + "\n"
    let column = (s.arms.map(\.arm.count).max() ?? 0) + 2
    let beside = width - (2 + column) >= 60
    for arm in s.arms {
      let sentences = sentences(arm, primary: s.primary, interim: interim)
      if beside {
        let pad = String(repeating: " ", count: 2 + column)
        for (k, sentence) in sentences.enumerated() {
          let lead = k == 0 ? "  " + arm.arm + String(repeating: " ", count: column - arm.arm.count) : pad
          for (j, line) in TextWrap.wrap(sentence, width: width - pad.count, indent: 2).enumerated() {
            out += (j == 0 ? lead : pad) + line + "\n"
          }
        }
      } else {
        out += "  " + arm.arm + "\n"
        for sentence in sentences {
          for line in TextWrap.wrap(sentence, width: width - 4, indent: 2) { out += "    " + line + "\n" }
        }
      }
    }
    return out
  }

  /// The opening of a terminal report. With a test read day by day (`overTime`), the one
  /// recommendation across arms comes first (``DecisionRule/recommend(_:sequential:)``: the
  /// sequential boundary decides a test that is peeked at), then where each arm's test
  /// stands, then the fixed-horizon read of the last day for its numbers only: an interim look
  /// while the test runs, never coloured as a win.
  package static func lead(_ s: DecisionSummary, overTime: AnalysisRenderer.OverTime?) -> String {
    guard let overTime else { return text(s) }
    let width = TerminalLayout.current.width ?? 10_000
    let read = s.readOverTime(overTime.report)
    var out = TextWrap.wrap(headline(read), width: width, indent: 2).joined(separator: "\n") + "\n"
    out += "Each arm's test, read day by day against its sequential boundary:\n"
    for sentence in SequentialRenderer.summary(overTime.report, context: overTime.context) {
      out += TextWrap.wrap(sentence, width: width - 2, indent: 2).map { "  " + $0 + "\n" }.joined()
    }
    guard !s.arms.isEmpty else { return out }
    return out + "\n" + armLines(s, heading: fixedHeading(read), width: width, interim: read.progress != nil)
  }

  /// What the fixed-horizon read of the last day is beside a read over time: an interim look
  /// while the test runs (`read`'s progress), else a read once at the end, for comparison.
  static func fixedHeading(_ read: DecisionSummary) -> String {
    read.progress != nil
      ? "Interim look: the last day read as a fixed-horizon test, not a decision (the test is still running, and a fixed test read every day rejects too often):"
      : "The last day read once as a fixed-horizon test, for comparison (the sequential boundary above decides):"
  }

  /// The summary as the page's first section (``HTMLDocument/decision(_:lines:alert:)``): the
  /// headline, then one line per arm; a banner when the split is broken, a guardrail is
  /// violated or money contradicts a call.
  /// With a test read day by day (`overTime`), the headline is the recommendation across arms
  /// and each arm's sequential standing follows, then the fixed-horizon lines, labelled as such.
  package static func html(_ s: DecisionSummary, overTime: AnalysisRenderer.OverTime? = nil, into doc: inout HTMLDocument) {
    let alert = s.sampleRatioMismatch || s.arms.contains { $0.conflict != nil || $0.guardrails.contains { $0.status == .violated } }
    guard let overTime else {
      let lines = s.arms.map { a in a.arm + ": " + sentences(a, primary: s.primary).joined(separator: "; ") }
      return doc.decision(headline(s), lines: lines, alert: alert)
    }
    let read = s.readOverTime(overTime.report)
    let interim = read.progress != nil
    let fixed = s.arms.map { a in a.arm + ": " + sentences(a, primary: s.primary, interim: interim).joined(separator: "; ") }
    let lines =
      SequentialRenderer.summary(overTime.report, context: overTime.context) + (fixed.isEmpty ? [] : [fixedHeading(read)] + fixed)
    doc.decision(headline(read), lines: lines, alert: alert)
  }

  /// The summary as Markdown: the headline in bold, then one bullet per arm; with a test read
  /// day by day, the recommendation across arms, each arm's sequential standing, then the
  /// fixed-horizon read labelled as such.
  package static func markdown(_ s: DecisionSummary, overTime: AnalysisRenderer.OverTime? = nil) -> String {
    func plain(_ text: String) -> String { RunMarkdownRenderer.cell(Tone.render(text, color: false)) }
    guard let overTime else {
      var out = "**\(plain(headline(s)))**\n\n"
      for a in s.arms { out += "- " + plain(a.arm + ": " + sentences(a, primary: s.primary).joined(separator: "; ")) + "\n" }
      return s.arms.isEmpty ? out : out + "\n"
    }
    let read = s.readOverTime(overTime.report)
    var out = "**\(plain(headline(read)))**\n\nEach arm's test, read day by day against its sequential boundary:\n\n"
    for sentence in SequentialRenderer.summary(overTime.report, context: overTime.context) { out += "- " + plain(sentence) + "\n" }
    guard !s.arms.isEmpty else { return out + "\n" }
    out += "\n\(plain(fixedHeading(read)))\n\n"
    for a in s.arms {
      out += "- " + plain(a.arm + ": " + sentences(a, primary: s.primary, interim: read.progress != nil).joined(separator: "; ")) + "\n"
    }
    return out + "\n"
  }

  /// The `recommendation` object: what to do, why, about which arm, how far along, and the
  /// design against the truth.
  package static func recommendation(_ r: Recommendation) -> JSONValue {
    func number(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    func string(_ x: String?) -> JSONValue { x.map { .string($0) } ?? .null }
    return .object([
      ("action", .string(r.action.rawValue)), ("reason", .string(r.reason.rawValue)), ("arm", string(r.arm)),
      ("equivalentArms", .array(r.equivalentArms.map { .string($0) })),
      ("progress", progressJSON(r.progress)),
      ("design", r.design.map(design) ?? .null),
    ])
  }

  /// The `design` object: the design against the truth.
  package static func design(_ d: Recommendation.DesignCheck) -> JSONValue {
    func number(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    func string(_ x: String?) -> JSONValue { x.map { .string($0) } ?? .null }
    return .object([
      ("kind", .string(d.kind.rawValue)), ("shipped", string(d.shipped)), ("shippedTrueLift", number(d.shippedTrueLift)),
      ("best", string(d.best)), ("bestTrueLift", number(d.bestTrueLift)),
    ])
  }

  /// The `progress` object: the share of the planned size and the days left (`null` when
  /// unknown); `null` for a test that is over.
  static func progressJSON(_ p: Recommendation.Progress?) -> JSONValue {
    guard let p else { return .null }
    return .object([
      ("shareOfPlannedSize", p.shareOfPlannedSize.map { .number($0) } ?? .null), ("daysLeft", p.daysLeft.map { .integer($0) } ?? .null),
    ])
  }

  /// The `summary` object of a JSON report: identifiers and numbers, no sentences. With a test
  /// read day by day (`overTime`), the recommendation is the sequential one
  /// (``DecisionRule/recommend(_:sequential:)``); the arms stay the fixed-horizon read.
  package static func json(_ s: DecisionSummary, overTime: SequentialAnalysis.Report? = nil) -> JSONValue {
    func effect(_ e: DecisionSummary.Effect) -> JSONValue {
      .object([
        ("metric", .string(e.metric.id)), ("relativeLift", AnalysisRenderer.estimate(e.relativeLift)),
        ("difference", AnalysisRenderer.estimate(e.difference)), ("significant", .bool(e.significant)),
        ("probabilityToBeatControl", e.probabilityToBeatControl.map { .number($0) } ?? .null),
        ("trueRelativeLift", e.trueRelativeLift.map { .number($0) } ?? .null),
        ("trueDifference", e.trueDifference.map { .number($0) } ?? .null),
        ("verdict", e.verdict.map { .string($0.rawValue) } ?? .null),
      ])
    }
    return .object([
      ("recommendation", recommendation(overTime.map { DecisionRule.recommend(s, sequential: $0) } ?? s.recommendation)),
      ("control", .string(s.control)), ("primaryMetric", .string(s.primary.id)), ("relativeMargin", .number(s.primary.relativeMargin)),
      ("sampleRatioMismatch", .bool(s.sampleRatioMismatch)),
      (
        "arms",
        .array(
          s.arms.map { a -> JSONValue in
            // revenuePerUser is left out, not null, where there is none (a flow that sells nothing).
            let revenue: [(String, JSONValue)] = a.revenue.map { [("revenuePerUser", effect($0))] } ?? []
            let head: [(String, JSONValue)] = [
              ("arm", .string(a.arm)), ("decision", a.decision.map { .string($0.rawValue) } ?? .null), ("call", .string(a.call.rawValue)),
              ("primary", effect(a.primary)),
              (
                "guardrails",
                .array(
                  a.guardrails.map { g -> JSONValue in
                    .object([
                      ("metric", .string(g.metric.rawValue)), ("margin", .number(g.margin)), ("status", .string(g.status.rawValue)),
                    ])
                  })
              ),
            ]
            let conflict: JSONValue =
              a.conflict.map { .object([("kind", .string($0.kind.rawValue)), ("evidence", .string($0.evidence.rawValue))]) } ?? .null
            return .object(head + revenue + [("conflict", conflict)])
          })
      ),
    ])
  }
}
