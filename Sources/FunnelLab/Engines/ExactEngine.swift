/// Solves a ``CompiledFlow`` exactly: the probability of every per-user outcome
/// and the expected counts, by propagating probability mass through the very
/// tables the ``MonteCarloEngine`` walks, with the built-in ``MockPaywallManager``
/// (settings `flow.store`) as the purchase layer and ``SubscriptionLifecycle``
/// turning purchases into revenue.
///
/// **The chain.** Per population cell `c = (segment, intent bin)`, of probability
/// `w_c = P(segment) / bins` (the Monte Carlo draws both exactly so), a user's state
/// before step `t` is `x = (personalized, label, screen)` with `seen = min(t − 1, cap)`
/// screens seen. Step `t` views the screen and takes outcome `o` with the compiled
/// probability `p(o | seen, personalized, screen)`, the width of its 53-bit threshold.
/// The mass before step `t + 1` is
/// ```
/// m_{t+1}(x') = Σ_{x, o, b : x →(o,b) x'} m_t(x) · p(o | x) · q(b | o, x),     m_1 = δ(start),
/// ```
/// where `b` is the store's answer (below; `q = 1` for an outcome that does not
/// reach the store). This *is* the absorbing chain: screens-seen saturates at
/// `cap`, after which the transition matrix is constant, and back navigation and
/// cancelled purchases make it cyclic. Iterating it step by step (value iteration
/// on the distribution) rather than solving `(I − Q)⁻¹` gives the step-limited
/// chain the Monte Carlo simulates: after `stepLimit` steps the remaining mass is
/// exactly P(step limit reached), which a fundamental-matrix solve would spread
/// over the outcomes instead.
///
/// **The store.** A label carries the store state `σ` of the walk (with `J` plans):
/// not entitled with the first pending plan (`0…J`, 0 none), bought plan `j`, or
/// restored with the first pending plan. When a user who is not entitled takes a
/// purchase outcome of plan `j`, the tap's final result has the law of
/// ``MockPaywallManager/tapDistribution`` (retries folded in): success (`σ` becomes
/// "bought `j`", go to the outcome's target), cancelled or failed (stay on the
/// screen: the target is the current screen), pending (go to the target, remember
/// `j` if nothing is pending yet). A restore outcome restores with
/// `P(restore)` (entitled, go to the target) or stays on the screen. An entitled
/// user's purchase and restore outcomes go straight to their target. When the walk
/// ends (completed, quit or cut by the step limit) with no transaction and a
/// pending plan, the purchase is approved with `P(approval)` and the user counts as
/// that plan's buyer, its transaction delayed by `approvalDelayDays`. Every
/// probability is that of the simulator's draw `nextUnitDouble() < x`, i.e.
/// `⌈x·2⁵³⌉/2⁵³`, so the store is modelled exactly, not to within `2⁻⁵³`.
///
/// **Stopping and error.** The iteration stops at the step limit, or earlier when
/// the mass still walking in a cell falls to ``tolerance`` or below. That mass,
/// summed over cells (``ExactFunnel/truncatedMass``, at most `1e-16`), bounds the
/// absolute error of every probability; expected counts per view are off by at
/// most `truncatedMass · stepLimit`, and revenue per user by at most
/// `truncatedMass · max_j E[revenue | plan j]`. Acyclic flows (no back navigation,
/// no failure or store answer that repeats a screen) stop after at most
/// `screens + 1` steps; a loop of return probability `ρ` per step needs about
/// `log(1e-16)/log ρ` steps, never more than `stepLimit`.
///
/// **Outcomes and first passages.** Completion, abandonment per screen, views,
/// actions, failures and options are linear in the visits `Σ_t m_t`. Facts of
/// the form "at least once" or "the first" need first-passage probabilities; they
/// are tracked exactly by the label (the Monte Carlo's per-user flags): the store
/// state, saw a paywall, skipped, went back; "personalized" is already in the
/// state. A label's flags only ever grow, and only its entitlement feeds back
/// into the transitions (through the store branches). Reach of screen `s` (seen at
/// least once) is the first-passage probability of a second pass over
/// `(personalized, entitled, screen)` in which `s` absorbs:
/// `reach(s) = Σ_t m_t^{(s)}(s)`, mass removed on arrival; entitlement is part of
/// that state because a cancelled purchase loops on the paywall only while the
/// user is not entitled.
///
/// **Time to finish.** Dwell times are drawn independently of the path, and a tap's
/// latency (`latencySeconds × attempts`, in whole ms) depends only on its attempts.
/// With `D_t(y) = E[T_so_far · 1{Y_t = y}]` and `E_t(y) = E[T_so_far² · 1{Y_t = y}]`
/// over the lumped state `y = (personalized, entitled, screen)` (the clock's
/// increments depend on nothing else), a view adds the dwell moments `μ`, `μ₂`
/// (of the screen's 1024-quantile table, in ms), `D₁ = D + m·μ`,
/// `E₁ = E + 2Dμ + m·μ₂`, and a branch `b` of outcome `o` with latency moments
/// `ℓ_b = E[L·1{b}]`, `ℓ₂_b = E[L²·1{b}]` sends
/// `D' += p·(q_b·D₁ + m·ℓ_b)`, `E' += p·(q_b·E₁ + 2·D₁·ℓ_b + m·ℓ₂_b)`, which gives
/// `E[T · 1{completed}]` and `E[T² · 1{completed}]` exactly.
///
/// **Revenue.** The expected revenue of a purchase of plan `j` is the closed form
/// ``SubscriptionLifecycle/expectation(of:plan:)`` (trial conversion, geometric
/// renewals truncated at the horizon, refund of the first payment, the fee rounded
/// per payment in cents, the realized part before the analysis day), at delay 0 for
/// a purchase and at `approvalDelayDays` for an approved pending one, so
/// `ARPU = Σ_j P(bought j)·R_j(0) + P(approved j)·R_j(delay)`; ARPPU and revenue
/// per viewer divide by P(purchase) and P(paywall viewer) (ratios of expectations,
/// which the Monte Carlo's ratios of sums converge to).
///
/// **Traits.** The intent trait is the compiled flow's equiprobable bins, the
/// same quadrature the Monte Carlo samples: exact for the compiled chain; against
/// a continuous trait the error is that of ``Discretisation``, `O(1/bins²)`.
///
/// **Scope.** Only the built-in ``MockPaywallManager`` is modelled; a custom
/// ``PaywallManager`` passed to the Monte Carlo has no exact counterpart.
public enum ExactEngine {
  /// Mass per cell below which the iteration stops before the step limit.
  package static let tolerance = 1e-16

