import Foundation

@testable import FunnelLab

/// The repository's root folder (tests read committed files from it).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func experimentPath(_ name: String) -> String {
  repositoryRoot.appendingPathComponent("experiments/\(name).json").path
}

let seedExperiments = ["klick-onboarding", "betfree-onboarding", "urbannest-onboarding", "ncdb-first-launch"]

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

/// Exact outcome probabilities of a compiled flow, by value iteration over the
/// augmented state (segment, bin, seen, personalized, screen). A test oracle for the
/// Monte Carlo engine: it ignores the step limit, whose mass is negligible in tests.
struct ExactOracle {
  var completion = 0.0
  var purchase = 0.0
  var reach: [Double]

  init(_ flow: CompiledFlow, iterations: Int = 400) {
    let screens = flow.screenCount
    reach = Array(repeating: 0, count: screens)
    let segmentP = flow.segmentProbabilities
    for s in 0..<flow.segmentCount {
      for bin in 0..<flow.traitBins {
        let weight = segmentP[s] / Double(flow.traitBins)
        // Distribution over (seen, personalized, screen, purchasedYet, visitedMask) is too big in general;
        // the oracle tracks (seen, personalized, purchasedYet, screen) and reach per screen by first-visit
        // mass only for flows without revisits (tests use it on those for reach).
        var mass = [[[[Double]]]](
          repeating: [[[Double]]](repeating: [[Double]](repeating: [Double](repeating: 0, count: screens), count: 2), count: 2),
          count: flow.seenLevels)
        mass[0][0][0][flow.start] = 1
        for _ in 0..<iterations {
          var next = [[[[Double]]]](
            repeating: [[[Double]]](repeating: [[Double]](repeating: [Double](repeating: 0, count: screens), count: 2), count: 2),
            count: flow.seenLevels)
          var moved = 0.0
          for seen in 0..<flow.seenLevels {
            for pers in 0..<2 {
              for bought in 0..<2 {
                for screen in 0..<screens {
                  let m = mass[seen][pers][bought][screen]
                  if m == 0 { continue }
                  moved += m
                  let probs = flow.outcomeProbabilities(segment: s, bin: bin, seen: seen, personalized: pers == 1, screen: screen)
                  for (k, o) in flow.outcomes(of: screen).enumerated() {
                    let q = m * probs[k]
                    if q == 0 { continue }
                    let effects = flow.outcomeEffects[o]
                    let newPers = effects & CompiledFlow.Effect.personalizes != 0 ? 1 : pers
                    let target = Int(flow.outcomeTarget[o])
                    let nextSeen = min(seen + 1, flow.seenLevels - 1)
                    // A plan tapped before any purchase goes to the store: success moves on with the
                    // purchase, cancel and failure stay on the paywall (oracle: no pending purchases).
                    var branches: [(weight: Double, target: Int, bought: Int)] = [(1, target, bought)]
                    if effects & CompiledFlow.Effect.purchase != 0, bought == 0 {
                      let store = MockPaywallManager(settings: flow.store).outcomeProbabilities
                      purchase += weight * q * store.success
                      branches = [(store.success, target, 1), (store.cancelled + store.failed, screen, 0)]
                    }
                    for branch in branches where branch.weight > 0 {
                      let qb = q * branch.weight
                      if branch.target == Int(CompiledFlow.completedTarget) {
                        completion += weight * qb
                      } else if branch.target >= 0 {
                        next[nextSeen][newPers][branch.bought][branch.target] += qb
                      }
                    }
                  }
                }
              }
            }
          }
          mass = next
          if moved < 1e-15 { break }
        }
      }
    }
  }
}
