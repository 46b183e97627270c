import Foundation

/// Fisher's exact test for a 2×2 table `[[a, b], [c, d]]`, as scipy `fisher_exact`.
///
/// Conditioning on the margins, `a ~ Hypergeometric(M = a+b+c+d, K = a+b, N = a+c)`.
/// `less`: `P(X ≤ a)`; `greater`: `P(X ≥ a)`; `two-sided`: the probability of all tables at
/// most as likely as the observed one (pmf ≤ pmf(a)·(1 + 1e-14)), located by binary search on
/// the far side of the mode exactly as scipy does. Exact at any sample size; conservative.
///
/// - Complexity: O(number of tail terms) ≤ O(min(a+b, a+c)).
public enum FisherExactTest {
  /// The result: sample odds ratio `ad / bc` (`nil` when `bc = 0`) and the test, whose
  /// statistic is the observed count `a`.
  public struct Result: Sendable, Hashable, Codable {
    /// The sample odds ratio `ad/(bc)`; `nil` when infinite or undefined.
    public var oddsRatio: Double?
    /// The test.
    public var test: TestResult
  }

  /// Runs the test on `[[a, b], [c, d]]`.
  ///
  /// - Throws: ``StatsError`` for negative counts.
  public static func test(a: Int, b: Int, c: Int, d: Int, alternative: Alternative = .twoSided)
    throws(StatsError) -> Result
  {
    for (name, v) in [(StatsError.Field.Name.a, a), (.b, b), (.c, c), (.d, d)] where v < 0 {
      throw StatsError(.negativeCount, field: [.name(.table), .name(name)], message: "is negative (\(v))")
    }
    guard a <= 1 << 40, b <= 1 << 40, c <= 1 << 40, d <= 1 << 40 else {
      throw StatsError(
        .invalidParameter, field: [.name(.table)], message: "counts above 2⁴⁰ are too large for an exact test",
        hint: "use the chi-square test")
    }
    let method = "Fisher's exact test"
    let oddsRatio: Double? =
      (b > 0 && c > 0) ? Double(a) * Double(d) / (Double(b) * Double(c)) : nil
    if a + b == 0 || c + d == 0 || a + c == 0 || b + d == 0 {
      return Result(
        oddsRatio: nil,
        test: TestResult(statistic: Double(a), pValue: 1, alternative: alternative, method: method))
    }
    let n1 = a + b
    let n2 = c + d
    let n = a + c
    let dist = Hypergeometric(population: n1 + n2, successes: n1, draws: n)
    var p: Double
    switch alternative {
    case .less:
      p = dist.cdf(a)
    case .greater:
      p = Hypergeometric(population: n1 + n2, successes: n1, draws: b + d).cdf(b)
    case .twoSided:
      let mode = Int(rounding: (Double(n + 1) * Double(n1 + 1)) / Double(n1 + n2 + 2), .towardZero) ?? 0
      let pExact = dist.pmf(a)
      let pMode = dist.pmf(mode)
      let epsilon = 1e-14
      let gamma = 1 + epsilon
      if abs(pExact - pMode) / max(pExact, pMode) <= epsilon {
        p = 1
      } else if a < mode {
        let lower = dist.cdf(a)
        if dist.pmf(n) > pExact * gamma {
          p = lower
        } else {
          let guess = binarySearch({ -dist.pmf($0) }, -pExact * gamma, mode, n)
          p = lower + dist.sf(guess)
        }
      } else {
        let upper = dist.sf(a - 1)
        if dist.pmf(0) > pExact * gamma {
          p = upper
        } else {
          let guess = binarySearch({ dist.pmf($0) }, pExact * gamma, 0, mode)
          p = upper + dist.cdf(guess)
        }
      }
    }
    p = min(p, 1)
    return Result(
      oddsRatio: oddsRatio,
      test: TestResult(
        statistic: Double(a), pValue: p, alternative: alternative, method: method))
  }

  /// scipy's `_binary_search_for_binom_tst`: the index `i` in `lo…hi` with
  /// `f(i) ≤ d < f(i+1)`, for `f` ascending on the range.
  private static func binarySearch(_ f: (Int) -> Double, _ d: Double, _ lo: Int, _ hi: Int) -> Int {
    var lo = lo
    var hi = hi
    while lo < hi {
      let mid = lo + (hi - lo) / 2
      let v = f(mid)
      if v < d {
        lo = mid + 1
      } else if v > d {
        hi = mid - 1
      } else {
        return mid
      }
    }
    return f(lo) <= d ? lo : lo - 1
  }
}
