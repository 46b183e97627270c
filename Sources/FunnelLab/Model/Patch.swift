/// One change a variant makes to the base experiment.
///
/// Patches are applied in order to a copy of the base; the result is validated
/// like any spec, so a patch that breaks the flow is reported with its path.
public enum Patch: Sendable, Hashable {
  /// Move a screen to just after (or before) another.
  case moveScreen(screen: String, after: String?, before: String?)
  /// Make a choice or input screen required or optional.
  case setRequired(screen: String, required: Bool)
  /// Pre-select another plan on a paywall (`screen` may be omitted when there is one paywall).
  case setDefaultPlan(screen: String?, plan: String)
  /// Change (or add) an action: its probability and/or target.
  case setAction(screen: String, action: String, kind: ActionKind?, probability: Double?, to: String?)
  /// Remove an action from a screen.
  case removeAction(screen: String, action: String)
  /// Change how many Pro features a paywall lists (a count other than 0 on another kind of screen is a problem).
  case setFeatures(screen: String?, count: Int)
  /// Change a plan's price, badge or trial.
  case setPlan(screen: String?, plan: String, price: Double?, badge: String?, trialDays: Int?)
  /// Override a behavior parameter for everyone or for one segment.
  case setBehavior(parameter: BehaviorParameter, value: Double, segment: String?)
  /// Insert a new screen just after (or before) another.
  case insertScreen(Screen, after: String?, before: String?)
  /// Remove a screen (actions that targeted it must be retargeted by other patches).
  case removeScreen(screen: String)

  /// The `op` names accepted in a spec.
  public static let operations = Operation.allCases.map(\.rawValue)

  /// The name of a patch's case: the spec's `op`.
  public enum Operation: String, Sendable, Hashable, CaseIterable {
    /// ``Patch/moveScreen(screen:after:before:)``.
    case moveScreen
    /// ``Patch/setRequired(screen:required:)``.
    case setRequired
    /// ``Patch/setDefaultPlan(screen:plan:)``.
    case setDefaultPlan
    /// ``Patch/setAction(screen:action:kind:probability:to:)``.
    case setAction
    /// ``Patch/removeAction(screen:action:)``.
    case removeAction
    /// ``Patch/setFeatures(screen:count:)``.
    case setFeatures
    /// ``Patch/setPlan(screen:plan:price:badge:trialDays:)``.
    case setPlan
    /// ``Patch/setBehavior(parameter:value:segment:)``.
    case setBehavior
    /// ``Patch/insertScreen(_:after:before:)``.
    case insertScreen
    /// ``Patch/removeScreen(screen:)``.
    case removeScreen

    /// One line on what the operation does, for the spec's JSON Schema (`funnellab schema`).
    public var summary: String {
      switch self {
      case .moveScreen: "Move a screen to just after (or before) another."
      case .setRequired: "Make a choice or input screen required or optional."
      case .setDefaultPlan: "Pre-select another plan on a paywall."
      case .setAction:
        "Change (or add) an action: its kind, probability and/or target. Adding an action whose id is not a kind name needs \"kind\"."
      case .removeAction: "Remove an action from a screen."
      case .setFeatures: "Change how many Pro features a paywall lists."
      case .setPlan: "Change a plan's price, badge or trial."
      case .setBehavior: "Override a behavior parameter for everyone or for one segment."
      case .insertScreen: "Insert a new screen just after (or before) another."
      case .removeScreen: "Remove a screen (actions that targeted it must be retargeted by other patches)."
      }
    }
  }
}

extension Patch: Decodable {
  enum CodingKeys: String, CodingKey {
    case op, screen, after, before, required, plan, action, kind, probability, to, count, price, badge, trialDays
    case parameter, value, segment
  }

