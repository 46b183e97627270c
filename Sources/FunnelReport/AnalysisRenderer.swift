package import FunnelLab
package import FunnelStats

/// Renders an ``ExperimentAnalysis/Report`` of observed experiment counts.
package enum AnalysisRenderer {
  /// The `schemaVersion` written by ``json(_:)`` (docs/json-output.md); raised when a key is removed or renamed.
  package static let schemaVersion = 1

  static func interval(_ ci: ConfidenceInterval?, percent: Bool) -> String {
    guard let ci else { return "n/a" }
    func f(_ x: Double) -> String { percent ? NumberText.bound(x * 100, 2) : NumberText.bound(x, 4) }
    return "[\(f(ci.lower)), \(f(ci.upper))]"
  }

  /// An arm's call in the report's words (``Vocabulary``): wins, loses, no detectable
  /// difference, or do not trust under a sample ratio mismatch; `not tested` without a test.
  /// In an `interim` look (``interim(_:)``) a significant arm is only ahead or behind.
  static func call(_ c: ExperimentAnalysis.ArmComparison, interim: Bool = false) -> String {
    let significant: DecisionSummary.Call = (c.absoluteLift?.estimate ?? 0) > 0 ? .wins : .loses
    return switch c.conclusion {
    case .significant: interim ? Vocabulary.interim(significant) : Vocabulary.word(significant)
    case .notSignificant: Vocabulary.word(DecisionSummary.Call.noDetectableDifference)
    case .notTested: "not tested"
    case .sampleRatioMismatch: Vocabulary.word(Decision.sampleRatioMismatch)
    }
  }

  /// Whether the fixed-horizon read is an interim look: the test read over time is still
  /// running (``DecisionRule/sequentialRead(_:)``), so no fixed call is a win.
  static func interim(_ overTime: OverTime?) -> Bool {
    overTime.map { DecisionRule.sequentialRead($0.report).progress != nil } ?? false
  }

  /// The methods of an analysis in words, for the report's end: named from its settings
  /// (FunnelStats returns numbers and settings; the words live here).
  static func methods(_ r: ExperimentAnalysis.Report) -> [String] {
    var methods = ["rates: Wilson score interval"]
    switch r.settings.proportionTest {
    case .score:
      methods += [
        "test: \(TwoProportionScoreTest.methodName) (variance × N/(N−1))",
        "difference: \(ProportionDifference.miettinenNurminenMethod) interval", "relative lift: \(RelativeLift.scoreMethod) interval",
      ]
    case .pooledZ:
      methods += [
        "test: \(TwoProportionZTest.methodName)", "difference: newcombe hybrid score interval",
        "relative lift: delta method on the log ratio",
      ]
    }
    methods += [
      "adjustment: \(Vocabulary.correction(r.settings.correction)); significant when adjusted p ≤ α and the interval excludes 0",
      "Bayesian: Beta(\(r.settings.prior.priorAlpha), \(r.settings.prior.priorBeta)) prior",
      "Fisher's exact test beside any 2×2 table with a cell below 5",
      "SRM: chi-square goodness of fit, flagged at p < \(r.settings.sampleRatio.pValueThreshold); a mismatch means do not trust",
    ]
    if r.arms.contains(where: { $0.revenue != nil }) {
      methods.append("revenue: \(WelchTTest.methodName); normal posterior; \(MannWhitneyUTest.methodName)")
    }
    return methods
  }

  /// The margin in points, e.g. `1 pp` (no floating-point tail).
  static func marginText(_ m: Double) -> String { JSONValue.format((m * 100 * 1e9).rounded() / 1e9) + " pp" }

  /// The non-inferiority result of `analyze --margin` in one sentence (one unit: points), for the
  /// decision section: per arm better by more than the margin, non-inferior, not shown, or not
  /// to be trusted; green only for what the tests show. `nil` without a margin.
  static func marginHeadline(_ r: ExperimentAnalysis.Report) -> String? {
    guard let result = NonInferiorityResult(r) else { return nil }
    let margin = marginText(result.margin)
    let clauses = result.arms.map { a in
      let p = a.pValue.map { ", " + pEquals($0) } ?? ""
      return switch a.reading {
      case .betterByTheMargin: "\(a.arm) is \(Tone.good.mark("better by more than the margin"))\(p)"
      case .nonInferior: "\(a.arm) is \(Tone.good.mark(Vocabulary.nonInferior)) (worse by less than \(margin)\(p))"
      case .notShown: "\(a.arm) is not shown \(Vocabulary.nonInferior)\(p)"
      case .doNotTrust: "\(Tone.warning.mark(Vocabulary.word(DecisionSummary.Call.doNotTrust))) \(a.arm) (sample ratio mismatch)"
      case .notTested: "\(a.arm) is not tested"
      }
    }
    guard !clauses.isEmpty else { return nil }
    return "Against the \(margin) margin: " + clauses.joined(separator: "; ") + "."
  }

  /// The margin tests (`--margin`): per arm its Δ, the non-inferiority and the superiority
  /// test's one-sided p-values and what each shows (``NonInferiorityResult``, with the
  /// terminal's tone marks when `marked`); `nil` without a margin.
  static func marginTable(_ r: ExperimentAnalysis.Report, marked: Bool = false) -> (note: String, headers: [String], rows: [[String]])? {
    guard let result = NonInferiorityResult(r) else { return nil }
    let margin = marginText(result.margin)
    let level = NumberText.level(alpha: r.settings.alpha)
    let note =
      "Margin \(margin): non-inferior when H₀ Δ ≤ −\(margin) is rejected, better by more than the margin when H₀ Δ ≤ \(margin)"
      + " is; one-sided Miettinen–Nurminen score tests at α/2 = \(JSONValue.format(r.settings.alpha / 2)), the level at which"
      + " each agrees with the \(level) interval of Δ (its lower end above −m, above m); not corrected across arms."
    let headers = ["arm vs \(r.control)", "Δ", "non-inferiority p", "non-inferior", "superiority p", "better by the margin"]
    func word(_ reading: NonInferiorityResult.Reading, shown: Bool) -> String {
      switch reading {
      case .notTested: "n/a"
      case .doNotTrust: Vocabulary.mark(Vocabulary.word(DecisionSummary.Call.doNotTrust), marked ? .warning : nil)
      default: shown ? Vocabulary.mark("yes", marked ? .good : nil) : "not shown"
      }
    }
    let rows = zip(r.comparisons, result.arms).map { c, a in
      [
        c.arm, NumberText.points(c.absoluteLift?.estimate, decimals: 2), pValue(c.nonInferiority?.pValue),
        word(a.reading, shown: a.reading == .nonInferior || a.reading == .betterByTheMargin), pValue(c.superiority?.pValue),
        word(a.reading, shown: a.reading == .betterByTheMargin),
      ]
    }
    return (note, headers, rows)
  }

  /// The settings a reader needs beside the table: `control arm: control · α = 0.05, two-sided · Holm
  /// correction`, with `control` as given (code in Markdown, escaped in HTML by its writer).
  static func settings(_ r: ExperimentAnalysis.Report, control: String) -> String {
    "control arm: \(control) · α = \(JSONValue.format(r.settings.alpha)), \(Vocabulary.word(r.settings.alternative))"
      + " · \(Vocabulary.correction(r.settings.correction))"
  }

  /// The expected loss of choosing the arm (``ExperimentAnalysis/ArmComparison/expectedLoss``) in percentage points
  /// with three decimals, e.g. `0.012 pp`; `n/a` without one.
  static func expectedLoss(_ c: ExperimentAnalysis.ArmComparison) -> String {
    c.expectedLoss.map { NumberText.fixed($0 * 100, 3) + " pp" } ?? "n/a"
  }

  /// `p = 0.0123`, or `p < 0.0001`.
  static func pEquals(_ p: Double) -> String {
    p < 1e-4 ? "p < 0.0001" : "p = " + NumberText.fixed(p, 4)
  }

  static func pValue(_ p: Double?) -> String {
    guard let p else { return "n/a" }
    if p < 1e-4 { return "<0.0001" }
    return NumberText.fixed(p, 4)
  }

  /// The terminal report: the arms (rate with its Wilson interval, P(best)), each arm against the control
  /// (lifts, intervals named after the proportion test's method, raw and adjusted p-values, P(beat), expected
  /// loss in percentage points, verdict), revenue per user when given (Welch), the sample-ratio check, any
  /// diagnostics and the methods. Confidence level `1 − α`, in whole percent.
  package static func table(_ r: ExperimentAnalysis.Report, overTime: OverTime? = nil, segments: SegmentReport? = nil) -> String {
    let level = NumberText.fixed((1 - r.settings.alpha) * 100, 0)
    var out =
      "Experiment analysis · \(settings(r, control: r.control))\n\n"
    out += DecisionSummaryRenderer.lead(DecisionSummary(analysis: r), overTime: overTime)
    if let margin = marginHeadline(r) {
      out += TextWrap.wrap(margin, width: TerminalLayout.current.width ?? 10_000, indent: 2).joined(separator: "\n") + "\n"
    }
    out += "\n"
    var arms = TextTable(
      ["arm", "users", "conversions", "rate", "\(level)% CI (Wilson)", "P(best)"],
      alignments: [.left, .right, .right, .right, .right, .right])
    for a in r.arms {
      arms.add([
        a.name, NumberText.grouped(a.users), NumberText.grouped(a.conversions), NumberText.percent(a.rate, decimals: 2),
        interval(a.rateInterval, percent: true), NumberText.percent(a.probabilityToBeBest),
      ])
    }
    out += arms.render() + "\n"
    var comparisons = TextTable(
      [
        "arm vs \(r.control)", "lift [\(level)% CI]", "Δ", "\(level)% CI", "p", "adj. p", "P(beat)", Vocabulary.expectedLoss, "verdict",
      ],
      // To fit, the raw p goes first (the verdict reads the adjusted p beside it), then the Δ interval (the lift's
      // interval agrees with the test), then Δ (the arms' rates are above it); the expected loss, GrowthBook's risk,
      // shown nowhere else, stays, in a split table if need be.
      alignments: [.left, .right, .right, .right, .right, .right, .right, .right, .left], secondary: [2, 3, 4])
    for c in r.comparisons {
      comparisons.add([
        c.arm, NumberText.lift(c.relativeLift), NumberText.points(c.absoluteLift?.estimate, decimals: 2),
        interval(c.absoluteLift?.interval, percent: true) + " pp", pValue(c.test?.pValue), pValue(c.adjustedPValue),
        NumberText.percent(c.probabilityToBeatControl), expectedLoss(c),
        Vocabulary.mark(call(c, interim: interim(overTime)), c.conclusion == .sampleRatioMismatch ? .warning : nil),
      ])
    }
    out += comparisons.render()
    if let margin = marginTable(r, marked: true) {
      out += "\n" + TextWrap.wrap(margin.note, width: TerminalLayout.current.width ?? 10_000, indent: 2).joined(separator: "\n") + "\n"
      var table = TextTable(margin.headers, alignments: [.left, .right, .right, .left, .right, .left])
      for row in margin.rows { table.add(row) }
      out += table.render()
    }
    let revenue = r.comparisons.compactMap { c in c.revenue.map { (c.arm, $0) } }
    if !revenue.isEmpty {
      out += "\n"
      var table = TextTable(
        ["revenue/user vs \(r.control)", "difference", "\(level)% CI (Welch)", "p-value", "P(beat)"],
        alignments: [.left, .right, .right, .right, .right])
      for (arm, rev) in revenue {
        table.add([
          arm, rev.welch.difference.estimate.map { NumberText.fixed($0, 4) } ?? "n/a",
          interval(rev.welch.difference.interval, percent: false), pValue(rev.welch.test.pValue),
          NumberText.percent(rev.bayesian.probabilityToBeat),
        ])
      }
      out += table.render()
    }
    let srm = r.sampleRatioMismatch
    out += "\nSample ratio: χ² = \(NumberText.fixed(srm.test.statistic, 3)), \(pEquals(srm.test.pValue))"
    out +=
      srm.mismatch
      ? " — MISMATCH: the arms' sizes do not match the planned allocation; do not trust any verdict\n"
      : " — no mismatch with the planned allocation\n"
    let diagnostics = r.comparisons.flatMap { c in c.diagnostics.map { "\(c.arm): \($0.rawValue)" } }
    if !diagnostics.isEmpty { out += "Diagnostics: " + diagnostics.joined(separator: "; ") + "\n" }
    if let fisher = fisherNote(r) { out += fisher + "\n" }
    if let untested = untestedNote(r) { out += untested + "\n" }
    out += "Methods: " + methods(r).joined(separator: "; ") + "\n"
    if let segments { out += SegmentRenderer.text(segments) }
    if let overTime { out += SequentialRenderer.table(overTime.report, context: overTime.context) }
    return out
  }

  /// Fisher's exact p-value of each comparison whose 2×2 table has a cell below 5 (the methods promise it beside
  /// the score test), or `nil` when none has.
  static func fisherNote(_ r: ExperimentAnalysis.Report) -> String? {
    let tests = r.comparisons.compactMap { c in c.fisherExact.map { "\(c.arm) \(pEquals($0.pValue))" } }
    guard !tests.isEmpty else { return nil }
    return "Fisher's exact test (a cell below 5; the verdict stays the score test's): " + tests.joined(separator: ", ")
  }

  /// Why an arm has no p-value or interval (shown `n/a`): no users, or fewer than two, in it or
  /// in the control (``Diagnostic/emptyArm``, ``Diagnostic/insufficientData``); `nil` when every arm was tested.
  static func untestedNote(_ r: ExperimentAnalysis.Report) -> String? {
    let reasons = r.comparisons.compactMap { c -> String? in
      guard c.test == nil else { return nil }
      let why = c.diagnostics.contains(.emptyArm) ? "no users" : "fewer than two users"
      return "\(c.arm) (\(why) in it or in \(r.control))"
    }
    guard !reasons.isEmpty else { return nil }
    return "No p-value or interval (n/a) for " + reasons.joined(separator: ", ") + ": a test needs two users in each arm."
  }

  /// A test read day by day, rendered after the analysis of its last day.
  package typealias OverTime = (report: SequentialAnalysis.Report, context: SequentialRenderer.Context)

  static func ci(_ c: ConfidenceInterval?) -> JSONValue {
    guard let c else { return .null }
    return .object([
      ("lower", .number(c.lower)), ("upper", .number(c.upper)), ("level", .number(c.confidenceLevel)), ("method", .string(c.method)),
    ])
  }

  static func estimate(_ e: IntervalEstimate?) -> JSONValue {
    guard let e else { return .null }
    return .object([
      ("estimate", e.estimate.map { .number($0) } ?? .null), ("interval", ci(e.interval)),
      ("diagnostic", e.diagnostic.map { .string($0.rawValue) } ?? .null),
    ])
  }

  static func test(_ t: TestResult?) -> JSONValue {
    guard let t else { return .null }
    return .object([
      ("method", .string(t.method)), ("statistic", .number(t.statistic)), ("pValue", .number(t.pValue)),
      ("alternative", .string(t.alternative.rawValue)),
      ("degreesOfFreedom", t.degreesOfFreedom.map { .number($0) } ?? .null),
      ("diagnostic", t.diagnostic.map { .string($0.rawValue) } ?? .null),
    ])
  }

  static func optional(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }

  /// The report as pretty-printed JSON (`schemaVersion` 1, `command` `"analyze"`): rates and lifts as
  /// fractions, absent estimates and p-values as `null`, diagnostics by their raw names.
  package static func json(_ r: ExperimentAnalysis.Report, overTime: OverTime? = nil, segments: SegmentReport? = nil) -> String {
    var body: [(String, JSONValue)] = [
      ("summary", DecisionSummaryRenderer.json(DecisionSummary(analysis: r), overTime: overTime?.report)),
      ("nonInferiority", nonInferiorityJSON(r)),
      ("control", .string(r.control)),
      ("alpha", .number(r.settings.alpha)),
      ("alternative", .string(r.settings.alternative.rawValue)),
      ("correction", .string(r.settings.correction.rawValue)),
      (
        "arms",
        .array(
          r.arms.map { a in
            .object([
              ("name", .string(a.name)), ("users", .integer(a.users)), ("conversions", .integer(a.conversions)),
              ("rate", optional(a.rate)), ("rateInterval", ci(a.rateInterval)), ("probabilityToBeBest", optional(a.probabilityToBeBest)),
            ])
          })
      ),
      (
        "comparisons",
        .array(
          r.comparisons.map { c in
            .object([
              ("arm", .string(c.arm)), ("absoluteLift", estimate(c.absoluteLift)), ("relativeLift", estimate(c.relativeLift)),
              ("test", test(c.test)), ("fisherExact", test(c.fisherExact)), ("adjustedPValue", optional(c.adjustedPValue)),
              ("significant", .bool(c.significant)),
              ("conclusion", .string(c.conclusion.rawValue)),
              ("probabilityToBeatControl", optional(c.probabilityToBeatControl)), ("expectedLoss", optional(c.expectedLoss)),
              (
                "revenue",
                c.revenue.map { rev in
                  .object([
                    ("welch", test(rev.welch.test)), ("difference", estimate(rev.welch.difference)),
                    ("probabilityToBeatControl", .number(rev.bayesian.probabilityToBeat)),
                    ("expectedLoss", .number(rev.bayesian.expectedLoss)),
                  ])
                } ?? .null
              ),
              ("diagnostics", .array(c.diagnostics.map { .string($0.rawValue) })),
              ("nonInferiority", test(c.nonInferiority)), ("superiority", test(c.superiority)),
              ("nonInferior", c.nonInferior.map { .bool($0) } ?? .null),
              ("betterByTheMargin", c.betterByTheMargin.map { .bool($0) } ?? .null),
            ])
          })
      ),
      ("margin", optional(r.settings.margin)),
      (
        "sampleRatioMismatch",
        .object([
          ("test", test(r.sampleRatioMismatch.test)), ("mismatch", .bool(r.sampleRatioMismatch.mismatch)),
          ("observedShares", .array(r.sampleRatioMismatch.observedShares.map { .number($0) })),
          ("expectedShares", .array(r.sampleRatioMismatch.expectedShares.map { .number($0) })),
        ])
      ),
      ("methods", .array(methods(r).map { .string($0) })),
    ]
    body.append(("segments", segments.map(SegmentRenderer.json) ?? .null))
    if let overTime { body.append(("overTime", SequentialRenderer.json(overTime.report, context: overTime.context))) }
    return JSONWriter.write(JSONReportHead(schemaVersion: schemaVersion, command: "analyze").document(body))
  }

  /// The non-inferiority result (`analyze --margin`), after the summary: the margin and per arm its
  /// reading (``NonInferiorityResult/Reading``) and the non-inferiority p-value; `null` without a margin.
  static func nonInferiorityJSON(_ r: ExperimentAnalysis.Report) -> JSONValue {
    guard let result = NonInferiorityResult(r) else { return .null }
    return .object([
      ("margin", .number(result.margin)),
      (
        "arms",
        .array(
          result.arms.map { a in
            .object([
              ("arm", .string(a.arm)), ("reading", .string(a.reading.rawValue)), ("pValue", a.pValue.map { .number($0) } ?? .null),
            ])
          })
      ),
    ])
  }
}
