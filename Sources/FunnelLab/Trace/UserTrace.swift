/// The analytics event streams of simulated users of one variant.
///
/// Users walk the very same code as in ``MonteCarloEngine`` (its walk, with a
/// recording ``WalkObserver``), with the same random streams: user `u` of a trace
/// with seed `s` is user `u` of a run with seed `s`. Summing a trace's events over
/// users therefore gives the counts of the run's ``aggregate``.
package struct UserTrace: Sendable {
  /// The experiment's name, as given to the initializer (empty by default).
  package var experiment: String
  /// The id of the variant whose flow was walked.
  package var variant: String
  /// The seed of the users' random streams: the same seed as a run reproduces the same users.
  package var seed: UInt64
  /// The user indices traced, e.g. `0..<10` for the first ten users of a run.
  package var users: Range<UInt64>
  /// Every user's events, user by user, in the order they happened.
  package var events: [TraceEvent]
  /// The counts of the same walks, as `run` would report them.
  package var aggregate: FunnelAggregate

  /// Traces users `users` of `flow`.
  /// - Complexity: O(users × steps per user) time and memory.
  package init(
    _ flow: CompiledFlow, experiment: String = "", users: Range<UInt64>, seed: UInt64, names: EventNameMap = EventNameMap()
  ) {
    var events: [TraceEvent] = []
    aggregate = Self.walk(flow, users: users, seed: seed, names: names) { events += $0 }
    self.experiment = experiment
    variant = flow.variantID
    self.seed = seed
    self.users = users
    self.events = events
  }

  /// Walks users `users` of `flow` one by one, handing each user's events to `body`
  /// as soon as they are known: memory stays that of one user, whatever the count.
  /// - Returns: the counts of the same walks.
  @discardableResult
  package static func walk<E: Error>(
    _ flow: CompiledFlow, users: Range<UInt64>, seed: UInt64, names: EventNameMap = EventNameMap(),
    _ body: (_ events: [TraceEvent]) throws(E) -> Void
  ) throws(E) -> FunnelAggregate {
    let tables = EngineTables(flow)
    let lifecycle = SubscriptionLifecycle(settings: flow.revenue)
    let paywall = MockPaywallManager(settings: flow.store)
    let accumulator = Accumulator(tables)
    var recorder = TraceRecorder(tables: tables, names: names)
    for user in users {
      FunnelLab.walk(user: user, seed: seed, tables: tables, paywall: paywall, lifecycle: lifecycle, into: accumulator, observer: &recorder)
      try body(recorder.events)
      recorder.events.removeAll(keepingCapacity: true)
    }
    return accumulator.aggregate()
  }

  /// The compiled flow of one variant of `experiment` (`nil`: the control), for
  /// ``walk(_:users:seed:names:_:)``.
  /// - Throws: ``SpecErrors`` when the experiment is invalid or has no such variant.
  package static func flow(of experiment: Experiment, variant: String?) throws(SpecErrors) -> CompiledFlow {
    let id = variant ?? experiment.variants.first?.id ?? ""
    guard let index = experiment.variants.firstIndex(where: { $0.id == id }) else {
      throw SpecErrors(
        source: experiment.name,
        errors: [
          SpecError(
            .unknownReference, path: [.key("variants")], message: "no variant '\(id)'",
            hint: NameSuggestion.hint(for: id, in: experiment.variants.map(\.id)))
        ])
    }
    let flows = try FlowCompiler.compileAll(experiment)
    guard flows.indices.contains(index) else {
      throw SpecErrors(
        source: experiment.name,
        errors: [SpecError(.unknownReference, path: [.key("variants"), .index(index)], message: "variant '\(id)' has no compiled flow")])
    }
    return flows[index]
  }

  /// Traces users `0..<users` of one variant of `experiment`.
  /// - Parameters:
  ///   - variant: a variant id; `nil` for the control.
  ///   - seed: `nil` for the spec's seed.
  /// - Throws: ``SpecErrors`` when the experiment is invalid or has no such variant.
  package static func trace(
    _ experiment: Experiment, variant: String?, users: Int, seed: UInt64?, names: EventNameMap = EventNameMap()
  ) throws(SpecErrors) -> UserTrace {
    UserTrace(
      try flow(of: experiment, variant: variant), experiment: experiment.name, users: 0..<UInt64(max(users, 0)),
      seed: seed ?? experiment.seed, names: names)
  }

  /// How many events carry `name` (after renaming).
  package func count(_ name: String) -> Int { events.reduce(0) { $0 + ($1.name == name ? 1 : 0) } }
}

/// Turns the hooks of a walk into analytics events.
struct TraceRecorder: WalkObserver {
  let tables: EngineTables
  let names: EventNameMap
  var events: [TraceEvent] = []
  var user: UInt64 = 0
  var goal: String?
  /// The id of the last action taken when it was a quit, else `nil`.
  var quitAction: String?

  init(tables: EngineTables, names: EventNameMap) {
    self.tables = tables
    self.names = names
  }

  var flow: CompiledFlow { tables.flow }

  mutating func emit(_ name: String, at millis: UInt64, _ properties: [(String, JSONValue)] = []) {
    events.append(TraceEvent(user: user, millis: millis, name: names.name(of: name), properties: properties))
  }

  func screenName(_ screen: Int) -> JSONValue { .string(flow.screenIDs[screen]) }

