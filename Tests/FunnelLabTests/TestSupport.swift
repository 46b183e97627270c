import Foundation

@testable import FunnelLab

/// A store whose every purchase attempt succeeds at once.
func instantStore() -> StoreSettings {
  var store = StoreSettings()
  store.cancelProbability = 0
  store.failureProbability = 0
  store.pendingProbability = 0
  store.latencySeconds = 0
  return store
}

/// Behavior with every effect switched off: the spec's probabilities apply as written.
func neutralBehavior() -> BehaviorParameters {
  var b = BehaviorParameters()
  for p in BehaviorParameter.allCases where p.unit.hasPrefix("utility") { b[p] = 0 }
  b.optionalSkipShare = 0.2
  return b
}

/// The tiny spec with neutral behavior and an instant store, its first screen continued
/// with probability 0.7 and quit with 0.3: the spec's probabilities apply as written.
func neutralTinyExperiment() throws -> Experiment {
  var e = try load(tinySpec)
  e.behavior = neutralBehavior()
  e.store = instantStore()
  e.flow.screens[0].actions = [
    Action(id: "continue", kind: .continue, probability: 0.7), Action(id: "quit", kind: .quit, probability: 0.3),
  ]
  return e
}

/// Loads a spec from JSON text, failing the test with every problem on error.
func load(_ json: String) throws -> Experiment {
  try ExperimentLoader.load(text: json, source: "test")
}

/// The problems a spec has (empty when it is valid).
func problems(_ json: String) -> [SpecError] {
  do {
    _ = try ExperimentLoader.load(text: json, source: "test")
    return []
  } catch {
    return error.errors
  }
}

/// Two screens always continued: `a` dwells exactly 10 s, `b` lognormal with median 5 s, σ 0.5.
func twoScreensWithDwell() -> [Screen] {
  let go = [Action(id: "continue", kind: .continue, probability: 1)]
  return [
    Screen(id: "a", content: .info, actions: go, dwell: Dwell(medianSeconds: 10, sigma: 0)),
    Screen(id: "b", content: .info, actions: go, dwell: Dwell(medianSeconds: 5, sigma: 0.5)),
  ]
}
