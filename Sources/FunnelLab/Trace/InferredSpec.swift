import Foundation

/// The spec of the flow a log shows (``FlowInference``): every screen the users viewed, in
/// the order they met them, with every action they took, its target and its probability
/// per view by maximum likelihood (its count over the screen's actions), under a neutral
/// behavior model, so that the exact engine walks exactly these probabilities.
///
/// - **Kinds.** A screen where users bought is a paywall; one where they selected, a
///   choice; one where `type` was taken, an input; `allow`/`deny`, a permission; a screen
///   whose `continue` failed, a task; any other, an info screen. An action's kind is its
///   event's (`onboarding_skipped` a skip, …); a continue whose id is not a kind is a jump.
/// - **Targets.** Every action but a quit names its target (`to`): the screen its users
///   viewed next, `completed` or `abandoned`; an id that led to several targets is split,
///   the later targets as `id@target`.
/// - **Failures.** A failed `type` is the input's `validationFailureProbability`, a failed
///   `continue` the task's `failureProbability`; cancelled and failed purchases are the
///   store's probabilities per tap (no retries), a restore that found nothing its
///   `restoreSuccessProbability`.
/// - **Dwell.** Lognormal: the median `exp(mean ln t)` and `σ` the standard deviation of
///   `ln t` over the dwells above 0.
/// - **Plans.** The log names plans but no prices: each plan is written at a price of 1 a
///   month (set the real ones), with `utility = ln(J·share)` so that buyers choose plans in
///   the observed shares under a zero price sensitivity.
/// - **Behavior.** Every effect is 0 (fatigue, friction, intent, investment, prices,
///   badges), one trait bin: the walk is the first-order Markov chain of the log.
///
/// Its expected completions equal the log's: the observed visits satisfy the chain's
/// visit equations exactly (each screen's visits are the transitions into it), so the
/// fitted chain reproduces every screen's expected views and the completion rate.
package enum InferredSpec {
  /// The screens in the order users met them: by the mean `screen_number` the trace
  /// gives, else by first appearance; the most common first screen first.
  package static func order(_ f: FlowInference) -> [String] {
    let start = f.starts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
    return f.screens.sorted { a, b in
      if a.key == start { return b.key != start }
      if b.key == start { return false }
      let x = a.value.numbered > 0 ? a.value.numberSum / Double(a.value.numbered) : .infinity
      let y = b.value.numbered > 0 ? b.value.numberSum / Double(b.value.numbered) : .infinity
      return x != y ? x < y : a.value.firstSeen < b.value.firstSeen
    }.map(\.key)
  }

  /// The screens a walk from the start can reach through actions users took (in ``order(_:)``),
  /// and whether one of those actions completes: a screen only users who started elsewhere
  /// saw is left out of the spec (it has one start).
  package static func reachable(_ f: FlowInference) -> (screens: [String], completes: Bool) {
    let ids = order(f)
    guard let start = ids.first else { return ([], false) }
    var reached: Set<String> = [start]
    var stack = [start]
    var completes = false
    while let id = stack.popLast() {
      guard let s = f.screens[id] else { continue }
      for a in actions(s, screenKind: kind(s)) where a.count > 0 && a.kind != "quit" {
        switch a.target {
        case .screen(let next)?: if reached.insert(next).inserted { stack.append(next) }
        case .completed?: completes = true
        default: break
        }
      }
    }
    return (ids.filter(reached.contains), completes)
  }

  /// A screen's kind in the spec, from what its users did.
  package static func kind(_ s: FlowInference.ScreenCount) -> String {
    let actions = s.actions
    func continued(_ id: String) -> Bool { actions[id]?.event == .continued }
    if s.paywall || actions.values.contains(where: { $0.event == .purchase || $0.event == .dismiss || $0.event == .restore }) {
      return "paywall"
    }
    if actions.values.contains(where: { $0.event == .selected }) { return "choice" }
    if continued("type") { return "input" }
    if continued("allow") || continued("deny") { return "permission" }
    if continued("continue"), let c = actions["continue"], c.failures > 0 { return "task" }
    return "info"
  }

  /// Whether the spec holds failed attempts of a `kind` action on a `screenKind` screen.
  static func keepsFailures(_ kind: String, on screenKind: String) -> Bool {
    (screenKind, kind) == ("input", "type") || (screenKind, kind) == ("task", "continue")
      || (screenKind == "paywall" && (kind == "purchase" || kind == "restore"))
  }

  /// The action kinds each screen kind allows, and its forward kind for an action it does not.
  static let allowed: [String: (kinds: Set<String>, forward: String)] = [
    "info": (["continue", "back", "skip", "jump", "quit"], "jump"),
    "choice": (["select", "continue", "back", "skip", "jump", "quit"], "jump"),
    "input": (["type", "back", "skip", "quit"], "type"),
    "paywall": (["purchase", "dismiss", "restore", "back", "skip", "quit"], "dismiss"),
    "permission": (["allow", "deny", "back", "quit"], "allow"),
    "task": (["continue", "back", "skip", "quit"], "continue"),
  ]

  /// One action of the spec: its id, kind, target and count.
  package struct Action: Sendable, Hashable {
    /// The id in the spec.
    package var id: String
    /// The action kind.
    package var kind: String
    /// The target (`nil` for a quit).
    package var target: FlowInference.Target?
    /// Attempts (failures included) that led there.
    package var count: Int
    /// The id in the log (``id`` is `base@target` for a later target of a split id).
    package var base = ""
    /// Whether it holds the id's failed attempts (its first target).
    package var main = true
    /// Whether it holds every target of the id (not split).
    package var allTargets = false

    /// This action's count in `s`, the counts of one segment's users on the same screen.
    package func count(in s: FlowInference.ScreenCount, screenKind: String) -> Int {
      guard let c = s.actions[base] else { return 0 }
      let failures = InferredSpec.keepsFailures(kind, on: screenKind) ? c.failures : 0
      let successes = c.targets.values.reduce(0, +)
      if kind == "quit" || allTargets { return successes + failures }
      guard let target else { return failures }
      return (c.targets[target] ?? 0) + (main ? failures : 0)
    }
  }

  /// The spec's actions of a screen, each id split by target, most taken first within an id.
  package static func actions(_ s: FlowInference.ScreenCount, screenKind: String) -> [Action] {
    var out: [Action] = []
    for (id, a) in s.actions.sorted(by: { $0.key < $1.key }) {
      let kind = actionKind(id, a.event, screenKind: screenKind)
      // A failed attempt is part of the action where the spec has failures (an input's type, a
      // task's continue, the store's purchase and restore); elsewhere the attempt and the view
      // it led back to are left out, so the other probabilities stay the log's.
      let failures = keepsFailures(kind, on: screenKind) ? a.failures : 0
      let successes = a.targets.values.reduce(0, +)
      let targets = a.targets.sorted { x, y in x.value != y.value ? x.value > y.value : x.key < y.key }
      if kind == "quit" {
        out.append(Action(id: id, kind: kind, target: nil, count: successes + failures, base: id))
        continue
      }
      guard !targets.isEmpty else {
        // Only failed attempts: they stay on the screen.
        if failures > 0 { out.append(Action(id: id, kind: kind, target: nil, count: failures, base: id)) }
        continue
      }
      // A paywall has one purchase action, and a screen at most 64: such targets are not split.
      let split = kind != "purchase" && s.actions.values.reduce(0, { $0 + max($1.targets.count, 1) }) <= 64
      guard split else {
        out.append(Action(id: id, kind: kind, target: targets[0].key, count: successes + failures, base: id, allTargets: true))
        continue
      }
      for (k, t) in targets.enumerated() {
        let named = k == 0 ? id : "\(id)@\(name(t.key))"
        // A later target's id may be one the log already uses: made unique against both.
        let taken = out + s.actions.keys.filter { $0 != id }.map { Action(id: $0, kind: "", target: nil, count: 0) }
        out.append(
          Action(
            id: k == 0 ? id : unique(named, in: taken), kind: kind, target: t.key, count: t.value + (k == 0 ? failures : 0), base: id,
            main: k == 0))
      }
    }
    // What the kind requires (a paywall's purchase, a choice's select, an input's type) stays,
    // at probability 0 where nobody took it.
    let required = ["paywall": "purchase", "choice": "select", "input": "type"][screenKind]
    if let required, !out.contains(where: { $0.kind == required && $0.count > 0 }) {
      out.removeAll { $0.kind == required }
      let forward = out.first { $0.count > 0 && $0.target != nil && $0.kind != "back" }?.target ?? .completed
      out.append(Action(id: unique(required, in: out), kind: required, target: forward, count: 0, base: ""))
    }
    return out
  }

  /// `id`, or `id@2`, `id@3`… when the screen's actions already use it.
  static func unique(_ id: String, in actions: [Action]) -> String {
    let used = Set(actions.map(\.id))
    var candidate = id
    var k = 1
    while used.contains(candidate) {
      k += 1
      candidate = "\(id)@\(k)"
    }
    return candidate
  }

  static func name(_ t: FlowInference.Target) -> String {
    switch t {
    case .screen(let s): s
    case .completed: "completed"
    case .abandoned: "abandoned"
    }
  }

  static func actionKind(_ id: String, _ event: FlowInference.Event, screenKind: String) -> String {
    let wanted: String =
      switch event {
      case .skipped: "skip"
      case .back: "back"
      case .selected: "select"
      case .purchase: "purchase"
      case .dismiss: "dismiss"
      case .restore: "restore"
      case .quit: "quit"
      case .continued: ["continue", "type", "allow", "deny", "select", "jump"].contains(id) ? id : "jump"
      }
    guard let rule = allowed[screenKind], !rule.kinds.contains(wanted) else { return wanted }
    return screenKind == "permission" && wanted == "skip" ? "deny" : rule.forward
  }
}
