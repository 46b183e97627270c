import Foundation

/// Seeded percentile-bootstrap intervals for the difference and the ratio of two means,
/// from value→count maps (revenue per user takes few distinct values).
///
/// Each replicate resamples `n₁` users from the treatment's empirical distribution and `n₀`
/// from the control's (with replacement; the resampled counts of the k distinct values are a
/// multinomial draw, made as k − 1 conditional binomial draws), computes `x̄₁* − x̄₀*` and `x̄₁*/x̄₀*`, and the
/// interval is the `α/2` and `1 − α/2` quantiles of the replicates (linear interpolation
/// between order statistics, numpy's default). Efron & Tibshirani (1993), ch. 13.
///
/// Deterministic: draws come from ``Xoshiro256StarStar`` seeded with `settings.seed`, binomial
/// variates by exact inversion searched outward from the mode (Kemp 1986), replicates run
/// in order. The same seed gives the same interval on every platform.
///
/// - Complexity: O(B · k · √n) for B replicates, k distinct values and n users per arm
///   (independent of n up to the square root: a million users cost about as much as a
///   thousand times fewer draws than resampling user by user).
public enum Bootstrap {
  /// Settings with documented defaults.
  public struct Settings: Sendable, Hashable, Codable {
    /// Number of bootstrap replicates. Default 2000.
    public var replicates: Int
    /// The seed. Default 0x5EED.
    public var seed: UInt64
    /// Confidence level. Default 0.95.
    public var confidenceLevel: Double

    /// Creates settings.
    public init(replicates: Int = 2000, seed: UInt64 = 0x5EED, confidenceLevel: Double = 0.95) {
      self.replicates = replicates
      self.seed = seed
      self.confidenceLevel = confidenceLevel
    }
  }

  /// The two intervals.
  public struct Result: Sendable, Hashable, Codable {
    /// `x̄₁ − x̄₀` and its percentile interval.
    public var difference: IntervalEstimate
    /// `x̄₁ / x̄₀` and its percentile interval (`nil` with ``Diagnostic/undefinedRatio`` when
    /// the control mean is 0; replicates with a zero control mean are dropped).
    public var ratio: IntervalEstimate
    /// Replicates used for the ratio (those with a non-zero control mean).
    public var ratioReplicates: Int
    /// The settings used.
    public var settings: Settings
  }

  /// Runs the bootstrap.
  ///
  /// - Throws: ``StatsError`` for negative counts, non-finite values, empty samples, fewer
  ///   than 10 replicates or a confidence level outside (0, 1).
  public static func meanIntervals(
    treatment: [Double: Int], control: [Double: Int], settings: Settings = Settings()
  ) throws(StatsError) -> Result {
    try checkLevel(settings.confidenceLevel, field: [.name(.settings), .name(.confidenceLevel)])
    guard settings.replicates >= 10 else {
      throw StatsError(.invalidParameter, field: [.name(.settings), .name(.replicates)], message: "must be at least 10")
    }
    let t = try Sample(treatment, field: [.name(.treatment)])
    let c = try Sample(control, field: [.name(.control)])
    var rng = Xoshiro256StarStar(seed: settings.seed)
    var diffs: [Double] = []
    var ratios: [Double] = []
    diffs.reserveCapacity(settings.replicates)
    ratios.reserveCapacity(settings.replicates)
    for _ in 0..<settings.replicates {
      let mt = t.resampledMean(&rng)
      let mc = c.resampledMean(&rng)
      diffs.append(mt - mc)
      if mc != 0 { ratios.append(mt / mc) }
    }
    let alpha = 1 - settings.confidenceLevel
    let level = settings.confidenceLevel
    let observedDiff = t.mean - c.mean
    let difference = IntervalEstimate(
      estimate: observedDiff,
      interval: ConfidenceInterval(
        lower: quantile(diffs, alpha / 2), upper: quantile(diffs, 1 - alpha / 2),
        confidenceLevel: level, method: "percentile bootstrap"))
    let ratio: IntervalEstimate
    if c.mean == 0 || ratios.count < settings.replicates / 2 {
      ratio = IntervalEstimate(estimate: nil, interval: nil, diagnostic: .undefinedRatio)
    } else {
      ratio = IntervalEstimate(
        estimate: t.mean / c.mean,
        interval: ConfidenceInterval(
          lower: quantile(ratios, alpha / 2), upper: quantile(ratios, 1 - alpha / 2),
          confidenceLevel: level, method: "percentile bootstrap"))
    }
    return Result(
      difference: difference, ratio: ratio, ratioReplicates: ratios.count, settings: settings)
  }

  /// The `q` quantile with linear interpolation between order statistics (numpy "linear").
  package static func quantile(_ values: [Double], _ q: Double) -> Double {
    let sorted = values.sorted()
    guard let first = sorted.first, let last = sorted.last else { return 0 }
    let h = Double(sorted.count - 1) * q
    guard let lo = Int(rounding: h, .down) else { return h > 0 ? last : first }
    if lo >= sorted.count - 1 { return last }
    if lo < 0 { return first }
    let frac = h - Double(lo)
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo])
  }

  /// A value→count map prepared for resampling.
  private struct Sample {
    var values: [Double]
    var cumulative: [UInt64]  // cumulative counts, last = n
    var n: UInt64
    var mean: Double

    init(_ map: [Double: Int], field: StatsError.Field) throws(StatsError) {
      var values: [Double] = []
      var cumulative: [UInt64] = []
      var total: UInt64 = 0
      var sum = 0.0
      for (v, count) in map.sorted(by: { $0.key < $1.key }) {
        guard count >= 0 else {
          throw StatsError(.negativeCount, field: field.appending(.key("\(v)")), message: "count is negative (\(count))")
        }
        guard v.isFinite else {
          throw StatsError(.invalidParameter, field: field, message: "values must be finite")
        }
        if count == 0 { continue }
        let (newTotal, overflow) = total.addingReportingOverflow(UInt64(count))
        guard !overflow else {
          throw StatsError(.invalidParameter, field: field, message: "counts overflow")
        }
        total = newTotal
        sum += v * Double(count)
        values.append(v)
        cumulative.append(total)
      }
      guard total > 0 else {
        throw StatsError(.emptyArm, field: field, message: "has no observations")
      }
      self.values = values
      self.cumulative = cumulative
      self.n = total
      self.mean = sum / Double(total)
    }

    /// The mean of one bootstrap resample: the resampled counts are a multinomial draw
    /// `Multinomial(n; c₁/n, …, c_k/n)`, drawn as successive conditional binomials.
    func resampledMean(_ rng: inout Xoshiro256StarStar) -> Double {
      var remainingDraws = Double(n)
      var remainingCount = Double(n)
      var sum = 0.0
      var previous: UInt64 = 0
      for (index, v) in values.enumerated() {
        let count = Double(cumulative[index] - previous)
        previous = cumulative[index]
        let drawn: Double
        if index == values.count - 1 {
          drawn = remainingDraws
        } else {
          drawn = Double(BinomialSampler.sample(trials: UInt64(remainingDraws), probability: count / remainingCount, using: &rng))
        }
        sum += v * drawn
        remainingDraws -= drawn
        remainingCount -= count
        if remainingDraws <= 0 { break }
      }
      return sum / Double(n)
    }
  }
}
