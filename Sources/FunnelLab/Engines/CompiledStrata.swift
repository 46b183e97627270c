import Foundation
import FunnelStats

/// What an experiment can observe about a user at assignment, compiled for the engines:
/// the stratum of each segment (``Population/strata``) and, when the population has a
/// ``PrePeriodCovariate``, each population cell's distribution of the covariate as
/// 53-bit cumulative thresholds, the same way the flow's probabilities are compiled.
///
/// **The covariate's law.** Cell `c = (segment s, intent bin b)` has the Poisson mean
/// `λ_c = mean_s · exp(intentEffect · θ_{s,b})` with the bin's intent `θ_{s,b}` (its
/// conditional mean, as the flow's tables use). The compiled law is the Poisson's
/// probabilities over the window `λ ± (12√λ + 20)`, each rounded to a multiple of
/// `2⁻⁵³` by its cumulative threshold, the last threshold exactly `2⁵³`: the mass
/// outside the window is far below `2⁻⁵³`. That compiled law *is* the covariate's
/// distribution: the Monte Carlo draws it (one 53-bit draw, binary search) and the
/// exact moments (``mean(cell:)``, ``variance(cell:)``) are its own, so the two agree
/// by construction, as the flow's tables do.
package struct CompiledStrata: Sendable {
  /// Stratum ids: the observable segments', then ``Population/otherStratum`` when some segment is not observable.
  package let strataIDs: [String]
  /// Per segment (spec order), its stratum's index into ``strataIDs``.
  package let stratumOfSegment: [Int]
  /// The covariate's name, `nil` when the population has none.
  package let covariateName: String?
  /// Intent bins per segment (the flow's `traitBins`).
  let bins: Int
  /// Per cell `segment · bins + bin`: the smallest value of the window, and where its thresholds start and end.
  let low: [Int64]
  let start: [Int]
  let end: [Int]
  let thresholds: [UInt64]

  /// Compiles the strata and covariate of a validated experiment.
  package init(_ experiment: Experiment) {
    let population = experiment.population
    let strata = population.strata
    strataIDs = strata.ids
    stratumOfSegment = strata.ofSegment
    covariateName = population.covariate?.name
    bins = experiment.simulation.traitBins
    var low: [Int64] = []
    var start: [Int] = []
    var end: [Int] = []
    var thresholds: [UInt64] = []
    if let covariate = population.covariate {
      let binMeans = Self.binMeans(bins)
      for segment in population.segments {
        for bin in 0..<bins {
          let lambda = Self.cellMean(covariate, segment: segment, binMean: binMeans[bin])
          let (first, cumulative) = Self.poissonThresholds(lambda)
          low.append(Int64(first))
          start.append(thresholds.count)
          thresholds += cumulative
          end.append(thresholds.count)
        }
      }
    }
    self.low = low
    self.start = start
    self.end = end
    self.thresholds = thresholds
  }

  /// Whether users carry a pre-period covariate.
  package var hasCovariate: Bool { covariateName != nil }

  /// The seed of the covariate's streams: one draw per user from a stream of its own, so the walk's draws are untouched.
  static func covariateSeed(_ seed: UInt64) -> UInt64 { SplitMix64.mix(seed ^ 0x636F_7661_7269_6174) }

  /// The covariate of a user of `cell` whose covariate stream gave `draw` (53 bits).
  @inline(__always)
  func value(cell: Int, draw: UInt64) -> Int64 {
    var lo = start[cell]
    var hi = end[cell] - 1
    while lo < hi {
      let mid = (lo + hi) >> 1
      if draw < thresholds[mid] { hi = mid } else { lo = mid + 1 }
    }
    return low[cell] + Int64(lo - start[cell])
  }

  /// The compiled law of the covariate in `cell`: its smallest value and the probability of each value from there.
  package func distribution(cell: Int) -> (low: Int, probabilities: [Double]) {
    guard hasCovariate, start.indices.contains(cell) else { return (0, [1]) }
    return (Int(low[cell]), CompiledFlow.widths(Array(thresholds[start[cell]..<end[cell]])))
  }

  /// The exact mean of the compiled covariate in `cell` (0 without a covariate).
  package func mean(cell: Int) -> Double { moments(cell: cell).mean }

  /// The exact variance of the compiled covariate in `cell` (0 without a covariate).
  package func variance(cell: Int) -> Double { moments(cell: cell).variance }

  /// The exact mean and variance of the compiled covariate in `cell`, from one reading of its law.
  package func moments(cell: Int) -> (mean: Double, variance: Double) {
    let (first, p) = distribution(cell: cell)
    let m = p.enumerated().reduce(0) { $0 + $1.element * Double(first + $1.offset) }
    let v = p.enumerated().reduce(0) { $0 + $1.element * (Double(first + $1.offset) - m) * (Double(first + $1.offset) - m) }
    return (m, v)
  }

  /// `λ` of a segment's bin: validation bounds it by ``Limits/covariateCellMean``.
  static func cellMean(_ covariate: PrePeriodCovariate, segment: Segment, binMean: Double) -> Double {
    let intent = segment.intent.mean + segment.intent.sd * binMean
    return (segment.covariateMean ?? covariate.mean) * exp(covariate.intentEffect * intent)
  }

  static func binMeans(_ bins: Int) -> [Double] { Discretisation.normalBinMeans(bins) }

  /// The window's half width around `λ`.
  static func window(_ lambda: Double) -> (low: Int, high: Int) {
    let half = 12 * lambda.squareRoot() + 20
    return (max(0, Int(rounding: (lambda - half).rounded(.down)) ?? 0), Int(rounding: (lambda + half).rounded(.up)) ?? 0)
  }

  /// Entries a covariate of `lambda` compiles to.
  static func tableEntries(_ lambda: Double) -> Int {
    let w = window(lambda)
    return w.high - w.low + 1
  }

  /// The window's first value and cumulative thresholds of the Poisson(`lambda`) probabilities.
  static func poissonThresholds(_ lambda: Double) -> (Int, [UInt64]) {
    let (first, last) = window(lambda)
    let weights = (first...last).map { k -> Double in
      guard lambda != 0 else { return k == 0 ? 1 : 0 }
      let x = Double(k)
      let logWeight: Double = x * log(lambda) - lambda - lgamma(x + 1)
      return exp(logWeight)
    }
    return (first, CompiledFlow.thresholds(of: weights))
  }
}
