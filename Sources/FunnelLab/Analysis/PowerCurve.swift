package import FunnelStats

/// Power at sample sizes around a solved design: what a smaller or larger test buys.
package struct PowerCurve: Sendable, Hashable {
  /// One point of the curve.
  package struct Point: Sendable, Hashable {
    /// Users in the treatment arm (the control has `ratio` times as many).
    package var usersPerArm: Double
    /// The power at that size, a probability.
    package var power: Double
  }

  /// One point per positive multiple, in the order of `multiples` (ascending by default); a multiple whose solve
  /// fails is left out.
  package var points: [Point]
  /// The design's own sample size and power.
  package var design: Point

  /// Solves `problem` for power at `multiples` of the design's treatment sample size,
  /// with the design's effect and alpha.
  /// - Complexity: one ``PowerAnalysis/solve(_:)`` per multiple.
  package init(problem: PowerAnalysis.Problem, result: PowerAnalysis.Result, multiples: [Double] = [0.25, 0.5, 0.75, 1, 1.5, 2, 3]) {
    design = Point(usersPerArm: result.sampleSize, power: result.power)
    var points: [Point] = []
    for m in multiples where m > 0 {
      var p = problem
      p.effect = result.effect
      p.alpha = result.alpha
      p.power = nil
      p.sampleSize = max(2, (result.sampleSize * m).rounded(.up))
      if let solved = try? PowerAnalysis.solve(p) { points.append(Point(usersPerArm: solved.sampleSize, power: solved.power)) }
    }
    self.points = points
  }
}
