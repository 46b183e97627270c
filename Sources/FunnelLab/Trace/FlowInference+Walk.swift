import Foundation

/// One user's walk, event by event.
extension FlowInference {
  static func text(_ p: EventLineReader.Property) -> String? {
    if case .text(let t) = p, !t.isEmpty { return t }
    return nil
  }

  /// Why `text` (the property `key`) cannot be an id of the spec, or `nil`: the rules of
  /// ``EventIngest`` (no control character, no surrounding space, at most 800 bytes), and a
  /// screen may not be called `completed` or `abandoned`.
  static func problem(_ text: String, _ key: String) -> String? {
    if case .failure(let problem) = EventIngest.id(.text(text), key) { return problem.message }
    if key.hasSuffix("screen"), text == Flow.completed || text == Flow.abandoned {
      return "a screen may not be called '\(text)' (the spec's name for the end of a walk)"
    }
    return nil
  }

  /// Moves `walk` by one event of FunnelLab's taxonomy; returns a bad line's message.
  mutating func step(_ walk: inout Walk, event: String, _ e: EventLineReader.Event, time: Double) -> String? {
    for key in ["screen_name", "from_screen", "last_screen", "action", "goal", "option", "plan"] {
      if let text = Self.text(e.property(key)),
        let problem = Self.problem(text, key.hasSuffix("screen") || key == "screen_name" ? "screen" : key)
      {
        return problem
      }
    }
    func id(_ key: String) -> String? { Self.text(e.property(key)) }
    switch event {
    case "onboarding_screen_viewed":
      guard let screen = id("screen_name") else { return "no \"screen_name\" property" }
      return view(&walk, screen, number: id("screen_number").flatMap(Double.init), time: time)
    case "pro_upsell_viewed":
      if let s = walk.screen { screens[s]?.paywall = true }
      return nil
    case "onboarding_continued": return act(&walk, .continued, id("screen_name"), id("action") ?? "continue", e, time)
    case "onboarding_skipped": return act(&walk, .skipped, id("from_screen"), id("action") ?? "skip", e, time)
    case "onboarding_back_pressed": return act(&walk, .back, id("from_screen"), id("action") ?? "back", e, time)
    case "goal_selected": return act(&walk, .selected, id("screen_name"), id("action") ?? "select", e, time)
    case "pro_upgrade_tapped": return act(&walk, .purchase, id("screen_name"), id("action") ?? "purchase", e, time)
    case "pro_maybe_later_tapped": return act(&walk, .dismiss, id("screen_name"), id("action") ?? "dismiss", e, time)
    case "purchase_restore_tapped":
      // An entitled user's restore skips the store, as the engine's does.
      if !walk.entitled { store.restoreTaps += 1 }
      return act(&walk, .restore, id("screen_name"), id("action") ?? "restore", e, time)
    case "onboarding_action_failed":
      guard let action = id("action") else { return "no \"action\" property" }
      return fail(&walk, id("screen_name"), action, time: time)
    case "onboarding_completed", "onboarding_abandoned": return end(&walk, event: event, e, time: time)
    default: return store(&walk, event: event, time: time)
    }
  }

  /// A purchase's events: the store's outcome of the tap waiting for its target.
  private mutating func store(_ walk: inout Walk, event: String, time: Double) -> String? {
    let latency = walk.purchaseStart.map { time - $0 } ?? 0
    if event != "purchase_started", event != "purchase_restored" { walk.purchaseStart = nil }
    switch event {
    case "purchase_started":
      walk.purchaseStart = time
      store.taps += 1
    case "purchase_succeeded":
      store.successes += 1
      store.latency += latency
      walk.entitled = true
    case "purchase_pending":
      store.pendings += 1
      walk.hadPending = true
      store.latency += latency
    case "purchase_cancelled", "purchase_failed":
      if event == "purchase_cancelled" { store.cancels += 1 } else { store.failures += 1 }
      store.latency += latency
      // The tap led nowhere: the user stays on the paywall, which is viewed again.
      if let p = walk.pending {
        screens[p.screen]?.actions[p.action]?.failures += 1
        walk.pending = nil
        walk.retrying = true
      }
    case "purchase_restored": store.restores += 1
    default: break
    }
    return nil
  }

  private mutating func view(_ walk: inout Walk, _ screen: String, number: Double?, time: Double) -> String? {
    if screens[screen] == nil {
      guard screens.count < Self.maximumScreens else { return "more than \(Self.maximumScreens) screens; is screen_name a screen?" }
      screens[screen] = ScreenCount(firstSeen: screens.count)
    }
    if let p = walk.pending {
      // A restore that found nothing keeps the user on the paywall: a failed attempt.
      if p.screen == screen, screens[p.screen]?.actions[p.action]?.event == .restore {
        screens[p.screen]?.actions[p.action]?.failures += 1
      } else {
        screens[p.screen]?.actions[p.action]?.targets[.screen(screen), default: 0] += 1
      }
      walk.pending = nil
    } else if let current = walk.screen, !(walk.retrying && current == screen) {
      return "a view of '\(screen)' while the user is on '\(current)' without an action that leaves it"
    }
    walk.retrying = false
    if walk.seen.isEmpty { starts[screen, default: 0] += 1 }
    let first = walk.seen.insert(screen).inserted
    screens[screen]?.views += 1
    if first {
      screens[screen]?.firstViews += 1
      screens[screen]?.users += 1
    }
    walk.repeatedVisit = !first
    if let number {
      screens[screen]?.numberSum += number
      screens[screen]?.numbered += 1
    }
    walk.screen = screen
    walk.viewedAt = time
    return nil
  }

