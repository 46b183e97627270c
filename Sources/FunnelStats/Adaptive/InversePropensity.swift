/// Inverse-propensity (Horvitz–Thompson) estimates of rates from data whose split changed by day.
///
/// On day `d`, each of `N_d` users joined arm `i` with a known probability `w_{d,i}` set before
/// the day, and `x_{d,i}` of them succeeded. Then
///
/// ```
/// p̂ᵢ = (1/N)·Σ_d x_{d,i} / w_{d,i}            (N = Σ_d N_d)
/// ```
///
/// is unbiased for arm i's rate, since `E[x_{d,i} | past] = N_d·w_{d,i}·pᵢ`, whatever rule set the
/// shares. For a difference `p̂ᵢ − p̂₀`, each user contributes `z = y·1[i]/wᵢ − y·1[0]/w₀`, whose
/// mean on every day is `pᵢ − p₀` and whose second moment is `pᵢ/wᵢ + p₀/w₀`; the users of a
/// day are independent given the shares, so, with the estimates plugged in,
///
/// ```
/// SE² = Σ_d N_d·(p̂ᵢ/w_{d,i} + p̂₀/w_{d,0} − (p̂ᵢ − p̂₀)²) / N²     (p̂ clamped to [0, 1])
/// ```
///
/// and `(p̂ᵢ − p̂₀) / SE` is asymptotically normal (a martingale central limit theorem). Days with
/// a share of 0 for either arm are left out (the estimate then misses those users).
///
/// The plugged-in moments replace each day's own `x/w²`: those rise and fall with the day's
/// luck in a small arm, with the estimate, so the interval was narrowest when it was most wrong.
/// Measured on 3,000 replicates a design (α = 0.05), coverage went from 88.0 to 90.0 % (rates
/// 3 % and 5 %, 500 users a day, 21 days), from 93.6/92.5 to 94.0/92.9 % (three arms at 900 a
/// day), and stayed nominal where it was (95.2 → 95.4 % for two arms at 400 a day).
///
/// The normal interval is still approximate: when an arm's share is small, a few successes
/// divided by it make the estimate skewed, so a report measures its coverage for the design at
/// hand (``BanditSimulation/Counts/weightedCovered``). (Adaptively weighted estimators, Hadad
/// et al. 2021, were tried: with daily batches their ratio form was biased here, so the plain
/// estimate is kept.)
public enum InversePropensity {
  /// One day of two arms.
  public struct Day: Sendable, Hashable {
    /// Users that day over every arm.
    public var users: Int
    /// Successes in the arm and in the control.
    public var successes: Int, controlSuccesses: Int
    /// The arm's and the control's share of the day's users.
    public var share: Double, controlShare: Double

    /// One day's counts and shares.
    public init(users: Int, successes: Int, controlSuccesses: Int, share: Double, controlShare: Double) {
      self.users = users
      self.successes = successes
      self.controlSuccesses = controlSuccesses
      self.share = share
      self.controlShare = controlShare
    }
  }

  /// `(1/N)·Σ_d x_d / w_d` for one arm: `successes`, `shares` and `users` by day (0 without users).
  public static func rate(successes: [Int], shares: [Double], users: [Int]) -> Double {
    let total = users.reduce(0, +)
    guard total > 0 else { return 0 }
    var sum = 0.0
    for (x, w) in zip(successes, shares) where w > 0 { sum += Double(x) / w }
    return sum / Double(total)
  }

  /// The arm's rate minus the control's, and its standard error.
  public static func difference(_ days: [Day]) -> (estimate: Double, standardError: Double) {
    let total = Double(days.reduce(0) { $0 + $1.users })
    guard total > 0 else { return (0, 0) }
    var arm = 0.0
    var control = 0.0
    let included = days.filter { $0.share > 0 && $0.controlShare > 0 && $0.users > 0 }
    for day in included {
      arm += Double(day.successes) / day.share
      control += Double(day.controlSuccesses) / day.controlShare
    }
    let p = min(1, max(0, arm / total))
    let p0 = min(1, max(0, control / total))
    var variance = 0.0
    for day in included {
      let n = Double(day.users)
      variance += n * max(0, p / day.share + p0 / day.controlShare - (p - p0) * (p - p0))
    }
    return ((arm - control) / total, variance.squareRoot() / total)
  }
}
