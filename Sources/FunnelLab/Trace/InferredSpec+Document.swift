import Foundation

extension InferredSpec {
  /// The behavior model under which the spec's probabilities are the walk's: every effect 0.
  static let neutralBehavior: [(String, JSONValue)] = [
    "fatiguePerScreen", "requiredInputFriction", "optionalSkipShare", "intentOnQuit", "intentOnPurchase", "investmentPerScreen",
    "personalizationBoost", "defaultPlanBias", "badgeBoost", "priceSensitivity", "featureUtility",
  ].map { ($0, JSONValue.number(0)) }

  /// The spec of `f` as a JSON document named `name`, read from `source`, with `variants`
  /// after its control (variants of a written spec, whose patches now apply to the log's
  /// flow); `nil` when no walk from the start completes (a spec needs a path to completion).
  package static func document(_ f: FlowInference, name: String, source: String, variants: [JSONValue] = []) -> JSONValue? {
    let (ids, completes) = reachable(f)
    guard completes else { return nil }
    var screens: [JSONValue] = []
    for (k, id) in ids.enumerated() {
      guard let s = f.screens[id] else { continue }
      screens.append(screen(id, s, f, next: k + 1 < ids.count ? ids[k + 1] : Flow.completed, previous: k > 0 ? ids[k - 1] : nil))
    }
    var members: [(String, JSONValue)] = [
      ("name", .string(name)),
      (
        "description",
        .string(
          "Inferred by funnellab infer from \(source): \(f.users) users, \(f.completed) completed. Each action's probability is its"
            + " share of the screen's actions in the log (maximum likelihood) under a neutral behavior model; plan prices are"
            + " placeholders (the log carries none).")
      ),
      ("source", .string(source)),
      ("seed", .integer(1)),
      ("users", .integer(max(f.users, 1))),
      ("behavior", .object(neutralBehavior)),
    ]
    if let population = population(f) { members.append(("population", population)) }
    members.append(("simulation", .object([("traitBins", .integer(1))])))
    if f.screens.values.contains(where: { kind($0) == "paywall" }) { members.append(("store", store(f))) }
    members.append(("flow", .object([("start", .string(ids.first ?? "")), ("screens", .array(screens))])))
    let control = JSONValue.object([("id", .string("control")), ("description", .string("As the log shows it."))])
    members.append(("variants", .array([control] + variants)))
    return .object(members)
  }

  static func probability(_ count: Int, _ total: Int) -> JSONValue {
    .number(total > 0 ? Double(count) / Double(total) : 0)
  }

  /// One screen; an action whose target is where its kind leads by default (a forward action
  /// to the `next` screen in the list, a back to the `previous`) names none, as a written spec
  /// would, so that a patch moving a screen moves its links.
  static func screen(_ id: String, _ s: FlowInference.ScreenCount, _ f: FlowInference, next: String, previous: String?) -> JSONValue {
    let screenKind = kind(s)
    let list = actions(s, screenKind: screenKind)
    let total = list.reduce(0) { $0 + $1.count }
    var actions: [(String, JSONValue)] = []
    for a in list where a.count > 0 || a.base.isEmpty {
      var fields: [(String, JSONValue)] = [("kind", .string(a.kind))]
      if let t = a.target.map(name) {
        let positional = a.kind == "back" ? previous : ["skip", "jump", "quit"].contains(a.kind) ? nil : next
        if t != positional { fields.append(("to", .string(t))) }
      }
      fields.append(("probability", probability(a.count, total)))
      actions.append((a.id, .object(fields)))
    }
    if !list.contains(where: { $0.count > 0 }) {
      // Nobody acted here (every walk through it is still on the way, or ended without an
      // action): its users quit, and what the kind requires stays at probability 0.
      actions = actions.filter { $0.0 != "quit" } + [("quit", .number(1))]
    }
    var members: [(String, JSONValue)] = [("id", .string(id)), ("kind", .string(screenKind)), ("dwell", dwell(s))]
    let kinds = Set(list.map(\.kind))
    switch screenKind {
    case "choice":
      members.append(("required", .bool(!kinds.contains("skip") && !kinds.contains("continue"))))
      var options: [String: Int] = [:]
      for a in s.actions.values where a.event == .selected { options.merge(a.options, uniquingKeysWith: +) }
      let listed = options.isEmpty ? [("option", 1)] : options.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
      members.append(
        ("options", .array(listed.map { .object([("id", .string($0.0)), ("weight", .number(Double(max($0.1, 1))))]) })))
      if s.actions.values.contains(where: { $0.event == .selected && !$0.options.isEmpty }) {
        members.append(("personalizes", .bool(true)))
      }
    case "input":
      members.append(("required", .bool(!kinds.contains("skip"))))
      if let type = s.actions["type"], type.attempts > 0, type.failures > 0 {
        members.append(("validationFailureProbability", failure(type)))
      }
    case "task":
      if let c = s.actions["continue"], c.attempts > 0 {
        members.append(("failureProbability", failure(c)))
      }
    case "paywall":
      members.append(("plans", plans(s)))
    default: break
    }
    members.append(("actions", .object(actions)))
    return .object(members)
  }

