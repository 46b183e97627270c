package import FunnelLab

/// The words every report uses for what was decided (docs/glossary.md): one word per result,
/// the same in every command and format. ``toned(_:)-swift.method`` adds the colour a
/// terminal shows; Markdown, HTML and JSON use the plain words (JSON the raw identifiers).
package enum Vocabulary {
  /// A decision in words: `ship`, `do not ship`, `no decision`, `do not trust: sample ratio mismatch`.
  package static func word(_ d: Decision) -> String {
    switch d {
    case .ship: "ship"
    case .doNotShip: "do not ship"
    case .noDecision: "no decision"
    case .sampleRatioMismatch: "do not trust: sample ratio mismatch"
    }
  }

  /// The tone a terminal colours a decision with.
  static func tone(_ d: Decision) -> Tone? {
    switch d {
    case .ship: .good
    case .doNotShip: .bad
    case .noDecision: nil
    case .sampleRatioMismatch: .warning
    }
  }

  /// A call on the primary metric in words.
  package static func word(_ c: DecisionSummary.Call) -> String {
    switch c {
    case .wins: "wins"
    case .loses: "loses"
    case .noDetectableDifference: "no detectable difference"
    case .negligible: "negligible"
    case .doNotTrust: "do not trust"
    }
  }

  /// A call of an interim look (the fixed-horizon read of a test still running) in words,
  /// never a win or a loss: `ahead (interim)`, `behind (interim)`, or the call's word.
  package static func interim(_ c: DecisionSummary.Call) -> String {
    switch c {
    case .wins: "ahead (interim)"
    case .loses: "behind (interim)"
    case .noDetectableDifference, .negligible, .doNotTrust: word(c)
    }
  }

  /// The tone of a call.
  static func tone(_ c: DecisionSummary.Call) -> Tone? {
    switch c {
    case .wins: .good
    case .loses: .bad
    case .noDetectableDifference, .negligible: nil
    case .doNotTrust: .warning
    }
  }

  /// What to do, in words: `Ship`, `Keep running`, `Stop`, `Do not trust`, `Nothing to compare`.
  package static func word(_ a: Recommendation.Action) -> String {
    switch a {
    case .ship: "Ship"
    case .keepRunning: "Keep running"
    case .stop: "Stop"
    case .doNotTrust: "Do not trust"
    case .nothingToCompare: "Nothing to compare"
    }
  }

  /// The tone of a recommendation: green only for a ship, a warning for broken evidence.
  static func tone(_ a: Recommendation.Action) -> Tone? {
    switch a {
    case .ship: .good
    case .doNotTrust: .warning
    case .keepRunning, .stop, .nothingToCompare: nil
    }
  }

  /// A verdict against the truth in words: `correct`, `wrong sign`, `missed`, `correct null`,
  /// `false positive`, `negligible effect detected`.
  package static func word(_ v: Verdict) -> String {
    switch v {
    case .correct: "correct"
    case .wrongSign: "wrong sign"
    case .missed: "missed"
    case .correctNull: "correct null"
    case .falsePositive: "false positive"
    case .negligibleDetected: "negligible effect detected"
    }
  }

  /// The tone of a verdict against the truth: right calls good, wrong ones bad.
  static func tone(_ v: Verdict) -> Tone? {
    switch v {
    case .correct, .correctNull: .good
    case .wrongSign, .missed, .falsePositive: .bad
    case .negligibleDetected: nil
    }
  }

  /// The tone of a guardrail's status: a violation is bad.
  static func tone(_ g: GuardrailStatus) -> Tone? { g == .violated ? .bad : nil }

  /// A decision in words, marked with its tone for a terminal.
  static func toned(_ d: Decision) -> String { mark(word(d), tone(d)) }
  /// A call in words, marked with its tone.
  static func toned(_ c: DecisionSummary.Call) -> String { mark(word(c), tone(c)) }
  /// A verdict in words, marked with its tone.
  static func toned(_ v: Verdict) -> String { mark(word(v), tone(v)) }
  /// A guardrail status in words, marked with its tone.
  static func toned(_ g: GuardrailStatus) -> String { mark(g.rawValue, tone(g)) }

  /// The header of an expected-loss column (docs/glossary.md, **expected loss**; GrowthBook's "risk"),
  /// beside `P(beat)` in every format of `analyze`.
  package static let expectedLoss = "exp. loss"

  /// `text` marked with `tone`, or as it is.
  static func mark(_ text: String, _ tone: Tone?) -> String { tone?.mark(text) ?? text }
}
