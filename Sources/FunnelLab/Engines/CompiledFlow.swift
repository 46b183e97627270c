import FunnelStats

/// A flow compiled for one variant into integer-indexed tables over a finite
/// augmented state: (segment, intent bin, screens seen — saturated, personalized
/// flag, screen). No strings, dictionaries or allocation are left for the engines.
///
/// At each state the actions' probabilities are stored as cumulative thresholds on
/// a 53-bit scale: an engine draws `r = next() >> 11` and takes the first outcome
/// whose threshold exceeds `r`. The exact engine reads the same tables, so the two
/// agree by construction.
///
/// An *outcome* is one way an action can turn out: a `type` action splits into
/// "valid" and "validation failed" (stay on the screen), a task's `continue` into
/// success and failure, a paywall's `purchase` into one outcome per plan.
public struct CompiledFlow: Sendable, Hashable {
  /// One action a screen offers, as counted in results.
  public struct ActionSlot: Sendable, Hashable {
    /// Index into ``CompiledFlow/screenIDs`` of the screen that offers the action.
    public var screen: Int
    /// The action's id in the spec (`skip` for the implicit skip).
    public var id: String
    /// What the action does (continue, skip, back, purchase, …).
    public var kind: ActionKind
    /// The button text from the spec; `nil` when it gives none (always for an implicit skip). The engines ignore it.
    public var label: String?
    /// Added by the compiler (the skip of an optional input).
    public var implicit: Bool
  }

  /// One plan on a paywall, as counted in results.
  public struct PlanSlot: Sendable, Hashable {
    /// Index into ``CompiledFlow/screenIDs`` of the paywall that shows the plan.
    public var screen: Int
    /// The plan as the spec defines it (price, trial, period, utility, badge).
    public var plan: Plan
    /// Whether the paywall pre-selects this plan (its `defaultPlan`): the choice model adds `defaultPlanBias`.
    public var isDefault: Bool
  }

  /// One option of a choice screen, as counted in results.
  public struct OptionSlot: Sendable, Hashable {
    /// Index into ``CompiledFlow/screenIDs`` of the choice screen that offers the option.
    public var screen: Int
    /// The option's id in the spec.
    public var id: String
  }

  /// Bits of ``outcomeEffects``.
  @usableFromInline enum Effect {
    @usableFromInline static let personalizes: UInt8 = 1
    @usableFromInline static let skip: UInt8 = 2
    @usableFromInline static let back: UInt8 = 4
    @usableFromInline static let purchase: UInt8 = 8
    @usableFromInline static let failure: UInt8 = 16
    @usableFromInline static let restore: UInt8 = 32
  }

  /// Target codes of ``outcomeTarget`` that are not screens.
  @usableFromInline static let completedTarget: Int32 = -1
  @usableFromInline static let abandonedTarget: Int32 = -2
  /// The scale of thresholds: probabilities are multiples of 2⁻⁵³.
  public static let thresholdScale: UInt64 = 1 << 53

  /// The variant this flow was compiled for.
  public internal(set) var variantID: String
  /// Screen ids in the spec's order; a screen's position here is its index everywhere in the results.
  public let screenIDs: [String]
  /// Each screen's kind, indexed like ``screenIDs``.
  public let screenKinds: [ScreenKind]
  /// Population segment ids in the spec's order (a segment's index in the results).
  public let segmentIDs: [String]
  /// Every action of every screen, screen by screen, each screen's actions by kind then id, an implicit skip
  /// last: the order of the results' action counters.
  public let actions: [ActionSlot]
  /// Every plan of every paywall, screen by screen in the spec's order: the order of the plan counters.
  public internal(set) var plans: [PlanSlot]
  /// Every option of every choice screen, screen by screen in the spec's order: the order of the option counters.
  public let options: [OptionSlot]

  /// The purchase layer's settings (for the built-in ``MockPaywallManager``).
  public let store: StoreSettings
  /// How purchases turn into revenue.
  public internal(set) var revenue: RevenueSettings

  /// Index of the first screen: the flow's `start`, or 0 when the spec names none.
  public let start: Int
  /// Steps after which a walk is cut off and counted as abandoned (`stepLimitReached`); from the simulation settings.
  public let stepLimit: Int
  /// Equiprobable bins of the normal intent trait (each bin holds its conditional mean).
  public let traitBins: Int
  /// Levels of the "screens seen" counter: 0…cap.
  public let seenLevels: Int

  let segmentThresholds: [UInt64]
  /// Outcomes per state (the largest screen's count); rows are padded.
  let stride: Int
  let thresholds: [UInt64]
  let outcomeStart: [Int32]
  let outcomeCount: [Int32]
  let outcomeTarget: [Int32]
  let outcomeAction: [Int32]
  let outcomeEffects: [UInt8]
  let outcomePlan: [Int32]
  let outcomeOptionTable: [Int32]
  let optionTableStart: [Int32]
  let optionTableCount: [Int32]
  let optionThresholds: [UInt64]
  let dwellMillis: [UInt32]
  let hasDwell: [Bool]