  /// The dwell of the view `walk` is on, ended at `time`.
  private mutating func dwell(_ walk: Walk, _ screen: String, _ time: Double) {
    let seconds = (time - walk.viewedAt) / 1000
    if seconds > 0 {
      let l = Foundation.log(seconds)
      screens[screen]?.logDwell.sum += l
      screens[screen]?.logDwell.squares += l * l
      screens[screen]?.logDwell.count += 1
    } else {
      screens[screen]?.zeroDwells += 1
    }
  }

  private mutating func act(
    _ walk: inout Walk, _ kind: Event, _ screen: String?, _ action: String, _ e: EventLineReader.Event, _ time: Double
  ) -> String? {
    guard let screen else { return "no screen property on the action" }
    guard walk.screen == screen, walk.pending == nil else {
      return "an action on '\(screen)' while the user is \(walk.screen.map { "on '\($0)'" } ?? "on no screen")"
    }
    if let problem = count(&walk, screen, action, kind) { return problem }
    dwell(walk, screen, time)
    if let option = Self.text(e.property("goal")) ?? Self.text(e.property("option")) {
      guard screens[screen]?.actions[action]?.options[option] != nil || optionCount(screen) < Limits.optionsPerChoice else {
        return "more than \(Limits.optionsPerChoice) options on '\(screen)'"
      }
      screens[screen]?.actions[action]?.options[option, default: 0] += 1
    }
    if kind == .purchase, let plan = Self.text(e.property("plan")) {
      guard planCount(plan) else { return "more than \(Limits.plans) plans; is \"plan\" the plan's id?" }
      screens[screen]?.actions[action]?.plans[plan, default: 0] += 1
      screens[screen]?.paywall = true
    }
    walk.pending = (screen, action, walk.repeatedVisit)
    walk.purchaseStart = nil
    return nil
  }

  /// Counts `action` taken on `screen`; a message when the screen already has as many
  /// actions as a spec may (``Limits/actionsPerScreen``, less one for a purchase it may need).
  private mutating func count(_ walk: inout Walk, _ screen: String, _ action: String, _ kind: Event) -> String? {
    if screens[screen]?.actions[action] == nil {
      guard (screens[screen]?.actions.count ?? 0) < Limits.actionsPerScreen - 2 else {
        return "more than \(Limits.actionsPerScreen - 2) actions on '\(screen)'; is \"action\" the action's id?"
      }
      screens[screen]?.actions[action] = ActionCount(event: kind)
    }
    screens[screen]?.actions[action]?.byVisit[walk.repeatedVisit ? 1 : 0] += 1
    screens[screen]?.timeline.add(action, at: walk.time)
    return nil
  }

  private func optionCount(_ screen: String) -> Int {
    screens[screen]?.actions.values.reduce(0) { $0 + $1.options.count } ?? 0
  }

  /// Whether `plan` is known or one more fits a spec's plans (``Limits/plans``, over every paywall).
  private func planCount(_ plan: String) -> Bool {
    var plans = Set<String>()
    for s in screens.values { for a in s.actions.values { plans.formUnion(a.plans.keys) } }
    return plans.contains(plan) || plans.count < Limits.plans
  }

  private mutating func fail(_ walk: inout Walk, _ screen: String?, _ action: String, time: Double) -> String? {
    guard let screen, walk.screen == screen, walk.pending == nil else { return "a failed action on a screen the user is not on" }
    if let problem = count(&walk, screen, action, .continued) { return problem }
    dwell(walk, screen, time)
    screens[screen]?.actions[action]?.failures += 1
    walk.retrying = true
    return nil
  }

  private mutating func end(_ walk: inout Walk, event: String, _ e: EventLineReader.Event, time: Double) -> String? {
    defer {
      walk.screen = nil
      walk.pending = nil
    }
    if event == "onboarding_completed" {
      guard let p = walk.pending else { return "completed without an action that completes" }
      screens[p.screen]?.actions[p.action]?.targets[.completed, default: 0] += 1
      completed += 1
      return nil
    }
    let reason = Self.text(e.property("reason")) ?? "quit"
    if reason == "quit" {
      guard let screen = Self.text(e.property("last_screen")), walk.screen == screen, walk.pending == nil else {
        return "a quit on a screen the user is not on"
      }
      let action = Self.text(e.property("action")) ?? "quit"
      if let problem = count(&walk, screen, action, .quit) { return problem }
      dwell(walk, screen, time)
      screens[screen]?.actions[action]?.targets[.abandoned, default: 0] += 1
    } else {
      abandon(&walk)
    }
    return nil
  }

  /// The walk ends abandoned where it stands (an exit, a step limit, a new walk): the action
  /// waiting for its target led there, or, without one, the screen's users quit.
  mutating func abandon(_ walk: inout Walk) {
    if let p = walk.pending {
      screens[p.screen]?.actions[p.action]?.targets[.abandoned, default: 0] += 1
    } else if let screen = walk.screen, count(&walk, screen, "quit", .quit) == nil {
      screens[screen]?.actions["quit"]?.targets[.abandoned, default: 0] += 1
    }
    walk.pending = nil
    walk.screen = nil
  }
}
