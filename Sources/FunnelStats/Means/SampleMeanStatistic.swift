/// Sufficient statistics of a numeric sample: count, sum and sum of squares.
///
/// Mergeable: `a + b` is the statistic of the union of the samples, so shards and threads
/// combine by addition (associative and commutative up to floating-point rounding; merge in
/// a fixed order for bit-identical results). GrowthBook's gbstats uses the same triple.
///
/// ```
/// mean = sum / n,   variance = (sumOfSquares − sum²/n) / (n − 1)   (sample variance)
/// ```
/// The one-pass variance loses relative precision when `mean² ≫ variance` (about
/// `mean²/variance · 1e-16`); revenue per user, with many zeros, is far from that regime.
///
/// - Complexity: every member O(1).
public struct SampleMeanStatistic: Sendable, Hashable, Codable {
  /// Number of observations.
  public var n: Int
  /// Σ xᵢ.
  public var sum: Double
  /// Σ xᵢ².
  public var sumOfSquares: Double

  /// Creates the statistic from its three parts.
  public init(n: Int, sum: Double, sumOfSquares: Double) {
    self.n = n
    self.sum = sum
    self.sumOfSquares = sumOfSquares
  }

  /// The statistic of an explicit sample.
  public init(values: some Sequence<Double>) {
    var n = 0
    var s = 0.0
    var s2 = 0.0
    for v in values {
      n += 1
      s += v
      s2 += v * v
    }
    self.init(n: n, sum: s, sumOfSquares: s2)
  }

  /// The statistic of a value→count map (e.g. revenue per user: `[0: 9500, 4.99: 400, …]`),
  /// summed in increasing value order so the result does not depend on dictionary order.
  public init(counts: [Double: Int]) {
    var n = 0
    var s = 0.0
    var s2 = 0.0
    for (v, c) in counts.sorted(by: { $0.key < $1.key }) {
      n += c
      s += v * Double(c)
      s2 += v * v * Double(c)
    }
    self.init(n: n, sum: s, sumOfSquares: s2)
  }

  /// Adds one observation.
  public mutating func add(_ x: Double) {
    n += 1
    sum += x
    sumOfSquares += x * x
  }

  /// The empty statistic.
  public static let zero = SampleMeanStatistic(n: 0, sum: 0, sumOfSquares: 0)

  /// The statistic of the union of two samples.
  public static func + (lhs: SampleMeanStatistic, rhs: SampleMeanStatistic) -> SampleMeanStatistic {
    SampleMeanStatistic(
      n: lhs.n &+ rhs.n, sum: lhs.sum + rhs.sum, sumOfSquares: lhs.sumOfSquares + rhs.sumOfSquares)
  }

  /// The sample mean, `nil` when `n = 0`.
  public var mean: Double? { n > 0 ? sum / Double(n) : nil }

  /// The sample variance (denominator n − 1), `nil` when `n < 2`; clamped at 0 against
  /// rounding.
  public var variance: Double? {
    guard n >= 2 else { return nil }
    let nn = Double(n)
    return max(0, (sumOfSquares - sum * sum / nn) / (nn - 1))
  }

  /// Validates the statistic: `0 ≤ n ≤` ``StatsLimits/maxCount``, finite sums within
  /// ``StatsLimits/maxRevenueSum`` and ``StatsLimits/maxRevenueSumOfSquares``, and the
  /// sums of a real sample: `Σx² ≥ (Σx)²/n` (Cauchy–Schwarz, to the relative tolerance
  /// ``StatsLimits/varianceTolerance``), both 0 when `n = 0`.
  internal func validate(field: StatsError.Field) throws(StatsError) {
    guard n >= 0 else {
      throw StatsError(.negativeCount, field: field.appending(.name(.n)), message: "is negative (\(n))")
    }
    guard n <= StatsLimits.maxCount else {
      throw StatsError(.invalidParameter, field: field.appending(.name(.n)), message: "\(n) is above the limit of \(StatsLimits.maxCount)")
    }
    guard sum.isFinite, sumOfSquares.isFinite, sumOfSquares >= 0 else {
      throw StatsError(
        .invalidParameter, field: field, message: "sum and sumOfSquares must be finite, sumOfSquares ≥ 0")
    }
    guard abs(sum) <= StatsLimits.maxRevenueSum, sumOfSquares <= StatsLimits.maxRevenueSumOfSquares else {
      throw StatsError(
        .invalidParameter, field: field,
        message: "|sum| must be at most 1e30 and sumOfSquares at most 1e60, got \(sum) and \(sumOfSquares)")
    }
    guard n > 0 || (sum == 0 && sumOfSquares == 0) else {
      throw StatsError(
        .invalidParameter, field: field.appending(.name(.sumOfSquares)),
        message: "sums of an empty sample must be 0, got \(sum) and \(sumOfSquares)")
    }
    let floor = n == 0 ? 0 : sum * sum / Double(n)
    guard sumOfSquares >= floor * (1 - StatsLimits.varianceTolerance) else {
      throw StatsError(
        .invalidParameter, field: field.appending(.name(.sumOfSquares)),
        message: "\(sumOfSquares) is below sum²/n = \(floor): no sample of \(n) values has these sums",
        hint: "check that the sum of squares is Σx², not the variance, and that n, sum and sumOfSquares cover the same users")
    }
  }
}
