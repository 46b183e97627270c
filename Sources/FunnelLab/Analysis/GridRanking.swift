import FunnelStats

/// Every cell of a spec's grid ranked by the exact engine, with no sampling: what
/// `grid --exact` reports.
///
/// **Streamed.** Cells are never all built, compiled or held. They are solved in blocks: a
/// block holds the cells that differ only in factors whose levels change a plan's trial
/// (``Experiment/settingAsideRevenueTerms()``), so a block's cells share one walk and all
/// but the first skip the threshold tables (``FlowCompiler/compileValidated(_:variantID:walkingLike:)``).
/// Each worker takes a block, compiles its cells one at a time, keeps three numbers a cell
/// and lets the tables go. Memory is the report's: three values per cell, 10⁵ cells in a
/// few MB, plus one block's two compiled flows per worker.
///
/// **Deterministic.** A cell's values depend only on its block, never on the thread that
/// solved it or the order blocks finished; the ranking breaks exact ties by cell index. So
/// the report is byte-identical for any thread count.
///
/// **Reduced for a reader.** Beside the ranking (``order``): the one decision rule's
/// ``standing`` of the cells against the control, the ``paretoFront`` of conversion against
/// revenue per user, and each factor's ``mainEffects``.
package struct GridRanking: Sendable {
  /// The exact values the ranking reads of one configuration (the control or a cell).
  package struct Values: Sendable, Hashable {
    /// The spec's primary metric; `nil` when it is undefined (a ratio over nobody).
    package var primary: Double?
    /// Purchase conversion: P(a user buys).
    package var conversion: Double?
    /// Expected revenue per user.
    package var revenuePerUser: Double?
  }

  /// The experiment's name.
  package var experiment: String
  /// The grid ranked: its factors name the cells.
  package var grid: Grid
  /// The spec's metrics: the primary metric, its direction and its margin.
  package var spec: MetricsSpec
  /// The control's id (the spec's first variant).
  package var controlID: String
  /// The control's exact values.
  package var control: Values
  /// Every cell's exact values, in the order of ``Grid/cells()`` (first factor slowest).
  package var cells: [Values]
  /// Every cell index, best first on the exact primary metric (exact ties by index; a cell
  /// without a value last).
  package var order: [Int]
  /// How the cells stand against the control, by the one decision rule
  /// (``DecisionRule/standing(control:arms:higherIsBetter:relativeMargin:)``) with the spec's margin.
  package var standing: DecisionRule.Standing
  /// The cells no other cell beats on both purchase conversion and revenue per user (at
  /// least as good on both, better on one), by conversion, highest first.
  package var paretoFront: [Int]
  /// Per factor, per level: the mean exact primary metric over the cells at that level
  /// (every other factor's levels averaged with equal weight).
  package var mainEffects: [[Double?]]
  /// The walks solved: one per block of cells that walk alike, the rest shared.
  package var walks: Int

  /// Per cell, in cell order: its rank in ``order`` (1 = best).
  package var ranks: [Int] {
    var ranks = [Int](repeating: 0, count: cells.count)
    for (k, i) in order.enumerated() { ranks[i] = k + 1 }
    return ranks
  }

  /// The id of cell `index`: `factor=level,…`.
  package func id(ofCell index: Int) -> String { grid.cellID(at: index) }

  /// The relative practical-equivalence margin of the primary metric.
  package var relativeMargin: Double { spec.relativeMargin(for: spec.primary) }

  /// At most `count` cells of the ``paretoFront``, spread evenly along it (both ends always
  /// among them), for a reader who cannot take in a front of a hundred cells: the trade-off from
  /// the highest conversion to the highest revenue per user in `count` steps.
  package func paretoFront(spread count: Int) -> [Int] {
    guard paretoFront.count > count else { return paretoFront }
    guard count > 1 else { return Array(paretoFront.prefix(max(count, 0))) }
    let last = paretoFront.count - 1
    return (0..<count).map { paretoFront[($0 * last + (count - 1) / 2) / (count - 1)] }
  }

  /// The levels of `factor` with the best main effect: one, or those that share it exactly
  /// (every level when the factor changes nothing the metric sees); empty when no level has a value.
  package func bestLevels(of factor: Int) -> [Int] {
    let values = mainEffects[factor].compactMap { $0 }
    guard let best = spec.primary.higherIsBetter ? values.max() : values.min() else { return [] }
    return mainEffects[factor].indices.filter { mainEffects[factor][$0] == best }
  }
}

