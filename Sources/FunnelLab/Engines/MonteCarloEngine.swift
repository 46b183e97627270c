import Dispatch
import Foundation
import FunnelStats
import Synchronization

/// Walks synthetic users through a ``CompiledFlow``, one independent random stream
/// per user, streaming into a ``FunnelAggregate``.
///
/// User `u` draws from `Xoshiro256StarStar(seed: seed, stream: u)`, so a user's walk
/// depends only on the seed, the user's index and the flow: never on the thread
/// that ran it. Users are cut into fixed chunks that threads take in turn; every
/// aggregate field is an integer, so the merge is exact in any order and the result
/// is byte-identical for any thread count. Because the stream does not depend on
/// the variant, running the same users through two variants uses common random
/// numbers: an unchanged variant gives exactly the control's counts.
///
/// **Draws.** A user's first draw gives the segment (its top 53 bits against the
/// segment thresholds) and, when the number of intent bins is a power of two up to
/// 2¹¹, the bin (its low bits; otherwise the bin takes a second draw). Each step takes
/// one draw: its top 53 bits choose the outcome (a linear scan of at most a handful of
/// thresholds), its low 10 bits the dwell-time quantile; an outcome that selects an
/// option takes one more. Disjoint bits of a uniform 64-bit word are independent and
/// uniform, so each field has exactly the law it had with a draw of its own, and a step
/// takes one draw (plus one per option drawn) whatever the screen's dwell time, which
/// keeps the streams of two variants aligned step by step. Then integer increments (one per step for the
/// outcome taken; views and actions are sums of those): no allocation, no floating point.
public struct MonteCarloEngine: Sendable {
  /// Users per unit of work handed to a thread.
  package static let chunkSize = 1 << 14

  /// Worker threads (at least 1); the result is byte-identical for any count.
  package var threads: Int

  /// The threads used when none are asked for: the processors active for this process
  /// (`ProcessInfo.activeProcessorCount`, on every platform), at least 1.
  package static var defaultThreadCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

  /// - Parameter threads: worker threads (default: ``defaultThreadCount``).
  public init(threads: Int? = nil) {
    self.threads = max(1, threads ?? Self.defaultThreadCount)
  }

  /// Simulates users `range` (indices into the seed's user streams) with the
  /// built-in ``MockPaywallManager`` configured by the flow's store settings.
  /// - Parameters:
  ///   - include: when given, only the users for which it returns true walk (an arm's
  ///     share of an experiment's users); the others are skipped.
  ///   - progress: called from worker threads with the number of users just finished.
  /// - Complexity: O(users × steps per user), memory O(size of the flow × threads).
  public func run(
    _ flow: CompiledFlow, users range: Range<UInt64>, seed: UInt64,
    include: (@Sendable (UInt64) -> Bool)? = nil, progress: (@Sendable (Int) -> Void)? = nil
  ) -> FunnelAggregate {
    run(flow, users: range, seed: seed, paywall: MockPaywallManager(settings: flow.store), include: include, progress: progress)
  }

  /// Simulates users `range` with a purchase layer of your own.
  package func run<Manager: PaywallManager>(
    _ flow: CompiledFlow, users range: Range<UInt64>, seed: UInt64, paywall: Manager,
    include: (@Sendable (UInt64) -> Bool)? = nil, progress: (@Sendable (Int) -> Void)? = nil
  ) -> FunnelAggregate {
    run(flow, users: range, seed: seed, paywall: paywall, recording: nil, include: include, progress: progress).aggregate
  }

