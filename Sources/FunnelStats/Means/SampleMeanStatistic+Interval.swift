import Foundation

extension SampleMeanStatistic {
  /// The Student-t interval of the mean, as scipy
  /// `t.interval(level, n − 1, loc=x̄, scale=s/√n)`:
  ///
  /// ```
  /// x̄ ± t_{n−1, 1−α/2} · s / √n
  /// ```
  /// Assumes independent observations; by the CLT robust to skew once n is a few hundred.
  ///
  /// - Returns: `nil` when `n < 2` (the variance is undefined).
  /// - Throws: ``StatsError`` for an invalid statistic or a level outside (0, 1).
  /// - Complexity: O(1) plus one t quantile.
  public func studentTInterval(confidenceLevel: Double = 0.95) throws(StatsError) -> ConfidenceInterval? {
    try validate(field: [.name(.statistic)])
    try checkLevel(confidenceLevel)
    guard let mean, let variance else { return nil }
    let alpha = 1 - confidenceLevel
    let t = StudentT(degreesOfFreedom: Double(n - 1)).quantile(p: 1 - alpha / 2, q: alpha / 2)
    let half = t * (variance / Double(n)).squareRoot()
    return ConfidenceInterval(
      lower: mean - half, upper: mean + half, confidenceLevel: confidenceLevel, method: "Student t interval")
  }
}