  /// Decodes `{"op": …, …}`: `op` names the case (one of ``operations``) and the other keys its fields.
  /// - Throws: ``SpecError`` for an unknown `op` (with the closest name as a hint) or a missing field.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let op = try c.decode(String.self, forKey: .op)
    guard let operation = Operation(rawValue: op) else {
      throw SpecError(
        path: decoder.specPath.key("op"), message: "unknown patch operation '\(op)'",
        hint: NameSuggestion.hint(for: op, in: Patch.operations)
          ?? "use one of: " + Patch.operations.joined(separator: ", "))
    }
    switch operation {
    case .moveScreen:
      self = .moveScreen(
        screen: try c.decode(String.self, forKey: .screen),
        after: try c.decodeIfPresent(String.self, forKey: .after),
        before: try c.decodeIfPresent(String.self, forKey: .before))
    case .setRequired:
      self = .setRequired(screen: try c.decode(String.self, forKey: .screen), required: try c.decode(Bool.self, forKey: .required))
    case .setDefaultPlan:
      self = .setDefaultPlan(screen: try c.decodeIfPresent(String.self, forKey: .screen), plan: try c.decode(String.self, forKey: .plan))
    case .setAction:
      self = .setAction(
        screen: try c.decode(String.self, forKey: .screen), action: try c.decode(String.self, forKey: .action),
        kind: try c.decodeEnumIfPresent(ActionKind.self, forKey: .kind),
        probability: try c.decodeIfPresent(Double.self, forKey: .probability),
        to: try c.decodeIfPresent(String.self, forKey: .to))
    case .removeAction:
      self = .removeAction(screen: try c.decode(String.self, forKey: .screen), action: try c.decode(String.self, forKey: .action))
    case .setFeatures:
      self = .setFeatures(screen: try c.decodeIfPresent(String.self, forKey: .screen), count: try c.decode(Int.self, forKey: .count))
    case .setPlan:
      self = .setPlan(
        screen: try c.decodeIfPresent(String.self, forKey: .screen), plan: try c.decode(String.self, forKey: .plan),
        price: try c.decodeIfPresent(Double.self, forKey: .price),
        badge: try c.decodeIfPresent(String.self, forKey: .badge),
        trialDays: try c.decodeIfPresent(Int.self, forKey: .trialDays))
    case .setBehavior:
      let name = try c.decode(String.self, forKey: .parameter)
      guard let parameter = BehaviorParameter(rawValue: name) else {
        throw SpecError(
          path: decoder.specPath.key("parameter"), message: "unknown behavior parameter '\(name)'",
          hint: NameSuggestion.hint(for: name, in: BehaviorParameter.allCases.map(\.rawValue)))
      }
      self = .setBehavior(
        parameter: parameter, value: try c.decode(Double.self, forKey: .value),
        segment: try c.decodeIfPresent(String.self, forKey: .segment))
    case .insertScreen:
      self = .insertScreen(
        try c.decode(Screen.self, forKey: .screen),
        after: try c.decodeIfPresent(String.self, forKey: .after),
        before: try c.decodeIfPresent(String.self, forKey: .before))
    case .removeScreen:
      self = .removeScreen(screen: try c.decode(String.self, forKey: .screen))
    }
  }
}

/// A named change to the flow, population or behavior: one arm of an experiment.
public struct Variant: Sendable, Hashable, Decodable {
  /// The variant's id: unique among the variants, the arm's name in every report.
  public var id: String
  /// What the variant changes, in words (the spec's `description`); shown beside the id in reports.
  public var summary: String?
  /// The changes to the base experiment, applied in order; none for the control.
  public var patches: [Patch]

  /// A variant; without patches it is the base experiment itself (a control).
  public init(id: String, summary: String? = nil, patches: [Patch] = []) {
    self.id = id
    self.summary = summary
    self.patches = patches
  }

  enum CodingKeys: String, CodingKey { case id, description, patches }

  /// Decodes `{"id": …, "description": …, "patches": […]}`; only `id` is required.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    id = try c.decode(String.self, forKey: .id)
    summary = try c.decodeIfPresent(String.self, forKey: .description)
    patches = try c.decodeIfPresent([Patch].self, forKey: .patches) ?? []
  }
}