  /// The exact funnel of `flow`, with the built-in ``MockPaywallManager`` configured
  /// by `flow.store` (what ``MonteCarloEngine/run(_:users:seed:include:progress:)`` uses).
  ///
  /// - Complexity: `O(cells · T · 2 · L · Σ branches)` for the labelled pass plus
  ///   `O(cells · T · screens · 4 · Σ branches)` for the reach passes, where
  ///   `cells = segments · bins`, `L = 8·(3·plans + 2)` labels, `T ≤ stepLimit` the
  ///   steps until the mass is negligible and a purchase outcome has 3 branches
  ///   (bought, stay, pending), a restore 2, any other 1. Memory `O(2 · L · screens)`
  ///   per cell.
  public static func solve(_ flow: CompiledFlow) -> ExactFunnel {
    solve(flow, cellWeights: cellWeights(flow, segments: flow.segmentProbabilities))
  }

  /// The exact funnel of the users of some segments only: segment `s` has probability
  /// `segmentWeights[s] / Σ segmentWeights` (e.g. one stratum's segments, with their
  /// weights in the population, the others 0), its intent bins equally likely.
  /// - Precondition: the weights are finite and not negative, with a positive sum.
  package static func solve(_ flow: CompiledFlow, segmentWeights: [Double]) -> ExactFunnel {
    let total = segmentWeights.reduce(0, +)
    let normalized = segmentWeights.map { total > 0 ? $0 / total : 0 }
    var funnel = solve(flow, cellWeights: cellWeights(flow, segments: normalized))
    funnel.segmentProbabilities = normalized
    return funnel
  }

  /// The exact funnel of the users of one population cell: `segment`'s intent bin `bin`.
  package static func solve(_ flow: CompiledFlow, segment: Int, bin: Int) -> ExactFunnel {
    var funnel = solve(flow, cells: [(segment, bin, 1)])
    funnel.segmentProbabilities = (0..<flow.segmentCount).map { $0 == segment ? 1 : 0 }
    return funnel
  }

  /// Per cell `segment · bins + bin`: `P(segment) / bins`.
  static func cellWeights(_ flow: CompiledFlow, segments: [Double]) -> [Double] {
    (0..<(flow.segmentCount * flow.traitBins)).map { segments[$0 / flow.traitBins] / Double(flow.traitBins) }
  }

  static func solve(_ flow: CompiledFlow, cellWeights: [Double]) -> ExactFunnel {
    solve(flow, cells: cells(flow, weights: cellWeights))
  }

  /// The cells `(segment, bin, weight)` of positive weight, per cell `segment · bins + bin`.
  private static func cells(_ flow: CompiledFlow, weights: [Double]) -> [(segment: Int, bin: Int, weight: Double)] {
    var cells: [(Int, Int, Double)] = []
    for segment in 0..<flow.segmentCount {
      for bin in 0..<flow.traitBins where weights[segment * flow.traitBins + bin] != 0 {
        cells.append((segment, bin, weights[segment * flow.traitBins + bin]))
      }
    }
    return cells
  }

  /// The funnel of the population cells listed, each `(segment, bin, weight)`, in that order.
  static func solve(_ flow: CompiledFlow, cells: [(segment: Int, bin: Int, weight: Double)]) -> ExactFunnel {
    let layout = _ExactLayout(flow)
    return walk(layout, cells: cells).funnel(layout)
  }