  /// The share of an action's attempts that failed, at most 0.999: a spec's failure that
  /// always happens would trap its users (a log where every attempt failed, yet users left).
  static func failure(_ a: FlowInference.ActionCount) -> JSONValue {
    .number(min(Double(a.failures) / Double(max(a.attempts, 1)), 0.999))
  }

  static func dwell(_ s: FlowInference.ScreenCount) -> JSONValue {
    let d = s.logDwell
    guard d.count > 0 else { return .object([("medianSeconds", .number(0))]) }
    let mean = d.sum / Double(d.count)
    let variance = d.count > 1 ? max((d.squares - Double(d.count) * mean * mean) / Double(d.count - 1), 0) : 0
    let median = min(max(exp(mean), 0), 86_400)
    return .object([
      ("medianSeconds", .number((median * 1000).rounded() / 1000)),
      ("sigma", .number(min((variance.squareRoot() * 1000).rounded() / 1000, 5))),
    ])
  }

  static func plans(_ s: FlowInference.ScreenCount) -> JSONValue {
    var taps: [String: Int] = [:]
    for a in s.actions.values where a.event == .purchase { taps.merge(a.plans, uniquingKeysWith: +) }
    if taps.isEmpty { taps = ["plan": 1] }
    let total = Double(taps.values.reduce(0, +))
    let j = Double(taps.count)
    return .array(
      taps.sorted { $0.key < $1.key }.map { plan, n in
        .object([
          ("id", .string(plan)), ("price", .number(1)), ("period", .string("month")),
          ("utility", .number(min(max(log(j * Double(n) / total), -20), 20))),
        ])
      })
  }

  static func store(_ f: FlowInference) -> JSONValue {
    let s = f.store
    // A log may leave out purchase_started: a tap is then known by its outcome.
    let resolved = s.successes + s.cancels + s.failures + s.pendings
    let taps = max(s.taps, resolved, 1)
    func share(_ n: Int, _ of: Int) -> JSONValue { .number(of > 0 ? min(Double(n) / Double(of), 1) : 0) }
    let latency = resolved > 0 ? min(s.latency / Double(resolved) / 1000, 600) : 0
    return .object([
      ("cancelProbability", share(s.cancels, taps)), ("failureProbability", share(s.failures, taps)),
      ("pendingProbability", share(s.pendings, taps)), ("retryProbability", .number(0)), ("maximumAttempts", .integer(1)),
      ("approvalProbability", share(s.approvals, f.pendingWalks)), ("restoreSuccessProbability", share(s.restores, s.restoreTaps)),
      ("latencySeconds", .number((max(latency, 0) * 1000).rounded() / 1000)),
    ])
  }
}
