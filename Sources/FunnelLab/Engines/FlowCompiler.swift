import Foundation
import FunnelStats

/// Compiles an experiment's variant into a ``CompiledFlow``: the outcomes of every
/// screen (``BehaviorModel`` gives their utilities, hence their probabilities, in
/// every state), the option tables, the dwell-time tables and the segment mix.
public enum FlowCompiler {
  /// Compiles variant `index` of `experiment`.
  /// - Throws: ``SpecErrors`` when the experiment or the variant is invalid.
  public static func compile(_ experiment: Experiment, variant index: Int) throws(SpecErrors) -> CompiledFlow {
    try compile(experiment, variant: index, memo: nil)
  }

  /// ``compile(_:variant:)``, finding the screens' threshold rows in `memo` (and keeping the
  /// new ones there) when one is given: the same flow, bit for bit.
  /// - Throws: ``SpecErrors`` when the experiment or the variant is invalid.
  package static func compile(_ experiment: Experiment, variant index: Int, memo: CompileMemo?) throws(SpecErrors)
    -> CompiledFlow
  {
    compileValidated(try validatedVariant(experiment, index), variantID: experiment.variants[index].id, memo: memo)
  }

  /// Variant `index` of `experiment` with its patches applied, checked as a base spec:
  /// what ``compileValidated(_:variantID:memo:)`` takes.
  /// - Throws: ``SpecErrors`` when a patch does not apply or the patched spec is invalid.
  static func validatedVariant(_ experiment: Experiment, _ index: Int) throws(SpecErrors) -> Experiment {
    let patched = try experiment.experiment(forVariant: index)
    let errors = patched.validateBase()
    guard errors.isEmpty else { throw SpecErrors(source: experiment.name, errors: errors) }
    return patched
  }

  /// Compiles every variant, validating the whole experiment first. That validation checks
  /// every variant's patched spec as a base spec (``Experiment/validationErrors()``), so the
  /// variants are not checked again one by one. The variants share the threshold rows of the
  /// screens they leave alone through `memo`, or through a memo of this call's own when none
  /// is given.
  package static func compileAll(_ experiment: Experiment, memo: CompileMemo? = nil) throws(SpecErrors) -> [CompiledFlow] {
    let errors = experiment.validationErrors()
    guard errors.isEmpty else { throw SpecErrors(source: experiment.name, errors: errors) }
    let memo = memo ?? CompileMemo()
    var flows: [CompiledFlow] = []
    for i in experiment.variants.indices {
      flows.append(compileValidated(try experiment.experiment(forVariant: i), variantID: experiment.variants[i].id, memo: memo))
    }
    return flows
  }

  /// The number of outcomes `screen` compiles to (its row's width in the tables): one
  /// per action, a paywall's purchase one per plan, a `type` or task `continue` that can
  /// fail two, plus the implicit skip of an optional choice or input.
  static func outcomeCount(_ screen: Screen) -> Int {
    var count = 0
    for action in screen.actions {
      switch (screen.content, action.kind) {
      case (.paywall(let paywall), .purchase): count += paywall.plans.count
      case _ where failureProbability(of: action.kind, on: screen) > 0: count += 2
      default: count += 1
      }
    }
    let implicitSkip = screen.required == false && !screen.actions.contains { $0.kind == .skip }
    return count + (implicitSkip ? 1 : 0)
  }