  /// The exact value of `metric` in `flow`: ``solve(_:)``'s `value(of: metric)`, walking only
  /// what the metric reads. Labels carry the flags only for the skip rate, and the only
  /// first passage made is the paywalls' for the metrics of paywall viewers (BetFree's
  /// 144-point sweep takes about half the CPU of full solves; what ``Sensitivity`` needs at
  /// each point). Equal to the full solve's value up to the order in which floating-point
  /// terms are added.
  package static func value(of metric: FunnelMetric, _ flow: CompiledFlow) -> Double? {
    values(of: [metric], sharingTheWalk: 1) { _ in flow }[0][0]
  }

  /// The exact value of `metric` among the users of one population cell, `segment`'s intent bin
  /// `bin`: ``solve(_:segment:bin:)``'s `value(of: metric)`, walking only what the metric reads.
  package static func value(of metric: FunnelMetric, _ flow: CompiledFlow, segment: Int, bin: Int) -> Double? {
    values(of: [metric], sharingTheWalk: 1, cells: [(segment, bin, 1)]) { _ in flow }[0][0]
  }

  /// The exact funnels of the flows `compile(0)`, `compile(1)`, … (`count` of them), each
  /// equal to ``solve(_:)`` of its flow. The first is solved; each later one that
  /// ``CompiledFlow/walksLike(_:)`` the first takes its walk (the passes over the
  /// population, which is most of a solve) and computes only its own revenue; any other
  /// is solved on its own. Flows are compiled one at a time, when their turn comes.
  /// - Parameter done: called after each flow.
  static func solveSharingTheWalk(count: Int, done: () -> Void, _ compile: (Int) -> CompiledFlow) -> [ExactFunnel] {
    var first: (flow: CompiledFlow, walk: _ExactAccumulators)? = nil
    var funnels: [ExactFunnel] = []
    funnels.reserveCapacity(count)
    for i in 0..<count {
      let flow = compile(i)
      let layout = _ExactLayout(flow)
      if let first, flow.walksLike(first.flow) {
        funnels.append(first.walk.funnel(layout))
      } else {
        let walk = walk(layout, cells: cells(flow, weights: cellWeights(flow, segments: flow.segmentProbabilities)))
        funnels.append(walk.funnel(layout))
        if first == nil { first = (flow, walk) }
      }
      done()
    }
    return funnels
  }

  /// The exact values of `metrics` in the flows `compile(0)`, `compile(1)`, … (`count` of
  /// them), each flow's equal to ``value(of:_:)`` of it: the walk carries only what the
  /// metrics read (flags for the skip rate, the paywalls' first passage for the metrics of
  /// paywall viewers), and a flow that ``CompiledFlow/walksLike(_:)`` the first takes the
  /// first's walk and computes only its own revenue. Flows are compiled one at a time.
  /// `cells`, when given, are the population cells walked instead of the whole population.
  /// - Returns: per flow, the values in the order of `metrics`.
  package static func values(
    of metrics: [FunnelMetric], sharingTheWalk count: Int, cells selected: [(segment: Int, bin: Int, weight: Double)]? = nil,
    _ compile: (Int) -> CompiledFlow
  ) -> [[Double?]] {
    let tracksFlags = metrics.contains(.skipRate)
    let tracksTime = metrics.contains(.timeToFinish)
    let reach: Reach =
      metrics.contains { [.paywallViewRate, .purchaseConversionOfViewers, .revenuePerPaywallViewer].contains($0) } ? .paywalls : .none
    var first: (flow: CompiledFlow, walk: _ExactAccumulators)? = nil
    var values: [[Double?]] = []
    values.reserveCapacity(count)
    for i in 0..<count {
      let flow = compile(i)
      let layout = _ExactLayout(flow, tracksFlags: tracksFlags, tracksTime: tracksTime)
      let walk: _ExactAccumulators
      if let first, flow.walksLike(first.flow) {
        walk = first.walk
      } else {
        let population = selected ?? cells(flow, weights: cellWeights(flow, segments: flow.segmentProbabilities))
        walk = walkEveryCell(layout, cells: population, reach: reach)
        if first == nil { first = (flow, walk) }
      }
      let funnel = walk.funnel(layout)
      values.append(metrics.map { funnel.value(of: $0) })
    }
    return values
  }

  /// The passes over the population cells listed, each `(segment, bin, weight)`, in that
  /// order: everything the walk decides (views, ends, purchases, reach, time), before
  /// its purchases are turned into revenue by ``_ExactAccumulators/funnel(_:)``.
  private static func walk(_ layout: _ExactLayout, cells: [(segment: Int, bin: Int, weight: Double)]) -> _ExactAccumulators {
    walkEveryCell(layout, cells: cells)
  }

  /// Which first-passage passes a walk makes: reach of every screen (and of the paywalls),
  /// of the paywalls only, or none.
  enum Reach { case everyScreen, paywalls, none }

