extension Experiment {
  /// The experiment as `variant` sees it: the base with the variant's patches
  /// applied in order. Problems are reported at `variants[i].patches[j]`.
  package func applying(_ variant: Variant, at path: SpecPath) throws(SpecErrors) -> Experiment {
    var patched = self
    var errors: [SpecError] = []
    for (j, patch) in variant.patches.enumerated() {
      let patchPath = path.key("patches").index(j)
      if let error = patched.apply(patch, at: patchPath) { errors.append(error) }
    }
    guard errors.isEmpty else { throw SpecErrors(source: name, errors: errors) }
    return patched
  }

  /// The experiment of variant number `index` (validated separately).
  public func experiment(forVariant index: Int) throws(SpecErrors) -> Experiment {
    try applying(variants[index], at: SpecPath([.key("variants"), .index(index)]))
  }

  private func screenIndex(_ id: String, _ path: SpecPath) -> Result<Int, SpecError> {
    if let i = flow.index(of: id) { return .success(i) }
    return .failure(
      SpecError(
        .unknownReference, path: path, message: "unknown screen '\(id)'",
        hint: NameSuggestion.hint(for: id, in: flow.screens.map(\.id))))
  }

  private func paywallIndex(_ id: String?, _ path: SpecPath) -> Result<Int, SpecError> {
    if let id { return screenIndex(id, path.key("screen")) }
    let paywalls = flow.screens.indices.filter { flow.screens[$0].kind == .paywall }
    if paywalls.count == 1 { return .success(paywalls[0]) }
    return .failure(
      SpecError(
        path: path, message: paywalls.isEmpty ? "the flow has no paywall" : "the flow has several paywalls",
        hint: "name one with \"screen\""))
  }

  /// Applies one patch; returns the problem instead when it cannot be applied.
  mutating func apply(_ patch: Patch, at path: SpecPath) -> SpecError? {
    do {
      switch patch {
      case .moveScreen(let id, let after, let before):
        let i = try screenIndex(id, path.key("screen")).get()
        let screen = flow.screens.remove(at: i)
        let insertion = try anchorIndex(after: after, before: before, at: path)
        flow.screens.insert(screen, at: insertion)
      case .setRequired(let id, let required):
        try setRequired(screen: id, required, at: path)
      case .setDefaultPlan(let id, let plan):
        try setDefaultPlan(paywall: id, plan, at: path)
      case .setAction(let id, let actionID, let kind, let probability, let to):
        try setAction(screen: id, actionID, kind: kind, probability: probability, to: to, at: path)
      case .removeAction(let id, let actionID):
        try removeAction(screen: id, actionID, at: path)
      case .setFeatures(let id, let count):
        try setFeatures(paywall: id, count, at: path)
      case .setPlan(let id, let planID, let price, let badge, let trialDays):
        try setPlan(paywall: id, planID, price: price, badge: badge, trialDays: trialDays, at: path)
      case .setBehavior(let parameter, let value, let segmentID):
        try setBehavior(parameter, value, segment: segmentID, at: path)
      case .insertScreen(let screen, let after, let before):
        flow.screens.insert(screen, at: try anchorIndex(after: after, before: before, at: path))
      case .removeScreen(let id):
        let i = try screenIndex(id, path.key("screen")).get()
        flow.screens.remove(at: i)
      }
      return nil
    } catch let error as SpecError {
      return error
    } catch {
      return SpecError(path: path, message: "\(error)")
    }
  }

  /// Marks a choice or input screen required (or not).
  private mutating func setRequired(screen id: String, _ required: Bool, at path: SpecPath) throws {
    let i = try screenIndex(id, path.key("screen")).get()
    switch flow.screens[i].content {
    case .choice(var choice):
      choice.required = required
      flow.screens[i].content = .choice(choice)
    case .input(var input):
      input.required = required
      flow.screens[i].content = .input(input)
    default:
      throw SpecError(
        path: path.key("screen"),
        message: "'\(id)' is a \(flow.screens[i].kind.rawValue) screen; only choice and input screens can be required",
        hint: "name a choice or input screen")
    }
  }

  /// Changes how many Pro features a paywall lists. Another kind of screen lists none: 0
  /// leaves it as it is (as `"features": 0` on it would), any other count is a problem.
  private mutating func setFeatures(paywall id: String?, _ count: Int, at path: SpecPath) throws {
    let i = try paywallIndex(id, path).get()
    guard case .paywall(var paywall) = flow.screens[i].content else {
      if count == 0 { return }
      throw SpecError(
        path: path.key("screen"),
        message: "'\(flow.screens[i].id)' is a \(flow.screens[i].kind.rawValue) screen; only paywalls list features",
        hint: "name a paywall")
    }
    paywall.features = count
    flow.screens[i].content = .paywall(paywall)
  }

