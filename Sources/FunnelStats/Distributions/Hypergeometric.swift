import Foundation

/// The hypergeometric distribution: the number of successes in `draws` draws without
/// replacement from a population of `population` items of which `successes` are successes
/// (scipy's `hypergeom(M=population, n=successes, N=draws)`).
///
/// ```
/// pmf(k) = C(K, k) C(M−K, N−k) / C(M, N)
///        = b(k; K, N/M) · b(N−k; M−K, N/M) / b(N; M, N/M)   (Loader's binomial terms)
/// ```
/// The cdf and sf sum pmf terms by their ratio recurrence, over the tail on the far side of
/// the mean, so both tails are computed directly.
///
/// - Complexity: pmf O(1); cdf/sf O(number of terms until they vanish), at most O(min(K, N)).
public struct Hypergeometric: Sendable, Hashable {
  /// Population size M ≥ 0.
  public var population: Int
  /// Successes in the population, 0 ≤ K ≤ M.
  public var successes: Int
  /// Number of draws, 0 ≤ N ≤ M.
  public var draws: Int

  /// Creates the distribution; invalid parameters make every member return `.nan`.
  public init(population: Int, successes: Int, draws: Int) {
    self.population = population
    self.successes = successes
    self.draws = draws
  }

  private var valid: Bool {
    population >= 0 && successes >= 0 && successes <= population && draws >= 0
      && draws <= population
  }

  /// The smallest value with positive probability, `max(0, N − (M − K))`.
  public var lowerSupport: Int { max(0, draws - (population - successes)) }
  /// The largest value with positive probability, `min(K, N)`.
  public var upperSupport: Int { min(successes, draws) }

  /// `P(X = k)`.
  public func pmf(_ k: Int) -> Double {
    guard valid else { return .nan }
    if k < lowerSupport || k > upperSupport { return 0 }
    if draws == 0 || draws == population { return 1 }
    let m = Double(population)
    let p = Double(draws) / m
    let q = Double(population - draws) / m
    let p1 = Binomial.rawPMF(k: Double(k), n: Double(successes), p: p, q: q)
    let p2 = Binomial.rawPMF(
      k: Double(draws - k), n: Double(population - successes), p: p, q: q)
    let p3 = Binomial.rawPMF(k: Double(draws), n: m, p: p, q: q)
    return p1 * p2 / p3
  }

  /// `(P(X ≤ k), P(X > k))`, the tail away from the mean summed directly.
  internal func cdfAndSF(_ k: Int) -> (cdf: Double, sf: Double) {
    guard valid else { return (.nan, .nan) }
    let lo = lowerSupport
    let hi = upperSupport
    if k < lo { return (0, 1) }
    if k >= hi { return (1, 0) }
    let bigM = Double(population)
    let bigK = Double(successes)
    let bigN = Double(draws)
    let mean = bigN * bigK / bigM
    if Double(k) < mean {
      var term = pmf(k)
      var sum = term
      var j = k
      while j > lo {
        let jd = Double(j)
        term *= jd * (bigM - bigK - bigN + jd) / ((bigK - jd + 1) * (bigN - jd + 1))
        sum += term
        if term < sum * 1e-18 { break }
        j -= 1
      }
      return (min(sum, 1), max(0, 1 - sum))
    } else {
      var term = pmf(k + 1)
      var sum = term
      var j = k + 1
      while j < hi {
        let jd = Double(j)
        term *= (bigK - jd) * (bigN - jd) / ((jd + 1) * (bigM - bigK - bigN + jd + 1))
        sum += term
        if term < sum * 1e-18 { break }
        j += 1
      }
      return (max(0, 1 - sum), min(sum, 1))
    }
  }

  /// `P(X ≤ k)`.
  public func cdf(_ k: Int) -> Double { cdfAndSF(k).cdf }

  /// `P(X > k)`, computed directly.
  public func sf(_ k: Int) -> Double { cdfAndSF(k).sf }
}