  /// ``walk(_:cells:)``, with `reach` saying which reach passes to make
  /// (the others leave their values 0).
  private static func walkEveryCell(
    _ layout: _ExactLayout, cells: [(segment: Int, bin: Int, weight: Double)], reach: Reach = .everyScreen
  ) -> _ExactAccumulators {
    var acc = _ExactAccumulators(layout)
    let paywalls = (0..<layout.screens).filter { layout.isPaywall[$0] }
    // One set per screen, and the paywalls together when there are several.
    let sets = (0..<layout.screens).map { [$0] } + (paywalls.count > 1 ? [paywalls] : [])
    var labelled = LabelledPasses(layout, acc)
    for (segment, bin, weight) in cells {
      labelled.pass(segment: segment, bin: bin, weight: weight, into: &acc)
      if reach == .none { continue }
      if reach == .paywalls {
        if !paywalls.isEmpty { acc.paywallReach += weight * firstPassages(layout, labelled.tables, to: [paywalls])[0].0 }
        continue
      }
      let passages = firstPassages(layout, labelled.tables, to: sets)
      for target in 0..<layout.screens {
        let (reached, left) = passages[target]
        acc.reach[target] += weight * reached
        acc.reachTruncated[target] += weight * left
        if paywalls == [target] { acc.paywallReach += weight * reached }
      }
      if paywalls.count > 1 { acc.paywallReach += weight * passages[layout.screens].0 }
    }
    labelled.finish(into: &acc)
    return acc
  }

  /// Per set of `targets` in `sets`: P(the walk views one of them at least once within the
  /// step limit), and the mass left when the iteration stopped early. The state is
  /// (personalized, entitled, screen): entitlement decides whether a purchase or restore
  /// reaches the store, whose failures keep the user on the screen.
  ///
  /// Only the screens before the targets carry mass (it is absorbed there), so a variant
  /// that changes nothing before them gets bit-identical values: a structurally null effect
  /// on reaching a screen is exactly 0, not a rounding difference of a whole-walk sum.
  private static func firstPassages(_ g: _ExactLayout, _ tables: borrowing StepTables, to sets: [[Int]]) -> [(Double, Double)] {
    lumpedPasses(g, tables, absorbing: sets)
  }

  /// Expected views of each screen and action counts per user of `flow`'s population:
  /// ``solve(_:)``'s `views` and `actionCounts` by the lumped chain alone (no labels, reach,
  /// time or revenue; calibration went 5× faster with it). Equal to them up to the order in which
  /// floating-point terms are added (a few units in the last place); for callers that
  /// need only rates per view, such as calibration's likelihood.
  package static func visits(_ flow: CompiledFlow) -> (views: [Double], actionCounts: [Double]) {
    let g = _ExactLayout(flow)
    var visits = LumpedVisits(
      views: [Double](repeating: 0, count: g.screens), outcomeFlow: [Double](repeating: 0, count: g.target.count))
    let tables = StepTables(g)
    flow.thresholds.withUnsafeBufferPointer { thresholds in
      for (segment, bin, weight) in cells(flow, weights: cellWeights(flow, segments: flow.segmentProbabilities)) {
        // The pass converts the rows it reaches only (most states carry no mass in a cell).
        tables.unload()
        let cell = LazyRows(thresholds: thresholds, first: flow.row(segment: segment, bin: bin, seen: 0, personalized: 0, screen: 0))
        visitsPass(g, tables, rows: cell, weight: weight, into: &visits)
      }
    }
    return (visits.views, _ExactAccumulators.actionCounts(flow, outcomeFlow: visits.outcomeFlow))
  }
}

/// The compiled flow's tables, rearranged for the exact engine.
///
/// A *label* is `flags · storeStates + σ`: the flags (saw a paywall, skipped, went
/// back) and the store state `σ` of a user with `J` plans:
/// `0…J` not entitled with pending plan `σ` (0: none), `J + 1 + j` bought plan `j`,
/// `2J + 1 + p` restored with pending plan `p`.
struct _ExactLayout {
  static let paywallFlag = 1
  static let skipFlag = 2
  static let backFlag = 4
  /// The combinations of the three flags above: a label's flag part is `0..<flagCombinations`.
  static let flagCombinations = 8
  /// A branch target meaning "the screen the outcome was taken on".
  static let stayTarget = Int.min

  /// One way an outcome turns out once the store has answered.
  struct Branch {
    enum Kind { case plain, bought, stay, pending, restored }
    var kind: Kind
    var probability: Double
    /// A screen, a negative end code, or ``_ExactLayout/stayTarget``.
    var target: Int
    /// The user is entitled afterwards (bought or restored).
    var entitles: Bool
    /// `E[L · 1{branch}]`, `E[L² · 1{branch}]` for the store's latency `L` in ms.
    var latency, latencySquared: Double
  }