  func planName(_ plan: Int) -> JSONValue { .string(flow.plans[plan].plan.id) }

  mutating func started(user: UInt64, segment: Int) {
    self.user = user
    goal = nil
    quitAction = nil
    emit("onboarding_started", at: 0, [("segment", .string(flow.segmentIDs[segment]))])
  }

  mutating func viewed(screen: Int, at millis: UInt64) {
    emit("onboarding_screen_viewed", at: millis, [("screen_number", .integer(screen + 1)), ("screen_name", screenName(screen))])
    if flow.screenKinds[screen] == .paywall { emit("pro_upsell_viewed", at: millis, [("screen_name", screenName(screen))]) }
  }

  mutating func took(outcome: Int, on screen: Int, at millis: UInt64) {
    let slot = flow.actions[Int(flow.outcomeAction[outcome])]
    let action: (String, JSONValue) = ("action", .string(slot.id))
    quitAction = slot.kind == .quit ? slot.id : nil
    if flow.outcomeEffects[outcome] & CompiledFlow.Effect.failure != 0 {
      emit("onboarding_action_failed", at: millis, [("screen_name", screenName(screen)), action])
      return
    }
    switch slot.kind {
    case .skip:
      emit("onboarding_skipped", at: millis, [("from_screen", screenName(screen)), action])
    case .purchase:
      emit(
        "pro_upgrade_tapped", at: millis, [("plan", planName(Int(flow.outcomePlan[outcome]))), ("screen_name", screenName(screen)), action])
    case .dismiss:
      emit("pro_maybe_later_tapped", at: millis, [("screen_name", screenName(screen)), action])
    case .restore:
      emit("purchase_restore_tapped", at: millis, [("screen_name", screenName(screen)), action])
    case .select where flow.outcomeOptionTable[outcome] >= 0:
      break  // reported by `selected`
    case .continue, .select, .type, .allow, .deny, .jump:
      emit("onboarding_continued", at: millis, [("screen_name", screenName(screen)), action])
    case .back, .quit:
      break  // reported by `moved` and `abandoned`
    }
  }

  mutating func selected(option: Int, outcome: Int, at millis: UInt64) {
    let slot = flow.options[option]
    if flow.outcomeEffects[outcome] & CompiledFlow.Effect.personalizes != 0 {
      goal = slot.id
      emit(
        "goal_selected", at: millis,
        [
          ("goal", .string(slot.id)), ("screen_name", screenName(slot.screen)),
          ("action", .string(flow.actions[Int(flow.outcomeAction[outcome])].id)),
        ])
    } else {
      emit(
        "onboarding_continued", at: millis,
        [
          ("screen_name", screenName(slot.screen)), ("action", .string(flow.actions[Int(flow.outcomeAction[outcome])].id)),
          ("option", .string(slot.id)),
        ])
    }
  }

  mutating func purchaseStarted(plan: Int, at millis: UInt64) {
    emit("purchase_started", at: millis, [("plan", planName(plan))])
  }

  mutating func purchaseEnded(plan: Int, result: PurchaseResult, at millis: UInt64) {
    switch result {
    case .success(let tx):
      emit("purchase_succeeded", at: millis, [("plan", planName(plan)), ("trial", .bool(tx.isTrial))])
    case .userCancelled:
      emit("purchase_cancelled", at: millis, [("plan", planName(plan))])
    case .failed(let failure):
      emit("purchase_failed", at: millis, [("plan", planName(plan)), ("reason", .string(failure.rawValue))])
    case .pending:
      emit("purchase_pending", at: millis, [("plan", planName(plan))])
    }
  }

  mutating func restored(at millis: UInt64) { emit("purchase_restored", at: millis) }

  mutating func moved(from screen: Int, to target: Int, outcome: Int, at millis: UInt64) {
    let slot = flow.actions[Int(flow.outcomeAction[outcome])]
    if slot.kind == .back {
      emit(
        "onboarding_back_pressed", at: millis,
        [("from_screen", screenName(screen)), ("to_screen", screenName(target)), ("action", .string(slot.id))])
    }
  }

  mutating func completed(on screen: Int, skipped: Bool, at millis: UInt64) {
    emit(
      "onboarding_completed", at: millis,
      [
        ("goal", goal.map { .string($0) } ?? .null), ("time_spent", .number(Double(millis) / 1000)),
        ("completion_path", .string(skipped ? "skipped" : "full")),
      ])
  }

  /// `reason` is `quit` when the user took a quit action (its id in `action`), `exit` when
  /// another action's target was `abandoned` (that action has its own event), and
  /// `step_limit` when the walk was cut off.
  mutating func abandoned(on screen: Int, stepLimit: Bool, at millis: UInt64) {
    var properties: [(String, JSONValue)] = [("last_screen", screenName(screen))]
    if stepLimit {
      properties.append(("reason", .string("step_limit")))
    } else if let quitAction {
      properties += [("reason", .string("quit")), ("action", .string(quitAction))]
    } else {
      properties.append(("reason", .string("exit")))
    }
    emit("onboarding_abandoned", at: millis, properties)
  }

  mutating func pendingApproved(plan: Int, at millis: UInt64) {
    emit("purchase_succeeded", at: millis, [("plan", planName(plan)), ("approved_after_pending", .bool(true))])
  }
}