  /// Simulates users `range` like ``run(_:users:seed:paywall:include:progress:)`` and,
  /// when `recording` is given, also tallies each user's stratum, pre-period covariate
  /// and value (``StrataTally``), the covariate from a stream of its own.
  package func run<Manager: PaywallManager>(
    _ flow: CompiledFlow, users range: Range<UInt64>, seed: UInt64, paywall: Manager, recording: StrataRecording?,
    include: (@Sendable (UInt64) -> Bool)? = nil, progress: (@Sendable (Int) -> Void)? = nil
  ) -> (aggregate: FunnelAggregate, strata: StrataTally?) {
    let tables = EngineTables(flow)
    let lifecycle = SubscriptionLifecycle(settings: flow.revenue)
    let chunks = ChunkQueue(range)
    let workers = min(threads, max(chunks.count, 1))
    let parts = ParallelWork.eachWorker(workers) { _ -> (FunnelAggregate, StrataTally?) in
      let accumulator = Accumulator(tables)
      let recorder = recording.map { StrataRecorder($0, seed: seed) }
      var none = NoWalkObserver()
      while let (first, last) = chunks.take() {
        // A counting loop, not a range's iterator: unoptimised, that looks up metadata per user.
        var user = first
        while user < last {
          defer { user += 1 }
          if let include, !include(user) { continue }
          let outcome = walk(
            user: user, seed: seed, tables: tables, paywall: paywall, lifecycle: lifecycle, into: accumulator, observer: &none)
          recorder?.add(user: user, outcome: outcome)
        }
        progress?(Int(last - first))
      }
      return (accumulator.aggregate(), recorder?.tally())
    }
    let aggregate = parts.reduce(FunnelAggregate(for: flow)) { $0 + $1.0 }
    let strata = recording.map { r in
      parts.reduce(StrataTally(strata: r.strata.strataIDs.count)) { total, part in part.1.map { total + $0 } ?? total }
    }
    return (aggregate, strata)
  }

  /// Simulates users `0..<users`.
  public func run(
    _ flow: CompiledFlow, users: Int, seed: UInt64,
    progress: (@Sendable (Int) -> Void)? = nil
  ) -> FunnelAggregate {
    run(flow, users: 0..<UInt64(max(users, 0)), seed: seed, progress: progress)
  }

  /// The seed of the store streams: purchase outcomes and renewals draw from a stream
  /// of their own per user, so the walk's draws stay aligned across variants.
  static func storeSeed(_ seed: UInt64) -> UInt64 { SplitMix64.mix(seed ^ 0x7374_6F72_6521) }

  /// The store stream of `user`. Never inlined: seeding is pure arithmetic, which the
  /// optimizer would otherwise hoist out of the walk and compute for every user (about 75
  /// instructions of vector code), although only the users who reach the store need it.
  @inline(never)
  static func storeStream(seed: UInt64, user: UInt64) -> Xoshiro256StarStar {
    Xoshiro256StarStar(seed: storeSeed(seed), stream: user)
  }
}

/// Hands out the fixed chunks of `size` users of a range to
/// worker threads, each chunk once, in any order.
final class ChunkQueue: Sendable {
  let range: Range<UInt64>
  /// Chunks in the range.
  let count: Int
  private let next = Atomic<Int>(0)

  /// Users per chunk.
  let size: UInt64

  init(_ range: Range<UInt64>, size: Int = MonteCarloEngine.chunkSize) {
    self.range = range
    self.size = UInt64(size)
    count = Int((UInt64(range.count) + self.size - 1) / self.size)
  }

  /// The next chunk's first user and the user after its last, `nil` when all are taken.
  func take() -> (UInt64, UInt64)? {
    let chunk = next.add(1, ordering: .relaxed).oldValue
    guard chunk < count else { return nil }
    let first = range.lowerBound + UInt64(chunk) * size
    return (first, min(first + size, range.upperBound))
  }
}

/// What one user's walk has done so far: where it is, what it has seen and bought
/// (its transaction, which holds a product id, is kept apart so that this stays a
/// trivial value the optimizer keeps in registers).
struct WalkState {
  var screen: Int
  /// Screens seen before this one, saturated at the compiled flow's cap.
  var seen = 0
  /// 1 once the user answered a personalization question.
  var personalized = 0
  /// Bit `s` set once screen `s` was shown.
  var visited: UInt64 = 0
  /// The effects of every outcome taken (``CompiledFlow/Effect`` bits, and
  /// ``EngineTables/drawsOption``, which nothing reads here).
  var marks: UInt8 = 0
  var millis: UInt64 = 0
  /// The plan slot of the first purchase, or of the first pending one; -1 for none.
  var firstPlan: Int32 = -1
  var pendingPlan: Int32 = -1
  var entitled = false
  /// The user's store stream, seeded at the first store action only (a placeholder
  /// state until then, set without mixing).
  var store = Xoshiro256StarStar(state: (1, 2, 3, 4))
  var storeReady = false
}

