import FunnelTestSupport
import Testing

@testable import FunnelLab

@Suite struct GridReportTests {
  /// A cell's levels come from the grid, not from its id: ids with `,` and `=` in
  /// them (which a parse of `factor=level,factor=level` would split wrongly) keep
  /// their levels, in factor order, and the control has none.
  @Test func cellsCarryTheirLevels() throws {
    var e = try ExperimentLoader.load(contentsOf: experimentPath("urbannest-onboarding"))
    let grid = Grid(factors: [
      GridFactor(id: "copy,a", levels: [GridLevel(id: "x=1"), GridLevel(id: "y")]),
      GridFactor(id: "b=c", levels: [GridLevel(id: "p,q"), GridLevel(id: "r")]),
    ])
    e.grid = grid
    let gridded = try #require(e.gridExperiment())
    let result = try Simulation.run(gridded, options: RunOptions(users: 200)).run
    let report = GridReport(result: result, grid: grid, spec: e.metrics)
    #expect(report.cells.count == 5)
    #expect(report.cells[0].levels.isEmpty)
    let expected = grid.cells().map { cell in cell.levels.map { "\($0.factor)|\($0.level)" } }
    let levels = report.cells.dropFirst().sorted { $0.variant < $1.variant }.map { cell in cell.levels.map { "\($0.factor)|\($0.level)" } }
    let cells = grid.cells().sorted { $0.variant.id < $1.variant.id }.map { cell in cell.levels.map { "\($0.factor)|\($0.level)" } }
    #expect(levels == cells)
    #expect(expected.first == ["copy,a|x=1", "b=c|p,q"])
    #expect(grid.variants().map(\.id) == grid.cells().map(\.variant.id))
  }
}