  /// Preselects one of a paywall's plans.
  private mutating func setDefaultPlan(paywall id: String?, _ plan: String, at path: SpecPath) throws {
    let i = try paywallIndex(id, path).get()
    guard case .paywall(var paywall) = flow.screens[i].content, paywall.plans.contains(where: { $0.id == plan }) else {
      throw unknownPlan(plan, on: flow.screens[i], at: path)
    }
    paywall.defaultPlan = plan
    flow.screens[i].content = .paywall(paywall)
  }

  /// A patch names a plan that the screen does not offer (a screen that is not a paywall offers none).
  private func unknownPlan(_ plan: String, on screen: Screen, at path: SpecPath) -> SpecError {
    SpecError(
      .unknownReference, path: path.key("plan"), message: "unknown plan '\(plan)'",
      hint: NameSuggestion.hint(for: plan, in: (screen.paywall?.plans ?? []).map(\.id)))
  }

  /// Changes the given fields of a screen's action, or adds the action when the screen has none of that id.
  private mutating func setAction(
    screen id: String, _ actionID: String, kind: ActionKind?, probability: Double?, to: String?, at path: SpecPath
  ) throws {
    let i = try screenIndex(id, path.key("screen")).get()
    if let a = flow.screens[i].actions.firstIndex(where: { $0.id == actionID }) {
      if let kind { flow.screens[i].actions[a].kind = kind }
      if let probability { flow.screens[i].actions[a].probability = probability }
      if let to { flow.screens[i].actions[a].to = to }
    } else {
      guard let actionKind = kind ?? ActionKind(rawValue: actionID) else {
        throw SpecError(
          .unknownReference, path: path.key("action"), message: "screen '\(id)' has no action '\(actionID)' and no kind is given to add it",
          hint: NameSuggestion.hint(for: actionID, in: flow.screens[i].actions.map(\.id)) ?? "add \"kind\"")
      }
      flow.screens[i].actions.append(Action(id: actionID, kind: actionKind, to: to, probability: probability))
    }
  }

  /// Removes an action from a screen.
  private mutating func removeAction(screen id: String, _ actionID: String, at path: SpecPath) throws {
    let i = try screenIndex(id, path.key("screen")).get()
    guard let a = flow.screens[i].actions.firstIndex(where: { $0.id == actionID }) else {
      throw SpecError(
        .unknownReference, path: path.key("action"), message: "screen '\(id)' has no action '\(actionID)'",
        hint: NameSuggestion.hint(for: actionID, in: flow.screens[i].actions.map(\.id)))
    }
    flow.screens[i].actions.remove(at: a)
  }

  /// Changes the given fields of a paywall's plan (an empty badge removes it).
  private mutating func setPlan(
    paywall id: String?, _ planID: String, price: Double?, badge: String?, trialDays: Int?, at path: SpecPath
  ) throws {
    let i = try paywallIndex(id, path).get()
    guard case .paywall(var paywall) = flow.screens[i].content, let p = paywall.plans.firstIndex(where: { $0.id == planID }) else {
      throw unknownPlan(planID, on: flow.screens[i], at: path)
    }
    if let price { paywall.plans[p].price = price }
    if let badge { paywall.plans[p].badge = badge.isEmpty ? nil : badge }
    if let trialDays { paywall.plans[p].trialDays = trialDays }
    flow.screens[i].content = .paywall(paywall)
  }

  /// Sets a behavior parameter for everyone, or for one segment.
  private mutating func setBehavior(_ parameter: BehaviorParameter, _ value: Double, segment segmentID: String?, at path: SpecPath)
    throws
  {
    if let segmentID {
      guard let s = population.segments.firstIndex(where: { $0.id == segmentID }) else {
        throw SpecError(
          .unknownReference, path: path.key("segment"), message: "unknown segment '\(segmentID)'",
          hint: NameSuggestion.hint(for: segmentID, in: population.segments.map(\.id)))
      }
      population.segments[s].behavior[parameter] = value
    } else {
      behavior[parameter] = value
    }
  }

  private func anchorIndex(after: String?, before: String?, at path: SpecPath) throws -> Int {
    switch (after, before) {
    case (let after?, nil): return try screenIndex(after, path.key("after")).get() + 1
    case (nil, let before?): return try screenIndex(before, path.key("before")).get()
    default:
      throw SpecError(path: path, message: "give exactly one of \"after\" and \"before\"", hint: "e.g. \"after\": \"posing\"")
    }
  }
}
