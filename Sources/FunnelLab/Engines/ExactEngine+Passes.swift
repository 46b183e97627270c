/// The exact engine's passes over one population cell: the labelled pass (mass over
/// (personalized, label, screen), with the time moments) and the lumped passes (mass over
/// (personalized, entitled, screen)): the first passages to each screen, and calibration's
/// visits.
///
/// They keep their state in raw memory (the labelled passes' buffers allocated once for all
/// of a walk's cells, in `~Copyable` owners that free them in `deinit`; the lumped ones' once
/// per pass, freed by `defer`): the hot loops write it without Swift's copy-on-write
/// uniqueness checks, which were an eighth of a sweep's CPU. The arithmetic is the arrays' (the same terms added in the same order), so the
/// results are bit-identical to the array version's (`ExactEngineTests` and the goldens).
extension ExactEngine {
  /// The buffers of a cell's labelled pass (reused cell after cell, ``reset(_:)``): mass over
  /// (personalized, label, screen) and the time moments over (personalized, entitled, screen),
  /// now and after one more step.
  ///
  /// The mass is sparse (most of the `8·(3·plans + 2)` labels are empty on a screen at any
  /// step): a bit per label and (personalized, screen) slot says which entries may be
  /// non-zero, and a step reads only those, in label order, so every sum adds the same terms
  /// in the same order as a sum over every entry (the others add 0). A slot's entries are
  /// zeroed as it is moved, so the buffer for the next step is clean without a pass over it.
  /// Raw memory with one owner: `~Copyable`, so no copy can free it twice, and freed in
  /// `deinit`, so no exit from a walk leaks it.
  private struct LabelledPassState: ~Copyable {
    var mass, next: UnsafeMutablePointer<Double>
    /// Time moments per (personalized, entitled, screen): the only parts of the state
    /// the clock's increments depend on.
    var timeD, timeE, nextD, nextE: UnsafeMutablePointer<Double>
    /// The labels with mass on the current slot, in label order, the ones not entitled from
    /// 0 (`freeCount` of them), the entitled ones from `labels` (`entitledCount`): each one's
    /// label, mass, and flags and store state once the screen has been viewed.
    let listLabel, listFlags, listState: UnsafeMutablePointer<Int>
    let listMass: UnsafeMutablePointer<Double>
    var freeCount = 0
    var entitledCount = 0
    /// Per (personalized, screen) slot, `words` words: bit `label` is set when the label may
    /// carry mass there, now and after one more step.
    var active, nextActive: UnsafeMutablePointer<UInt64>
    let words, timeCount: Int

