/// The kinds of screen an onboarding or paywall flow is made of.
public enum ScreenKind: String, Sendable, Hashable, CaseIterable, Codable {
  /// A slide of text and pictures.
  case info
  /// A question with options (single or multi-select; required or optional).
  case choice
  /// A text field (a name, an API key) whose validation can fail.
  case input
  /// A value picked on a slider (a daily goal of 1–20).
  case slider
  /// Plans to buy, a default plan, and perhaps a way out.
  case paywall
  /// A system permission prompt (notifications, photos).
  case permission
  /// Work the app does while the user waits (data seeding), which can fail.
  case task

  /// The actions a screen of this kind may offer.
  public var allowedActions: Set<ActionKind> {
    switch self {
    case .info: [.continue, .back, .skip, .jump, .quit]
    case .choice: [.select, .continue, .back, .skip, .jump, .quit]
    case .input: [.type, .back, .skip, .quit]
    case .slider: [.continue, .back, .skip, .quit]
    case .paywall: [.purchase, .dismiss, .restore, .back, .skip, .quit]
    case .permission: [.allow, .deny, .back, .quit]
    case .task: [.continue, .back, .skip, .quit]
    }
  }

  /// Median seconds spent on a screen of this kind when the spec does not say.
  public var defaultMedianSeconds: Double {
    switch self {
    case .info: 5
    case .choice: 8
    case .input: 12
    case .slider: 6
    case .paywall: 12
    case .permission: 3
    case .task: 10
    }
  }
}

/// An option of a choice screen. In a spec: an id string, or `{"id": …, "weight": …}`.
public struct ChoiceOption: Sendable, Hashable, Decodable {
  /// The option's id, as counted in the results' option tallies.
  public var id: String
  /// Relative weight with which users pick it (need not sum to 1).
  public var weight: Double

  /// An option picked with relative weight `weight` (1: as likely as any other unweighted option).
  public init(id: String, weight: Double = 1) {
    self.id = id
    self.weight = weight
  }

  enum CodingKeys: String, CodingKey { case id, weight }

  /// Decodes either form: a bare id string (weight 1) or an object with `id` and an optional `weight`.
  public init(from decoder: any Decoder) throws {
    if let single = try? decoder.singleValueContainer(), let id = try? single.decode(String.self) {
      self.init(id: id)
      return
    }
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(id: try c.decode(String.self, forKey: .id), weight: try c.decodeIfPresent(Double.self, forKey: .weight) ?? 1)
  }
}

/// Time spent on a screen: lognormal with the given median and σ of ln-seconds.
public struct Dwell: Sendable, Hashable, Decodable {
  /// The median time on the screen per view, in seconds (the lognormal's `exp(μ)`).
  public var medianSeconds: Double
  /// `nil`: the behavior parameter `dwellSigma`.
  public var sigma: Double?

  /// A dwell time with median `medianSeconds`; `sigma` `nil` takes the behavior parameter `dwellSigma`.
  public init(medianSeconds: Double, sigma: Double? = nil) {
    self.medianSeconds = medianSeconds
    self.sigma = sigma
  }

  enum CodingKeys: String, CodingKey { case medianSeconds, sigma }

  /// Decodes `{"medianSeconds": …, "sigma": …}`; `sigma` may be omitted.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    medianSeconds = try c.decode(Double.self, forKey: .medianSeconds)
    sigma = try c.decodeIfPresent(Double.self, forKey: .sigma)
  }
}

/// One screen of a flow. Fields that belong to one kind only are ignored by the
/// others, and validation reports them when set on the wrong kind.
public struct Screen: Sendable, Hashable {
  /// The screen's id: unique in the flow, the target of actions' `to`, the key of its results.
  public var id: String
  /// What the screen is (info, choice, input, slider, task, permission, paywall); decides which fields apply.
  public var kind: ScreenKind
  /// A heading for people reading the spec; the simulation and the reports do not use it.
  public var title: String?
  /// Actions in the order of the spec.
  public var actions: [Action]
  /// Time spent per view; `nil`: the kind's default median with the `dwellSigma` behavior parameter.
  public var dwell: Dwell?

