/// What a user can do on a screen.
public enum ActionKind: String, Sendable, Hashable, CaseIterable, Codable {
  /// Go on to the next screen (or `to`).
  case `continue`
  /// Return to the previous screen (or `to`).
  case back
  /// Skip ahead to a named screen (`to` is required).
  case skip
  /// Jump to any screen, as a page indicator does (`to` is required).
  case jump
  /// Choose an option on a choice screen, then go on.
  case select
  /// Type and submit an input; validation may fail and keep the user on the screen.
  case type
  /// Grant a permission prompt.
  case allow
  /// Decline a permission prompt ("Not now").
  case deny
  /// Buy a plan on a paywall (expanded into one action per plan).
  case purchase
  /// Close a paywall without buying ("Maybe later", "Continue with limited version").
  case dismiss
  /// "Restore purchases" on a paywall: a returning subscriber regains access.
  case restore
  /// Leave the app: the user is abandoned at this screen.
  case quit

  /// One line on what the action does, for the spec's JSON Schema (`funnellab schema`).
  public var summary: String {
    switch self {
    case .continue: "Go on to the next listed screen (or \"to\")."
    case .back: "Return to the previous listed screen (or \"to\")."
    case .skip: "Skip ahead to a named screen (\"to\" is required)."
    case .jump: "Jump to any screen, as a page indicator does (\"to\" is required)."
    case .select: "Choose an option on a choice screen, then go on."
    case .type: "Type and submit an input; validation may fail and keep the user on the screen."
    case .allow: "Grant a permission prompt."
    case .deny: "Decline a permission prompt (\"Not now\")."
    case .purchase: "Buy a plan on a paywall (expanded into one outcome per plan)."
    case .dismiss: "Close a paywall without buying (\"Maybe later\", \"Continue with limited version\")."
    case .restore: "\"Restore purchases\" on a paywall: a returning subscriber regains access."
    case .quit: "Leave the app: the user is abandoned at this screen (takes no \"to\")."
    }
  }

  /// What the action's `to` may be: required (skip, jump), forbidden (quit: it always abandons), or
  /// optional (the others, whose default target is the next or previous listed screen).
  public var target: TargetRule {
    switch self {
    case .skip, .jump: .required
    case .quit: .forbidden
    case .continue, .back, .select, .type, .allow, .deny, .purchase, .dismiss, .restore: .optional
    }
  }

  /// Whether an action of some kind takes a target (``ActionKind/target``).
  public enum TargetRule: Sendable, Hashable {
    /// `to` must be given.
    case required
    /// `to` may be given; absent, the default target.
    case optional
    /// `to` must not be given.
    case forbidden
  }

  /// The order in which the simulator lays out a screen's actions, whatever the
  /// order of the spec: results never depend on how a file lists them.
  var canonicalRank: Int { ActionKind.allCases.firstIndex(of: self) ?? 0 }
}

/// One action a screen offers, with the probability that a reference user takes it.
///
/// In a spec, a screen's actions are an object keyed by action id. The id is the
/// kind when the kind is not given, and the value may be a bare probability:
/// ```json
/// "actions": { "continue": 0.86, "skip": { "to": "proUpsell", "probability": 0.08 }, "quit": 0.06 }
/// ```
public struct Action: Sendable, Hashable {
  /// The action's id: its key in the screen's `actions` object, unique on the screen.
  public var id: String
  /// What taking the action does; in a spec it defaults to the id when the id names a kind.
  public var kind: ActionKind
  /// The target screen id, `completed` or `abandoned`; `nil` means the default target
  /// (the next screen for forward actions, the previous one for `back`).
  public var to: String?
  /// Probability at reference conditions (intent 0, first screen, no friction).
  public var probability: Double?
  /// The text on the button, from the spec; carried into ``CompiledFlow/ActionSlot/label``, unused by the engines.
  public var label: String?

  /// An action; `probability` `nil` leaves it to the model (an implicit skip) or to a segment override.
  public init(id: String, kind: ActionKind, to: String? = nil, probability: Double?, label: String? = nil) {
    self.id = id
    self.kind = kind
    self.to = to
    self.probability = probability
    self.label = label
  }
}

extension Action {
  enum CodingKeys: String, CodingKey { case kind, to, probability, label }

  /// Decodes the value of one `actions` member; `id` is its key.
  init(id: String, from decoder: any Decoder) throws {
    self.id = id
    if decoder.holdsNumber {
      let p = try decoder.singleValueContainer().decode(Double.self)
      guard let kind = ActionKind(rawValue: id) else {
        throw decoder.specError(
          "unknown action kind '\(id)'",
          hint: NameSuggestion.hint(for: id, in: ActionKind.allCases.map(\.rawValue))
            ?? "write {\"kind\": …, \"probability\": \(p)} to give this action a kind")
      }
      self.kind = kind
      probability = p
      return
    }
    let c = try decoder.container(keyedBy: CodingKeys.self)
    if let kindName = try c.decodeIfPresent(String.self, forKey: .kind) {
      guard let kind = ActionKind(rawValue: kindName) else {
        throw SpecError(
          path: decoder.specPath.key("kind"), message: "unknown action kind '\(kindName)'",
          hint: NameSuggestion.hint(for: kindName, in: ActionKind.allCases.map(\.rawValue))
            ?? "use one of: " + ActionKind.allCases.map(\.rawValue).joined(separator: ", "))
      }
      self.kind = kind
    } else {
      guard let kind = ActionKind(rawValue: id) else {
        throw decoder.specError(
          "action '\(id)' needs a \"kind\"", kind: .missingKey,
          hint: NameSuggestion.hint(for: id, in: ActionKind.allCases.map(\.rawValue))
            ?? "use one of: " + ActionKind.allCases.map(\.rawValue).joined(separator: ", "))
      }
      self.kind = kind
    }
    to = try c.decodeIfPresent(String.self, forKey: .to)
    probability = try c.decodeIfPresent(Double.self, forKey: .probability)
    label = try c.decodeIfPresent(String.self, forKey: .label)
  }

  /// Decodes an `actions` object (keyed by id, order kept).
  static func decodeList(from decoder: any Decoder) throws -> [Action] {
    let c = try decoder.container(keyedBy: AnyCodingKey.self)
    return try c.allKeys.map { key in
      try Action(id: key.stringValue, from: c.superDecoder(forKey: key))
    }
  }
}
