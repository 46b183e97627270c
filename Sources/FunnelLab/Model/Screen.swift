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

  /// The actions that leave a screen of this kind without an answer: a required screen (``Screen/required``)
  /// may not offer them. Empty for the kinds that ask nothing.
  public var actionsSkippingAnswer: Set<ActionKind> {
    switch self {
    case .choice: [.skip, .continue]
    case .input: [.skip]
    case .info, .slider, .paywall, .permission, .task: []
    }
  }

  /// One line on what a screen of this kind is, for the spec's JSON Schema (`funnellab schema`, which adds
  /// ``defaultMedianSeconds``).
  public var summary: String {
    switch self {
    case .info: "A slide of text and pictures"
    case .choice: "A question with options"
    case .input: "A text field whose validation can fail"
    case .slider: "A value picked on a slider"
    case .paywall: "Plans to buy, a default plan, and perhaps a way out"
    case .permission: "A system permission prompt"
    case .task: "Work the app does while the user waits, which can fail"
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

/// One screen of a flow: what every screen has (an id, actions, a dwell time) and, in
/// ``content``, the kind with the fields of that kind only, so a screen cannot hold
/// another kind's fields.
public struct Screen: Sendable, Hashable {
  /// The screen's id: unique in the flow, the target of actions' `to`, the key of its results.
  public var id: String
  /// A heading for people reading the spec; the simulation and the reports do not use it.
  public var title: String?
  /// Actions in the order of the spec.
  public var actions: [Action]
  /// Time spent per view; `nil`: the kind's default median with the `dwellSigma` behavior parameter.
  public var dwell: Dwell?
  /// The screen's kind and the fields of that kind.
  public var content: Content

  /// A screen of the kind `content` gives.
  public init(id: String, title: String? = nil, content: Content, actions: [Action], dwell: Dwell? = nil) {
    self.id = id
    self.title = title
    self.content = content
    self.actions = actions
    self.dwell = dwell
  }

  /// What the screen is (info, choice, input, slider, task, permission, paywall): the case of ``content``.
  public var kind: ScreenKind { content.kind }

  /// The action with this id.
  public func action(_ id: String) -> Action? { actions.first(where: { $0.id == id }) }
}

extension Screen {
  /// A screen's kind with the fields that belong to it.
  public enum Content: Sendable, Hashable {
    /// A slide of text and pictures; it has no fields of its own.
    case info
    /// A question with options.
    case choice(Choice)
    /// A text field whose validation can fail.
    case input(Input)
    /// A value picked on a slider.
    case slider(Slider)
    /// Plans to buy.
    case paywall(Paywall)
    /// A system permission prompt.
    case permission(Permission)
    /// Work the app does while the user waits.
    case task(Work)

    /// The kind this content is for.
    public var kind: ScreenKind {
      switch self {
      case .info: .info
      case .choice: .choice
      case .input: .input
      case .slider: .slider
      case .paywall: .paywall
      case .permission: .permission
      case .task: .task
      }
    }
  }

  /// The fields of a choice screen.
  public struct Choice: Sendable, Hashable {
    /// The options offered.
    public var options: [ChoiceOption]
    /// Several options may be selected.
    public var multiSelect: Bool
    /// Answering sets the "personalized" state (a goal), which raises purchase utility.
    public var personalizes: Bool
    /// Whether the user must answer to go on.
    public var required: Bool

    /// A choice; each default is what a spec that omits the field gets.
    public init(options: [ChoiceOption], multiSelect: Bool = false, personalizes: Bool = false, required: Bool = true) {
      self.options = options
      self.multiSelect = multiSelect
      self.personalizes = personalizes
      self.required = required
    }
  }

  /// The fields of an input screen.
  public struct Input: Sendable, Hashable {
    /// Probability that a submitted value fails validation (the user stays on the screen).
    public var validationFailureProbability: Double
    /// Whether the user must answer to go on.
    public var required: Bool

    /// An input; each default is what a spec that omits the field gets.
    public init(validationFailureProbability: Double = 0, required: Bool = true) {
      self.validationFailureProbability = validationFailureProbability
      self.required = required
    }
  }

  /// The fields of a slider screen.
  public struct Slider: Sendable, Hashable {
    /// The range of values; `nil` when the spec does not give one.
    public var range: ClosedRange<Double>?
    /// Answering sets the "personalized" state (a goal), which raises purchase utility.
    public var personalizes: Bool

    /// A slider; each default is what a spec that omits the field gets.
    public init(range: ClosedRange<Double>? = nil, personalizes: Bool = false) {
      self.range = range
      self.personalizes = personalizes
    }
  }

  /// The fields of a paywall.
  public struct Paywall: Sendable, Hashable {
    /// Plans in display order.
    public var plans: [Plan]
    /// The pre-selected plan's id.
    public var defaultPlan: String?
    /// How many Pro features it lists.
    public var features: Int

    /// A paywall; each default is what a spec that omits the field gets.
    public init(plans: [Plan], defaultPlan: String? = nil, features: Int = 0) {
      self.plans = plans
      self.defaultPlan = defaultPlan
      self.features = features
    }
  }

  /// The fields of a permission prompt.
  public struct Permission: Sendable, Hashable {
    /// What is asked for (the spec's `permission`: `notifications`, `photos`); `nil` when not given.
    public var name: String?

    /// A permission prompt for `name`.
    public init(name: String? = nil) { self.name = name }
  }

  /// The fields of a task screen (work the app does while the user waits).
  public struct Work: Sendable, Hashable {
    /// Probability that the work fails (the user sees the screen again: retry or quit).
    public var failureProbability: Double

    /// A task that fails with probability `failureProbability`.
    public init(failureProbability: Double = 0) { self.failureProbability = failureProbability }
  }

  /// The choice fields; `nil` unless this is a choice screen.
  public var choice: Choice? {
    if case .choice(let fields) = content { return fields }
    return nil
  }

  /// The input fields; `nil` unless this is an input screen.
  public var input: Input? {
    if case .input(let fields) = content { return fields }
    return nil
  }

  /// The slider fields; `nil` unless this is a slider screen.
  public var slider: Slider? {
    if case .slider(let fields) = content { return fields }
    return nil
  }

  /// The paywall fields; `nil` unless this is a paywall.
  public var paywall: Paywall? {
    if case .paywall(let fields) = content { return fields }
    return nil
  }

  /// The permission fields; `nil` unless this is a permission prompt.
  public var permission: Permission? {
    if case .permission(let fields) = content { return fields }
    return nil
  }

  /// The task fields; `nil` unless this is a task screen.
  public var task: Work? {
    if case .task(let fields) = content { return fields }
    return nil
  }

  /// Whether the user must answer to go on: a choice's or an input's `required`; `nil` for the
  /// other kinds, which ask nothing.
  public var required: Bool? { choice?.required ?? input?.required }

  /// Whether answering sets the "personalized" state: a choice's or a slider's `personalizes`.
  public var personalizes: Bool { choice?.personalizes ?? slider?.personalizes ?? false }
}
