extension Screen: Decodable {
  enum CodingKeys: String, CodingKey, CaseIterable {
    case id, kind, title, actions, dwell, required, options, multiSelect, personalizes
    case validationFailureProbability, range, failureProbability, plans, defaultPlan, features, permission

    /// The kinds whose screens use this field (the cases of ``Screen/Content`` that hold it); `nil` for a
    /// field every screen has. Decoding reports a kind-specific field set on another kind; the schema
    /// (`funnellab schema`) restricts it the same way.
    var owners: [ScreenKind]? {
      switch self {
      case .id, .kind, .title, .actions, .dwell: nil
      case .required: [.choice, .input]
      case .options, .multiSelect: [.choice]
      case .personalizes: [.choice, .slider]
      case .validationFailureProbability: [.input]
      case .range: [.slider]
      case .failureProbability: [.task]
      case .plans, .defaultPlan, .features: [.paywall]
      case .permission: [.permission]
      }
    }

    /// ``owners`` in words: "choice and slider".
    var ownersInWords: String { (owners ?? ScreenKind.allCases).map(\.rawValue).joined(separator: " and ") }
  }

  /// Decodes a screen of a spec: `id`, `kind` and `actions` are required, every other field takes the
  /// default of its kind's initializer.
  ///
  /// A field of another kind with a value other than its default (`options` on an info
  /// screen) is reported to the decoder as a problem at the field's path ("options is only
  /// for choice screens"); the spec decoder collects it and goes on, any other decoder throws it.
  /// - Throws: ``SpecError`` for an unknown kind or action kind, or a `range` that is not `[min, max]` with `min ≤ max`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    id = try c.decode(String.self, forKey: .id)
    let kind = try c.decodeEnum(ScreenKind.self, forKey: .kind)
    title = try c.decodeIfPresent(String.self, forKey: .title)
    actions = try Action.decodeList(from: c.superDecoder(forKey: .actions))
    dwell = try c.decodeIfPresent(Dwell.self, forKey: .dwell)
    let fields = try SpecFields(from: c, at: decoder.specPath)
    content = fields.content(of: kind)
    for field in fields.misplaced(on: kind) {
      let name = field.key.stringValue
      try decoder.reportProblem(
        SpecError(
          path: decoder.specPath.key(name), message: "\(name) is only for \(field.kinds) screens", hint: "remove it or change the kind"))
    }
  }
}

/// The kind-specific fields of a screen as a spec writes them: every one may be given on
/// any kind, so they are read first and then sorted into the kind's ``Screen/Content``.
private struct SpecFields {
  typealias Key = Screen.CodingKeys

  var required: Bool
  var options: [ChoiceOption]
  var multiSelect: Bool
  var personalizes: Bool
  var validationFailureProbability: Double
  var range: ClosedRange<Double>?
  var failureProbability: Double
  var plans: [Plan]
  var defaultPlan: String?
  var features: Int
  var permission: String?

  /// Reads every kind-specific field in the order of ``Screen/CodingKeys``, with its default when absent.
  init(from c: KeyedDecodingContainer<Key>, at path: SpecPath) throws {
    required = try c.decodeIfPresent(Bool.self, forKey: .required) ?? true
    options = try c.decodeIfPresent([ChoiceOption].self, forKey: .options) ?? []
    multiSelect = try c.decodeIfPresent(Bool.self, forKey: .multiSelect) ?? false
    personalizes = try c.decodeIfPresent(Bool.self, forKey: .personalizes) ?? false
    validationFailureProbability = try c.decodeIfPresent(Double.self, forKey: .validationFailureProbability) ?? 0
    if let bounds = try c.decodeIfPresent([Double].self, forKey: .range) {
      guard bounds.count == 2, bounds[0] <= bounds[1] else {
        throw SpecError(
          path: path.key("range"), message: "a range is two numbers [min, max] with min ≤ max", hint: "for example [1, 20]")
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

  /// The fields `kind` uses.
  func content(of kind: ScreenKind) -> Screen.Content {
    switch kind {
    case .info: .info
    case .choice:
      .choice(Screen.Choice(options: options, multiSelect: multiSelect, personalizes: personalizes, required: required))
    case .input: .input(Screen.Input(validationFailureProbability: validationFailureProbability, required: required))
    case .slider: .slider(Screen.Slider(range: range, personalizes: personalizes))
    case .paywall: .paywall(Screen.Paywall(plans: plans, defaultPlan: defaultPlan, features: features))
    case .permission: .permission(Screen.Permission(name: permission))
    case .task: .task(Screen.Work(failureProbability: failureProbability))
    }
  }

  /// The fields given a value other than their default on a kind that does not use them,
  /// each with the kinds that do (in words), in the order a spec's problems are listed.
  func misplaced(on kind: ScreenKind) -> [(key: Key, kinds: String)] {
    let candidates: [(Key, Bool)] = [
      (.options, !options.isEmpty), (.multiSelect, multiSelect), (.personalizes, personalizes),
      (.validationFailureProbability, validationFailureProbability != 0), (.range, range != nil),
      (.failureProbability, failureProbability != 0), (.plans, !plans.isEmpty), (.defaultPlan, defaultPlan != nil),
      (.features, features != 0), (.permission, permission != nil), (.required, !required),
    ]
    return candidates.compactMap { key, isSet in
      isSet && !(key.owners ?? ScreenKind.allCases).contains(kind) ? (key, key.ownersInWords) : nil
    }
  }
}