  /// `screenIDs.count`.
  public var screenCount: Int { screenIDs.count }
  /// `segmentIDs.count`: at least 1, since validation rejects a population without segments.
  public var segmentCount: Int { segmentIDs.count }

  /// Index of the threshold row of a state.
  func row(segment: Int, bin: Int, seen: Int, personalized: Int, screen: Int) -> Int {
    ((((segment * traitBins + bin) * seenLevels + seen) * 2 + personalized) * screenIDs.count + screen) * stride
  }

  /// Probability of each segment.
  public var segmentProbabilities: [Double] { Self.widths(segmentThresholds) }

  /// Probabilities of the outcomes of `screen` in a state (for the exact engine and tests).
  public func outcomeProbabilities(segment: Int, bin: Int, seen: Int, personalized: Bool, screen: Int) -> [Double] {
    let base = row(segment: segment, bin: bin, seen: seen, personalized: personalized ? 1 : 0, screen: screen)
    let count = Int(outcomeCount[screen])
    return Self.widths(Array(thresholds[base..<(base + count)]))
  }

  /// Global outcome indices of `screen`.
  public func outcomes(of screen: Int) -> Range<Int> {
    Int(outcomeStart[screen])..<Int(outcomeStart[screen] + outcomeCount[screen])
  }

  /// The screen each action of ``actions`` leads to when it succeeds (its first outcome's
  /// target), indexed like ``actions``; `nil` when it ends the walk (completed or abandoned).
  /// Reports read it to mark the screens a skip or jump enters.
  /// - Complexity: O(outcomes).
  package var actionTargets: [Int?] {
    var targets = [Int?](repeating: nil, count: actions.count)
    var seen = [Bool](repeating: false, count: actions.count)
    for (o, slot) in outcomeAction.enumerated() where actions.indices.contains(Int(slot)) && !seen[Int(slot)] {
      seen[Int(slot)] = true
      targets[Int(slot)] = outcomeTarget[o] >= 0 ? Int(outcomeTarget[o]) : nil
    }
    return targets
  }

  static func widths(_ cumulative: [UInt64]) -> [Double] {
    var previous: UInt64 = 0
    return cumulative.map { t in
      defer { previous = t }
      return Double(t - previous) / Double(thresholdScale)
    }
  }

  /// Cumulative 53-bit thresholds of non-negative weights (the last is exactly 2⁵³).
  static func thresholds(of weights: [Double]) -> [UInt64] {
    var result = [UInt64](repeating: 0, count: weights.count)
    writeThresholds(of: weights, into: &result, at: 0)
    return result
  }

  /// ``thresholds(of:)``, written to `table[start..<start + weights.count]`.
  static func writeThresholds(of weights: [Double], into table: inout [UInt64], at start: Int) {
    let count = weights.count
    var total = 0.0
    for k in 0..<count { total += weights[k] }
    var cumulative = 0.0
    // An index loop, not `enumerated()`: every compile writes every screen's rows here, and an
    // unoptimised `enumerated()` looks up its tuple's type metadata at each step.
    for k in 0..<count {
      cumulative += weights[k]
      if k == count - 1 {
        table[start + k] = thresholdScale
      } else {
        // Validated weights are finite with a positive, finite total; a NaN (0/0) maps to 0.
        // Clamped to [0, 2⁵³] and rounded, the value converts exactly and cannot trap, so the
        // machine's conversion is used: the checked one was a tenth of a calibration's time.
        let t = cumulative / total * Double(thresholdScale)
        let clamped = t.isNaN ? 0 : min(max(t, 0), Double(thresholdScale))
        table[start + k] = UInt64(clamped.rounded(.toNearestOrAwayFromZero))
      }
    }
    // Trailing zero-weight outcomes must not be reachable through rounding.
    var k = count - 1
    while k > 0, weights[k] == 0 {
      table[start + k - 1] = thresholdScale
      k -= 1
    }
  }
}

extension CompiledFlow: Equatable {
  /// Whether both engines walk this flow exactly as they walk `other`: the two differ at
  /// most in their variant id, their plans' definitions (the same number of plans, each
  /// on the same screen, the same one pre-selected) and their revenue settings. A plan's
  /// price, badge and features reach the walk only through the tables, which are
  /// compared; its trial, intro offer and renewal, and the revenue settings, are read
  /// only when the walk's purchases are turned into revenue. So the exact engine's
  /// passes over one serve the other, and only the revenue is computed again.
  /// - Complexity: O(size of the tables) when they are equal (one comparison each).
  func walksLike(_ other: CompiledFlow) -> Bool {
    guard plans.count == other.plans.count else { return false }
    var rebased = self
    rebased.variantID = other.variantID
    rebased.revenue = other.revenue
    for j in plans.indices { rebased.plans[j].plan = other.plans[j].plan }
    return rebased == other
  }
}