  /// choice, input: whether the user must answer to go on (default: true).
  public var required: Bool
  /// choice: the options offered.
  public var options: [ChoiceOption]
  /// choice: several options may be selected.
  public var multiSelect: Bool
  /// choice, slider: answering sets the "personalized" state (a goal), which raises purchase utility.
  public var personalizes: Bool
  /// input: probability that a submitted value fails validation (the user stays on the screen).
  public var validationFailureProbability: Double
  /// slider: the range of values.
  public var range: ClosedRange<Double>?
  /// task: probability that the work fails (the user sees the screen again: retry or quit).
  public var failureProbability: Double
  /// paywall: plans in display order.
  public var plans: [Plan]
  /// paywall: the pre-selected plan's id.
  public var defaultPlan: String?
  /// paywall: how many Pro features it lists.
  public var features: Int
  /// permission: what is asked for.
  public var permission: String?

  /// A screen; each default is what a spec that omits the field gets.
  public init(
    id: String, kind: ScreenKind, title: String? = nil, actions: [Action], dwell: Dwell? = nil,
    required: Bool = true, options: [ChoiceOption] = [], multiSelect: Bool = false, personalizes: Bool = false,
    validationFailureProbability: Double = 0, range: ClosedRange<Double>? = nil, failureProbability: Double = 0,
    plans: [Plan] = [], defaultPlan: String? = nil, features: Int = 0, permission: String? = nil
  ) {
    self.id = id
    self.kind = kind
    self.title = title
    self.actions = actions
    self.dwell = dwell
    self.required = required
    self.options = options
    self.multiSelect = multiSelect
    self.personalizes = personalizes
    self.validationFailureProbability = validationFailureProbability
    self.range = range
    self.failureProbability = failureProbability
    self.plans = plans
    self.defaultPlan = defaultPlan
    self.features = features
    self.permission = permission
  }

  /// The action with this id.
  public func action(_ id: String) -> Action? { actions.first(where: { $0.id == id }) }
}

extension Screen: Decodable {
  enum CodingKeys: String, CodingKey {
    case id, kind, title, actions, dwell, required, options, multiSelect, personalizes
    case validationFailureProbability, range, failureProbability, plans, defaultPlan, features, permission
  }

  /// Decodes a screen of a spec: `id`, `kind` and `actions` are required, every other field takes the
  /// default of the memberwise initializer.
  /// - Throws: ``SpecError`` for an unknown kind or action kind, or a `range` that is not `[min, max]` with `min ≤ max`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    id = try c.decode(String.self, forKey: .id)
    kind = try c.decodeEnum(ScreenKind.self, forKey: .kind)
    title = try c.decodeIfPresent(String.self, forKey: .title)
    actions = try Action.decodeList(from: c.superDecoder(forKey: .actions))
    dwell = try c.decodeIfPresent(Dwell.self, forKey: .dwell)
    required = try c.decodeIfPresent(Bool.self, forKey: .required) ?? true
    options = try c.decodeIfPresent([ChoiceOption].self, forKey: .options) ?? []
    multiSelect = try c.decodeIfPresent(Bool.self, forKey: .multiSelect) ?? false
    personalizes = try c.decodeIfPresent(Bool.self, forKey: .personalizes) ?? false
    validationFailureProbability = try c.decodeIfPresent(Double.self, forKey: .validationFailureProbability) ?? 0
    if let bounds = try c.decodeIfPresent([Double].self, forKey: .range) {
      guard bounds.count == 2, bounds[0] <= bounds[1] else {
        throw SpecError(
          path: decoder.specPath.key("range"), message: "a range is two numbers [min, max] with min ≤ max",
          hint: "for example [1, 20]")
      }
      range = bounds[0]...bounds[1]
    } else {
      range = nil
    }
    failureProbability = try c.decodeIfPresent(Double.self, forKey: .failureProbability) ?? 0
    plans = try c.decodeIfPresent([Plan].self, forKey: .plans) ?? []
    defaultPlan = try c.decodeIfPresent(String.self, forKey: .defaultPlan)
    features = try c.decodeIfPresent(Int.self, forKey: .features) ?? 0
    permission = try c.decodeIfPresent(String.self, forKey: .permission)
  }
}