extension GridRanking {
  /// The exact values of some of a grid's cells: what a shard of `grid --exact` computes.
  package struct Part: Sendable {
    /// The control's values (every part solves it).
    package var control: Values
    /// The cells solved, each with its index in ``Grid/cells()``, in index order.
    package var cells: [(index: Int, values: Values)]
    /// The walks solved.
    package var walks: Int
  }

  /// Ranks every cell of `experiment`'s grid exactly.
  /// - Parameters:
  ///   - threads: workers (default: ``MonteCarloEngine/defaultThreadCount``); the result does not depend on it.
  ///   - memo: threshold rows shared between the cells' compiles; the caller owns it and its size.
  ///   - progress: hears the cells done and the cells in all, one call at a time.
  /// - Throws: ``SpecErrors`` when the spec has no grid or is invalid, or a cell's patches
  ///   make an invalid flow (the first such cell, in cell order, named in the source).
  package static func rank(
    _ experiment: Experiment, threads: Int? = nil, memo: CompileMemo = CompileMemo(),
    progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> GridRanking {
    let part = try solve(experiment, shard: nil, threads: threads, memo: memo, progress: progress)
    return try GridRanking(experiment, parts: [part])
  }

  /// The ranking of `experiment`'s grid from `parts` that together solve every cell once (a
  /// whole run's one part, or every shard's): byte for byte the same for any split.
  /// - Throws: ``SpecErrors`` when a cell is missing or solved twice, or the parts' controls differ.
  package init(_ experiment: Experiment, parts: [Part]) throws(SpecErrors) {
    guard let grid = experiment.grid, let control = experiment.variants.first, let first = parts.first else {
      throw SpecErrors(source: experiment.name, errors: [SpecError(path: [.key("grid")], message: "the spec has no grid")])
    }
    var cells = [Values?](repeating: nil, count: grid.cellCount)
    var problems: [SpecError] = []
    for part in parts {
      if part.control != first.control {
        problems.append(SpecError(.mismatch, path: .root, message: "the parts disagree on the control's exact values"))
      }
      for (index, values) in part.cells {
        guard cells.indices.contains(index), cells[index] == nil else {
          problems.append(SpecError(.mismatch, path: .root, message: "grid cell \(index) is solved twice or does not exist"))
          continue
        }
        cells[index] = values
      }
    }
    if let missing = cells.firstIndex(where: { $0 == nil }) {
      problems.append(SpecError(.mismatch, path: .root, message: "grid cell \(grid.cellID(at: missing)) is in no part"))
    }
    guard problems.isEmpty else { throw SpecErrors(source: experiment.name, errors: Array(problems.prefix(3))) }
    self.init(
      experiment: experiment.name, grid: grid, spec: experiment.metrics, controlID: control.id, control: first.control,
      cells: cells.map { $0 ?? Values() }, walks: parts.reduce(0) { $0 + $1.walks })
  }

  /// The exact values of the cells of `shard`'s blocks (every block without a shard), and the
  /// control's. A shard takes a contiguous range of the blocks that walk alike
  /// (``Shard/range(of:)``), so no walk is split between shards.
  package static func solve(
    _ experiment: Experiment, shard: Shard?, threads: Int? = nil, memo: CompileMemo = CompileMemo(),
    progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> Part {
    let errors = experiment.validationErrors()
    guard errors.isEmpty else { throw SpecErrors(source: experiment.name, errors: errors) }
    guard let grid = experiment.grid, !grid.factors.isEmpty, let control = experiment.variants.first else {
      throw SpecErrors(
        source: experiment.name,
        errors: [SpecError(path: [.key("grid")], message: "the spec has no grid", hint: "add {\"grid\": {\"factors\": [...]}}")])
    }
    let base = {
      var e = experiment
      e.grid = nil
      e.variants = [control]
      return e
    }()
    let metrics = [experiment.metrics.primary, .purchaseConversion, .revenuePerUser]
    let controlValues = ExactEngine.values(of: metrics, sharingTheWalk: 1) { _ in
      FlowCompiler.compileValidated(base, variantID: control.id, memo: memo)
    }[0]
    let blocks = GridBlocks(grid)
    let mine = shard.map { s in s.range(of: 0..<UInt64(blocks.count)) }.map { Int($0.lowerBound)..<Int($0.upperBound) } ?? 0..<blocks.count
    let total = mine.reduce(0) { $0 + blocks.size(ofBlock: $1) }
    let ticks = SerialProgress(total: total, progress)
    var cells: [(index: Int, values: Values)] = []
    cells.reserveCapacity(total)
    var walks = 0
    // Blocks go to the workers a batch at a time, so the solved values waiting to be stored stay few.
    let batch = max(64, 16 * (threads ?? MonteCarloEngine.defaultThreadCount))
    for start in stride(from: mine.lowerBound, to: mine.upperBound, by: batch) {
      let range = start..<min(start + batch, mine.upperBound)
      let solved = ExactTruth.solve(count: range.count, threads: threads) { k in
        let result = solveBlock(blocks.cells(ofBlock: range.lowerBound + k), of: base, grid: grid, metrics: metrics, memo: memo)
        if case .success(let block) = result { ticks.tick(block.values.count) }
        return result
      }
      for result in solved {
        switch result {
        case .success(let block):
          cells += block.values.map { (index: $0.0, values: $0.1) }
          walks += block.walks
        case .failure(let error): throw error
        }
      }
    }
    cells.sort { $0.index < $1.index }
    return Part(control: Values(controlValues), cells: cells, walks: walks)
  }

  /// One block's cells solved: each cell's index and values, and the walks it took.
  private static func solveBlock(
    _ indices: [Int], of base: Experiment, grid: Grid, metrics: [FunnelMetric], memo: CompileMemo
  ) -> Result<(values: [(Int, Values)], walks: Int), SpecErrors> {
    var specs: [(index: Int, id: String, spec: Experiment)] = []
    for index in indices {
      let cell = grid.cell(at: index)
      var e = base
      e.variants.append(cell.variant)
      do {
        specs.append((index, cell.variant.id, try FlowCompiler.validatedVariant(e, 1)))
      } catch {
        return .failure(SpecErrors(source: "\(base.name), grid cell \(cell.variant.id)", errors: error.errors))
      }
    }
    var values: [(Int, Values)] = []
    let groups = ExactEngine.walkGroups(specs.map(\.spec))
    for group in groups {
      var first: CompiledFlow? = nil
      let solved = ExactEngine.values(of: metrics, sharingTheWalk: group.count) { i in
        let (_, id, spec) = specs[group[i]]
        if let first { return FlowCompiler.compileValidated(spec, variantID: id, walkingLike: first) }
        let flow = FlowCompiler.compileValidated(spec, variantID: id, memo: memo)
        first = flow
        return flow
      }
      for (member, value) in zip(group, solved) { values.append((specs[member].index, Values(value))) }
    }
    return .success((values, groups.count))
  }
}

extension GridRanking.Values {
  /// The values of `[primary, conversion, revenue per user]`, in that order.
  init(_ values: [Double?]) {
    primary = values.first ?? nil
    conversion = values.count > 1 ? values[1] : nil
    revenuePerUser = values.count > 2 ? values[2] : nil
  }
}

/// A grid's cells cut into blocks that walk alike: the cells that share the levels of every
/// factor that may change the walk, and differ in the factors that change only a plan's
/// trial (every level's patches `setPlan` with a trial and no price or badge). Grouping
/// inside a block is checked on the patched specs themselves, so a factor misjudged here
/// costs a walk, never a wrong value.
struct GridBlocks {
  /// Level counts of the factors, in factor order.
  private let counts: [Int]
  /// The factors that stay fixed inside a block, and those that vary.
  private let outer, inner: [Int]
  /// Per factor: the step of its level in a cell index (the product of the later factors' counts).
  private let steps: [Int]

  init(_ grid: Grid) {
    counts = grid.factors.map(\.levels.count)
    let trialOnly = grid.factors.map { factor in
      factor.levels.allSatisfy { level in
        level.patches.allSatisfy { patch in
          if case .setPlan(_, _, nil, nil, _) = patch { return true }
          return false
        }
      }
    }
    outer = counts.indices.filter { !trialOnly[$0] }
    inner = counts.indices.filter { trialOnly[$0] }
    var steps = [Int](repeating: 1, count: counts.count)
    for f in counts.indices.reversed().dropFirst() { steps[f] = steps[f + 1] * counts[f + 1] }
    self.steps = steps
  }

  /// The number of blocks: the product of the outer factors' level counts.
  var count: Int { outer.reduce(1) { $0 * counts[$1] } }

  /// The number of cells in a block: the product of the inner factors' level counts.
  func size(ofBlock b: Int) -> Int { inner.reduce(1) { $0 * counts[$1] } }

  /// The cell indices of block `b`, in cell order.
  func cells(ofBlock b: Int) -> [Int] {
    var base = 0
    var rest = b
    for f in outer.reversed() {
      base += (rest % counts[f]) * steps[f]
      rest /= counts[f]
    }
    var cells = [base]
    for f in inner {
      cells = cells.flatMap { c in (0..<counts[f]).map { c + $0 * steps[f] } }
    }
    return cells.sorted()
  }
}