  let flow: CompiledFlow
  /// Whether labels carry the flags (saw a paywall, skipped, went back); without them a
  /// label is its store state alone, which every outcome but the flags' needs.
  let tracksFlags: Bool
  /// Whether the passes carry the time moments (the dwell and store latency of every move),
  /// which only the time to finish reads; without them its value is 0 and every other is the same.
  let tracksTime: Bool
  let screens, stride, plans, planCodes, storeStates, labels, maxSeen, start, stepLimit: Int
  let outcomeStart, outcomeCount, target, plan: [Int]
  let personalizes, purchases, restores, isPaywall: [Bool]
  /// Per outcome: the flags it sets on a label (skipped, went back), when labels carry flags.
  let outcomeFlags: [Int]
  /// First and second moments of each screen's dwell table, in ms and ms².
  let dwellMean, dwellSecondMoment: [Double]
  /// The branches of every (outcome, entitled): `branch[branchStart[2·o + e]..<branchStart[2·o + e + 1]]`.
  let branch: [Branch]
  let branchStart: [Int]
  let labelEntitled: [Bool]
  /// Per label: its store state `σ` and its flags (`label = flags · storeStates + σ`).
  let labelStoreState, labelFlags: [Int]
  let tap: MockPaywallManager.TapDistribution
  let approval: Double

  init(_ flow: CompiledFlow, tracksFlags: Bool = true, tracksTime: Bool = true) {
    self.flow = flow
    self.tracksFlags = tracksFlags
    self.tracksTime = tracksTime
    screens = flow.screenCount
    stride = flow.stride
    plans = flow.plans.count
    planCodes = plans + 1
    storeStates = 3 * plans + 2
    labels = (tracksFlags ? Self.flagCombinations : 1) * storeStates
    maxSeen = flow.seenLevels - 1
    start = flow.start
    stepLimit = max(1, flow.stepLimit)
    outcomeStart = flow.outcomeStart.map(Int.init)
    outcomeCount = flow.outcomeCount.map(Int.init)
    target = flow.outcomeTarget.map(Int.init)
    plan = flow.outcomePlan.map(Int.init)
    personalizes = flow.outcomeEffects.map { $0 & CompiledFlow.Effect.personalizes != 0 }
    purchases = flow.outcomeEffects.map { $0 & CompiledFlow.Effect.purchase != 0 }
    restores = flow.outcomeEffects.map {
      $0 & CompiledFlow.Effect.restore != 0 && $0 & CompiledFlow.Effect.purchase == 0
    }
    outcomeFlags = flow.outcomeEffects.map { effects in
      guard tracksFlags else { return 0 }
      return (effects & CompiledFlow.Effect.skip != 0 ? Self.skipFlag : 0) | (effects & CompiledFlow.Effect.back != 0 ? Self.backFlag : 0)
    }
    isPaywall = flow.screenKinds.map { $0 == .paywall }
    (dwellMean, dwellSecondMoment) = Self.dwellMoments(flow)
    let store = MockPaywallManager(settings: flow.store)
    tap = store.tapDistribution
    approval = store.approvalProbability
    (branch, branchStart) = Self.branches(
      targets: target, purchases: purchases, restores: restores, tap: store.tapDistribution, restore: store.restoreProbability)
    let states = storeStates
    let planCount = plans
    labelEntitled = (0..<labels).map { $0 % states > planCount }
    labelStoreState = (0..<labels).map { $0 % states }
    labelFlags = (0..<labels).map { $0 / states }
  }

  /// First and second moments of each screen's dwell table, in ms and ms² (0 without one).
  private static func dwellMoments(_ flow: CompiledFlow) -> ([Double], [Double]) {
    let size = Discretisation.dwellTableSize
    var mean = [Double](repeating: 0, count: flow.screenCount)
    var second = mean
    for i in 0..<flow.screenCount where flow.hasDwell[i] {
      var sum = 0.0
      var sumSquares = 0.0
      for q in 0..<size {
        let d = Double(flow.dwellMillis[i * size + q])
        sum += d
        sumSquares += d * d
      }
      mean[i] = sum / Double(size)
      second[i] = sumSquares / Double(size)
    }
    return (mean, second)
  }

  /// Every (outcome, entitled)'s branches, and where each one's start in the list: a
  /// purchase by a user not entitled branches into bought, stay (cancelled or failed) and
  /// pending; a restore into restored and stay; anything else goes on plainly.
  private static func branches(
    targets target: [Int], purchases: [Bool], restores: [Bool], tap: MockPaywallManager.TapDistribution, restore: Double
  ) -> ([Branch], [Int]) {
    func tapBranch(_ kind: Branch.Kind, _ results: [MockPaywallManager.TapDistribution.Result], target: Int) -> Branch {
      var p = 0.0
      var l1 = 0.0
      var l2 = 0.0
      for r in results {
        p += tap.probability(of: r)
        let (a, b) = tap.latencyMoments(of: r)
        l1 += a
        l2 += b
      }
      return Branch(kind: kind, probability: p, target: target, entitles: kind == .bought, latency: l1, latencySquared: l2)
    }
    var branches: [Branch] = []
    var starts: [Int] = [0]
    for o in target.indices {
      for entitled in 0..<2 {
        let plain = Branch(kind: .plain, probability: 1, target: target[o], entitles: false, latency: 0, latencySquared: 0)
        if entitled == 1 || !(purchases[o] || restores[o]) {
          branches.append(plain)
        } else if purchases[o] {
          branches.append(tapBranch(.bought, [.success], target: target[o]))
          branches.append(tapBranch(.stay, [.cancelled, .failed], target: stayTarget))
          branches.append(tapBranch(.pending, [.pending], target: target[o]))
        } else {
          branches.append(Branch(kind: .restored, probability: restore, target: target[o], entitles: true, latency: 0, latencySquared: 0))
          branches.append(
            Branch(kind: .stay, probability: 1 - restore, target: stayTarget, entitles: false, latency: 0, latencySquared: 0))
        }
        starts.append(branches.count)
      }
    }
    return (branches, starts)
  }

