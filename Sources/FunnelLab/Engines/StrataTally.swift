package import FunnelStats

/// The per-user value of a metric whose denominator is every user: what covariate
/// adjustment and results by segment regress on.
package enum PerUserValue: Sendable, Hashable {
  /// 1 when the user has the outcome, else 0.
  case outcome(PairedTallies.Outcome)
  /// The user's revenue, in cents.
  case revenueCents
  /// The user's realized revenue (before the analysis day), in cents.
  case realizedCents

  /// The value of `metric` per user; `nil` for a metric over a subset of users (viewers,
  /// payers, trials, completers), which is a ratio, not a mean over users.
  package init?(_ metric: FunnelMetric) {
    if let outcome = PairedTallies.Outcome.allCases.first(where: { $0.metric == metric }) {
      self = .outcome(outcome)
    } else if metric == .revenuePerUser {
      self = .revenueCents
    } else if metric == .realizedRevenuePerUser {
      self = .realizedCents
    } else {
      return nil
    }
  }

  /// The unit the tallies count in per unit of the metric (100 cents per currency unit).
  package var scale: Double {
    switch self {
    case .outcome: 1
    case .revenueCents, .realizedCents: 100
    }
  }

  @inline(__always)
  func value(of outcome: UserOutcome) -> Int64 {
    switch self {
    case .outcome(let o): outcome.flags & o.bit != 0 ? 1 : 0
    case .revenueCents: outcome.revenueCents
    case .realizedCents: outcome.realizedCents
    }
  }
}

/// One arm's users by stratum: per stratum, the exact integer power sums `Σ xᵃyᵇ` of
/// ``StratumSums/monomials`` over the users' pre-period covariate `x` (0 without one)
/// and per-user value `y`. Integers only, so threads and shards merge in any order to
/// the same bytes.
package struct StrataTally: Sendable, Hashable {
  /// Per stratum, the sums in the order of ``StratumSums/monomials``.
  package var sums: [[Int128]]

  /// Zero sums for `strata` strata.
  package init(strata: Int) { sums = Array(repeating: Array(repeating: 0, count: StratumSums.monomials.count), count: strata) }

  /// The sums of `strata` strata read from a recorder's raw buffer (stratum by stratum, in the order of ``StratumSums/monomials``).
  init(strata: Int, reading buffer: UnsafeMutableBufferPointer<Int128>) {
    let stride = StratumSums.monomials.count
    sums = (0..<strata).map { s in (0..<stride).map { buffer[s * stride + $0] } }
  }

  /// Users per stratum.
  package var users: [Int128] { sums.map { $0[0] } }

  /// Both tallies' users together.
  package static func + (lhs: StrataTally, rhs: StrataTally) -> StrataTally {
    var total = lhs
    for s in total.sums.indices { for k in total.sums[s].indices { total.sums[s][k] &+= rhs.sums[s][k] } }
    return total
  }

  /// The sums as FunnelStats reads them, per stratum: measured from the stratum's mean
  /// covariate rounded to a whole number (shifted exactly, in integers, then converted),
  /// and `y` divided by `scale` (cents to currency units).
  package func stratumSums(scale: Double = 1) -> [StratumSums] {
    sums.map { raw in
      let n = raw[0]
      let shift: Int128 = n > 0 ? (raw[1] + n / 2) / n : 0
      var shifted: [Double] = []
      for m in StratumSums.monomials {
        // Σ (x − c)ᵃ yᵇ = Σ_j C(a, j) (−c)^(a−j) Σ xʲ yᵇ
        var total: Int128 = 0
        for j in 0...m.x {
          let base = raw[Self.index(x: j, y: m.y)]
          total &+= Self.binomial(m.x, j) &* Self.power(-shift, m.x - j) &* base
        }
        shifted.append(Double(total) / Self.power(scale, m.y))
      }
      return StratumSums(shift: Double(shift), sums: shifted)
    }
  }

  /// All strata's users as CUPED reads them: raw (unshifted) sums of `y` (divided by
  /// `scale`) and `x`; a `proportion` outcome has no sum of squares (gbstats' proportion type).
  package func cupedArm(scale: Double = 1, proportion: Bool) -> CUPED.Arm {
    var total = [Int128](repeating: 0, count: StratumSums.monomials.count)
    for s in sums { for k in s.indices { total[k] &+= s[k] } }
    func at(_ x: Int, _ y: Int) -> Double { Double(total[Self.index(x: x, y: y)]) }
    return CUPED.Arm(
      users: at(0, 0), outcomeSum: at(0, 1) / scale, outcomeSumOfSquares: proportion ? nil : at(0, 2) / (scale * scale),
      covariateSum: at(1, 0), covariateSumOfSquares: at(2, 0), sumOfProducts: at(1, 1) / scale)
  }

  static func index(x: Int, y: Int) -> Int { StratumSums.monomials.firstIndex { $0.x == x && $0.y == y } ?? 0 }
  private static func binomial(_ n: Int, _ k: Int) -> Int128 { [[1], [1, 1], [1, 2, 1], [1, 3, 3, 1], [1, 4, 6, 4, 1]][n][k] }
  private static func power(_ v: Int128, _ k: Int) -> Int128 { (0..<k).reduce(1) { r, _ in r &* v } }
  private static func power(_ v: Double, _ k: Int) -> Double { (0..<k).reduce(1) { r, _ in r * v } }
}