    init(_ g: _ExactLayout) {
      func zeros<T: Numeric>(_ count: Int, _ type: T.Type) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: count)
        pointer.initialize(repeating: 0, count: count)
        return pointer
      }
      let massCount = 2 * g.labels * g.screens
      mass = zeros(massCount, Double.self)
      next = zeros(massCount, Double.self)
      timeCount = 4 * g.screens
      timeD = zeros(timeCount, Double.self)
      timeE = zeros(timeCount, Double.self)
      nextD = zeros(timeCount, Double.self)
      nextE = zeros(timeCount, Double.self)
      listLabel = zeros(2 * g.labels, Int.self)
      listFlags = zeros(2 * g.labels, Int.self)
      listState = zeros(2 * g.labels, Int.self)
      listMass = zeros(2 * g.labels, Double.self)
      words = (g.labels + 63) / 64
      active = zeros(2 * g.screens * words, UInt64.self)
      nextActive = zeros(2 * g.screens * words, UInt64.self)
      mass[g.start] = 1
      active[g.start * words] = 1
    }

    deinit {
      for pointer in [mass, next, timeD, timeE, nextD, nextE, listMass] { pointer.deallocate() }
      for pointer in [listLabel, listFlags, listState] { pointer.deallocate() }
      active.deallocate()
      nextActive.deallocate()
    }

    /// Back to the start state once a pass is over. Its last step moved every slot to `next`
    /// and zeroed it, so `next` and `nextActive` are clean; the mass left (at most
    /// ``ExactEngine/tolerance``, or what the step limit ended) is on the active entries.
    mutating func reset(_ g: _ExactLayout) {
      let s = g.screens
      for pers in 0..<2 {
        for screen in 0..<s {
          let slot = (pers * s + screen) * words
          for w in 0..<words {
            var bits = active[slot + w]
            while bits != 0 {
              let label = w * 64 + bits.trailingZeroBitCount
              bits &= bits - 1
              mass[(pers * g.labels + label) * s + screen] = 0
            }
            active[slot + w] = 0
          }
        }
      }
      for i in 0..<timeCount {
        timeD[i] = 0
        timeE[i] = 0
      }
      mass[g.start] = 1
      active[g.start * words] = 1
    }

    /// Makes the next step's buffers the current ones.
    mutating func advance() {
      swap(&mass, &next)
      swap(&active, &nextActive)
      swap(&timeD, &nextD)
      swap(&timeE, &nextE)
    }

    /// The mass still walking: the sum of every entry in index order (personalized, label,
    /// screen), reading only the labels with mass on some screen.
    func remaining(_ g: _ExactLayout) -> Double {
      let s = g.screens
      var total = 0.0
      for pers in 0..<2 {
        for w in 0..<words {
          var bits: UInt64 = 0
          for screen in 0..<s { bits |= active[(pers * s + screen) * words + w] }
          while bits != 0 {
            let label = w * 64 + bits.trailingZeroBitCount
            bits &= bits - 1
            let base = (pers * g.labels + label) * s
            for screen in 0..<s { total += mass[base + screen] }
          }
        }
      }
      return total
    }

    /// Lists the labels with mass on the slot (personalized, screen), with their totals not
    /// entitled and entitled.
    mutating func list(_ g: _ExactLayout, personalized pers: Int, screen: Int) -> (Double, Double) {
      let s = g.screens
      let slot = (pers * s + screen) * words
      let viewedFlags = g.tracksFlags && g.isPaywall[screen] ? _ExactLayout.paywallFlag : 0
      var totals = (0.0, 0.0)
      freeCount = 0
      entitledCount = 0
      for w in 0..<words {
        var bits = active[slot + w]
        while bits != 0 {
          let label = w * 64 + bits.trailingZeroBitCount
          bits &= bits - 1
          let m = mass[(pers * g.labels + label) * s + screen]
          guard m != 0 else { continue }
          let i: Int
          if g.labelEntitled[label] {
            totals.1 += m
            i = g.labels + entitledCount
            entitledCount += 1
          } else {
            totals.0 += m
            i = freeCount
            freeCount += 1
          }
          listLabel[i] = label
          listMass[i] = m
          listFlags[i] = g.labelFlags[label] | viewedFlags
          listState[i] = g.labelStoreState[label]
        }
      }
      return totals
    }

    /// Zeroes the mass of the slot (personalized, screen) once it has moved.
    mutating func clear(_ g: _ExactLayout, personalized pers: Int, screen: Int) {
      let slot = (pers * g.screens + screen) * words
      for i in 0..<freeCount { mass[(pers * g.labels + listLabel[i]) * g.screens + screen] = 0 }
      for i in g.labels..<(g.labels + entitledCount) { mass[(pers * g.labels + listLabel[i]) * g.screens + screen] = 0 }
      for w in 0..<words { active[slot + w] = 0 }
    }
  }

  /// The per-view sums a pass adds to, copied out of ``_ExactAccumulators`` into raw memory
  /// for the pass and back after it (the same additions in the same order). `~Copyable`, freed
  /// in `deinit`, like ``LabelledPassState``.
  private struct PassSums: ~Copyable {
    let views, outcomeFlow: UnsafeMutablePointer<Double>

    init(views: [Double], outcomeFlow: [Double]) {
      self.views = Self.copy(views)
      self.outcomeFlow = Self.copy(outcomeFlow)
    }

    static func copy(_ array: [Double]) -> UnsafeMutablePointer<Double> {
      let pointer = UnsafeMutablePointer<Double>.allocate(capacity: max(array.count, 1))
      pointer.initialize(repeating: 0, count: max(array.count, 1))
      for (i, x) in array.enumerated() { pointer[i] = x }
      return pointer
    }

    deinit {
      views.deallocate()
      outcomeFlow.deallocate()
    }

    /// Copies the first `array.count` values at `pointer` into `array`.
    static func copy(_ pointer: UnsafeMutablePointer<Double>, into array: inout [Double]) {
      for i in array.indices { array[i] = pointer[i] }
    }

    /// Copies the sums back into `views` and `outcomeFlow` (the raw memory goes with `self`).
    func finish(views: inout [Double], outcomeFlow: inout [Double]) {
      Self.copy(self.views, into: &views)
      Self.copy(self.outcomeFlow, into: &outcomeFlow)
    }
  }

  /// The sums over the walks that ended, in raw memory like ``PassSums``: the outcome
  /// classes' mass and the plans' purchases (``_ExactAccumulators``'s, copied in and out).
  /// `~Copyable`, freed in `deinit`, like ``LabelledPassState``.
  private struct EndSums: ~Copyable {
    let classMass, planImmediate, planApproved: UnsafeMutablePointer<Double>
    var pendingAtEnd: Double
    let plans, planCodes: Int
    let approval: Double

    init(_ g: _ExactLayout, _ acc: _ExactAccumulators) {
      classMass = PassSums.copy(acc.classMass)
      planImmediate = PassSums.copy(acc.planImmediate)
      planApproved = PassSums.copy(acc.planApproved)
      pendingAtEnd = acc.pendingAtEnd
      plans = g.plans
      planCodes = g.planCodes
      approval = g.approval
    }

    deinit {
      for pointer in [classMass, planImmediate, planApproved] { pointer.deallocate() }
    }

    /// Copies the sums back into `acc` (the raw memory goes with `self`).
    func finish(into acc: inout _ExactAccumulators) {
      PassSums.copy(classMass, into: &acc.classMass)
      PassSums.copy(planImmediate, into: &acc.planImmediate)
      PassSums.copy(planApproved, into: &acc.planApproved)
      acc.pendingAtEnd = pendingAtEnd
    }

    /// Books `mass` of walks that ended (`end`: 0 completed, `1 + s` quit on `s`,
    /// `screens + 1` step limit) with the label of `flags` and store state `state`, resolving a
    /// pending purchase: approved with the store's approval probability, the user then
    /// counts as its buyer.
    @inline(__always)
    mutating func end(flags: Int, state: Int, end: Int, personalized: Int, mass m: Double) {
      let base = ((end * 2 + personalized) * _ExactLayout.flagCombinations + flags) * planCodes
      if state > plans && state <= 2 * plans {
        let j = state - plans - 1
        classMass[base + j + 1] += m
        planImmediate[j] += m
        return
      }
      let pending = state <= plans ? state : state - 2 * plans - 1
      guard pending > 0 else {
        classMass[base] += m
        return
      }
      pendingAtEnd += m
      classMass[base + pending] += m * approval
      planApproved[pending - 1] += m * approval
      classMass[base] += m * (1 - approval)
    }
  }

  /// The labelled passes of a sequence of cells, in one set of buffers: ``pass(_:weight:into:)``
  /// for each cell, then ``finish(into:)``. The per-view and end sums stay in raw memory from
  /// the first cell to the last (each cell adds to them in turn, as it would to the
  /// accumulators), and a cell's state is cleared for the next one by zeroing the entries it
  /// left, so the buffers are allocated and zeroed once, not once per cell. `~Copyable`: the
  /// buffers go with the value (its parts free them in `deinit`), however the caller leaves.
  struct LabelledPasses: ~Copyable {
    let g: _ExactLayout
    private var state: LabelledPassState
    private let sums: PassSums
    private var ends: EndSums

    /// Buffers for cells of layout `g` adding to `acc`'s sums.
    init(_ g: _ExactLayout, _ acc: _ExactAccumulators) {
      self.g = g
      state = LabelledPassState(g)
      sums = PassSums(views: acc.views, outcomeFlow: acc.outcomeFlow)
      ends = EndSums(g, acc)
    }

    /// Propagates one cell's mass over (personalized, label, screen) to the end.
    mutating func pass(_ probabilities: [Double], weight w: Double, into acc: inout _ExactAccumulators) {
      labelledPass(g, probabilities, weight: w, state: &state, sums: sums, ends: &ends, into: &acc)
      state.reset(g)
    }

    /// Copies the sums into `acc`, after the last cell; consumes the passes, whose buffers are
    /// freed with them.
    consuming func finish(into acc: inout _ExactAccumulators) {
      sums.finish(views: &acc.views, outcomeFlow: &acc.outcomeFlow)
      ends.finish(into: &acc)
    }
  }

  /// Propagates one cell's mass over (personalized, label, screen) to the end, from the start
  /// state in `state`.
  private static func labelledPass(
    _ g: _ExactLayout, _ probabilities: [Double], weight w: Double, state: inout LabelledPassState, sums: borrowing PassSums,
    ends: inout EndSums, into acc: inout _ExactAccumulators
  ) {
    for t in 1...g.stepLimit {
      let seen = min(t - 1, g.maxSeen)
      // `next` and `nextActive` are clean: each slot was zeroed when it moved.
      for i in 0..<state.timeCount {
        state.nextD[i] = 0
        state.nextE[i] = 0
      }
      for pers in 0..<2 {
        for screen in 0..<g.screens {
          step(
            g, probabilities, weight: w, from: screen, personalized: pers, seen: seen, state: &state, sums: sums, ends: &ends, into: &acc)
        }
      }
      state.advance()
      let remaining = state.remaining(g)
      if t == g.stepLimit {
        endAtTheStepLimit(g, state, weight: w, into: &ends)
      } else if remaining <= tolerance {
        acc.truncated += w * remaining
        break
      }
    }
  }

  /// One step of the mass on `screen` (with personalized flag `pers`), for the
  /// not-entitled and the entitled labels in turn.
  @inline(__always)
  private static func step(
    _ g: _ExactLayout, _ probabilities: [Double], weight w: Double, from screen: Int, personalized pers: Int, seen: Int,
    state: inout LabelledPassState, sums: borrowing PassSums, ends: inout EndSums, into acc: inout _ExactAccumulators
  ) {
    let s = g.screens
    // Only the labels with mass move: listed once here, in label order.
    let totals = state.list(g, personalized: pers, screen: screen)
    defer { state.clear(g, personalized: pers, screen: screen) }
    if totals.0 + totals.1 == 0 { return }
    sums.views[screen] += w * (totals.0 + totals.1)
    let mu = g.dwellMean[screen]
    for entitled in 0..<2 {
      let total = entitled == 0 ? totals.0 : totals.1
      if total == 0 { continue }
      let d0 = state.timeD[(pers * 2 + entitled) * s + screen]
      let d = d0 + total * mu
      let e = state.timeE[(pers * 2 + entitled) * s + screen] + 2 * d0 * mu + total * g.dwellSecondMoment[screen]
      let probabilityBase = ((seen * 2 + pers) * s + screen) * g.stride
      let group = entitled == 0 ? 0..<state.freeCount : g.labels..<(g.labels + state.entitledCount)
      for k in 0..<g.outcomeCount[screen] {
        let p = probabilities[probabilityBase + k]
        if p == 0 { continue }
        let o = g.outcomeStart[screen] + k
        sums.outcomeFlow[o] += w * total * p
        if entitled == 0 {
          if g.purchases[o] {
            acc.purchaseTaps += w * total * p
          } else if g.restores[o] {
            acc.restoreAttempts += w * total * p
          }
        }
        for b in g.branches(outcome: o, entitled: entitled) {
          let moments = (total: total, d: d, e: e, p: p)
          follow(
            g, branch: b, of: o, from: screen, personalized: pers, entitled: entitled, list: group, moments, weight: w, state: &state,
            ends: &ends, into: &acc)
        }
      }
    }
  }

  /// Moves the mass of the listed labels (`list`, of entitlement `entitled`) on `screen` along
  /// branch `b` of outcome `o`: to the next screen (mass and time moments), or to an end.
  @inline(__always)
  private static func follow(
    _ g: _ExactLayout, branch b: Int, of o: Int, from screen: Int, personalized pers: Int, entitled: Int, list: Range<Int>,
    _ m: (total: Double, d: Double, e: Double, p: Double), weight w: Double, state: inout LabelledPassState,
    ends: inout EndSums, into acc: inout _ExactAccumulators
  ) {
    let s = g.screens
    let labels = g.labels
    let branch = g.branch[b]
    let pq = m.p * branch.probability
    if pq == 0 { return }
    let newPers = g.personalizes[o] ? 1 : pers
    let dd = m.d * pq + m.total * m.p * branch.latency
    let ee = m.e * pq + 2 * m.d * m.p * branch.latency + m.total * m.p * branch.latencySquared
    let target = branch.target == _ExactLayout.stayTarget ? screen : branch.target
    let outcomeFlags = g.outcomeFlags[o]
    if target >= 0 {
      let to = (newPers * 2 + (branch.entitles ? 1 : entitled)) * s + target
      state.nextD[to] += dd
      state.nextE[to] += ee
      let slot = (newPers * s + target) * state.words
      let base = newPers * labels * s + target
      for i in list {
        let after =
          (state.listFlags[i] | outcomeFlags) * g.storeStates + g.storeState(after: state.listState[i], outcome: o, branch: branch)
        state.next[base + after * s] += state.listMass[i] * pq
        state.nextActive[slot + after &>> 6] |= 1 &<< UInt64(truncatingIfNeeded: after & 63)
      }
    } else {
      let end = target == Int(CompiledFlow.completedTarget) ? 0 : 1 + screen
      if end == 0 {
        acc.timeSum += w * dd
        acc.timeSquaredSum += w * ee
      }
      for i in list {
        let after = g.storeState(after: state.listState[i], outcome: o, branch: branch)
        ends.end(flags: state.listFlags[i] | outcomeFlags, state: after, end: end, personalized: newPers, mass: w * state.listMass[i] * pq)
      }
    }
  }

  /// The mass still walking at the step limit ends there (end `screens + 1`).
  private static func endAtTheStepLimit(
    _ g: _ExactLayout, _ state: borrowing LabelledPassState, weight w: Double, into ends: inout EndSums
  ) {
    let s = g.screens
    for pers in 0..<2 {
      for label in 0..<g.labels {
        var m = 0.0
        for screen in 0..<s { m += state.mass[(pers * g.labels + label) * s + screen] }
        if m > 0 {
          ends.end(flags: g.labelFlags[label], state: g.labelStoreState[label], end: s + 1, personalized: pers, mass: w * m)
        }
      }
    }
  }

  /// Expected views of each screen and flow through each outcome, per user: the walk lumped
  /// over (personalized, entitled, screen) with nothing absorbed.
  struct LumpedVisits {
    var views: [Double]
    var outcomeFlow: [Double]
  }

  /// Absorbs the mass of each walking set's chain on its targets (adding it to `reached`).
  private static func absorb(
    _ sets: [[Int]], _ walking: [Int], mass: UnsafeMutablePointer<Double>, stateCount n: Int, screens s: Int,
    into reached: inout [Double]
  ) {
    for j in walking {
      for target in sets[j] {
        for part in 0..<4 {
          reached[j] += mass[j * n + part * s + target]
          mass[j * n + part * s + target] = 0
        }
      }
    }
  }

  /// The lumped chain over (personalized, entitled, screen): the labels' flags and pending
  /// plans are left out, since only entitlement changes a transition (it decides whether a
  /// purchase or restore reaches the store). One chain per set of `sets`, side by side (the
  /// transitions are read once a step for all of them): mass that reaches one of the set's
  /// screens is absorbed there. Returns, per set, the mass absorbed and the mass left when its
  /// iteration stopped early. Each set's chain adds the same terms in the same order as it
  /// would alone.
  static func lumpedPasses(
    _ g: _ExactLayout, _ probabilities: [Double], absorbing sets: [[Int]]
  ) -> [(Double, Double)] {
    var results = sets.map { $0.contains(g.start) ? (1.0, 0.0) : (0.0, 0.0) }
    var walking = sets.indices.filter { !sets[$0].contains(g.start) }
    if walking.isEmpty { return results }
    let s = g.screens
    let n = 4 * s
    var mass = UnsafeMutablePointer<Double>.allocate(capacity: sets.count * n)
    var next = UnsafeMutablePointer<Double>.allocate(capacity: sets.count * n)
    mass.initialize(repeating: 0, count: sets.count * n)
    next.initialize(repeating: 0, count: sets.count * n)
    defer {
      mass.deallocate()
      next.deallocate()
    }
    for j in walking { mass[j * n + g.start] = 1 }
    var reached = [Double](repeating: 0, count: sets.count)
    for t in 1...g.stepLimit {
      // `next` is clean for the walking chains: each state's mass was zeroed as it moved.
      absorb(sets, walking, mass: mass, stateCount: n, screens: s, into: &reached)
      let seen = min(t - 1, g.maxSeen)
      for pers in 0..<2 {
        for entitled in 0..<2 {
          for screen in 0..<s {
            let from = (pers * 2 + entitled) * s + screen
            guard walking.contains(where: { mass[$0 * n + from] != 0 }) else { continue }
            lumpedMoves(g, probabilities, seen: seen, personalized: pers, entitled: entitled, screen: screen, outcome: { _, _ in }) {
              into, p, q in
              for j in walking {
                let m = mass[j * n + from]
                if m != 0 { next[j * n + into] += m * p * q }
              }
            }
            for j in walking { mass[j * n + from] = 0 }
          }
        }
      }
      swap(&mass, &next)
      if t == g.stepLimit {
        for j in walking { results[j] = (reached[j], 0) }
        break
      }
      walking.removeAll { j in
        var remaining = 0.0
        for i in 0..<n { remaining += mass[j * n + i] }
        guard remaining <= tolerance else { return false }
        results[j] = (reached[j], remaining)
        return true
      }
      if walking.isEmpty { break }
    }
    return results
  }

  /// The lumped chain's moves out of the state (`pers`, `entitled`, `screen`) at seen level
  /// `seen`, in outcome and branch order: `outcome(o, p)` for each outcome `o` of probability
  /// `p > 0`, then `move(into, p, q)` for each of its branches of probability `q > 0` that
  /// lands on a screen, `into` the state it lands in. The reach and the visits passes share it.
  @inline(__always)
  private static func lumpedMoves(
    _ g: _ExactLayout, _ probabilities: [Double], seen: Int, personalized pers: Int, entitled: Int, screen: Int,
    outcome: (_ o: Int, _ p: Double) -> Void, move: (_ into: Int, _ p: Double, _ q: Double) -> Void
  ) {
    let s = g.screens
    let probabilityBase = ((seen * 2 + pers) * s + screen) * g.stride
    let first = g.outcomeStart[screen]
    for k in 0..<g.outcomeCount[screen] {
      let p = probabilities[probabilityBase + k]
      if p == 0 { continue }
      let o = first + k
      outcome(o, p)
      let newPers = g.personalizes[o] ? 1 : pers
      for b in g.branches(outcome: o, entitled: entitled) {
        let branch = g.branch[b]
        let to = branch.target == _ExactLayout.stayTarget ? screen : branch.target
        if to < 0 || branch.probability == 0 { continue }
        move((newPers * 2 + (branch.entitles ? 1 : entitled)) * s + to, p, branch.probability)
      }
    }
  }

  /// Adds `weight ×` each screen's expected views and each outcome's expected flow over the
  /// walk to `visits`: the lumped chain over (personalized, entitled, screen) with nothing
  /// absorbed, one step at a time until its mass is at most ``tolerance`` or the step limit.
  /// Calibration's likelihood solves it once per cell for every trial parameter vector, so it
  /// has this loop of its own: one chain, no sets to absorb.
  static func visitsPass(_ g: _ExactLayout, _ probabilities: [Double], weight w: Double, into visits: inout LumpedVisits) {
    let sums = PassSums(views: visits.views, outcomeFlow: visits.outcomeFlow)
    defer { sums.finish(views: &visits.views, outcomeFlow: &visits.outcomeFlow) }
    let s = g.screens
    let n = 4 * s
    var mass = UnsafeMutablePointer<Double>.allocate(capacity: n)
    var next = UnsafeMutablePointer<Double>.allocate(capacity: n)
    mass.initialize(repeating: 0, count: n)
    next.initialize(repeating: 0, count: n)
    defer {
      mass.deallocate()
      next.deallocate()
    }
    mass[g.start] = 1
    for t in 1...g.stepLimit {
      next.update(repeating: 0, count: n)
      let seen = min(t - 1, g.maxSeen)
      for pers in 0..<2 {
        for entitled in 0..<2 {
          for screen in 0..<s {
            let m = mass[(pers * 2 + entitled) * s + screen]
            if m == 0 { continue }
            sums.views[screen] += w * m
            lumpedMoves(
              g, probabilities, seen: seen, personalized: pers, entitled: entitled, screen: screen,
              outcome: { o, p in sums.outcomeFlow[o] += w * m * p }
            ) { into, p, q in next[into] += m * p * q }
          }
        }
      }
      swap(&mass, &next)
      if t == g.stepLimit { break }
      var remaining = 0.0
      for i in 0..<n { remaining += mass[i] }
      if remaining <= tolerance { break }
    }
  }
}