/// One user's walk: the hot loop. The outcome row of (cell, seen, personalized) starts
/// at `row`, which moves when `seen` or the personalized flag changes; a step adds its
/// screen's offset. `observer` sees each step as it happens (the
/// traces of ``UserTrace``); the engine passes ``NoWalkObserver``, whose empty
/// hooks the optimizer removes.
/// - Returns: the user's outcome for paired tallies (unused values cost nothing once inlined).
@inline(__always) @discardableResult
func walk<Manager: PaywallManager, Observer: WalkObserver>(
  user: UInt64, seed: UInt64, tables t: EngineTables, paywall: Manager, lifecycle: SubscriptionLifecycle,
  into acc: Accumulator, observer: inout Observer
) -> UserOutcome {
  var result = UserOutcome()
  var rng = Xoshiro256StarStar(seed: seed, stream: user)
  let (segment, bin) = drawCell(tables: t, rng: &rng)
  result.cell = Int32(truncatingIfNeeded: segment * t.bins + bin)
  var row = (segment * t.bins + bin) * t.seenLevels * t.seenStride
  observer.started(user: user, segment: segment)
  var w = WalkState(screen: t.start)
  // The per-step tables as locals: loaded once a user, not through `t` and `acc` a step.
  let (thresholds, dwell, outcomeStart, outcomeEffects, outcomeTarget) =
    (t.thresholds, t.dwell, t.outcomeStart, t.outcomeEffects, t.outcomeTarget)
  let (screenMillis, outcomeCounts, stride, seenStride) = (acc.screenMillis, acc.outcomeCounts, t.stride, t.seenStride)
  var transaction: StoreTransaction?
  var finished = false
  var steps = 0
  while steps < t.stepLimit {
    steps &+= 1
    let screen = w.screen
    w.visited |= 1 &<< UInt64(screen)
    observer.viewed(screen: screen, at: w.millis)
    let draw = rng.next()  // top 53 bits: the outcome; low 10: the dwell quantile (zeros: no dwell)
    let d = UInt64(dwell[screen &<< Discretisation.dwellTableBits | Int(draw & Discretisation.dwellTableMask)])
    w.millis &+= d
    screenMillis[screen] &+= d
    let base = row &+ screen &* stride
    var k = 0
    while draw >> 11 >= thresholds[base &+ k] { k &+= 1 }
    let o = Int(outcomeStart[screen]) &+ k
    outcomeCounts[o] &+= 1
    let effects = outcomeEffects[o]
    var target = Int(outcomeTarget[o])
    observer.took(outcome: o, on: screen, at: w.millis)
    if effects != 0 {
      w.marks |= effects
      if effects & CompiledFlow.Effect.personalizes != 0, w.personalized == 0 {
        w.personalized = 1
        row &+= t.personalizedStride
      }
      if effects & CompiledFlow.Effect.failure != 0 { acc.failures[screen] &+= 1 }
      if effects & (CompiledFlow.Effect.purchase | CompiledFlow.Effect.restore) != 0, !w.entitled {
        let stays = storeStep(
          outcome: o, purchase: effects & CompiledFlow.Effect.purchase != 0, user: user, seed: seed, tables: t, paywall: paywall,
          state: &w, transaction: &transaction, into: acc, observer: &observer)
        if stays { target = screen }
      }
      if effects & EngineTables.drawsOption != 0 {
        let option = selectOption(outcome: o, tables: t, rng: &rng)
        acc.optionCounts[option] &+= 1
        observer.selected(option: option, outcome: o, at: w.millis)
      }
    }
    if target < 0 {
      end(
        on: screen, completed: target == Int(CompiledFlow.completedTarget), at: w.millis,
        skipped: w.marks & CompiledFlow.Effect.skip != 0, into: acc, result: &result, observer: &observer)
      finished = true
      break
    }
    observer.moved(from: screen, to: target, outcome: o, at: w.millis)
    w.screen = target
    if w.seen < t.maxSeen {
      w.seen &+= 1
      row &+= seenStride
    }
  }
  if !finished {
    acc.scalars[FunnelCounter.stepLimitReached.rawValue] &+= 1
    observer.abandoned(on: w.screen, stepLimit: true, at: w.millis)
  }
  tallyUser(
    segment: segment, tables: t, paywall: paywall, lifecycle: lifecycle, state: &w, transaction: transaction, into: acc,
    result: &result, observer: &observer)
  return result
}

