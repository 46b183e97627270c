import Foundation

/// Finds the root of a monotone function by bracketing and bisection to full precision.
///
/// - Complexity: at most ~2100 evaluations (doubling to bracket, then bisection on the
///   double line, geometric while the bracket spans orders of magnitude).
internal enum _MonotoneRoot {
  /// Solves `f(x) = 0` for `x` in `(lower, upper)`, `f` increasing or decreasing.
  /// Returns `nil` when no sign change exists in the range.
  static func solve(
    lower: Double, upper: Double, start: Double? = nil, _ f: (Double) -> Double
  ) -> Double? {
    var lo = lower
    var hi = upper
    var flo = f(lo)
    var fhi = f(hi)
    if flo == 0 { return lo }
    if fhi == 0 { return hi }
    guard flo.sign != fhi.sign, !flo.isNaN, !fhi.isNaN else { return nil }
    for _ in 0..<2100 {
      let mid: Double
      if lo > 0 && hi / lo > 4 {
        mid = (lo * hi).squareRoot()
      } else {
        mid = lo + (hi - lo) / 2
      }
      if mid <= lo || mid >= hi { break }
      let fm = f(mid)
      if fm == 0 { return mid }
      if fm.sign == flo.sign {
        lo = mid
        flo = fm
      } else {
        hi = mid
        fhi = fm
      }
    }
    return abs(flo) <= abs(fhi) ? lo : hi
  }
}
