import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The behavior model's utility, term by term, against the formula in its documentation.
@Suite struct BehaviorModelTests {
  let b = BehaviorParameters()
  let state = BehaviorModel.State(intent: 0.5, screensSeen: 3, personalized: true)

  func screen(kind: ScreenKind, required: Bool = true, plans: [Plan] = [], features: Int = 0) -> Screen {
    let content: Screen.Content =
      switch kind {
      case .choice: .choice(Screen.Choice(options: [], required: required))
      case .input: .input(Screen.Input(required: required))
      case .paywall: .paywall(Screen.Paywall(plans: plans, defaultPlan: plans.first?.id, features: features))
      default: .info
      }
    return Screen(id: "s", content: content, actions: [])
  }

  @Test func anActionIsTheLogOfItsProbability() {
    let action = Action(id: "next", kind: .continue, probability: 0.7)
    let u = BehaviorModel.utility(of: action, plan: nil, on: screen(kind: .info), overrides: nil, behavior: b, state: state)
    #expect(u == log(0.7))
    let overridden = BehaviorModel.utility(
      of: action, plan: nil, on: screen(kind: .info), overrides: ["next": 0.2], behavior: b, state: state)
    #expect(overridden == log(0.2), "a segment's override replaces the spec's probability")
    let never = Action(id: "never", kind: .continue, probability: 0)
    #expect(BehaviorModel.utility(of: never, plan: nil, on: screen(kind: .info), overrides: nil, behavior: b, state: state) == -.infinity)
  }

  @Test func quittingGrowsWithFatigueAndRequiredInputAndFallsWithIntent() {
    let quit = Action(id: "quit", kind: .quit, probability: 0.1)
    let info = BehaviorModel.utility(of: quit, plan: nil, on: screen(kind: .info), overrides: nil, behavior: b, state: state)
    #expect(abs(info - (log(0.1) + 0.04 * 3 - 0.5 * 0.5)) < 1e-15)
    let required = BehaviorModel.utility(of: quit, plan: nil, on: screen(kind: .input), overrides: nil, behavior: b, state: state)
    #expect(abs(required - info - 0.4) < 1e-15, "requiredInputFriction on a required input")
    let optional = BehaviorModel.utility(
      of: quit, plan: nil, on: screen(kind: .input, required: false), overrides: nil, behavior: b, state: state)
    #expect(optional == info)
  }

  @Test func theImplicitSkipTakesItsShareAtReferenceConditions() {
    let u = BehaviorModel.utility(of: nil, plan: nil, on: screen(kind: .choice, required: false), overrides: nil, behavior: b, state: state)
    #expect(abs(u - log(0.2 / 0.8)) < 1e-15)
    // Against one other outcome of utility 0 the skip takes q = optionalSkipShare.
    let t = BehaviorModel.thresholds(utilities: [u, 0][...])
    #expect(abs(Double(t[0]) / Double(CompiledFlow.thresholdScale) - 0.2) < 1e-12)
  }

  @Test func aPlanAddsPriceDefaultBadgeIntentInvestmentPersonalizationAndFeatures() {
    let yearly = Plan(id: "y", price: 59.99, period: .year, badge: "best", utility: 0.1)
    let monthly = Plan(id: "m", price: 9.99, period: .month)
    let paywall = screen(kind: .paywall, plans: [yearly, monthly], features: 5)
    let buy = Action(id: "buy", kind: .purchase, probability: 0.3)
    let slot = CompiledFlow.PlanSlot(screen: 0, plan: yearly, isDefault: true)
    let u = BehaviorModel.utility(of: buy, plan: slot, on: paywall, overrides: nil, behavior: b, state: state)
    let v = 0.1 - 1.0 * log((59.99 / 12) / 9.99) + 0.8 + 0.3
    let expected = log(0.3) + v - log(2.0) + 0.8 * 0.5 + 0.05 * 3 + 0.3 * 1 + 0.08 * 5
    #expect(abs(u - expected) < 1e-12)
    let plain = CompiledFlow.PlanSlot(screen: 0, plan: monthly, isDefault: false)
    let unpersonalized = BehaviorModel.State(intent: 0.5, screensSeen: 3, personalized: false)
    let w = BehaviorModel.utility(of: buy, plan: plain, on: paywall, overrides: nil, behavior: b, state: unpersonalized)
    #expect(abs(w - (log(0.3) - log(2.0) + 0.8 * 0.5 + 0.05 * 3 + 0.08 * 5)) < 1e-12, "at the reference price: no price term")
  }

  @Test func thresholdsAreTheSoftmaxAndGiveNothingToMinusInfinity() {
    let t = BehaviorModel.thresholds(utilities: [log(0.25), -.infinity, log(0.75)][...])
    let scale = Double(CompiledFlow.thresholdScale)
    #expect(abs(Double(t[0]) / scale - 0.25) < 1e-12)
    #expect(t[1] == t[0], "an impossible outcome has an empty interval")
    #expect(t[2] == CompiledFlow.thresholdScale)
  }

  /// Every row of a compiled table is the softmax of the model's utilities in its own state,
  /// recomputed here from the spec for every segment, bin, screens-seen level, personalized
  /// flag and screen: the compiler's shortcuts (state-free terms computed once, rows that
  /// cannot differ copied) change no threshold.
  @Test(arguments: ["betfree-onboarding", "ncdb-first-launch"])
  func everyCompiledRowIsTheSoftmaxOfItsStatesUtilities(name: String) throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
    let flow = try FlowCompiler.compile(e, variant: 0)
    let binMeans = Discretisation.normalBinMeans(flow.traitBins)
    var rows = 0
    for (s, segment) in e.population.segments.enumerated() {
      let behavior = e.behavior.applying(segment.behavior)
      for bin in 0..<flow.traitBins {
        for seen in 0..<flow.seenLevels {
          for personalized in 0..<2 {
            let state = BehaviorModel.State(
              intent: segment.intent.mean + segment.intent.sd * binMeans[bin],
              screensSeen: min(Double(seen), behavior.screensSeenCap), personalized: personalized == 1)
            for (i, screen) in e.flow.screens.enumerated() {
              let utilities = flow.outcomes(of: i).map { o -> Double in
                let slot = flow.actions[Int(flow.outcomeAction[o])]
                let action = slot.implicit ? nil : screen.actions.first { $0.id == slot.id }
                let plan = flow.outcomePlan[o] >= 0 ? flow.plans[Int(flow.outcomePlan[o])] : nil
                let failure = plan == nil ? FlowCompiler.failureProbability(of: slot.kind, on: screen) : 0
                let share = failure == 0 ? 0 : flow.outcomeEffects[o] & CompiledFlow.Effect.failure != 0 ? log(failure) : log1p(-failure)
                let u = BehaviorModel.utility(
                  of: action, plan: plan, on: screen, overrides: segment.screens[screen.id], behavior: behavior, state: state)
                return u + share
              }
              let start = flow.row(segment: s, bin: bin, seen: seen, personalized: personalized, screen: i)
              let compiled = Array(flow.thresholds[start..<(start + utilities.count)])
              #expect(compiled == BehaviorModel.thresholds(utilities: utilities[...]), "\(name) row \(start / flow.stride)")
              rows += 1
            }
          }
        }
      }
    }
    #expect(rows == flow.thresholds.count / flow.stride)
  }
}
