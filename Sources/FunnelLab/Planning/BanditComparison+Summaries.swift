package import FunnelStats

/// What a bandit-against-A/B comparison's reports read from its replicate counts: shares of
/// replicates, the bandit's shares by day with their spread, the regret gap with its standard
/// error, and the arms whose mean estimate misses the truth. The numbers, for the renderers'
/// words.
extension BanditComparison {
  /// Which design loses fewer conversions over the test and the horizon after it.
  package enum RegretWinner: Sendable, Hashable {
    /// The bandit, by more than 2 standard errors of the gap.
    case bandit
    /// The fixed test, by more than 2 standard errors of the gap.
    case fixed
    /// Neither: the gap is within 2 standard errors.
    case neither
  }

  /// `count` over the replicates: the share of replicates where something happened.
  package func share(_ count: Int) -> Double { Double(count) / Double(max(counts.replicates, 1)) }

  /// The bandit's mean share of each arm on each day, over the replicates.
  package var sharesByDay: [[Double]] { counts.weightSums.map { day in day.map { $0 / Double(max(counts.replicates, 1)) } } }

  /// The standard deviation over replicates of each arm's share on each day,
  /// `√(E[w²] − E[w]²)` (0 where rounding makes it negative).
  package var shareSpreadByDay: [[Double]] {
    let n = Double(max(counts.replicates, 1))
    return sharesByDay.enumerated().map { d, day in
      day.enumerated().map { i, mean in max(0, counts.weightSquares[d][i] / n - mean * mean).squareRoot() }
    }
  }

  /// The total regret of each design (test and horizon), their gap and its standard error
  /// (the two means' standard errors in quadrature), and which design loses fewer; `nil`
  /// when either mean is missing.
  package var regretComparison: (bandit: Double, fixed: Double, gap: Double, standardError: Double, winner: RegretWinner)? {
    guard let bandit = counts.banditTotalRegret.mean, let fixed = counts.fixedTotalRegret.mean else { return nil }
    let a = counts.banditTotalRegret.standardError ?? 0
    let b = counts.fixedTotalRegret.standardError ?? 0
    let se = (a * a + b * b).squareRoot()
    let gap = abs(fixed - bandit)
    let winner: RegretWinner = gap <= 2 * se ? .neither : (bandit < fixed ? .bandit : .fixed)
    return (bandit, fixed, gap, se, winner)
  }

  /// The arms (by index, the control excluded) whose mean estimate of the difference misses
  /// the true difference by more than 3 standard errors.
  package func biasedArms(_ estimates: [BanditSimulation.Moments]) -> [Int] {
    (1..<arms.count).filter { i in
      guard estimates.indices.contains(i), let mean = estimates[i].mean, let se = estimates[i].standardError else { return false }
      return abs(mean - trueDifferences[i]) > 3 * se
    }
  }
}