  /// The indices into ``branch`` of outcome `o` for a user who is (1) or is not (0) entitled.
  @inline(__always) func branches(outcome o: Int, entitled: Int) -> Range<Int> {
    branchStart[2 * o + entitled]..<branchStart[2 * o + entitled + 1]
  }

  /// Writes the outcome probabilities of one cell into `result` (the cell's rows, `(maxSeen + 1)·2·screens·stride`
  /// values), indexed `((seen·2 + pers)·screens + screen)·stride + k`.
  func probabilities(segment: Int, bin: Int, into result: UnsafeMutablePointer<Double>) {
    let rows = (maxSeen + 1) * 2 * screens
    let first = flow.row(segment: segment, bin: bin, seen: 0, personalized: 0, screen: 0)
    flow.thresholds.withUnsafeBufferPointer { thresholds in
      // Index loops, not ranges: every cell of every solve passes here, and unoptimised
      // iterators look up their types' metadata at each step.
      var row = 0
      while row < rows {
        probabilities(row: row, of: thresholds, from: first, into: result)
        row += 1
      }
    }
  }

  /// Writes row `row` (`(seen · 2 + personalized) · screens + screen`) of the cell whose rows
  /// start at `first` in `thresholds`: its outcomes' probabilities, then 0 up to the stride.
  func probabilities(row: Int, of thresholds: UnsafeBufferPointer<UInt64>, from first: Int, into result: UnsafeMutablePointer<Double>) {
    let start = row * stride
    let outcomes = outcomeCount[row % screens]
    var previous: UInt64 = 0
    var k = 0
    while k < outcomes {
      let t = thresholds[first + start + k]
      result[start + k] = Double(t - previous) / Double(CompiledFlow.thresholdScale)
      previous = t
      k += 1
    }
    // The row's padding past the screen's outcomes.
    while k < stride {
      result[start + k] = 0
      k += 1
    }
  }

  /// The store state `σ` after an outcome of plan `plan` (of `plans`) with the store's answer `kind`.
  @inline(__always) static func storeState(after state: Int, plan: Int, plans: Int, kind: Branch.Kind) -> Int {
    switch kind {
    case .plain, .stay: state
    case .bought: plans + 1 + plan
    case .pending: state == 0 ? plan + 1 : state
    case .restored: 2 * plans + 1 + state
    }
  }
}

/// Weighted sums over cells, turned into an ``ExactFunnel`` at the end.
struct _ExactAccumulators: Sendable {
  var views, reach, reachTruncated, outcomeFlow, classMass: [Double]
  /// P(first purchase is plan j, bought at once) and P(… approved after pending).
  var planImmediate, planApproved: [Double]
  var purchaseTaps = 0.0
  var restoreAttempts = 0.0
  /// P(the walk ends with a pending purchase and no transaction).
  var pendingAtEnd = 0.0
  var timeSum = 0.0
  var timeSquaredSum = 0.0
  var truncated = 0.0
  /// P(the walk views a paywall), by first passage: equal to the classes' mass that saw one,
  /// but summed over the screens before the paywalls only (see `firstPassages`).
  var paywallReach = 0.0

  init(_ g: _ExactLayout) {
    views = Array(repeating: 0, count: g.screens)
    reach = views
    reachTruncated = views
    outcomeFlow = Array(repeating: 0, count: g.target.count)
    classMass = Array(repeating: 0, count: (g.screens + 2) * 2 * _ExactLayout.flagCombinations * g.planCodes)
    planImmediate = Array(repeating: 0, count: g.plans)
    planApproved = planImmediate
  }

  /// The outcome classes with positive probability, and the funnel's totals over them.
  private struct ClassTotals {
    var classes: [ExactFunnel.OutcomeClass] = []
    var classP: [Double] = []
    var abandonedAt: [Double]
    var planPurchases: [Double]
    var completion = 0.0
    var stepLimit = 0.0
    var skipped = 0.0
    var wentBack = 0.0
    var personalized = 0.0
  }