/// A user's population cell: the segment from the first draw's top 53 bits, the intent
/// bin from its low bits (a power-of-two number of bins up to 2¹¹) or from a second draw.
@inline(__always)
func drawCell(tables t: EngineTables, rng: inout Xoshiro256StarStar) -> (segment: Int, bin: Int) {
  let cellDraw = rng.next()
  let segmentDraw = cellDraw >> 11
  var segment = 0
  while segmentDraw >= t.segmentThresholds[segment] { segment &+= 1 }
  let bin = t.binsInCellDraw ? Int(cellDraw & t.binMask) : Int(rng.next().multipliedFullWidth(by: UInt64(t.bins)).high)
  return (segment, bin)
}

/// The option an outcome that selects one picks: a draw of its own against the
/// outcome's option thresholds.
@inline(__always)
func selectOption(outcome o: Int, tables t: EngineTables, rng: inout Xoshiro256StarStar) -> Int {
  let r = rng.next() >> 11
  var j = Int(t.optionTableStart[Int(t.outcomeOptionTable[o])])
  while r >= t.optionThresholds[j] { j &+= 1 }
  return j
}

/// A purchase or restore tap of a user not yet entitled: asks the purchase layer
/// (seeding the user's store stream on first use), counts the store's events.
/// - Returns: whether the user stays on the screen (cancelled, failed, nothing restored).
@inline(__always)
func storeStep<Manager: PaywallManager, Observer: WalkObserver>(
  outcome o: Int, purchase: Bool, user: UInt64, seed: UInt64, tables t: EngineTables, paywall: Manager,
  state w: inout WalkState, transaction: inout StoreTransaction?, into acc: Accumulator, observer: inout Observer
) -> Bool {
  if !w.storeReady {
    w.store = MonteCarloEngine.storeStream(seed: seed, user: user)
    w.storeReady = true
  }
  guard purchase else {
    acc.scalars[FunnelCounter.restoreAttempts.rawValue] &+= 1
    guard paywall.restorePurchases(using: &w.store) == .restored else { return true }
    acc.scalars[FunnelCounter.restores.rawValue] &+= 1
    w.entitled = true
    observer.restored(at: w.millis)
    return false
  }
  let slot = t.outcomePlan[o]
  let attempt = paywall.purchase(t.plans[Int(slot)], using: &w.store)
  acc.scalars[FunnelCounter.purchaseTaps.rawValue] &+= 1
  acc.scalars[FunnelCounter.purchaseAttempts.rawValue] &+= UInt64(max(attempt.attempts, 1))
  observer.purchaseStarted(plan: Int(slot), at: w.millis)
  // A custom purchase layer's latency that is not finite or too long counts as 0.
  w.millis &+= UInt64(rounding: max(attempt.latencySeconds, 0) * 1000, .towardZero) ?? 0
  observer.purchaseEnded(plan: Int(slot), result: attempt.result, at: w.millis)
  switch attempt.result {
  case .success(let tx):
    w.entitled = true
    w.firstPlan = slot
    transaction = tx
    return false
  case .userCancelled:
    acc.scalars[FunnelCounter.purchaseCancels.rawValue] &+= 1
    return true
  case .failed:
    acc.scalars[FunnelCounter.purchaseFailures.rawValue] &+= 1
    return true
  case .pending:
    acc.scalars[FunnelCounter.purchasePendings.rawValue] &+= 1
    if w.pendingPlan < 0 { w.pendingPlan = slot }
    return false
  }
}

