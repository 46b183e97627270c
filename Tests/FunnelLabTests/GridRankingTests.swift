import Foundation
import FunnelTestSupport
import Synchronization
import Testing

@testable import FunnelLab

/// `grid --exact`'s library half: every cell ranked by the exact engine, streamed in blocks
/// that share a walk, reduced to a ranking, a Pareto front and main effects.
@Suite struct GridRankingTests {
  /// The tiny spec with a 4-factor grid of 36 cells: a screen made optional, the yearly
  /// price, the default plan, and the yearly trial (a factor that only changes revenue, so
  /// its 3 levels share one walk).
  static func gridSpec() throws -> Experiment {
    try load(
      replacing(
        #""variants": [ { "id": "control" }, { "id": "optional", "patches": [ { "op": "setRequired", "screen": "goal", "required": false } ] } ]"#,
        #"""
        "variants": [ { "id": "control" } ],
        "grid": { "factors": [
          { "id": "goal", "levels": [ { "id": "required" }, { "id": "optional", "patches": [ { "op": "setRequired", "screen": "goal", "required": false } ] } ] },
          { "id": "price", "levels": [ { "id": "59.99" }, { "id": "39.99", "patches": [ { "op": "setPlan", "plan": "yearly", "price": 39.99 } ] } ] },
          { "id": "default", "levels": [ { "id": "yearly" }, { "id": "monthly", "patches": [ { "op": "setDefaultPlan", "plan": "monthly" } ] }, { "id": "none", "patches": [ { "op": "setDefaultPlan", "plan": "yearly" }, { "op": "setPlan", "plan": "yearly", "badge": "best" } ] } ] },
          { "id": "trial", "levels": [ { "id": "0" }, { "id": "7", "patches": [ { "op": "setPlan", "plan": "yearly", "trialDays": 7 } ] }, { "id": "14", "patches": [ { "op": "setPlan", "plan": "yearly", "trialDays": 14 } ] } ] }
        ] }
        """#))
  }

  /// Every cell's values equal the full exact solve of the same cell written as an explicit
  /// variant (to 1e-12: the ranking walks only what the metrics read, the sum's order differs),
  /// and the control's equal the control's solve.
  @Test func cellsEqualExactOfTheSameCellsAsVariants() throws {
    let e = try Self.gridSpec()
    let ranking = try GridRanking.rank(e, threads: 1)
    let grid = try #require(e.grid)
    #expect(ranking.cells.count == 36)
    var explicit = e
    explicit.grid = nil
    explicit.variants = [e.variants[0]] + grid.variants()
    for k in explicit.variants.indices {
      let solved = ExactEngine.solve(try FlowCompiler.compile(explicit, variant: k))
      let values = k == 0 ? ranking.control : ranking.cells[k - 1]
      for (metric, value) in [
        (FunnelMetric.purchaseConversion, values.primary), (.purchaseConversion, values.conversion),
        (.revenuePerUser, values.revenuePerUser),
      ] {
        let want = try #require(solved.value(of: metric))
        let got = try #require(value)
        #expect(abs(got - want) <= 1e-12 * max(1, abs(want)), "\(explicit.variants[k].id) \(metric)")
      }
    }
    // The trial factor's 3 levels share a walk: 12 walks for 36 cells.
    #expect(ranking.walks == 12)
  }

  /// A cell that only changes a trial compiles from its block's first cell without a
  /// threshold: the flow equals the one compiled from scratch, table for table.
  @Test func aTrialSiblingCompilesToTheFlowCompiledFromScratch() throws {
    let e = try Self.gridSpec()
    let grid = try #require(e.grid)
    var explicit = e
    explicit.grid = nil
    explicit.variants = [e.variants[0]] + grid.variants()
    let first = try FlowCompiler.compile(explicit, variant: 1)
    for k in [2, 3] {
      let patched = try FlowCompiler.validatedVariant(explicit, k)
      let cheap = FlowCompiler.compileValidated(patched, variantID: explicit.variants[k].id, walkingLike: first)
      #expect(cheap == (try FlowCompiler.compile(explicit, variant: k)), "\(explicit.variants[k].id)")
    }
  }

  /// The ranking is the same, bit for bit, on any number of threads, and progress hears every cell.
  @Test func theRankingIsTheSameOnAnyThreads() throws {
    let e = try Self.gridSpec()
    let one = try GridRanking.rank(e, threads: 1)
    let heard = Mutex(0)
    let two = try GridRanking.rank(e, threads: 2) { done, total in
      heard.withLock { $0 = max($0, done) }
      #expect(total == 36)
    }
    #expect(one.cells == two.cells)
    #expect(one.order == two.order)
    #expect(one.standing == two.standing)
    #expect(heard.withLock { $0 } == 36)
  }

  /// The order is best first with exact ties by cell index; the Pareto front is exactly the
  /// cells no other cell dominates; a main effect is the mean over the cells at that level.
  @Test func orderFrontAndMainEffectsMatchBruteForce() throws {
    let e = try Self.gridSpec()
    let r = try GridRanking.rank(e, threads: 2)
    for (a, b) in zip(r.order, r.order.dropFirst()) {
      let (x, y) = (try #require(r.cells[a].primary), try #require(r.cells[b].primary))
      #expect(x > y || (x == y && a < b))
    }
    func dominates(_ a: GridRanking.Values, _ b: GridRanking.Values) -> Bool {
      guard let ac = a.conversion, let ar = a.revenuePerUser, let bc = b.conversion, let br = b.revenuePerUser else { return false }
      return ac >= bc && ar >= br && (ac > bc || ar > br)
    }
    let front = r.cells.indices.filter { i in !r.cells.contains { dominates($0, r.cells[i]) } }
    #expect(Set(r.paretoFront) == Set(front))
    #expect(r.paretoFront.count == front.count)
    let grid = try #require(e.grid)
    for (f, factor) in grid.factors.enumerated() {
      for l in factor.levels.indices {
        let members = r.cells.indices.filter { grid.levelIndices(ofCell: $0)[f] == l }.compactMap { r.cells[$0].primary }
        let mean = members.reduce(0, +) / Double(members.count)
        #expect(abs((r.mainEffects[f][l] ?? .nan) - mean) <= 1e-15, "\(factor.id)=\(factor.levels[l].id)")
      }
    }
    // The trial changes no purchase: its levels tie exactly, and all are "best".
    #expect(r.bestLevels(of: 3) == [0, 1, 2])
  }

  /// A front spread over fewer rows keeps both ends and takes distinct cells in front order.
  @Test func aSpreadFrontKeepsBothEnds() throws {
    var r = try GridRanking.rank(try Self.gridSpec(), threads: 1)
    r.paretoFront = Array(100..<199)
    let spread = r.paretoFront(spread: 20)
    #expect(spread.count == 20)
    #expect(spread.first == 100 && spread.last == 198)
    #expect(spread == spread.sorted() && Set(spread).count == 20)
    #expect(r.paretoFront(spread: 200) == r.paretoFront)
    #expect(r.paretoFront(spread: 1) == [100])
  }

  /// A cell is built alone from its index, equal to the cell ``Grid/cells()`` lists.
  @Test func aCellBuiltAloneEqualsTheListedCell() throws {
    let grid = try #require(try Self.gridSpec().grid)
    for (k, cell) in grid.cells().enumerated() {
      let alone = grid.cell(at: k)
      #expect(alone.variant == cell.variant)
      #expect(grid.cellID(at: k) == cell.variant.id)
      #expect(alone.levels.map { "\($0.factor)=\($0.level)" } == cell.levels.map { "\($0.factor)=\($0.level)" })
    }
  }

  /// Blocks cover every cell once, and a block's cells differ only in the trial factor.
  @Test func blocksPartitionTheCellsByTheFactorsThatMayChangeTheWalk() throws {
    let grid = try #require(try Self.gridSpec().grid)
    let blocks = GridBlocks(grid)
    #expect(blocks.count == 12)
    let all = (0..<blocks.count).flatMap { blocks.cells(ofBlock: $0) }
    #expect(all.sorted() == Array(0..<36))
    for b in 0..<blocks.count {
      let levels = blocks.cells(ofBlock: b).map { Array(grid.levelIndices(ofCell: $0).prefix(3)) }
      #expect(Set(levels.map { $0.map(String.init).joined(separator: ",") }).count == 1)
    }
  }

  /// A cell whose patches break the flow stops the ranking with that cell named, the first such cell on any threads.
  @Test func aBrokenCellIsNamed() throws {
    var e = try Self.gridSpec()
    e.grid?.factors[0].levels.append(GridLevel(id: "ghost", patches: [.removeScreen(screen: "ghost")]))
    for threads in [1, 2] {
      #expect {
        _ = try GridRanking.rank(e, threads: threads)
      } throws: { error in
        let text = (error as? SpecErrors)?.description ?? ""
        return text.contains("ghost")
      }
    }
  }

  /// The benchmark's 1,000-cell Klick grid: a sample of cells equals `exact` of the same cells
  /// written as explicit variants (to 1e-12), and the ranking is the same on 1 and 2 threads
  /// and from 1, 3 or 7 shards' parts.
  @Test(.longStage) func theThousandCellGridAgreesWithExactAndIsTheSameOnAnyThreadsAndShards() throws {
    let path = repositoryRoot.appendingPathComponent("Benchmarks/specs/klick-grid-1000.json").path
    let e = try ExperimentLoader.load(contentsOf: path)
    let grid = try #require(e.grid)
    let ranking = try GridRanking.rank(e, threads: 2)
    for index in stride(from: 7, to: grid.cellCount, by: 83) {
      var explicit = e
      explicit.grid = nil
      explicit.variants = [e.variants[0], grid.cell(at: index).variant]
      let solved = ExactEngine.solve(try FlowCompiler.compile(explicit, variant: 1))
      for (metric, value) in [
        (FunnelMetric.purchaseConversion, ranking.cells[index].conversion), (.revenuePerUser, ranking.cells[index].revenuePerUser),
      ] {
        let want = try #require(solved.value(of: metric))
        #expect(abs(try #require(value) - want) <= 1e-12 * max(1, abs(want)), "\(grid.cellID(at: index)) \(metric)")
      }
    }
    let one = try GridRanking.rank(e, threads: 1)
    #expect(one.cells == ranking.cells && one.order == ranking.order && one.paretoFront == ranking.paretoFront)
    for count in [3, 7] {
      let parts = try (0..<count).map { i in try GridRanking.solve(e, shard: Shard(index: i, count: count), threads: 2) }
      let merged = try GridRanking(e, parts: parts.reversed())
      #expect(merged.cells == ranking.cells && merged.order == ranking.order && merged.walks == ranking.walks, "\(count) shards")
    }
  }
}