  /// Reads the class masses back as outcome classes (end, first plan, flags).
  private func classTotals(_ g: _ExactLayout) -> ClassTotals {
    var t = ClassTotals(
      abandonedAt: [Double](repeating: 0, count: g.screens), planPurchases: [Double](repeating: 0, count: g.flow.plans.count))
    let labels = _ExactLayout.flagCombinations * g.planCodes
    for end in 0..<(g.screens + 2) {
      for pers in 0..<2 {
        for label in 0..<labels {
          let p = classMass[(end * 2 + pers) * labels + label]
          guard p > 0 else { continue }
          let code = label % g.planCodes
          let flags = label / g.planCodes
          let e: ExactFunnel.End
          switch end {
          case 0:
            e = .completed
            t.completion += p
          case g.screens + 1:
            e = .stepLimit
            t.stepLimit += p
          default:
            e = .abandoned(screen: end - 1)
            t.abandonedAt[end - 1] += p
          }
          let c = ExactFunnel.OutcomeClass(
            end: e, firstPlan: code == 0 ? nil : code - 1, sawPaywall: flags & _ExactLayout.paywallFlag != 0,
            skipped: flags & _ExactLayout.skipFlag != 0, wentBack: flags & _ExactLayout.backFlag != 0, personalized: pers == 1)
          if let j = c.firstPlan { t.planPurchases[j] += p }
          if c.skipped { t.skipped += p }
          if c.wentBack { t.wentBack += p }
          if c.personalized { t.personalized += p }
          t.classes.append(c)
          t.classP.append(p)
        }
      }
    }
    return t
  }

  /// Expected action counts, failures per screen and option selections, from the flow
  /// through each outcome.
  private func outcomeCounts(_ g: _ExactLayout) -> (actions: [Double], failures: [Double], options: [Double]) {
    let flow = g.flow
    let actionCounts = Self.actionCounts(flow, outcomeFlow: outcomeFlow)
    var failures = [Double](repeating: 0, count: g.screens)
    var optionCounts = [Double](repeating: 0, count: flow.options.count)
    for o in outcomeFlow.indices {
      if flow.outcomeEffects[o] & CompiledFlow.Effect.failure != 0 { failures[g.target[o]] += outcomeFlow[o] }
      let table = Int(flow.outcomeOptionTable[o])
      if table >= 0 {
        let start = Int(flow.optionTableStart[table])
        let count = Int(flow.optionTableCount[table])
        let widths = CompiledFlow.widths(Array(flow.optionThresholds[start..<(start + count)]))
        for j in 0..<count { optionCounts[start + j] += outcomeFlow[o] * widths[j] }
      }
    }
    return (actionCounts, failures, optionCounts)
  }

  /// Expected count of each action per user: the flow through its outcomes, in outcome order.
  static func actionCounts(_ flow: CompiledFlow, outcomeFlow: [Double]) -> [Double] {
    var counts = [Double](repeating: 0, count: flow.actions.count)
    for o in outcomeFlow.indices { counts[Int(flow.outcomeAction[o])] += outcomeFlow[o] }
    return counts
  }

  /// Expected realized revenue per user by each of ``RevenueSettings/curveDays``: the lifecycle's
  /// expectation with that day as the analysis day.
  private func realizedRevenueCurve(_ g: _ExactLayout) -> [ExactFunnel.RevenuePoint] {
    g.flow.revenue.curveDays.map { day in
      var settings = g.flow.revenue
      settings.analysisDay = day
      let perUser = zip(g.flow.plans.indices, Self.planExpectations(g.flow, settings)).reduce(0.0) { sum, item in
        let (j, e) = item
        return sum + (planImmediate[j] * e.now.realizedCents + planApproved[j] * e.later.realizedCents) / 100
      }
      return ExactFunnel.RevenuePoint(day: day, perUser: perUser)
    }
  }

  /// The lifecycle's expectation of one purchase of each plan slot under `settings`: bought at
  /// once, and approved after the store's approval delay.
  static func planExpectations(_ flow: CompiledFlow, _ settings: RevenueSettings)
    -> [(now: SubscriptionLifecycle.Expectation, later: SubscriptionLifecycle.Expectation)]
  {
    let lifecycle = SubscriptionLifecycle(settings: settings)
    return flow.plans.map { slot in
      let plan = slot.plan
      let isTrial = plan.trialDays > 0
      return (
        lifecycle.expectation(of: StoreTransaction(productID: plan.id, price: plan.price, isTrial: isTrial), plan: plan),
        lifecycle.expectation(
          of: StoreTransaction(productID: plan.id, price: plan.price, isTrial: isTrial, delayDays: flow.store.approvalDelayDays),
          plan: plan)
      )
    }
  }