/// The walk ends on `screen` after `millis`: completed (with its time to finish) or
/// abandoned there.
@inline(__always)
func end<Observer: WalkObserver>(
  on screen: Int, completed: Bool, at millis: UInt64, skipped: Bool, into acc: Accumulator, result: inout UserOutcome,
  observer: inout Observer
) {
  guard completed else {
    acc.abandonedAt[screen] &+= 1
    observer.abandoned(on: screen, stepLimit: false, at: millis)
    return
  }
  acc.scalars[FunnelCounter.completed.rawValue] &+= 1
  acc.scalars[Accumulator.completionCount] &+= 1
  acc.scalars[Accumulator.completionMillis] &+= millis
  acc.completionSquares.pointee &+= UInt128(millis) &* UInt128(millis)
  acc.completionHistogram[Int(min(millis / 1000, UInt64(TimeStatistic.histogramSeconds)))] &+= 1
  result.flags |= PairedTallies.Outcome.completed.bit
  observer.completed(on: screen, skipped: skipped, at: millis)
}

/// The user's tallies once the walk is over: segment, reach, skips, back, personalization,
/// a pending purchase approved later, and the purchase's lifecycle and revenue.
@inline(__always)
func tallyUser<Manager: PaywallManager, Observer: WalkObserver>(
  segment: Int, tables t: EngineTables, paywall: Manager, lifecycle: SubscriptionLifecycle, state w: inout WalkState,
  transaction: StoreTransaction?, into acc: Accumulator, result: inout UserOutcome, observer: inout Observer
) {
  acc.scalars[FunnelCounter.users.rawValue] &+= 1
  acc.segmentUsers[segment] &+= 1
  if result.flags == 0 { result.flags = PairedTallies.Outcome.abandoned.bit }
  if w.visited & t.paywallMask != 0 {
    acc.scalars[FunnelCounter.paywallViewers.rawValue] &+= 1
    result.flags |= PairedTallies.Outcome.sawPaywall.bit
  }
  var visited = w.visited
  while visited != 0 {
    acc.reach[visited.trailingZeroBitCount] &+= 1
    visited &= visited &- 1
  }
  if w.marks & CompiledFlow.Effect.skip != 0 {
    acc.scalars[FunnelCounter.usersWhoSkipped.rawValue] &+= 1
    result.flags |= PairedTallies.Outcome.skipped.bit
  }
  if w.marks & CompiledFlow.Effect.back != 0 { acc.scalars[FunnelCounter.usersWhoWentBack.rawValue] &+= 1 }
  if w.marks & CompiledFlow.Effect.personalizes != 0 {
    acc.scalars[FunnelCounter.usersPersonalized.rawValue] &+= 1
    result.flags |= PairedTallies.Outcome.personalized.bit
  }
  var transaction = transaction
  if transaction == nil, w.pendingPlan >= 0, let approved = paywall.resolvePending(t.plans[Int(w.pendingPlan)], using: &w.store) {
    acc.scalars[FunnelCounter.pendingApprovals.rawValue] &+= 1
    transaction = approved
    w.firstPlan = w.pendingPlan
    observer.pendingApproved(plan: Int(w.pendingPlan), at: w.millis)
  }
  guard let transaction, w.firstPlan >= 0 else { return }
  tallyPurchase(transaction, tables: t, lifecycle: lifecycle, state: &w, into: acc, result: &result)
}

