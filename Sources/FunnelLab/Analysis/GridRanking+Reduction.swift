extension GridRanking {
  /// The ranking of `cells` (every cell's exact values, in cell order) against `control`:
  /// the order, the standing, the Pareto front and the main effects.
  init(experiment: String, grid: Grid, spec: MetricsSpec, controlID: String, control: Values, cells: [Values], walks: Int) {
    self.experiment = experiment
    self.grid = grid
    self.spec = spec
    self.controlID = controlID
    self.control = control
    self.cells = cells
    self.walks = walks
    let up = spec.primary.higherIsBetter
    order = cells.indices.sorted { a, b in
      switch (cells[a].primary, cells[b].primary) {
      case (let x?, let y?): x != y ? (up ? x > y : x < y) : a < b
      case (.some, nil): true
      case (nil, .some): false
      case (nil, nil): a < b
      }
    }
    standing = DecisionRule.standing(
      control: control.primary, arms: cells.indices.map { (grid.cellID(at: $0), cells[$0].primary) }, higherIsBetter: up,
      relativeMargin: spec.relativeMargin(for: spec.primary))
    paretoFront = Self.paretoFront(cells)
    mainEffects = Self.mainEffects(cells, grid: grid)
  }

  /// The cells that no other cell dominates on (conversion, revenue per user), by
  /// conversion, highest first (then revenue, then index). Cells with equal values on both
  /// do not dominate each other, so all of them are on the front or none is.
  static func paretoFront(_ cells: [Values]) -> [Int] {
    let points = cells.indices.compactMap { i in
      cells[i].conversion.flatMap { c in cells[i].revenuePerUser.map { (index: i, conversion: c, revenue: $0) } }
    }
    let sorted = points.sorted { a, b in
      a.conversion != b.conversion ? a.conversion > b.conversion : a.revenue != b.revenue ? a.revenue > b.revenue : a.index < b.index
    }
    var front: [Int] = []
    var best: (conversion: Double, revenue: Double)? = nil
    for p in sorted {
      // Every earlier point has at least this conversion: p is dominated unless its revenue is
      // higher than theirs, or it repeats the point that holds the highest revenue so far.
      if let b = best, p.revenue < b.revenue || (p.revenue == b.revenue && p.conversion != b.conversion) { continue }
      front.append(p.index)
      best = (p.conversion, p.revenue)
    }
    return front
  }

  /// Per factor, per level: the mean primary value over the cells at that level that have one.
  static func mainEffects(_ cells: [Values], grid: Grid) -> [[Double?]] {
    var sums = grid.factors.map { [Double](repeating: 0, count: $0.levels.count) }
    var counts = grid.factors.map { [Int](repeating: 0, count: $0.levels.count) }
    for (index, cell) in cells.enumerated() {
      guard let value = cell.primary else { continue }
      for (f, l) in grid.levelIndices(ofCell: index).enumerated() {
        sums[f][l] += value
        counts[f][l] += 1
      }
    }
    return zip(sums, counts).map { s, c in zip(s, c).map { $1 > 0 ? $0 / Double($1) : nil } }
  }
}
