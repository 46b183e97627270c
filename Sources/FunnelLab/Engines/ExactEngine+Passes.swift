/// The exact engine's passes over one population cell: the labelled pass (mass over
/// (personalized, label, screen), with the time moments) and the lumped passes (mass over
/// (personalized, entitled, screen)): the first passages to each screen, and calibration's
/// visits.
///
/// They keep their state in raw memory (the labelled passes' buffers allocated once for all
/// of a walk's cells, in `~Copyable` owners that free them in `deinit`; the lumped ones' once
/// per pass, freed by `defer`): the hot loops write it without Swift's copy-on-write
/// uniqueness checks, which were an eighth of a sweep's CPU. They read the layout's tables
/// through pointers too (``StepTables``), and loop with `while`: in an unoptimised build
/// (`swift test`) an array read retains its buffer and calls the generic subscript, and a `for`
/// over a range calls the generic iterator, which made a debug exact solve twice as slow
/// (Klick's `exact`: 0.93 s of CPU before, 0.47 s after; release builds load the same values).
/// The arithmetic is the arrays' (the same terms added in the same order), so the results are
/// bit-identical to the array version's (`ExactEngineTests` and the goldens).
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
        var w = 0
        while w < words {
          var bits: UInt64 = 0
          var screen = 0
          while screen < s {
            bits |= active[(pers * s + screen) * words + w]
            screen += 1
          }
          while bits != 0 {
            let label = w * 64 + bits.trailingZeroBitCount
            bits &= bits - 1
            let base = (pers * g.labels + label) * s
            screen = 0
            while screen < s {
              total += mass[base + screen]
              screen += 1
            }
          }
          w += 1
        }
      }
      return total
    }

    /// Whether a label may carry mass on the slot (personalized, screen): false when no bit is
    /// set, and then every entry of the slot is 0 and a step has nothing to move from it.
    func mayHoldMass(_ g: _ExactLayout, personalized pers: Int, screen: Int) -> Bool {
      let slot = (pers * g.screens + screen) * words
      var w = 0
      while w < words {
        if active[slot + w] != 0 { return true }
        w += 1
      }
      return false
    }

    /// Lists the labels with mass on the slot (personalized, screen), with their totals not
    /// entitled and entitled.
    mutating func list(_ g: _ExactLayout, _ tables: borrowing StepTables, personalized pers: Int, screen: Int) -> (Double, Double) {
      let s = g.screens
      let slot = (pers * s + screen) * words
      let viewedFlags = g.tracksFlags && tables.isPaywall[screen] ? _ExactLayout.paywallFlag : 0
      var totals = (0.0, 0.0)
      freeCount = 0
      entitledCount = 0
      var w = 0
      while w < words {
        var bits = active[slot + w]
        while bits != 0 {
          let label = w * 64 + bits.trailingZeroBitCount
          bits &= bits - 1
          let m = mass[(pers * g.labels + label) * s + screen]
          guard m != 0 else { continue }
          let i: Int
          if tables.labelEntitled[label] {
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
          listFlags[i] = tables.labelFlags[label] | viewedFlags
          listState[i] = tables.labelStoreState[label]
        }
        w += 1
      }
      return totals
    }

    /// Zeroes the mass of the slot (personalized, screen) once it has moved.
    mutating func clear(_ g: _ExactLayout, personalized pers: Int, screen: Int) {
      let slot = (pers * g.screens + screen) * words
      var i = 0
      while i < freeCount {
        mass[(pers * g.labels + listLabel[i]) * g.screens + screen] = 0
        i += 1
      }
      i = g.labels
      while i < g.labels + entitledCount {
        mass[(pers * g.labels + listLabel[i]) * g.screens + screen] = 0
        i += 1
      }
      i = 0
      while i < words {
        active[slot + i] = 0
        i += 1
      }
    }
  }

  /// The layout's tables that a step reads, per screen, outcome, branch and label, copied
  /// into raw memory once per walk. A step reads them through pointers: an array's element
  /// read in an unoptimised build (`swift test`) retains its buffer and calls the generic
  /// subscript, which made the step's reads most of a debug exact solve; a pointer's is one
  /// load in every build. `~Copyable`, freed in `deinit`, like ``LabelledPassState``.
  struct StepTables: ~Copyable {
    let outcomeStart, outcomeCount, outcomeFlags, plan, branchStart, labelStoreState, labelFlags: UnsafeMutablePointer<Int>
    let personalizes, purchases, restores, isPaywall, labelEntitled: UnsafeMutablePointer<Bool>
    let dwellMean, dwellSecondMoment: UnsafeMutablePointer<Double>
    let branch: UnsafeMutablePointer<_ExactLayout.Branch>
    /// One cell's outcome probabilities, written by ``load(_:segment:bin:)``, or row by row
    /// as a pass reaches them after ``unload()``.
    let probabilities: UnsafeMutablePointer<Double>
    /// Per row of ``probabilities``: whether it holds the current cell's values (after ``unload()``).
    let loaded: UnsafeMutablePointer<Bool>
    /// The rows of ``probabilities``: (screens seen, personalized, screen).
    let rowCount: Int

    init(_ g: _ExactLayout) {
      func copy<T>(_ array: [T]) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(array.count, 1))
        _ = UnsafeMutableBufferPointer(start: pointer, count: array.count).initialize(from: array)
        return pointer
      }
      (outcomeStart, outcomeCount, outcomeFlags, plan) = (copy(g.outcomeStart), copy(g.outcomeCount), copy(g.outcomeFlags), copy(g.plan))
      (branchStart, labelStoreState, labelFlags) = (copy(g.branchStart), copy(g.labelStoreState), copy(g.labelFlags))
      (personalizes, purchases, restores) = (copy(g.personalizes), copy(g.purchases), copy(g.restores))
      (isPaywall, labelEntitled) = (copy(g.isPaywall), copy(g.labelEntitled))
      (dwellMean, dwellSecondMoment, branch) = (copy(g.dwellMean), copy(g.dwellSecondMoment), copy(g.branch))
      let probabilityCount = max((g.maxSeen + 1) * 2 * g.screens * g.stride, 1)
      probabilities = UnsafeMutablePointer<Double>.allocate(capacity: probabilityCount)
      probabilities.initialize(repeating: 0, count: probabilityCount)
      rowCount = max((g.maxSeen + 1) * 2 * g.screens, 1)
      loaded = UnsafeMutablePointer<Bool>.allocate(capacity: rowCount)
      loaded.initialize(repeating: false, count: rowCount)
    }

    deinit {
      for pointer in [outcomeStart, outcomeCount, outcomeFlags, plan, branchStart, labelStoreState, labelFlags] { pointer.deallocate() }
      for pointer in [personalizes, purchases, restores, isPaywall, labelEntitled] { pointer.deallocate() }
      for pointer in [dwellMean, dwellSecondMoment, probabilities] { pointer.deallocate() }
      branch.deallocate()
      loaded.deallocate()
    }

    /// Writes the outcome probabilities of the cell (`segment`, `bin`) of layout `g`.
    func load(_ g: _ExactLayout, segment: Int, bin: Int) {
      g.probabilities(segment: segment, bin: bin, into: probabilities)
    }

    /// Marks every row of ``probabilities`` as not holding the next cell's values:
    /// ``load(_:row:from:)`` writes each one when a pass first reads it.
    func unload() { loaded.update(repeating: false, count: rowCount) }

    /// Writes row `row` of the cell `rows` unless it holds it already (after ``unload()``).
    @inline(__always) func load(_ g: _ExactLayout, row: Int, from rows: LazyRows) {
      guard !loaded[row] else { return }
      g.probabilities(row: row, of: rows.thresholds, from: rows.first, into: probabilities)
      loaded[row] = true
    }
  }

  /// Where one cell's threshold rows are, for a pass that converts them as it reaches them
  /// (``StepTables/load(_:row:from:)``).
  struct LazyRows {
    let thresholds: UnsafeBufferPointer<UInt64>
    /// The index of the cell's first threshold (screens seen 0, not personalized, screen 0).
    let first: Int
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
    /// The layout's tables, with the probabilities of the cell passed last.
    let tables: StepTables
    private let sums: PassSums
    private var ends: EndSums

    /// Buffers for cells of layout `g` adding to `acc`'s sums.
    init(_ g: _ExactLayout, _ acc: _ExactAccumulators) {
      self.g = g
      state = LabelledPassState(g)
      tables = StepTables(g)
      sums = PassSums(views: acc.views, outcomeFlow: acc.outcomeFlow)
      ends = EndSums(g, acc)
    }

    /// Propagates the mass of the cell (`segment`, `bin`) over (personalized, label, screen) to the end.
    mutating func pass(segment: Int, bin: Int, weight w: Double, into acc: inout _ExactAccumulators) {
      tables.load(g, segment: segment, bin: bin)
      labelledPass(g, tables, weight: w, state: &state, sums: sums, ends: &ends, into: &acc)
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
  /// state in `state`, with the cell's probabilities in `tables`.
  private static func labelledPass(
    _ g: _ExactLayout, _ tables: borrowing StepTables, weight w: Double, state: inout LabelledPassState, sums: borrowing PassSums,
    ends: inout EndSums, into acc: inout _ExactAccumulators
  ) {
    for t in 1...g.stepLimit {
      let seen = min(t - 1, g.maxSeen)
      // `next` and `nextActive` are clean: each slot was zeroed when it moved.
      var i = 0
      while i < state.timeCount {
        state.nextD[i] = 0
        state.nextE[i] = 0
        i += 1
      }
      for pers in 0..<2 {
        var screen = 0
        while screen < g.screens {
          // A slot without mass has nothing to move (most of them, at most steps).
          if state.mayHoldMass(g, personalized: pers, screen: screen) {
            step(g, tables, weight: w, from: screen, personalized: pers, seen: seen, state: &state, sums: sums, ends: &ends, into: &acc)
          }
          screen += 1
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
  /// not-entitled and the entitled labels in turn. Loops are `while` loops: a `for` over a
  /// range calls the generic iterator at each turn in an unoptimised build.
  @inline(__always)
  private static func step(
    _ g: _ExactLayout, _ tables: borrowing StepTables, weight w: Double, from screen: Int, personalized pers: Int, seen: Int,
    state: inout LabelledPassState, sums: borrowing PassSums, ends: inout EndSums, into acc: inout _ExactAccumulators
  ) {
    let s = g.screens
    // Only the labels with mass move: listed once here, in label order.
    let totals = state.list(g, tables, personalized: pers, screen: screen)
    defer { state.clear(g, personalized: pers, screen: screen) }
    if totals.0 + totals.1 == 0 { return }
    sums.views[screen] += w * (totals.0 + totals.1)
    let mu = tables.dwellMean[screen]
    let first = tables.outcomeStart[screen]
    let count = tables.outcomeCount[screen]
    let probabilityBase = ((seen * 2 + pers) * s + screen) * g.stride
    var entitled = 0
    while entitled < 2 {
      defer { entitled += 1 }
      let total = entitled == 0 ? totals.0 : totals.1
      if total == 0 { continue }
      var (d, e) = (0.0, 0.0)
      if g.tracksTime {
        let d0 = state.timeD[(pers * 2 + entitled) * s + screen]
        d = d0 + total * mu
        e = state.timeE[(pers * 2 + entitled) * s + screen] + 2 * d0 * mu + total * tables.dwellSecondMoment[screen]
      }
      let group = entitled == 0 ? 0..<state.freeCount : g.labels..<(g.labels + state.entitledCount)
      var k = 0
      while k < count {
        defer { k += 1 }
        let p = tables.probabilities[probabilityBase + k]
        if p == 0 { continue }
        let o = first + k
        sums.outcomeFlow[o] += w * total * p
        if entitled == 0 {
          if tables.purchases[o] {
            acc.purchaseTaps += w * total * p
          } else if tables.restores[o] {
            acc.restoreAttempts += w * total * p
          }
        }
        var b = tables.branchStart[2 * o + entitled]
        let end = tables.branchStart[2 * o + entitled + 1]
        while b < end {
          follow(
            g, tables, branch: b, of: o, from: screen, personalized: pers, entitled: entitled, list: group, (total, d, e, p), weight: w,
            state: &state, ends: &ends, into: &acc)
          b += 1
        }
      }
    }
  }

  /// Moves the mass of the listed labels (`list`, of entitlement `entitled`) on `screen` along
  /// branch `b` of outcome `o`: to the next screen (mass and time moments), or to an end.
  @inline(__always)
  private static func follow(
    _ g: _ExactLayout, _ tables: borrowing StepTables, branch b: Int, of o: Int, from screen: Int, personalized pers: Int, entitled: Int,
    list: Range<Int>, _ m: (total: Double, d: Double, e: Double, p: Double), weight w: Double, state: inout LabelledPassState,
    ends: inout EndSums, into acc: inout _ExactAccumulators
  ) {
    let s = g.screens
    let branch = tables.branch[b]
    let pq = m.p * branch.probability
    if pq == 0 { return }
    let newPers = tables.personalizes[o] ? 1 : pers
    var (dd, ee) = (0.0, 0.0)
    if g.tracksTime {
      dd = m.d * pq + m.total * m.p * branch.latency
      ee = m.e * pq + 2 * m.d * m.p * branch.latency + m.total * m.p * branch.latencySquared
    }
    let target = branch.target == _ExactLayout.stayTarget ? screen : branch.target
    let outcomeFlags = tables.outcomeFlags[o]
    let plan = tables.plan[o]
    var i = list.lowerBound
    if target >= 0 {
      if g.tracksTime {
        let to = (newPers * 2 + (branch.entitles ? 1 : entitled)) * s + target
        state.nextD[to] += dd
        state.nextE[to] += ee
      }
      let slot = (newPers * s + target) * state.words
      let base = newPers * g.labels * s + target
      while i < list.upperBound {
        let after =
          (state.listFlags[i] | outcomeFlags) * g.storeStates
          + _ExactLayout.storeState(after: state.listState[i], plan: plan, plans: g.plans, kind: branch.kind)
        state.next[base + after * s] += state.listMass[i] * pq
        state.nextActive[slot + after &>> 6] |= 1 &<< UInt64(truncatingIfNeeded: after & 63)
        i += 1
      }
    } else {
      let end = target == Int(CompiledFlow.completedTarget) ? 0 : 1 + screen
      if end == 0 {
        acc.timeSum += w * dd
        acc.timeSquaredSum += w * ee
      }
      while i < list.upperBound {
        let after = _ExactLayout.storeState(after: state.listState[i], plan: plan, plans: g.plans, kind: branch.kind)
        ends.end(flags: state.listFlags[i] | outcomeFlags, state: after, end: end, personalized: newPers, mass: w * state.listMass[i] * pq)
        i += 1
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
    _ sets: [[Int]], _ walking: UnsafeBufferPointer<Int>, mass: UnsafeMutablePointer<Double>, stateCount n: Int, screens s: Int,
    into reached: inout [Double]
  ) {
    var w = 0
    while w < walking.count {
      let j = walking[w]
      let targets = sets[j]
      var t = 0
      while t < targets.count {
        let target = targets[t]
        for part in 0..<4 {
          reached[j] += mass[j * n + part * s + target]
          mass[j * n + part * s + target] = 0
        }
        t += 1
      }
      w += 1
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
    _ g: _ExactLayout, _ tables: borrowing StepTables, absorbing sets: [[Int]]
  ) -> [(Double, Double)] {
    var results = sets.map { $0.contains(g.start) ? (1.0, 0.0) : (0.0, 0.0) }
    let s = g.screens
    let n = 4 * s
    var mass = UnsafeMutablePointer<Double>.allocate(capacity: sets.count * n)
    var next = UnsafeMutablePointer<Double>.allocate(capacity: sets.count * n)
    // The sets still walking, in order: `walking[0..<count]`.
    let walking = UnsafeMutablePointer<Int>.allocate(capacity: max(sets.count, 1))
    mass.initialize(repeating: 0, count: sets.count * n)
    next.initialize(repeating: 0, count: sets.count * n)
    defer {
      mass.deallocate()
      next.deallocate()
      walking.deallocate()
    }
    var count = 0
    for j in sets.indices where !sets[j].contains(g.start) {
      walking[count] = j
      count += 1
      mass[j * n + g.start] = 1
    }
    if count == 0 { return results }
    var reached = [Double](repeating: 0, count: sets.count)
    for t in 1...g.stepLimit {
      // `next` is clean for the walking chains: each state's mass was zeroed as it moved.
      absorb(sets, UnsafeBufferPointer(start: walking, count: count), mass: mass, stateCount: n, screens: s, into: &reached)
      let seen = min(t - 1, g.maxSeen)
      for pers in 0..<2 {
        for entitled in 0..<2 {
          var screen = 0
          while screen < s {
            defer { screen += 1 }
            let from = (pers * 2 + entitled) * s + screen
            var any = false
            var k = 0
            while k < count, !any {
              any = mass[walking[k] * n + from] != 0
              k += 1
            }
            guard any else { continue }
            lumpedMoves(g, tables, seen: seen, personalized: pers, entitled: entitled, screen: screen, outcome: { _, _ in }) {
              into, p, q in
              var k = 0
              while k < count {
                let j = walking[k]
                let m = mass[j * n + from]
                if m != 0 { next[j * n + into] += m * p * q }
                k += 1
              }
            }
            k = 0
            while k < count {
              mass[walking[k] * n + from] = 0
              k += 1
            }
          }
        }
      }
      swap(&mass, &next)
      if t == g.stepLimit {
        for k in 0..<count { results[walking[k]] = (reached[walking[k]], 0) }
        break
      }
      count = stopSettled(walking, count: count, mass: mass, stateCount: n, reached: reached, results: &results)
      if count == 0 { break }
    }
    return results
  }

  /// Stops the chains of `walking[0..<count]` whose mass is at most ``tolerance`` (their result:
  /// the mass reached and the mass left), keeping the others in order; returns how many walk on.
  private static func stopSettled(
    _ walking: UnsafeMutablePointer<Int>, count: Int, mass: UnsafeMutablePointer<Double>, stateCount n: Int, reached: [Double],
    results: inout [(Double, Double)]
  ) -> Int {
    var kept = 0
    for k in 0..<count {
      let j = walking[k]
      var remaining = 0.0
      var i = 0
      while i < n {
        remaining += mass[j * n + i]
        i += 1
      }
      if remaining <= tolerance {
        results[j] = (reached[j], remaining)
      } else {
        walking[kept] = j
        kept += 1
      }
    }
    return kept
  }

  /// The lumped chain's moves out of the state (`pers`, `entitled`, `screen`) at seen level
  /// `seen`, in outcome and branch order: `outcome(o, p)` for each outcome `o` of probability
  /// `p > 0`, then `move(into, p, q)` for each of its branches of probability `q > 0` that
  /// lands on a screen, `into` the state it lands in. The reach and the visits passes share it.
  @inline(__always)
  private static func lumpedMoves(
    _ g: _ExactLayout, _ tables: borrowing StepTables, seen: Int, personalized pers: Int, entitled: Int, screen: Int,
    outcome: (_ o: Int, _ p: Double) -> Void, move: (_ into: Int, _ p: Double, _ q: Double) -> Void
  ) {
    let s = g.screens
    // The tables' pointers as locals: the moves store through other pointers, which the
    // optimiser cannot tell apart from the tables' fields, so it read them again after each.
    let (probabilities, personalizes, branchStart, branches) = (
      tables.probabilities, tables.personalizes, tables.branchStart, tables.branch
    )
    let probabilityBase = ((seen * 2 + pers) * s + screen) * g.stride
    let first = tables.outcomeStart[screen]
    let count = tables.outcomeCount[screen]
    var k = 0
    while k < count {
      defer { k += 1 }
      let p = probabilities[probabilityBase + k]
      if p == 0 { continue }
      let o = first + k
      outcome(o, p)
      let newPers = personalizes[o] ? 1 : pers
      var b = branchStart[2 * o + entitled]
      let end = branchStart[2 * o + entitled + 1]
      while b < end {
        defer { b += 1 }
        let branch = branches[b]
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
  /// has this loop of its own: one chain, no sets to absorb, and each probability row of the
  /// cell (`rows`) converted when a state with mass first reads it (the same values as
  /// ``StepTables/load(_:segment:bin:)``'s; most rows are never read).
  static func visitsPass(
    _ g: _ExactLayout, _ tables: borrowing StepTables, rows: LazyRows, weight w: Double, into visits: inout LumpedVisits
  ) {
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
            tables.load(g, row: (seen * 2 + pers) * s + screen, from: rows)
            lumpedMoves(
              g, tables, seen: seen, personalized: pers, entitled: entitled, screen: screen,
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