  /// The distribution of one user's horizon revenue: each plan's lifecycle distribution, bought
  /// at once or approved after the delay, weighted by its probability; the rest of the users
  /// earn 0. Empty for a flow that sells nothing.
  private func revenueDistribution(_ g: _ExactLayout) -> [Int64: Double] {
    guard !g.flow.plans.isEmpty else { return [:] }
    let lifecycle = SubscriptionLifecycle(settings: g.flow.revenue)
    var values: [Int64: Double] = [:]
    var buyers = 0.0
    for (j, slot) in g.flow.plans.enumerated() {
      let plan = slot.plan
      let isTrial = plan.trialDays > 0
      let now = StoreTransaction(productID: plan.id, price: plan.price, isTrial: isTrial)
      let later = StoreTransaction(
        productID: plan.id, price: plan.price, isTrial: isTrial, delayDays: g.flow.store.approvalDelayDays)
      for (weight, transaction) in [(planImmediate[j], now), (planApproved[j], later)] where weight > 0 {
        for (cents, p) in lifecycle.distribution(of: transaction, plan: plan) { values[cents, default: 0] += weight * p }
        buyers += weight
      }
    }
    values[0, default: 0] += max(1 - buyers, 0)
    return values
  }

  /// Revenue: the lifecycle's expectation per plan, at once and after an approval delay;
  /// returns revenue and realized revenue per user, trial starts, refunds per user and each
  /// plan's revenue.
  private func revenue(_ g: _ExactLayout, planPurchases: [Double]) -> (Double, Double, Double, [Double], [Double]) {
    let flow = g.flow
    var revenue = 0.0
    var realized = 0.0
    var trialStarts = 0.0
    var refunds = [Double](repeating: 0, count: g.plans)
    var planRevenue = [Double](repeating: 0, count: g.plans)
    for (j, (now, later)) in Self.planExpectations(flow, flow.revenue).enumerated() {
      planRevenue[j] = now.horizonCents / 100
      revenue += (planImmediate[j] * now.horizonCents + planApproved[j] * later.horizonCents) / 100
      realized += (planImmediate[j] * now.realizedCents + planApproved[j] * later.realizedCents) / 100
      refunds[j] = planImmediate[j] * now.refund + planApproved[j] * later.refund
      if flow.plans[j].plan.trialDays > 0 { trialStarts += planPurchases[j] }
    }
    return (revenue, realized, trialStarts, refunds, planRevenue)
  }

  /// The solved funnel: classes, counts, time to finish, store events and revenue.
  func funnel(_ g: _ExactLayout) -> ExactFunnel {
    let flow = g.flow
    let t = classTotals(g)
    let counts = outcomeCounts(g)
    var mean: Double? = nil
    var sd: Double? = nil
    if t.completion > 0 {
      let m = timeSum / t.completion
      mean = m / 1000
      sd = max(timeSquaredSum / t.completion - m * m, 0).squareRoot() / 1000
    }
    let (revenue, realized, trialStarts, refunds, planRevenue) = revenue(g, planPurchases: t.planPurchases)
    let storeCounts = ExactFunnel.StoreCounts(
      purchaseTaps: purchaseTaps, purchaseAttempts: purchaseTaps * g.tap.meanAttempts,
      purchaseCancels: purchaseTaps * g.tap.probability(of: .cancelled),
      purchaseFailures: purchaseTaps * g.tap.probability(of: .failed),
      purchasePendings: purchaseTaps * g.tap.probability(of: .pending), pendingApprovals: pendingAtEnd * g.approval,
      restoreAttempts: restoreAttempts, restores: restoreAttempts * MockPaywallManager(settings: flow.store).restoreProbability)
    var funnel = ExactFunnel(
      variantID: flow.variantID, segmentProbabilities: flow.segmentProbabilities, completion: t.completion,
      abandonedAt: t.abandonedAt, stepLimitReached: t.stepLimit, planPurchases: t.planPurchases, planApprovals: planApproved,
      purchase: t.planPurchases.reduce(0, +), reach: reach.map { min($0, 1) }, paywallViewers: min(paywallReach, 1), skipped: t.skipped,
      wentBack: t.wentBack, personalized: t.personalized, trialStarts: trialStarts,
      trialConversion: UnitDraw.probabilityBelow(flow.revenue.trialConversion),
      planHasTrial: flow.plans.map { $0.plan.trialDays > 0 }, revenuePerUser: revenue, realizedRevenuePerUser: realized,
      planRevenue: planRevenue, store: storeCounts, views: views, actionCounts: counts.actions, failures: counts.failures,
      optionCounts: counts.options, screenMillis: zip(views, g.dwellMean).map { $0 * $1 }, expectedScreens: views.reduce(0, +),
      meanSecondsToFinish: mean, standardDeviationSecondsToFinish: sd, outcomeClasses: t.classes,
      outcomeClassProbabilities: t.classP, truncatedMass: max(truncated, reachTruncated.max() ?? 0))
    funnel.refunds = refunds.reduce(0, +)
    funnel.planRefunds = zip(refunds, t.planPurchases).map { $1 > 0 ? min($0 / $1, 1) : 0 }
    funnel.realizedRevenueCurve = realizedRevenueCurve(g)
    funnel.revenueDistribution = revenueDistribution(g)
    let lifecycle = SubscriptionLifecycle(settings: flow.revenue)
    funnel.planRenewal = flow.plans.map { slot in
      slot.plan.period.months == nil ? nil : UnitDraw.probabilityBelow(lifecycle.renewal(of: slot.plan))
    }
    return funnel
  }
}
