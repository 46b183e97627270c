import Foundation
import FunnelStats

/// The users per arm at which a design's simulated power reaches the target, with the
/// Monte Carlo precision of that size.
package struct SimulatedSampleSize: Sendable, Hashable {
  /// Where the target power lies among the sizes searched.
  package enum Position: String, Sendable, Hashable {
    /// Reached between the smallest and the largest size searched.
    case found
    /// Already reached at the smallest size searched (``SampleSizeSearch/span``'s lower end).
    case belowSearchedSizes
    /// Not reached at the largest size searched.
    case aboveSearchedSizes
  }

  /// Whether the target was crossed inside the searched sizes, or lies below or above them.
  package var position: Position
  /// The smallest users per arm at which the simulated power curve reaches the target
  /// (for ``Position/found``); otherwise the end of the searched range.
  package var usersPerArm: Int
  /// The Monte Carlo standard error of ``usersPerArm``: the standard error of simulated
  /// power there, `√(P(1−P)/R)`, over the slope of the power curve (`nil` unless found).
  package var standardError: Double?
  /// Replicate experiments behind every point of the power curve.
  package var replicates: Int
}

/// A monotone root search for the sample size at which simulated power reaches a target,
/// with common random numbers across candidate sizes.
///
/// Replicate `r` draws two standard normal deviates `z₀, z₁` once, from its own stream of
/// the seed. At every candidate size `n` its arms' conversions are the binomial quantiles
/// at those deviates, `xₐ(n) = F⁻¹_{Bin(n, pₐ)}(Φ(zₐ))` (``FunnelStats/Binomial/quantile(normalDeviate:)``):
/// each is an exact `Binomial(n, pₐ)` draw (up to the quantile's documented ±1 count),
/// and the same replicate at a larger `n` is the same experiment with more users, so its
/// pooled z statistic grows like `√n·Δ/σ + (a fixed term)`. Simulated power is therefore
/// (all but exactly) monotone in `n` for one seed, and smooth: the search reads it on a
/// fine geometric ladder of sizes (``sizesPerSearch`` sizes from ½× to 2× the formula's,
/// 3.5 % apart), takes its running maximum, and interpolates the first crossing of the
/// target linearly in `log n` (the interpolation error is below 10⁻⁴ in power).
///
/// The tallies are integers per size, so shards of replicates merge exactly; the root is
/// found from the merged tallies.
package enum SampleSizeSearch {
  /// Sizes read on the power curve.
  package static let sizesPerSearch = 41
  /// The searched sizes as multiples of the formula's size.
  package static let span = (lower: 0.5, upper: 2.0)

  /// The geometric ladder of sizes searched around the formula's size `analytic`.
  package static func sizes(around analytic: Int) -> [Int] {
    let ratio = span.upper / span.lower
    return (0..<sizesPerSearch).map { j in
      max(2, Int(rounding: Double(analytic) * span.lower * pow(ratio, Double(j) / Double(sizesPerSearch - 1))) ?? analytic)
    }
  }

  /// Significant replicates at every size of a search (`+` merges disjoint replicate ranges).
  package struct Counts: Sendable, Hashable {
    /// Replicates tallied (each read at every size).
    package var replicates = 0
    /// Per size, the replicates whose pooled z-test is significant at α (either direction).
    package var significant: [Int]

    /// No replicates yet, for a search over `sizes` sizes.
    package init(sizes: Int) { significant = Array(repeating: 0, count: sizes) }

    /// Adds the tallies size by size; both must come from the same ladder of sizes (a shorter list truncates).
    package static func + (a: Counts, b: Counts) -> Counts {
      var r = a
      r.replicates += b.replicates
      r.significant = zip(a.significant, b.significant).map { $0 + $1 }
      return r
    }
  }

  /// Tallies replicates `range` at every size of `sizes`.
  /// - Complexity: O(replicates × sizes), each two closed-form quantiles and one z-test.
  package static func tally(
    controlRate p0: Double, variantRate p1: Double, sizes: [Int], replicates range: Range<Int>, alpha: Double, seed: UInt64
  ) -> Counts {
    var counts = Counts(sizes: sizes.count)
    let arms = sizes.map { (Binomial(trials: $0, probability: p0), Binomial(trials: $0, probability: p1)) }
    for r in range {
      var rng = Xoshiro256StarStar(seed: seed, stream: UInt64(r))
      let z0 = deviate(&rng)
      let z1 = deviate(&rng)
      counts.replicates += 1
      for (j, (b0, b1)) in arms.enumerated() {
        let n = b0.trials
        guard let c = try? ProportionCount(successes: b0.quantile(normalDeviate: z0), trials: n),
          let t = try? ProportionCount(successes: b1.quantile(normalDeviate: z1), trials: n),
          let test = try? TwoProportionZTest.test(treatment: t, control: c), test.pValue < alpha
        else { continue }
        counts.significant[j] += 1
      }
    }
    return counts
  }

  /// A standard normal deviate from the top 53 bits of one draw (never ±∞).
  static func deviate(_ rng: inout Xoshiro256StarStar) -> Double {
    let u = (Double(rng.next() >> 11) + 0.5) * 0x1p-53
    return Normal.standardQuantile(p: u, q: 1 - u)
  }

  /// The smallest size at which the running maximum of simulated power reaches `target`,
  /// interpolated between the two sizes around the crossing; `nil` without replicates.
  package static func solve(_ counts: Counts, sizes: [Int], target: Double) -> SimulatedSampleSize? {
    guard counts.replicates > 0, !sizes.isEmpty, sizes.count == counts.significant.count else { return nil }
    let runs = Double(counts.replicates)
    var envelope: [Double] = []
    for s in counts.significant { envelope.append(max(envelope.last ?? 0, Double(s) / runs)) }
    guard let j = envelope.firstIndex(where: { $0 >= target }) else {
      return SimulatedSampleSize(
        position: .aboveSearchedSizes, usersPerArm: sizes[sizes.count - 1], standardError: nil, replicates: counts.replicates)
    }
    guard j > 0 else {
      return SimulatedSampleSize(position: .belowSearchedSizes, usersPerArm: sizes[0], standardError: nil, replicates: counts.replicates)
    }
    let (n0, n1) = (Double(sizes[j - 1]), Double(sizes[j]))
    let (p0, p1) = (envelope[j - 1], envelope[j])
    let t = (target - p0) / (p1 - p0)
    let n = exp(log(n0) + t * (log(n1) - log(n0))).rounded(.up)
    let slope = (p1 - p0) / (n1 - n0)
    let standardError = (target * (1 - target) / runs).squareRoot() / slope
    return SimulatedSampleSize(position: .found, usersPerArm: Int(n), standardError: standardError, replicates: counts.replicates)
  }
}
