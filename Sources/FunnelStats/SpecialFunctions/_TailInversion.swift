import Foundation

/// Inverts a monotone tail probability by safeguarded Newton steps on its logarithm.
///
/// Solves `tail(x) = target` on `[lowerBound, upperBound]`, where `tail` is increasing
/// (a lower tail, `F`) or decreasing (an upper tail, `1 − F`) and `density` is `|tail′|`.
/// The Newton step on `log tail(x) − log target` is `−(log tail − log target) · tail / density`;
/// a step that leaves the current bracket is replaced by bisection (geometric when the
/// bracket spans orders of magnitude). Stops when the step is below 2 ulp of `x`.
///
/// - Complexity: typically 3–10 evaluations of `tail`, at most 400.
internal enum _TailInversion {
  static func solve(
    target: Double,
    increasing: Bool,
    lowerBound: Double,
    upperBound: Double,
    start: Double,
    tail: (Double) -> Double,
    density: (Double) -> Double
  ) -> Double {
    var lo = lowerBound
    var hi = upperBound
    var x = min(max(start, lo), hi)
    if !(x > lo && x < hi) {
      x = hi.isFinite ? (lo.isFinite ? 0.5 * (lo + hi) : min(hi - 1, -1)) : (lo.isFinite ? lo + 1 : 0)
    }
    let logTarget = log(target)
    for _ in 0..<400 {
      let f = tail(x)
      if f == target { return x }
      // Is x below the root?
      let below = increasing ? (f < target) : (f > target)
      if below { lo = x } else { hi = x }
      var next = Double.nan
      let dens = density(x)
      if f > 0 && dens > 0 && f.isFinite && dens.isFinite {
        let step = (log(f) - logTarget) * f / dens
        next = increasing ? x - step : x + step
      }
      if !(next > lo && next < hi) || next.isNaN {
        // Bisection fallback.
        if lo.isFinite && hi.isFinite {
          if lo == 0 && hi > 0 {
            next = hi / 8
          } else if lo > 0 && hi / lo > 8 {
            next = sqrt(lo) * sqrt(hi)
          } else if hi < 0 && lo / hi > 8 {
            next = -sqrt(-lo) * sqrt(-hi)
          } else {
            next = 0.5 * (lo + hi)
          }
        } else if hi.isFinite {
          next = hi > 0 ? -1 : 2 * hi - 1
        } else {
          next = lo > 0 ? 2 * lo + 1 : (lo.isFinite ? lo + abs(lo) + 1 : x + abs(x) + 1)
        }
      }
      if abs(next - x) <= 2 * x.ulp || next == x { return next }
      if lo.isFinite && hi.isFinite && (hi - lo) <= 2 * max(abs(lo), abs(hi)).ulp { return next }
      x = next
    }
    return x
  }
}
