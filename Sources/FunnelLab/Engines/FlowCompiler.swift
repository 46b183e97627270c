import Foundation
import FunnelStats

/// Compiles an experiment's variant into a ``CompiledFlow``.
///
/// For every state the utilities of the screen's outcomes are
/// ```
/// U(a) = ln p_s(a)                                   spec probability (segment s may override)
///      + [a = quit] · (fatiguePerScreen·n + requiredInputFriction·[required] − intentOnQuit·θ)
///      + [a = purchase plan j] · (V_j + intentOnPurchase·θ + investmentPerScreen·n
///                                 + personalizationBoost·f + featureUtility·features)
///        − ln J                                       J plans share the purchase probability
/// V_j  = utility_j − priceSensitivity·ln(monthlyEquivalent_j / referenceMonthlyPrice)
///        + defaultPlanBias·[j is default] + badgeBoost·[j has a badge]
/// ```
/// with `n` the screens seen before this one (saturated at `screensSeenCap`), `f`
/// the personalized flag and `θ` the bin mean of the user's intent. A paywall's
/// purchase probability is thus the probability of buying when every plan is at the
/// reference price with no default, badge or other effect, however many plans there are. The outcome
/// probabilities are `softmax(U)`. An optional choice or input with no explicit skip
/// gains a skip with `U = ln(q/(1−q))`, `q = optionalSkipShare`, so that it takes the
/// share `q` at reference conditions. A `type` action with validation failure
/// probability `v` splits into `U + ln(1−v)` (valid) and `U + ln v` (stay); a task's
/// `continue` likewise with its failure probability.
public enum FlowCompiler {
  /// Compiles variant `index` of `experiment`.
  /// - Throws: ``SpecErrors`` when the experiment or the variant is invalid.
  public static func compile(_ experiment: Experiment, variant index: Int) throws(SpecErrors) -> CompiledFlow {
    let patched = try experiment.experiment(forVariant: index)
    let errors = patched.validateBase()
    guard errors.isEmpty else { throw SpecErrors(source: experiment.name, errors: errors) }
    return compileValidated(patched, variantID: experiment.variants[index].id)
  }

  /// Compiles every variant, validating the whole experiment first.
  public static func compileAll(_ experiment: Experiment) throws(SpecErrors) -> [CompiledFlow] {
    let errors = experiment.validationErrors()
    guard errors.isEmpty else { throw SpecErrors(source: experiment.name, errors: errors) }
    var flows: [CompiledFlow] = []
    for i in experiment.variants.indices { flows.append(try compile(experiment, variant: i)) }
    return flows
  }

  /// The number of outcomes `screen` compiles to (its row's width in the tables): one
  /// per action, a paywall's purchase one per plan, a `type` or task `continue` that can
  /// fail two, plus the implicit skip of an optional choice or input.
  static func outcomeCount(_ screen: Screen) -> Int {
    var count = 0
    for action in screen.actions {
      switch (screen.kind, action.kind) {
      case (.paywall, .purchase): count += screen.plans.count
      case (.input, .type) where screen.validationFailureProbability > 0, (.task, .continue) where screen.failureProbability > 0:
        count += 2
      default: count += 1
      }
    }
    let implicitSkip =
      !screen.required && (screen.kind == .choice || screen.kind == .input) && !screen.actions.contains { $0.kind == .skip }
    return count + (implicitSkip ? 1 : 0)
  }

  private struct Outcome {
    var action: Int
    var target: Int32
    var effects: UInt8
    var plan: Int32 = -1
    var optionTable: Int32 = -1
    /// Log-probability share of the split (validation failure), added to U.
    var logShare: Double = 0
  }