/// What a run records per user beyond its aggregate: the stratum, covariate and value
/// of each user (``StrataTally``).
package struct StrataRecording: Sendable {
  /// The strata and covariate tables.
  package var strata: CompiledStrata
  /// The per-user value recorded.
  package var value: PerUserValue

  /// A recording of `value` by the strata (and covariate) of `strata`.
  package init(strata: CompiledStrata, value: PerUserValue) {
    self.strata = strata
    self.value = value
  }
}

/// One thread's strata sums, in raw memory for the hot loop.
final class StrataRecorder {
  let recording: StrataRecording
  let seed: UInt64
  let stride = StratumSums.monomials.count
  let sums: UnsafeMutableBufferPointer<Int128>

  init(_ recording: StrataRecording, seed: UInt64) {
    self.recording = recording
    self.seed = CompiledStrata.covariateSeed(seed)
    sums = .allocate(capacity: recording.strata.strataIDs.count * stride)
    sums.initialize(repeating: 0)
  }

  deinit { sums.deallocate() }

  /// Adds user `user`, whose walk gave `outcome`.
  @inline(__always)
  func add(user: UInt64, outcome: UserOutcome) {
    let strata = recording.strata
    let cell = Int(outcome.cell)
    let stratum = strata.stratumOfSegment[cell / strata.bins]
    var x: Int128 = 0
    if strata.hasCovariate {
      var rng = Xoshiro256StarStar(seed: seed, stream: user)
      x = Int128(strata.value(cell: cell, draw: rng.next() >> 11))
    }
    let y = Int128(recording.value.value(of: outcome))
    Self.add(x: x, y: y, into: sums, at: stratum * stride)
  }

  /// Adds `count` users of covariate `x` and value `y` to the sums starting at `base` (in the order of ``StratumSums/monomials``).
  @inline(__always)
  static func add(x: Int128, y: Int128, count: Int128 = 1, into sums: UnsafeMutableBufferPointer<Int128>, at base: Int) {
    let x2 = x &* x
    let y2 = y &* y
    sums[base] &+= count
    sums[base + 1] &+= count &* x
    sums[base + 2] &+= count &* x2
    sums[base + 3] &+= count &* x2 &* x
    sums[base + 4] &+= count &* x2 &* x2
    sums[base + 5] &+= count &* y
    sums[base + 6] &+= count &* y &* x
    sums[base + 7] &+= count &* y &* x2
    sums[base + 8] &+= count &* y &* x2 &* x
    sums[base + 9] &+= count &* y2
    sums[base + 10] &+= count &* y2 &* x
    sums[base + 11] &+= count &* y2 &* x2
  }

  func tally() -> StrataTally { StrataTally(strata: recording.strata.strataIDs.count, reading: sums) }
}
