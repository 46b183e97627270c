/// The bounds FunnelStats puts on the numbers it is given. Every input beyond them is
/// refused with a ``StatsError`` naming the field and the bound, before any arithmetic
/// that could overflow, lose exactness or run out of memory.
///
/// | bound | value | why |
/// |---|---|---|
/// | ``maxCount`` | 10¹⁵ | counts stay exact as `Double` (< 2⁵³ ≈ 9.0·10¹⁵), and so do sums of a few |
/// | ``maxArms`` | 1000 | arms of one analysis (SRM and best-arm sums stay exact) |
/// | ``maxSampleSize`` | 10¹² | a power solve needing more users per arm has no practical answer; sizes fit `Int` |
/// | ``maxRevenueSum`` | 10³⁰ | `(Σx)²` and `n·Σx²` stay finite (≤ 10⁷⁵) |
/// | ``maxRevenueSumOfSquares`` | 10⁶⁰ | as above |
/// | ``varianceTolerance`` | 10⁻⁹ | relative slack of `Σx² ≥ (Σx)²/n` for sums rounded by their producer |
public enum StatsLimits {
  /// The largest count accepted: users, conversions, trials, the count of a value in a
  /// value→count map. 10¹⁵ is far below 2⁵³, so every count, and the sum of up to nine
  /// of them, is exact as a `Double`.
  public static let maxCount = 1_000_000_000_000_000

  /// The most arms one ``ExperimentAnalysis`` takes.
  public static let maxArms = 1_000

  /// The largest sample size (users per arm) a power solve returns; beyond it the
  /// solve throws: the effect is too small to detect with any realistic experiment,
  /// and `ceil(n₁) + ceil(n₀)` always fits an `Int`.
  public static let maxSampleSize = 1e12

  /// The largest `|Σx|` of a revenue statistic.
  public static let maxRevenueSum = 1e30

  /// The largest `Σx²` of a revenue statistic.
  public static let maxRevenueSumOfSquares = 1e60

  /// Relative tolerance of the feasibility check `Σx² ≥ (Σx)²/n` (Cauchy–Schwarz):
  /// sums computed in floating point may undershoot by a few ulps.
  public static let varianceTolerance = 1e-9
}

extension BinaryInteger {
  /// `x` rounded by `rule` when the result is finite and fits this type; `nil`
  /// otherwise (NaN, ±∞, or out of range).
  ///
  /// The one conversion from `Double` to an integer type in FunnelLab: the standard
  /// `Int(_: Double)` traps on what does not fit, so user data never goes through it.
  ///
  /// ```swift
  /// Int(rounding: 2.5)              // 3
  /// Int(rounding: 2.1, .up)         // 3
  /// Int(rounding: 1e300)            // nil
  /// UInt64(rounding: -1)            // nil
  /// ```
  @inlinable
  public init?(rounding x: Double, _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
    self.init(exactly: x.rounded(rule))
  }
}