  static func compileValidated(_ e: Experiment, variantID: String) -> CompiledFlow {
    let flow = e.flow
    let screens = flow.screens
    let screenCount = screens.count
    let behaviors = e.population.segments.map { e.behavior.applying($0.behavior) }
    // Saturation is a state bound shared by all segments: use the largest.
    // Validated: a whole number from 1 to 64.
    let cap = Int(rounding: behaviors.map(\.screensSeenCap).max() ?? e.behavior.screensSeenCap) ?? 1
    let seenLevels = cap + 1
    let bins = e.simulation.traitBins
    let binMeans = Discretisation.normalBinMeans(bins)

    var actionSlots: [CompiledFlow.ActionSlot] = []
    var planSlots: [CompiledFlow.PlanSlot] = []
    var optionSlots: [CompiledFlow.OptionSlot] = []
    var outcomes: [Outcome] = []
    var outcomeStart: [Int32] = []
    var outcomeCount: [Int32] = []
    var optionTableStart: [Int32] = []
    var optionTableCount: [Int32] = []
    var optionThresholds: [UInt64] = []
    // Per screen: the actions in canonical order, and per outcome the action it came from.
    var screenActions: [[Action?]] = []

    func index(of id: String) -> Int32 {
      if id == Flow.completed { return CompiledFlow.completedTarget }
      if id == Flow.abandoned { return CompiledFlow.abandonedTarget }
      return Int32(flow.index(of: id) ?? 0)
    }

    for (i, screen) in screens.enumerated() {
      outcomeStart.append(Int32(outcomes.count))
      var ordered = screen.actions.sorted { ($0.kind.canonicalRank, $0.id) < ($1.kind.canonicalRank, $1.id) }
      let needsImplicitSkip =
        !screen.required && (screen.kind == .choice || screen.kind == .input)
        && !screen.actions.contains { $0.kind == .skip }
      if needsImplicitSkip {
        ordered.append(Action(id: "skip", kind: .skip, to: FlowTargets.next(after: i, in: flow), probability: nil))
      }
      var actionsOfOutcomes: [Action?] = []
      for action in ordered {
        let slot = actionSlots.count
        let implicit = needsImplicitSkip && action.probability == nil
        actionSlots.append(.init(screen: i, id: action.id, kind: action.kind, label: action.label, implicit: implicit))
        let target = index(of: FlowTargets.target(of: action, at: i, in: flow))
        var effects: UInt8 = 0
        switch action.kind {
        case .skip: effects |= CompiledFlow.Effect.skip
        case .back: effects |= CompiledFlow.Effect.back
        case .restore: effects |= CompiledFlow.Effect.restore
        default: break
        }
        if screen.personalizes, action.kind == .select || (screen.kind == .slider && action.kind == .continue) {
          effects |= CompiledFlow.Effect.personalizes
        }
        switch (screen.kind, action.kind) {
        case (.paywall, .purchase):
          for plan in screen.plans {
            outcomes.append(
              Outcome(
                action: slot, target: target, effects: effects | CompiledFlow.Effect.purchase,
                plan: Int32(planSlots.count)))
            planSlots.append(.init(screen: i, plan: plan, isDefault: plan.id == screen.defaultPlan))
            actionsOfOutcomes.append(action)
          }
        case (.input, .type) where screen.validationFailureProbability > 0,
          (.task, .continue) where screen.failureProbability > 0:
          let failure = screen.kind == .input ? screen.validationFailureProbability : screen.failureProbability
          outcomes.append(Outcome(action: slot, target: target, effects: effects, logShare: log1p(-failure)))
          outcomes.append(Outcome(action: slot, target: Int32(i), effects: CompiledFlow.Effect.failure, logShare: log(failure)))
          actionsOfOutcomes.append(action)
          actionsOfOutcomes.append(action)
        case (.choice, .select):
          let table = Int32(optionTableStart.count)
          optionTableStart.append(Int32(optionSlots.count))
          optionTableCount.append(Int32(screen.options.count))
          optionThresholds.append(contentsOf: CompiledFlow.thresholds(of: screen.options.map(\.weight)))
          for option in screen.options { optionSlots.append(.init(screen: i, id: option.id)) }
          outcomes.append(Outcome(action: slot, target: target, effects: effects, optionTable: table))
          actionsOfOutcomes.append(action)
        default:
          outcomes.append(Outcome(action: slot, target: target, effects: effects))
          actionsOfOutcomes.append(implicit ? nil : action)
        }
      }
      outcomeCount.append(Int32(outcomes.count) - outcomeStart[i])
      screenActions.append(actionsOfOutcomes)
    }

    let stride = Int(outcomeCount.max() ?? 1)
    let segments = e.population.segments
    let stateCount = segments.count * bins * seenLevels * 2 * screenCount
    var thresholds = [UInt64](repeating: CompiledFlow.thresholdScale, count: stateCount * stride)
    var utilities = [Double](repeating: 0, count: stride)
    var weights = [Double](repeating: 0, count: stride)
    var row = 0
    for (s, segment) in segments.enumerated() {
      let b = behaviors[s]
      for bin in 0..<bins {
        let theta = segment.intent.mean + segment.intent.sd * binMeans[bin]
        for seen in 0..<seenLevels {
          let n = min(Double(seen), b.screensSeenCap)
          for personalized in 0..<2 {
            for (i, screen) in screens.enumerated() {
              let first = Int(outcomeStart[i])
              let count = Int(outcomeCount[i])
              let overrides = segment.screens[screen.id]
              for k in 0..<count {
                let outcome = outcomes[first + k]
                var u: Double
                if let action = screenActions[i][k] {
                  let p = overrides?[action.id] ?? action.probability ?? 0
                  u = p > 0 ? log(p) : -.infinity
                  if action.kind == .quit {
                    u += b.fatiguePerScreen * n - b.intentOnQuit * theta
                    if screen.required, screen.kind == .choice || screen.kind == .input { u += b.requiredInputFriction }
                  }
                } else {
                  let q = b.optionalSkipShare
                  u = q > 0 ? log(q / (1 - q)) : -.infinity
                }
                if outcome.plan >= 0 {
                  let slot = planSlots[Int(outcome.plan)]
                  let monthly = slot.plan.monthlyEquivalentPrice(lifetimeMonths: b.lifetimeMonths)
                  u += slot.plan.utility - b.priceSensitivity * log(monthly / b.referenceMonthlyPrice)
                  u -= log(Double(screen.plans.count))
                  if slot.isDefault { u += b.defaultPlanBias }
                  if slot.plan.badge != nil { u += b.badgeBoost }
                  u += b.intentOnPurchase * theta + b.investmentPerScreen * n
                  u += b.personalizationBoost * Double(personalized) + b.featureUtility * Double(screen.features)
                }
                utilities[k] = u + outcome.logShare
              }
              let maxU = utilities[0..<count].max() ?? 0
              for k in 0..<count { weights[k] = utilities[k] == -.infinity ? 0 : exp(utilities[k] - maxU) }
              let cumulative = CompiledFlow.thresholds(of: Array(weights[0..<count]))
              let base = row * stride
              for k in 0..<count { thresholds[base + k] = cumulative[k] }
              row += 1
            }
          }
        }
      }
    }

    var dwellMillis = [UInt32](repeating: 0, count: screenCount * Discretisation.dwellTableSize)
    var hasDwell = [Bool](repeating: false, count: screenCount)
    for (i, screen) in screens.enumerated() {
      var median = screen.dwell?.medianSeconds ?? screen.kind.defaultMedianSeconds
      if screen.kind == .paywall { median += e.behavior.secondsPerFeature * Double(screen.features) }
      let sigma = screen.dwell?.sigma ?? e.behavior.dwellSigma
      guard median > 0 else { continue }
      hasDwell[i] = true
      let table = Discretisation.dwellTable(medianSeconds: median, sigma: sigma)
      dwellMillis.replaceSubrange((i * Discretisation.dwellTableSize)..<((i + 1) * Discretisation.dwellTableSize), with: table)
    }

    let weightTotal = segments.reduce(0) { $0 + $1.weight }
    return CompiledFlow(
      variantID: variantID, screenIDs: screens.map(\.id), screenKinds: screens.map(\.kind), segmentIDs: segments.map(\.id),
      actions: actionSlots, plans: planSlots, options: optionSlots, store: e.store, revenue: e.revenue,
      start: flow.startID.flatMap { flow.index(of: $0) } ?? 0, stepLimit: e.simulation.stepLimit, traitBins: bins,
      seenLevels: seenLevels,
      segmentThresholds: CompiledFlow.thresholds(of: segments.map { $0.weight / weightTotal }), stride: stride,
      thresholds: thresholds, outcomeStart: outcomeStart, outcomeCount: outcomeCount,
      outcomeTarget: outcomes.map(\.target), outcomeAction: outcomes.map { Int32($0.action) },
      outcomeEffects: outcomes.map(\.effects), outcomePlan: outcomes.map(\.plan), outcomeOptionTable: outcomes.map(\.optionTable),
      optionTableStart: optionTableStart, optionTableCount: optionTableCount, optionThresholds: optionThresholds,
      dwellMillis: dwellMillis, hasDwell: hasDwell)
  }
}