/// A purchaser's tallies: the plan, a trial, the lifecycle and its revenue. Out of line:
/// few users buy, and the walk's loop stays small without it.
@inline(never)
func tallyPurchase(
  _ transaction: StoreTransaction, tables t: EngineTables, lifecycle: SubscriptionLifecycle, state w: inout WalkState,
  into acc: Accumulator, result: inout UserOutcome
) {
  acc.scalars[FunnelCounter.purchasers.rawValue] &+= 1
  result.flags |= PairedTallies.Outcome.purchased.bit
  acc.planPurchases[Int(w.firstPlan)] &+= 1
  if transaction.isTrial {
    acc.scalars[FunnelCounter.trialStarts.rawValue] &+= 1
    result.flags |= PairedTallies.Outcome.startedTrial.bit
  }
  let outcome = lifecycle.outcome(of: transaction, plan: t.plans[Int(w.firstPlan)], using: &w.store)
  if outcome.convertedFromTrial { acc.scalars[FunnelCounter.trialConversions.rawValue] &+= 1 }
  if outcome.refunded { acc.scalars[FunnelCounter.refunds.rawValue] &+= 1 }
  acc.revenue.add(cents: outcome.horizonCents)
  acc.realizedRevenue.add(cents: outcome.realizedCents)
  acc.lifecycles.count(lifecycle.lifecycle(of: transaction, slot: Int(w.firstPlan), outcome: outcome))
  result.revenueCents = outcome.horizonCents
  result.realizedCents = outcome.realizedCents
}

/// The compiled tables copied into raw memory for the hot loop. Immutable after
/// `init`, so one instance is safely shared by all worker threads.
final class EngineTables: @unchecked Sendable {
  let screens, stride, bins, seenLevels, maxSeen, start, stepLimit: Int
  /// An effect bit of the walk's own (beside ``CompiledFlow/Effect``'s six): the outcome
  /// selects an option, which takes a draw of its own; so the walk reads the option table
  /// only behind the one test of an outcome's effects.
  static let drawsOption: UInt8 = 64
  /// How far the outcome row moves for one more screen seen (`2 · screens · stride`), and
  /// for the personalized flag (`screens · stride`): rows are laid out
  /// `(((cell · seenLevels + seen) · 2 + personalized) · screens + screen) · stride`.
  let seenStride, personalizedStride: Int
  /// Bit `i` set when screen `i` is a paywall.
  let paywallMask: UInt64
  let segmentThresholds: UnsafeMutableBufferPointer<UInt64>
  let thresholds: UnsafeMutableBufferPointer<UInt64>
  let outcomeStart: UnsafeMutableBufferPointer<Int32>
  let outcomeTarget: UnsafeMutableBufferPointer<Int32>
  let outcomeAction: UnsafeMutableBufferPointer<Int32>
  let outcomeEffects: UnsafeMutableBufferPointer<UInt8>
  let outcomePlan: UnsafeMutableBufferPointer<Int32>
  let outcomeOptionTable: UnsafeMutableBufferPointer<Int32>
  let optionTableStart: UnsafeMutableBufferPointer<Int32>
  let optionThresholds: UnsafeMutableBufferPointer<UInt64>
  let dwell: UnsafeMutableBufferPointer<UInt32>
  /// Whether the intent bin comes from the cell draw's low bits (a power-of-two
  /// number of bins, at most 2¹¹: the bits the segment's 53 leave), masked by ``binMask``;
  /// otherwise it takes a draw of its own.
  let binsInCellDraw: Bool
  let binMask: UInt64
  let plans: [Plan]
  let flow: CompiledFlow

  init(_ flow: CompiledFlow) {
    self.flow = flow
    plans = flow.plans.map(\.plan)
    screens = flow.screenCount
    stride = flow.stride
    bins = flow.traitBins
    seenLevels = flow.seenLevels
    maxSeen = flow.seenLevels - 1
    start = flow.start
    stepLimit = flow.stepLimit
    personalizedStride = flow.screenCount * flow.stride
    seenStride = 2 * personalizedStride
    paywallMask = flow.screenKinds.enumerated().reduce(0) { $1.element == .paywall ? $0 | 1 << UInt64($1.offset) : $0 }
    func copy<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
      let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(array.count, 1))
      _ = buffer.initialize(from: array)
      return buffer
    }
    segmentThresholds = copy(flow.segmentThresholds)
    thresholds = copy(flow.thresholds)
    outcomeStart = copy(flow.outcomeStart)
    outcomeTarget = copy(flow.outcomeTarget)
    outcomeAction = copy(flow.outcomeAction)
    outcomeEffects = copy(
      zip(flow.outcomeEffects, flow.outcomeOptionTable).map { $1 >= 0 ? $0 | EngineTables.drawsOption : $0 })
    outcomePlan = copy(flow.outcomePlan)
    outcomeOptionTable = copy(flow.outcomeOptionTable)
    optionTableStart = copy(flow.optionTableStart)
    optionThresholds = copy(flow.optionThresholds)
    dwell = copy(flow.dwellMillis)
    binsInCellDraw = flow.traitBins.nonzeroBitCount == 1 && flow.traitBins <= 1 << 11
    binMask = UInt64(flow.traitBins - 1)
  }

  deinit {
    for b in [segmentThresholds, thresholds, optionThresholds] { b.deallocate() }
    for b in [outcomeStart, outcomeTarget, outcomeAction, outcomePlan, outcomeOptionTable, optionTableStart] { b.deallocate() }
    outcomeEffects.deallocate()
    dwell.deallocate()
  }
}

