package import FunnelStats

/// The tolerance of a statistical test that makes many comparisons of simulated
/// values with exact ones: a band of ±`z` standard errors, with `z` set by the
/// number of comparisons so that the whole test fails by chance with probability
/// at most `familyFalseAlarm` (Bonferroni):
///
/// ```
/// z = Φ⁻¹(1 − α / (2n))      n comparisons, α the family's false-alarm rate
/// ```
///
/// Each comparison is two-sided and, under the null (the simulation is unbiased),
/// approximately normal, so it falls outside ±z with probability `α / n`; by the
/// union bound (no independence needed) at most `α` for the `n` together. With
/// α = 0.001: `n = 1` gives z ≈ 3.29, `n = 20` z ≈ 4.06, `n = 300` z ≈ 4.65, where
/// a fixed 3 SE would fail 300 unbiased comparisons with probability about 0.55.
///
/// Count `n` honestly: every comparison the test function makes through the band,
/// over all of its arguments (a parameterised test is one family).
///
/// The band stays narrow enough to catch a real bias: it grows only like
/// `√(2 ln(2n/α))`, so a bias of 6 SE still fails at n = 10⁴.
///
/// - Complexity: O(1) per comparison.
package struct StatisticalBand: Sendable, Hashable {
  /// The number of comparisons the band is shared by.
  package let checks: Int
  /// The probability that at least one of the `checks` unbiased comparisons falls outside by chance.
  package let familyFalseAlarm: Double
  /// The half-width in standard errors, `Φ⁻¹(1 − familyFalseAlarm / (2·checks))`.
  package let z: Double

  /// The band for `checks` comparisons (at least 1) whose family fails by chance with probability
  /// `familyFalseAlarm` (default 0.001, in (0, 1)).
  package init(checks: Int, familyFalseAlarm: Double = 0.001) {
    precondition(checks >= 1, "a band needs at least one comparison")
    precondition(familyFalseAlarm > 0 && familyFalseAlarm < 1, "the family false-alarm rate is a probability in (0, 1)")
    self.checks = checks
    self.familyFalseAlarm = familyFalseAlarm
    z = Normal.standard.isf(familyFalseAlarm / (2 * Double(checks)))
  }

  /// The false-alarm rate each comparison is allowed, `familyFalseAlarm / checks`: the level for a
  /// check that is not a z-band (a χ² variance test takes `perCheckFalseAlarm / 2` in each tail).
  package var perCheckFalseAlarm: Double { familyFalseAlarm / Double(checks) }

  /// `|estimate − exact| ≤ z · standardError`: the pure predicate every check uses.
  package func contains(_ estimate: Double, exact: Double, standardError: Double) -> Bool {
    abs(estimate - exact) <= z * standardError
  }

  /// The comparison of a simulated proportion `successes / trials` with the exact `p`: the standard error
  /// is the exact one, `√(p(1 − p)/trials)`, floored at `1/trials` (so an exact 0 or 1 allows one count).
  package func proportion(_ successes: UInt64, of trials: UInt64, exact p: Double) -> Comparison {
    let n = Double(max(trials, 1))
    let se = max(p * (1 - p) / n, 0).squareRoot()
    return comparison(Double(successes) / n, exact: p, standardError: max(se, 1 / n))
  }

  /// The comparison of a sample mean with the exact mean: the standard error is the sample's own,
  /// `s/√n`, floored at 1e-12 (a constant sample must match to rounding).
  package func mean(_ statistic: SampleMeanStatistic, exact: Double) -> Comparison {
    let se = ((statistic.variance ?? 0) / Double(max(statistic.n, 1))).squareRoot()
    return comparison(statistic.mean ?? 0, exact: exact, standardError: max(se, 1e-12))
  }

  /// The comparison of any approximately normal estimate with its expected value.
  package func comparison(_ estimate: Double, exact: Double, standardError: Double) -> Comparison {
    Comparison(
      estimate: estimate, exact: exact, standardError: standardError,
      passed: contains(estimate, exact: exact, standardError: standardError), z: z, checks: checks)
  }

  /// One comparison's numbers and verdict, with a description for a failure message.
  package struct Comparison: Sendable, Hashable, CustomStringConvertible {
    /// The simulated value.
    package let estimate: Double
    /// The value it should estimate.
    package let exact: Double
    /// The estimate's standard error.
    package let standardError: Double
    /// Whether the estimate lies within the band.
    package let passed: Bool
    /// The band's half-width in standard errors.
    package let z: Double
    /// The number of comparisons the band was set for.
    package let checks: Int

    /// How far off the estimate is, in standard errors.
    package var deviation: Double { abs(estimate - exact) / standardError }

    /// `simulated …, exact …, SE …: 1.23 SE (band ±4.65 SE for 300 checks)`.
    package var description: String {
      "simulated \(estimate), exact \(exact), SE \(standardError): \(Self.two(deviation)) SE "
        + "(band ±\(Self.two(z)) SE for \(checks) checks)"
    }

    private static func two(_ x: Double) -> String {
      guard x.isFinite else { return "\(x)" }
      return "\((x * 100).rounded() / 100)"
    }
  }
}
