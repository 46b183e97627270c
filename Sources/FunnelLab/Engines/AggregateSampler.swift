package import FunnelStats

/// Draws an arm's outcome counts for `n` users from the exact class
/// probabilities of an ``ExactFunnel`` instead of walking every user: the fast
/// path for replicated experiments (power, false-positive rates, peeking).
///
/// **The draw.** Each user falls into exactly one ``ExactFunnel/OutcomeClass``
/// (how the walk ended × first plan bought × saw a paywall × skipped × went back
/// × personalized) with probability `p_k`, independently of the other users, so the
/// class counts are `Multinomial(n; p_1, …, p_K)`. They are drawn by sequential
/// conditional binomials,
/// ```
/// X_k ~ Binomial(n − Σ_{j<k} X_j,  p_k / Σ_{j≥k} p_j),
/// ```
/// with ``BinomialSampler`` (inversion or BTPE), classes in decreasing order of
/// probability so that the remaining users run out early. The suffix sums make the
/// last conditional probability exactly 1, i.e. the classes are renormalised over
/// the solved mass `1 − truncatedMass` (a relative change below 10⁻¹⁵).
///
/// **When it is exact.** Whenever the arm's users are independent and identically
/// distributed given the arm, which is how the Monte Carlo engine generates them
/// (each user its own random stream, segment and trait drawn afresh): then the
/// joint distribution of every count derived from the classes (completions,
/// quits per screen, step-limit cuts, first-purchase plans, paywall viewers,
/// skippers, users who went back or personalized) is exactly that of the per-user
/// simulation, including their correlations across users' metrics, e.g. that
/// buyers complete more often.
///
/// **Trials.** A purchaser of a plan with `trialDays > 0` starts a trial, so trial
/// starts are a margin of the classes; each trial converts independently with
/// ``ExactFunnel/trialConversion``, so after the classes one more draw gives
/// `conversions ~ Binomial(trial starts, trialConversion)`, exactly the Monte
/// Carlo's law.
///
/// **What it does not reproduce.** Anything outside the classes: the reach of
/// individual screens, views, action and option counts, failures, times and
/// revenue; and
/// dependence between arms. In "truth" mode the Monte Carlo walks the *same* users
/// through every variant (common random numbers), so its arms are correlated; here
/// every arm is drawn independently, as in a randomised experiment where each user
/// sees one arm. Per-user correlations beyond the modelled flags (e.g. between a
/// user's time to finish and plan) are not represented.
///
/// **Determinism.** ``sample(users:seed:replicate:arm:)`` draws from
/// `Xoshiro256StarStar(seed: mix(seed ⊕ "AGGREGAT"), stream: replicate·2¹⁶ + arm)`:
/// the counts depend on nothing but (seed, replicate, arm) and the probabilities,
/// and the domain constant keeps these streams apart from the Monte Carlo's user
/// streams under the same seed.
///
/// - Complexity: `O(K)` binomial draws per arm, each `O(1)` expected, independent
///   of `n`; memory `O(K + screens + plans)`.
package struct AggregateSampler: Sendable {
  /// Separates the sampler's streams from the users' under one seed (ASCII "AGGREGAT").
  package static let streamDomain: UInt64 = 0x4147_4752_4547_4154

  /// The variant whose compiled flow the classes were solved for.
  package let variantID: String
  /// The outcome classes, in drawing order (decreasing probability).
  package let classes: [ExactFunnel.OutcomeClass]
  /// `p_k`, in the order of ``classes``.
  package let probabilities: [Double]
  /// `p_k / Σ_{j≥k} p_j`.
  let conditional: [Double]
  let screens, plans: Int
  /// Per class: the end (−1 completed, −2 step limit, else the screen quit), the
  /// first plan (−1 none) and the flags (1 paywall, 2 skip, 4 back, 8 personalized).
  let classEnd, classPlan, classFlags: [Int]
  /// Whether each plan slot starts a trial, and P(a trial converts).
  let planHasTrial: [Bool]
  let trialConversion: Double
  /// P(the first payment is refunded | a purchase of each plan slot).
  let planRefunds: [Double]

  /// A sampler for one arm, from its exact funnel.
  /// - Complexity: `O(K log K)` for `K` classes.
  package init(_ exact: ExactFunnel) {
    let order = exact.outcomeClassProbabilities.indices.sorted {
      let a = exact.outcomeClassProbabilities[$0]
      let b = exact.outcomeClassProbabilities[$1]
      return a != b ? a > b : $0 < $1
    }
    variantID = exact.variantID
    classes = order.map { exact.outcomeClasses[$0] }
    probabilities = order.map { exact.outcomeClassProbabilities[$0] }
    var suffix = 0.0
    var conditional = [Double](repeating: 1, count: probabilities.count)
    for k in probabilities.indices.reversed() {
      suffix += probabilities[k]
      conditional[k] = suffix > 0 ? min(probabilities[k] / suffix, 1) : 1
    }
    self.conditional = conditional
    screens = exact.abandonedAt.count
    plans = exact.planPurchases.count
    classEnd = classes.map {
      switch $0.end {
      case .completed: -1
      case .stepLimit: -2
      case .abandoned(let screen): screen
      }
    }
    classPlan = classes.map { $0.firstPlan ?? -1 }
    planHasTrial = exact.planHasTrial
    trialConversion = exact.trialConversion
    planRefunds = exact.planRefunds
    classFlags = classes.map {
      ($0.sawPaywall ? 1 : 0) | ($0.skipped ? 2 : 0) | ($0.wentBack ? 4 : 0) | ($0.personalized ? 8 : 0)
    }
  }

  /// The generator of (seed, replicate, arm); arms must be below 2¹⁶.
  package static func generator(seed: UInt64, replicate: UInt64, arm: Int) -> Xoshiro256StarStar {
    precondition((0..<(1 << 16)).contains(arm), "arm index out of range")
    return Xoshiro256StarStar(seed: SplitMix64.mix(seed ^ streamDomain), stream: replicate << 16 | UInt64(arm))
  }

  /// The counts of `users` users of replicate `replicate`, arm `arm`, deterministically.
  package func sample(users: UInt64, seed: UInt64, replicate: UInt64, arm: Int) -> SampledArm {
    var rng = Self.generator(seed: seed, replicate: replicate, arm: arm)
    return sample(users: users, using: &rng)
  }

  /// The counts of `users` users, drawn from `rng`.
  /// - Complexity: at most `K + 1` binomial draws, `O(K)` expected time.
  package func sample(users: UInt64, using rng: inout some RandomNumberGenerator) -> SampledArm {
    var arm = SampledArm(classes: classes.count, screens: screens, plans: plans)
    arm[.users] = users
    var remaining = users
    for k in conditional.indices where remaining > 0 {
      let x =
        k == conditional.count - 1
        ? remaining : BinomialSampler.sample(trials: remaining, probability: conditional[k], using: &rng)
      if x == 0 { continue }
      remaining -= x
      arm.classCounts[k] = x
      switch classEnd[k] {
      case -1: arm[.completed] += x
      case -2: arm[.stepLimitReached] += x
      default: arm.abandonedAt[classEnd[k]] += x
      }
      if classPlan[k] >= 0 {
        arm.planPurchases[classPlan[k]] += x
        arm[.purchasers] += x
        if planHasTrial[classPlan[k]] { arm[.trialStarts] += x }
      }
      let flags = classFlags[k]
      if flags & 1 != 0 { arm[.paywallViewers] += x }
      if flags & 2 != 0 { arm[.usersWhoSkipped] += x }
      if flags & 4 != 0 { arm[.usersWhoWentBack] += x }
      if flags & 8 != 0 { arm[.usersPersonalized] += x }
    }
    if arm[.trialStarts] > 0 {
      arm[.trialConversions] = BinomialSampler.sample(trials: arm[.trialStarts], probability: trialConversion, using: &rng)
    }
    for (j, bought) in arm.planPurchases.enumerated() where bought > 0 && planRefunds.indices.contains(j) {
      arm[.refunds] += BinomialSampler.sample(trials: bought, probability: planRefunds[j], using: &rng)
    }
    return arm
  }
}