/// One thread's running counts, in raw memory for the hot loop.
final class Accumulator {
  let flow: CompiledFlow
  /// Scalar counters (raw memory: no exclusivity checks in the hot loop): one per
  /// ``FunnelCounter`` at its raw value, then ``completionCount`` and ``completionMillis``.
  let scalars: UnsafeMutableBufferPointer<UInt64>
  /// Index of the completion-time count in ``scalars``.
  static let completionCount = FunnelCounter.allCases.count
  /// Index of the completion-time sum in milliseconds in ``scalars``.
  static let completionMillis = completionCount + 1
  /// The length of ``scalars``.
  static let scalarCount = completionMillis + 1
  let completionHistogram: UnsafeMutableBufferPointer<UInt64>
  /// Sum of squared completion milliseconds (raw memory, like the counters).
  let completionSquares: UnsafeMutablePointer<UInt128>
  var revenue = RevenueDistribution()
  var realizedRevenue = RevenueDistribution()
  let lifecycles: LifecycleCounter
  /// Per compiled outcome, the times it was taken: a screen's views and an action's
  /// count are sums of these, formed once in ``aggregate()``, not per step.
  let outcomeCounts: UnsafeMutableBufferPointer<UInt64>
  let reach, abandonedAt, failures, screenMillis, planPurchases, optionCounts, segmentUsers: UnsafeMutableBufferPointer<UInt64>

  init(_ tables: EngineTables) {
    flow = tables.flow
    func zeros(_ n: Int) -> UnsafeMutableBufferPointer<UInt64> {
      let b = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: max(n, 1))
      b.initialize(repeating: 0)
      return b
    }
    scalars = zeros(Accumulator.scalarCount)
    completionHistogram = zeros(TimeStatistic.histogramSeconds + 1)
    completionSquares = UnsafeMutablePointer<UInt128>.allocate(capacity: 1)
    completionSquares.initialize(to: 0)
    reach = zeros(flow.screenCount)
    abandonedAt = zeros(flow.screenCount)
    failures = zeros(flow.screenCount)
    screenMillis = zeros(flow.screenCount)
    outcomeCounts = zeros(flow.outcomeAction.count)
    planPurchases = zeros(flow.plans.count)
    optionCounts = zeros(flow.options.count)
    segmentUsers = zeros(flow.segmentCount)
    lifecycles = LifecycleCounter(flow)
  }

  deinit {
    for b in [
      reach, outcomeCounts, abandonedAt, failures, screenMillis, planPurchases, optionCounts, segmentUsers, scalars,
      completionHistogram,
    ] {
      b.deallocate()
    }
    completionSquares.deallocate()
  }

  func aggregate() -> FunnelAggregate {
    var a = FunnelAggregate(for: flow)
    func take(_ b: UnsafeMutableBufferPointer<UInt64>, _ n: Int) -> [UInt64] { Array(b.prefix(n)) }
    for counter in FunnelCounter.allCases { a[counter] = scalars[counter.rawValue] }
    a.revenue = revenue
    a.realizedRevenue = realizedRevenue
    a.lifecycles = lifecycles.counts()
    a.completionTime.count = scalars[Accumulator.completionCount]
    a.completionTime.sumMillis = scalars[Accumulator.completionMillis]
    a.completionTime.sumSquaredMillis = completionSquares.pointee
    a.completionTime.histogram = Array(completionHistogram)
    a.reach = take(reach, flow.screenCount)
    a.views = (0..<flow.screenCount).map { screen in flow.outcomes(of: screen).reduce(0) { $0 &+ outcomeCounts[$1] } }
    a.abandonedAt = take(abandonedAt, flow.screenCount)
    a.failures = take(failures, flow.screenCount)
    a.screenMillis = take(screenMillis, flow.screenCount)
    a.actionCounts = Array(repeating: 0, count: flow.actions.count)
    for (o, action) in flow.outcomeAction.enumerated() where flow.actions.indices.contains(Int(action)) {
      a.actionCounts[Int(action)] &+= outcomeCounts[o]
    }
    a.planPurchases = take(planPurchases, flow.plans.count)
    a.optionCounts = take(optionCounts, flow.options.count)
    a.segmentUsers = take(segmentUsers, flow.segmentCount)
    return a
  }
}

