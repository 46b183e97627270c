import Testing

@testable import FunnelStats

@Suite struct RandomTests {
  /// Reference outputs of xoshiro256** from the authors' C code with state {1, 2, 3, 4}.
  @Test func xoshiroMatchesTheReferenceImplementation() {
    var rng = Xoshiro256StarStar(state: (1, 2, 3, 4))
    let outputs = (0..<4).map { _ in rng.next() }
    #expect(outputs == [11520, 0, 1_509_978_240, 1_215_971_899_390_074_240])
  }

  /// Reference outputs of SplitMix64 seeded with 1234567 (Vigna's splitmix64.c).
  @Test func splitMixMatchesTheReferenceImplementation() {
    var rng = SplitMix64(state: 1_234_567)
    let outputs = (0..<3).map { _ in rng.next() }
    #expect(outputs == [6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423])
  }

  @Test func unitDoublesLieInTheHalfOpenInterval() {
    var rng = Xoshiro256StarStar(seed: 7)
    for _ in 0..<10_000 {
      let u = rng.nextUnitDouble()
      #expect(u >= 0 && u < 1)
    }
  }

  @Test(arguments: [1, 2, 3, 7, 10])
  func boundedDrawsAreUniform(bound: Int) {
    var rng = Xoshiro256StarStar(seed: 99, stream: UInt64(bound))
    var counts = [Int](repeating: 0, count: bound)
    let n = 70_000
    for _ in 0..<n { counts[Int(rng.nextBounded(UInt64(bound)))] += 1 }
    let expected = Double(n) / Double(bound)
    let chiSquare = counts.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
    // 99.9th percentile of chi-square with up to 9 degrees of freedom is 27.9.
    #expect(chiSquare < 27.9)
  }

  @Test func streamsDependOnlyOnSeedAndIndex() {
    var a = Xoshiro256StarStar(seed: 5, stream: 42)
    var b = Xoshiro256StarStar(seed: 5, stream: 42)
    var c = Xoshiro256StarStar(seed: 5, stream: 43)
    let x = a.next()
    #expect(x == b.next())
    #expect(x != c.next())
  }
}