  /// The probability that an action of kind `kind` fails and leaves the user on `screen`:
  /// an input's `type` (validation) and a task's `continue` (the work); 0 for any other.
  static func failureProbability(of kind: ActionKind, on screen: Screen) -> Double {
    switch (screen.content, kind) {
    case (.input(let input), .type): input.validationFailureProbability
    case (.task(let task), .continue): task.failureProbability
    default: 0
    }
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

  /// Every screen's outcomes in canonical order, with the slots they refer to: the
  /// index spaces of a compiled flow, before any probability is computed.
  private struct OutcomeTable {
    var actionSlots: [CompiledFlow.ActionSlot] = []
    var planSlots: [CompiledFlow.PlanSlot] = []
    var optionSlots: [CompiledFlow.OptionSlot] = []
    var outcomes: [Outcome] = []
    var outcomeStart: [Int32] = []
    var outcomeCount: [Int32] = []
    var optionTableStart: [Int32] = []
    var optionTableCount: [Int32] = []
    var optionThresholds: [UInt64] = []
    /// Per screen, per outcome: the action it came from (`nil` for an implicit skip).
    var screenActions: [[Action?]] = []

    /// The widest screen's outcome count: the row stride of the threshold table.
    var stride: Int { Int(outcomeCount.max() ?? 1) }
  }

  /// Compiles `e`, a validated base spec (a variant with its patches applied), as the variant
  /// `variantID`; `memo`, when given, keeps the screens' threshold rows and dwell tables
  /// between compiles.
  static func compileValidated(_ e: Experiment, variantID: String, memo: CompileMemo? = nil) -> CompiledFlow {
    let flow = e.flow
    let segments = e.population.segments
    let behaviors = segments.map { e.behavior.applying($0.behavior) }
    // Saturation is a state bound shared by all segments: use the largest.
    // Validated: a whole number from 1 to 64.
    let cap = Int(rounding: behaviors.map(\.screensSeenCap).max() ?? e.behavior.screensSeenCap) ?? 1
    let table = outcomeTable(flow)
    let thresholds = thresholdTable(e, table, behaviors: behaviors, seenLevels: cap + 1, memo: memo)
    let (dwellMillis, hasDwell) = dwellTables(e, memo: memo)
    let weightTotal = segments.reduce(0) { $0 + $1.weight }
    let outcomes = table.outcomes
    return CompiledFlow(
      variantID: variantID, screenIDs: flow.screens.map(\.id), screenKinds: flow.screens.map(\.kind), segmentIDs: segments.map(\.id),
      actions: table.actionSlots, plans: table.planSlots, options: table.optionSlots, store: e.store, revenue: e.revenue,
      start: flow.startID.flatMap { flow.index(of: $0) } ?? 0, stepLimit: e.simulation.stepLimit, traitBins: e.simulation.traitBins,
      seenLevels: cap + 1,
      segmentThresholds: CompiledFlow.thresholds(of: segments.map { $0.weight / weightTotal }), stride: table.stride,
      thresholds: thresholds, outcomeStart: table.outcomeStart, outcomeCount: table.outcomeCount,
      outcomeTarget: outcomes.map(\.target), outcomeAction: outcomes.map { Int32($0.action) },
      outcomeEffects: outcomes.map(\.effects), outcomePlan: outcomes.map(\.plan), outcomeOptionTable: outcomes.map(\.optionTable),
      optionTableStart: table.optionTableStart, optionTableCount: table.optionTableCount, optionThresholds: table.optionThresholds,
      dwellMillis: dwellMillis, hasDwell: hasDwell)
  }

  /// `e` compiled as the variant `variantID` from `sibling`, the compiled flow of a spec that
  /// equals `e` once each plan's trial, intro offer and renewal are set aside
  /// (``Experiment/settingAsideRevenueTerms()``): `sibling`'s tables with `e`'s plans and
  /// revenue settings. No behavior reads those terms, so this equals
  /// ``compileValidated(_:variantID:memo:)`` of `e` without computing a threshold (a test
  /// compares the two on a grid crossing trial lengths).
  static func compileValidated(_ e: Experiment, variantID: String, walkingLike sibling: CompiledFlow) -> CompiledFlow {
    var flow = sibling
    flow.variantID = variantID
    flow.revenue = e.revenue
    let slots = outcomeTable(e.flow).planSlots
    for j in flow.plans.indices where slots.indices.contains(j) { flow.plans[j].plan = slots[j].plan }
    return flow
  }

  /// Every screen's outcomes, screen by screen: its actions in canonical order (kind,
  /// then id), an implicit skip last.
  private static func outcomeTable(_ flow: Flow) -> OutcomeTable {
    var table = OutcomeTable()
    for (i, screen) in flow.screens.enumerated() {
      table.outcomeStart.append(Int32(table.outcomes.count))
      var ordered = screen.actions.sorted { ($0.kind.canonicalRank, $0.id) < ($1.kind.canonicalRank, $1.id) }
      let needsImplicitSkip = screen.required == false && !screen.actions.contains { $0.kind == .skip }
      if needsImplicitSkip {
        ordered.append(Action(id: "skip", kind: .skip, to: FlowTargets.next(after: i, in: flow), probability: nil))
      }
      var actionsOfOutcomes: [Action?] = []
      for action in ordered {
        let implicit = needsImplicitSkip && action.probability == nil
        appendOutcomes(of: action, implicit: implicit, screen: i, in: flow, to: &table, sources: &actionsOfOutcomes)
      }
      table.outcomeCount.append(Int32(table.outcomes.count) - table.outcomeStart[i])
      table.screenActions.append(actionsOfOutcomes)
    }
    return table
  }

  /// The outcomes of one action of screen `i`: one, a paywall's purchase one per plan,
  /// a `type` or task `continue` that can fail two (done, and stay with a failure);
  /// `sources` gets the action each outcome came from (`nil` for an implicit skip).
  private static func appendOutcomes(
    of action: Action, implicit: Bool, screen i: Int, in flow: Flow, to table: inout OutcomeTable, sources: inout [Action?]
  ) {
    let screen = flow.screens[i]
    let slot = table.actionSlots.count
    table.actionSlots.append(.init(screen: i, id: action.id, kind: action.kind, label: action.label, implicit: implicit))
    let targetID = FlowTargets.target(of: action, at: i, in: flow)
    let target: Int32 =
      switch targetID {
      case Flow.completed: CompiledFlow.completedTarget
      case Flow.abandoned: CompiledFlow.abandonedTarget
      default: Int32(flow.index(of: targetID) ?? 0)
      }
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
    let failure = failureProbability(of: action.kind, on: screen)
    switch (screen.content, action.kind) {
    case (.paywall(let paywall), .purchase):
      for plan in paywall.plans {
        table.outcomes.append(
          Outcome(action: slot, target: target, effects: effects | CompiledFlow.Effect.purchase, plan: Int32(table.planSlots.count)))
        table.planSlots.append(.init(screen: i, plan: plan, isDefault: plan.id == paywall.defaultPlan))
        sources.append(action)
      }
    case _ where failure > 0:
      table.outcomes.append(Outcome(action: slot, target: target, effects: effects, logShare: log1p(-failure)))
      table.outcomes.append(Outcome(action: slot, target: Int32(i), effects: CompiledFlow.Effect.failure, logShare: log(failure)))
      sources.append(contentsOf: [action, action])
    case (.choice(let choice), .select):
      let optionTable = Int32(table.optionTableStart.count)
      table.optionTableStart.append(Int32(table.optionSlots.count))
      table.optionTableCount.append(Int32(choice.options.count))
      table.optionThresholds.append(contentsOf: CompiledFlow.thresholds(of: choice.options.map(\.weight)))
      for option in choice.options { table.optionSlots.append(.init(screen: i, id: option.id)) }
      table.outcomes.append(Outcome(action: slot, target: target, effects: effects, optionTable: optionTable))
      sources.append(action)
    default:
      table.outcomes.append(Outcome(action: slot, target: target, effects: effects))
      sources.append(implicit ? nil : action)
    }
  }

  /// The cumulative outcome thresholds of every state (segment, intent bin, screens
  /// seen, personalized, screen), one row of `table.stride` per state, in that order.
  /// Each outcome's state-free terms are computed once per segment; a screen whose
  /// outcomes do not depend on the state gets one row, copied to every state, and one
  /// without a purchase copies its unpersonalized row (the same values, bit for bit).
  private static func thresholdTable(
    _ e: Experiment, _ table: OutcomeTable, behaviors: [BehaviorParameters], seenLevels: Int, memo: CompileMemo?
  ) -> [UInt64] {
    let screens = e.flow.screens.count
    let bins = e.simulation.traitBins
    let stride = table.stride
    let statesPerScreen = bins * seenLevels * 2
    let total = e.population.segments.count * statesPerScreen * screens * stride
    // Every row is written once, by `write(_:count:states:into:first:rowStep:stride:)`.
    return [UInt64](unsafeUninitializedCapacity: total) { out, initialized in
      for (s, segment) in e.population.segments.enumerated() {
        let terms = outcomeTerms(e, table, segment: segment, behavior: behaviors[s])
        for i in 0..<screens {
          let count = Int(table.outcomeCount[i])
          let logShares = (0..<count).map { table.outcomes[Int(table.outcomeStart[i]) + $0].logShare }
          let rows = ScreenRows(
            terms: terms[i], logShares: logShares, intent: segment.intent, bins: bins, seenLevels: seenLevels,
            screensSeenCap: behaviors[s].screensSeenCap)
          let block = memo?.block(rows.key) { rows.thresholds() } ?? rows.thresholds()
          // State r of this screen and segment is row (s · statesPerScreen + r) · screens + i.
          write(
            block, count: count, states: statesPerScreen, into: out, first: (s * statesPerScreen * screens + i) * stride,
            rowStep: screens * stride, stride: stride)
        }
      }
      initialized = total
    }
  }

  /// Writes a screen's block (`count` thresholds for each of `states` states) into the table
  /// `out`, state `r`'s row at `first + r · rowStep`: its thresholds, then the scale as padding
  /// up to `stride`. Index loops over buffer pointers: every compile of a calibration or a
  /// sweep copies each row.
  private static func write(
    _ block: [UInt64], count: Int, states: Int, into out: UnsafeMutableBufferPointer<UInt64>, first: Int, rowStep: Int,
    stride: Int
  ) {
    block.withUnsafeBufferPointer { block in
      var r = 0
      while r < states {
        let start = first + r * rowStep
        var k = 0
        while k < count {
          out[start + k] = block[r * count + k]
          k += 1
        }
        while k < stride {
          out[start + k] = CompiledFlow.thresholdScale
          k += 1
        }
        r += 1
      }
    }
  }

  /// One screen's outcomes under one segment: their thresholds in every state
  /// (intent bin, screens seen, personalized), `count` per state in that order.
  private struct ScreenRows {
    let terms: [BehaviorModel.UtilityTerms]
    let logShares: [Double]
    let intent: IntentDistribution
    let bins, seenLevels: Int
    let screensSeenCap: Double

    /// The inputs as bit patterns (``CompileMemo/Key``); an absent term is a tag.
    var key: CompileMemo.Key {
      var words: [UInt64] = [UInt64(bins), UInt64(seenLevels), screensSeenCap.bitPattern, intent.mean.bitPattern, intent.sd.bitPattern]
      func add(_ x: Double?) { words += x.map { [1, $0.bitPattern] } ?? [0] }
      for (t, share) in zip(terms, logShares) {
        words += [t.start.bitPattern, share.bitPattern]
        if let q = t.quit {
          words += [1, q.fatiguePerScreen.bitPattern, q.intentOnQuit.bitPattern]
          add(q.friction)
        } else {
          words.append(0)
        }
        if let p = t.purchase {
          words += [1, p.value.bitPattern, p.logPlanCount.bitPattern]
          add(p.defaultBias)
          add(p.badgeBoost)
          words += [p.intentOnPurchase, p.investmentPerScreen, p.personalizationBoost, p.features].map(\.bitPattern)
        } else {
          words.append(0)
        }
      }
      return .init(words: words)
    }

    /// The thresholds, state by state. A screen whose outcomes do not depend on the state
    /// computes one row and copies it; one without a purchase copies its unpersonalized
    /// row (the same values, bit for bit).
    func thresholds() -> [UInt64] {
      let count = terms.count
      let binMeans = Discretisation.normalBinMeans(bins)
      let isStatic = !terms.contains(where: \.dependsOnState)
      let usesPersonalization = terms.contains(where: \.dependsOnPersonalization)
      var block = [UInt64](repeating: CompiledFlow.thresholdScale, count: bins * seenLevels * 2 * count)
      var utilities = [Double](repeating: 0, count: count)
      var weights: [Double] = []
      weights.reserveCapacity(count)
      var row = 0
      for bin in 0..<bins {
        for seen in 0..<seenLevels {
          for personalized in 0..<2 {
            let state = BehaviorModel.State(
              intent: intent.mean + intent.sd * binMeans[bin], screensSeen: min(Double(seen), screensSeenCap),
              personalized: personalized == 1)
            // The row this one equals: the first row of a state-free screen, or the
            // unpersonalized row of a screen without a purchase.
            var copyOf: Int?
            if isStatic, row != 0 {
              copyOf = 0
            } else if personalized == 1, !usesPersonalization {
              copyOf = row - 1
            }
            if let copyOf {
              for k in 0..<count { block[row * count + k] = block[copyOf * count + k] }
            } else {
              for k in 0..<count { utilities[k] = terms[k].value(in: state) + logShares[k] }
              BehaviorModel.writeThresholds(utilities: utilities, count: count, weights: &weights, into: &block, at: row * count)
            }
            row += 1
          }
        }
      }
      return block
    }
  }

  /// Per screen, per outcome: the state-free terms of its utility under `segment`.
  private static func outcomeTerms(
    _ e: Experiment, _ table: OutcomeTable, segment: Segment, behavior: BehaviorParameters
  ) -> [[BehaviorModel.UtilityTerms]] {
    e.flow.screens.enumerated().map { i, screen in
      let first = Int(table.outcomeStart[i])
      let overrides = segment.screens[screen.id]
      return table.screenActions[i].enumerated().map { k, action in
        let outcome = table.outcomes[first + k]
        let plan = outcome.plan >= 0 ? table.planSlots[Int(outcome.plan)] : nil
        return BehaviorModel.terms(of: action, plan: plan, on: screen, overrides: overrides, behavior: behavior)
      }
    }
  }

  /// Each screen's dwell-time table (``Discretisation/dwellTable(medianSeconds:sigma:)``),
  /// and whether it has one (a median of 0 s has none).
  private static func dwellTables(_ e: Experiment, memo: CompileMemo?) -> ([UInt32], [Bool]) {
    let screens = e.flow.screens
    var dwellMillis = [UInt32](repeating: 0, count: screens.count * Discretisation.dwellTableSize)
    var hasDwell = [Bool](repeating: false, count: screens.count)
    for (i, screen) in screens.enumerated() {
      var median = screen.dwell?.medianSeconds ?? screen.kind.defaultMedianSeconds
      if let paywall = screen.paywall { median += e.behavior.secondsPerFeature * Double(paywall.features) }
      let sigma = screen.dwell?.sigma ?? e.behavior.dwellSigma
      guard median > 0 else { continue }
      hasDwell[i] = true
      let table =
        memo?.dwellTable(medianSeconds: median, sigma: sigma) ?? Discretisation.dwellTable(medianSeconds: median, sigma: sigma)
      dwellMillis.replaceSubrange((i * Discretisation.dwellTableSize)..<((i + 1) * Discretisation.dwellTableSize), with: table)
    }
    return (dwellMillis, hasDwell)
  }
}
