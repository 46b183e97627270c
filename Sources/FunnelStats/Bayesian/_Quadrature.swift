import Foundation

/// Adaptive Gauss–Legendre quadrature: each panel is integrated with 10 points, then as two
/// halves; the halves are accepted when they agree with the whole to the tolerance,
/// otherwise each half recurses (to depth 40).
///
/// - Complexity: 30 evaluations per panel visited; smooth integrands need a few dozen panels.
internal enum _Quadrature {
  /// Nodes and weights of 10-point Gauss–Legendre on [−1, 1], computed once by Newton's
  /// method on the Legendre polynomial (immutable after initialization).
  static let rule: (nodes: [Double], weights: [Double]) = {
    let n = 10
    var nodes = [Double](repeating: 0, count: n)
    var weights = [Double](repeating: 0, count: n)
    for i in 0..<n {
      var x = cos(Double.pi * (Double(i) + 0.75) / (Double(n) + 0.5))
      var derivative = 0.0
      for _ in 0..<100 {
        var p0 = 1.0
        var p1 = x
        for k in 2...n {
          let p2 = ((2 * Double(k) - 1) * x * p1 - (Double(k) - 1) * p0) / Double(k)
          p0 = p1
          p1 = p2
        }
        derivative = Double(n) * (x * p1 - p0) / (x * x - 1)
        let dx = p1 / derivative
        x -= dx
        if abs(dx) < 1e-17 { break }
      }
      nodes[i] = x
      weights[i] = 2 / ((1 - x * x) * derivative * derivative)
    }
    return (nodes, weights)
  }()

  static func gauss(_ f: (Double) -> Double, _ a: Double, _ b: Double) -> Double {
    let half = 0.5 * (b - a)
    let mid = 0.5 * (a + b)
    var sum = 0.0
    // An index loop, not `zip`: this is the innermost loop of every Bayesian integral, and
    // an unoptimised `zip` looks up its tuple's type metadata at each step.
    let (nodes, weights) = (rule.nodes, rule.weights)
    var k = 0
    while k < nodes.count {
      sum += weights[k] * f(mid + half * nodes[k])
      k += 1
    }
    return sum * half
  }

  /// ∫ f over the panels delimited by `breakpoints` (sorted), to absolute tolerance
  /// `tolerance` or relative tolerance `relativeTolerance` of the whole integral, whichever
  /// is larger; at most `maxEvaluations` evaluations (then the best estimate is returned).
  static func integrate(
    _ f: (Double) -> Double, breakpoints: [Double], tolerance: Double = 1e-14,
    relativeTolerance: Double = 1e-11, maxEvaluations: Int = 20_000
  ) -> Double {
    let panels = Array(zip(breakpoints, breakpoints.dropFirst())).filter { $0.1 > $0.0 }
    let coarse = panels.map { gauss(f, $0.0, $0.1) }
    let estimate = abs(coarse.reduce(0, +))
    let tol = max(tolerance, relativeTolerance * estimate)
    var budget = maxEvaluations
    var total = 0.0
    for (panel, whole) in zip(panels, coarse) {
      total += adaptive(f, panel.0, panel.1, whole, tol / Double(panels.count), 0, &budget)
    }
    return total
  }

  private static func adaptive(
    _ f: (Double) -> Double, _ a: Double, _ b: Double, _ whole: Double, _ tol: Double, _ depth: Int,
    _ budget: inout Int
  ) -> Double {
    let m = 0.5 * (a + b)
    let left = gauss(f, a, m)
    let right = gauss(f, m, b)
    budget -= 20
    if abs(left + right - whole) <= tol || depth >= 30 || budget <= 0 { return left + right }
    return adaptive(f, a, m, left, tol / 2, depth + 1, &budget)
      + adaptive(f, m, b, right, tol / 2, depth + 1, &budget)
  }
}