/// Purchasers per ``PurchaseLifecycle`` at the cost of an array increment: the lifecycles a
/// mock store produces (bought at once or after the approval delay, the plan's payments
/// within the horizon) each have a slot in raw memory; any other (a custom purchase layer's
/// delays) goes to a dictionary. ``counts()`` turns both into the aggregate's map.
final class LifecycleCounter {
  /// Per plan: the first slot and the most payments it can make (at no delay).
  private let start: [Int]
  private let maxPayments: [Int]
  private let approvalDelay: Double
  private let slots: UnsafeMutableBufferPointer<UInt64>
  private var others: [PurchaseLifecycle: UInt64] = [:]

  init(_ flow: CompiledFlow) {
    let lifecycle = SubscriptionLifecycle(settings: flow.revenue)
    maxPayments = flow.plans.indices.map { j in
      lifecycle.possiblePayments(
        PurchaseLifecycle(plan: j, delayDays: 0, isTrial: false, convertedFromTrial: false, payments: 0, refunded: false),
        plan: flow.plans[j].plan)
    }
    var next = 0
    var start: [Int] = []
    for n in maxPayments {
      start.append(next)
      next += 16 * (n + 1)  // 2 delays × 8 flag combinations × 0…n payments
    }
    self.start = start
    approvalDelay = flow.store.approvalDelayDays
    slots = .allocate(capacity: max(next, 1))
    slots.initialize(repeating: 0)
  }

  deinit { slots.deallocate() }

  /// The slot of `l`, or `nil` when it has none (an unusual delay or more payments).
  private func slot(_ l: PurchaseLifecycle) -> Int? {
    let delayed = l.delayDays == 0 ? 0 : (l.delayDays == approvalDelay ? 1 : -1)
    guard delayed >= 0, start.indices.contains(l.plan), (0...maxPayments[l.plan]).contains(l.payments) else { return nil }
    let flags = (l.isTrial ? 1 : 0) | (l.convertedFromTrial ? 2 : 0) | (l.refunded ? 4 : 0)
    return start[l.plan] + ((delayed * 8 + flags) * (maxPayments[l.plan] + 1)) + l.payments
  }

  /// Counts one purchaser.
  @inline(__always)
  func count(_ l: PurchaseLifecycle) {
    if let i = slot(l) { slots[i] &+= 1 } else { others[l, default: 0] &+= 1 }
  }

  /// Every lifecycle counted, with its purchasers.
  func counts() -> [PurchaseLifecycle: UInt64] {
    var map = others
    for plan in start.indices {
      let span = maxPayments[plan] + 1
      for delayed in 0..<2 {
        for flags in 0..<8 {
          for payments in 0..<span {
            let n = slots[start[plan] + (delayed * 8 + flags) * span + payments]
            guard n > 0 else { continue }
            let l = PurchaseLifecycle(
              plan: plan, delayDays: delayed == 0 ? 0 : approvalDelay, isTrial: flags & 1 != 0,
              convertedFromTrial: flags & 2 != 0, payments: payments, refunded: flags & 4 != 0)
            map[l, default: 0] &+= n
          }
        }
      }
    }
    return map
  }
}
