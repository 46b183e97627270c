package import FunnelLab
import FunnelStats

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

  /// The first sentence: which arms ship, or that none does, or that the test cannot be trusted
  /// (truth mode, without a decision rule: the arm best on the primary metric by the truth);
  /// and how many calls money contradicts.
  static func headline(_ s: DecisionSummary) -> String {
    if s.sampleRatioMismatch { return Tone.warning.mark("Do not trust this test:") + " the sample-ratio check flagged the split." }
    var text: String
    if s.arms.contains(where: { $0.decision != nil }) {
      let ships = s.arms.filter { $0.decision == .ship }
      text =
        ships.isEmpty
        ? "No arm ships on \(s.primary.label)."
        : "Ship "
          + NumberText.list(
            ships.map { "\(Tone.good.mark($0.arm)) (\(s.primary.label) \(NumberText.lift($0.primary.relativeLift?.estimate)))" })
          + "."
    } else if s.arms.contains(where: { $0.primary.trueDifference != nil }) {
      text = truthHeadline(s)
    } else {
      text = observedHeadline(s)
    }
    let conflicts = s.arms.filter { $0.conflict != nil }.count
    if conflicts > 0 {
      text += " " + Tone.warning.mark("Revenue per user disagrees for \(conflicts) arm\(conflicts == 1 ? "" : "s") (!).")
    }
    return text
  }

  /// The first sentence of data without truth or rule (`analyze`): the arms that win, else
  /// those that lose, else that none differs detectably.
  static func observedHeadline(_ s: DecisionSummary) -> String {
    let label = s.primary.label
    func named(_ arms: [DecisionSummary.Arm], _ tone: Tone) -> String {
      NumberText.list(arms.map { "\(tone.mark($0.arm)) (\(NumberText.lift($0.primary.relativeLift?.estimate)))" })
    }
    let wins = s.arms.filter { $0.call == .wins }
    let losses = s.arms.filter { $0.call == .loses }
    if !wins.isEmpty { return "\(named(wins, .good)) \(wins.count == 1 ? "wins" : "win") on \(label) against \(s.control)." }
    if !losses.isEmpty { return "No arm beats \(s.control) on \(label); \(named(losses, .bad)) \(losses.count == 1 ? "loses" : "lose")." }
    return "No arm differs detectably from \(s.control) on \(label)."
  }

  /// Truth mode's first sentence: the arm whose true effect on the primary metric is best, if
  /// any beats the control, with what this run's paired test saw.
  static func truthHeadline(_ s: DecisionSummary) -> String {
    let sign = s.primary.higherIsBetter ? 1.0 : -1.0
    func gain(_ a: DecisionSummary.Arm) -> Double? { (a.primary.trueDifference ?? a.primary.difference?.estimate).map { $0 * sign } }
    let ranked = s.arms.compactMap { a in gain(a).map { (a, $0) } }.sorted { $0.1 > $1.1 }
    guard let (best, g) = ranked.first, g > Verdict.zeroTolerance else {
      return "No variant beats \(s.control) on \(s.primary.label)."
    }
    let truth = best.primary.trueRelativeLift.map { "true lift \(NumberText.lift($0)), " } ?? ""
    return "Best on \(s.primary.label): \(Tone.good.mark(best.arm)), \(truth)this run \(NumberText.lift(best.primary.relativeLift))."
  }

  /// One arm's sentences: the decision (when there is a rule) and the call, the guardrails,
  /// and revenue per user (as a conflict when it contradicts the decision or the call).
  static func sentences(_ a: DecisionSummary.Arm, primary: DecisionSummary.Metric) -> [String] {
    guard a.call != .doNotTrust else {
      return ["\(a.decision.map(Vocabulary.toned) ?? Vocabulary.toned(a.call)); the split is broken, so no difference shown is evidence"]
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
    var out = TextWrap.wrap(headline(s), width: width, indent: 2).joined(separator: "\n") + "\n"
    out += TextWrap.wrap("Each arm against \(s.control):", width: width, indent: 2).joined(separator: "\n") + "\n"
    let column = (s.arms.map(\.arm.count).max() ?? 0) + 2
    let beside = width - (2 + column) >= 60
    for arm in s.arms {
      let sentences = sentences(arm, primary: s.primary)
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

  /// The opening of a terminal report: the summary, led by where a test read day by day
  /// stands (`overTime`), whose sequential boundary decides it; the fixed-horizon summary is
  /// then labelled as such (reading it once at the last day ignores the peeking).
  package static func lead(_ s: DecisionSummary, overTime: AnalysisRenderer.OverTime?) -> String {
    guard let overTime else { return text(s) }
    let width = TerminalLayout.current.width ?? 10_000
    var out = "Read day by day with a sequential boundary (what decides a test that is peeked at):\n"
    for sentence in SequentialRenderer.summary(overTime.report, context: overTime.context) {
      out += TextWrap.wrap(sentence, width: width - 2, indent: 2).map { "  " + $0 + "\n" }.joined()
    }
    return out + "\nRead once at the last day, as a fixed-horizon test:\n" + text(s)
  }

  /// The summary as the page's first section (``HTMLDocument/decision(_:lines:alert:)``): the
  /// headline, then one line per arm; a banner when the split is broken, a guardrail is
  /// violated or money contradicts a call.
  /// With a test read day by day (`overTime`), the sequential standing leads and the
  /// fixed-horizon summary follows as lines, labelled as such.
  package static func html(_ s: DecisionSummary, overTime: AnalysisRenderer.OverTime? = nil, into doc: inout HTMLDocument) {
    var lines = s.arms.map { a in a.arm + ": " + sentences(a, primary: s.primary).joined(separator: "; ") }
    let alert = s.sampleRatioMismatch || s.arms.contains { $0.conflict != nil || $0.guardrails.contains { $0.status == .violated } }
    guard let overTime else { return doc.decision(headline(s), lines: lines, alert: alert) }
    let standing = SequentialRenderer.summary(overTime.report, context: overTime.context)
    lines = Array(standing.dropFirst()) + ["Read once at the last day, as a fixed-horizon test: " + headline(s)] + lines
    doc.decision("Read day by day with a sequential boundary: " + (standing.first ?? ""), lines: lines, alert: alert)
  }

  /// The summary as Markdown: the headline in bold, then one bullet per arm; with a test read
  /// day by day, its sequential standing first.
  package static func markdown(_ s: DecisionSummary, overTime: AnalysisRenderer.OverTime? = nil) -> String {
    func plain(_ text: String) -> String { RunMarkdownRenderer.cell(Tone.render(text, color: false)) }
    var out = ""
    if let overTime {
      out += "**Read day by day with a sequential boundary:**\n\n"
      for sentence in SequentialRenderer.summary(overTime.report, context: overTime.context) { out += "- " + plain(sentence) + "\n" }
      out += "\nRead once at the last day, as a fixed-horizon test:\n\n"
    }
    out += "**\(plain(headline(s)))**\n\n"
    for a in s.arms { out += "- " + plain(a.arm + ": " + sentences(a, primary: s.primary).joined(separator: "; ")) + "\n" }
    return out + "\n"
  }

  /// The `summary` object of a JSON report: identifiers and numbers, no sentences.
  package static func json(_ s: DecisionSummary) -> JSONValue {
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
      ("control", .string(s.control)), ("primaryMetric", .string(s.primary.id)),
      ("sampleRatioMismatch", .bool(s.sampleRatioMismatch)),
      (
        "arms",
        .array(
          s.arms.map { a in
            // revenuePerUser is left out, not null, where there is none (a flow that sells nothing).
            .object(
              [
                ("arm", .string(a.arm)), ("decision", a.decision.map { .string($0.rawValue) } ?? .null), ("call", .string(a.call.rawValue)),
                ("primary", effect(a.primary)),
                (
                  "guardrails",
                  .array(
                    a.guardrails.map {
                      .object([
                        ("metric", .string($0.metric.rawValue)), ("margin", .number($0.margin)), ("status", .string($0.status.rawValue)),
                      ])
                    })
                ),
              ] + (a.revenue.map { [("revenuePerUser", effect($0))] } ?? []) + [
                (
                  "conflict",
                  a.conflict.map { .object([("kind", .string($0.kind.rawValue)), ("evidence", .string($0.evidence.rawValue))]) } ?? .null
                )
              ])
          })
      ),
    ])
  }
}
