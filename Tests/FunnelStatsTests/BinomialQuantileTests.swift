import Foundation
import Testing

@testable import FunnelStats

@Suite struct BinomialQuantileTests {
  /// Against scipy `binom.ppf(Φ(z), n, p)`: exact inversion below the Cornish–Fisher
  /// threshold; above it, never more than one count off and at least 99 % exact.
  @Test func quantileAtANormalDeviateMatchesScipy() throws {
    let cases = try Fixtures.cases("binomial_quantile.json", prefix: "binomial.quantile")
    #expect(cases.count > 2_000)
    var expansion = 0
    var expansionExact = 0
    for c in cases {
      let b = Binomial(trials: c.int(0), probability: c.arg(1))
      let got = b.quantile(normalDeviate: c.arg(2))
      let expected = Int(c.value)
      if Double(b.trials) * b.probability * (1 - b.probability) < Binomial.cornishFisherVariance {
        #expect(got == expected, "\(c.testDescription): got \(got)")
      } else {
        expansion += 1
        if got == expected { expansionExact += 1 }
        #expect(abs(got - expected) <= 1, "\(c.testDescription): got \(got)")
      }
    }
    #expect(expansion > 500)
    #expect(Double(expansionExact) >= 0.99 * Double(expansion), "\(expansionExact) of \(expansion) exact")
  }

  /// A fixed deviate gives counts that grow with n (the coupling the size search relies on).
  @Test func quantileGrowsWithTheTrials() {
    for z in [-2.5, -0.3, 0, 0.7, 3] {
      var last = -1
      for n in stride(from: 500, through: 200_000, by: 997) {
        let k = Binomial(trials: n, probability: 0.04).quantile(normalDeviate: z)
        #expect(k >= last, "z \(z) n \(n)")
        last = k
      }
    }
  }
}
