/// The exact per-user probabilities and expectations of one compiled variant,
/// as solved by ``ExactEngine``: what the Monte Carlo engine's aggregate divided by
/// its number of users converges to.
///
/// Every probability is "per user": the probability that one user, drawn from the
/// population (segment by weight, intent bin uniformly), does the thing. Every
/// expectation is per user too (``views`` is expected views of each screen per user).
///
/// The values are exact for the compiled chain, step limit, mock store
/// (``MockPaywallManager`` with the flow's settings) and subscription lifecycle
/// included, up to floating-point rounding and ``truncatedMass`` (see ``ExactEngine``).
public struct ExactFunnel: Sendable, Hashable {
  /// How a user's walk ends.
  package enum End: Sendable, Hashable {
    /// Reached the flow's `completed` target.
    case completed
    /// Quit on this screen (an index into ``CompiledFlow/screenIDs``).
    case abandoned(screen: Int)
    /// Still walking when the flow's step limit cut the walk off.
    case stepLimit
  }

  /// A class of users that are alike in everything ``AggregateSampler`` counts:
  /// how the walk ended, the first plan bought, and whether the user ever saw a
  /// paywall, skipped, went back or personalized. The classes are mutually
  /// exclusive and exhaustive, so a multinomial over them reproduces the joint
  /// distribution of these per-user facts.
  package struct OutcomeClass: Sendable, Hashable {
    /// How the walks of this class ended.
    package var end: End
    /// The plan slot of the user's purchase: the first that succeeded, or the
    /// pending one approved at the end of the walk (`nil`: never bought).
    package var firstPlan: Int?
    /// Whether the user saw at least one paywall.
    package var sawPaywall: Bool
    /// Whether the user took at least one skip action.
    package var skipped: Bool
    /// Whether the user went back at least once.
    package var wentBack: Bool
    /// Whether the user answered a personalizing question.
    package var personalized: Bool

    /// A class from its defining facts (no check that any walk can produce it).
    package init(end: End, firstPlan: Int?, sawPaywall: Bool, skipped: Bool, wentBack: Bool, personalized: Bool) {
      self.end = end
      self.firstPlan = firstPlan
      self.sawPaywall = sawPaywall
      self.skipped = skipped
      self.wentBack = wentBack
      self.personalized = personalized
    }
  }

  /// The variant the flow was compiled for (``CompiledFlow/variantID``).
  package var variantID: String
  /// Probability of each segment.
  package var segmentProbabilities: [Double]

  /// P(completed).
  package var completion: Double
  /// P(quit on each screen).
  package var abandonedAt: [Double]
  /// P(cut off by the step limit): the walks that MC counts in `stepLimitReached`.
  package var stepLimitReached: Double
  /// P(first purchase is plan slot j): bought at once, or pending and approved at
  /// the end of the walk.
  package var planPurchases: [Double]
  /// The part of ``planPurchases`` that was pending and approved later.
  package var planApprovals: [Double]
  /// P(bought any plan) = Σ ``planPurchases``.
  package var purchase: Double
  /// P(the user sees screen s at least once).
  package var reach: [Double]
  /// P(sees at least one paywall).
  package var paywallViewers: Double
  /// P(takes at least one skip action).
  package var skipped: Double
  /// P(goes back at least once).
  package var wentBack: Double
  /// P(answers a personalizing question).
  package var personalized: Double

  /// P(the purchase starts a free trial): `Σ_j planPurchases[j]` over plans with `trialDays > 0`.
  package var trialStarts: Double
  /// P(a trial converts to a paid period | trial), exactly as the lifecycle draws it.
  package var trialConversion: Double
  /// P(the user bought a plan whose first payment was refunded).
  package var refunds = 0.0
  /// P(the first payment is refunded | a purchase of each plan slot), at once or approved
  /// later in the slot's proportion; 0 for a slot nobody buys.
  package var planRefunds: [Double] = []
  /// P(a subscription of each plan slot renews at the end of a paid period), exactly as the
  /// lifecycle draws it; `nil` for a lifetime plan.
  package var planRenewal: [Double?] = []
  /// Whether each plan slot starts with a free trial.
  package var planHasTrial: [Bool]
  /// Expected net revenue per user over the revenue horizon (ARPU), in the plans' currency.
  package var revenuePerUser: Double
  /// Expected net revenue per user realized by the analysis day.
  package var realizedRevenuePerUser: Double
  /// Expected net horizon revenue of one purchase of each plan slot (no approval delay).
  package var planRevenue: [Double]
  /// Expected net revenue per user realized by each day, the curve from the first week to the
  /// horizon (RevenueCat's realized LTV): days 7 and 14, the analysis day, then the end of
  /// every month to the horizon, in order. Its last point is ``revenuePerUser`` and its point
  /// at the analysis day ``realizedRevenuePerUser``.
  package var realizedRevenueCurve: [RevenuePoint] = []

  /// The exact distribution of one user's net revenue over the horizon: each value in whole
  /// cents with its probability, 0 (no purchase, an unconverted trial) included, summing to 1
  /// up to ``truncatedMass``; empty for a flow that sells nothing. Its mean is
  /// ``revenuePerUser`` (in cents); planning revenue reads its variance, and draws replicate
  /// experiments from it.
  package var revenueDistribution: [Int64: Double] = [:]

  /// The variance of one user's net revenue over the horizon (currency units squared), from
  /// ``revenueDistribution``; `nil` for a flow that sells nothing.
  package var revenuePerUserVariance: Double? {
    guard !revenueDistribution.isEmpty else { return nil }
    var mean = 0.0
    var squares = 0.0
    for (cents, p) in revenueDistribution.sorted(by: { $0.key < $1.key }) {
      let x = Double(cents) / 100
      mean += p * x
      squares += p * x * x
    }
    return max(squares - mean * mean, 0)
  }

  /// One point of ``realizedRevenueCurve``.
  package struct RevenuePoint: Sendable, Hashable {
    /// Days since the purchase screen (payments before this day count).
    package var day: Double
    /// Expected net revenue per user realized by ``day``, in the plans' currency.
    package var perUser: Double
  }

  /// Expected store events per user, the counterparts of the Monte Carlo aggregate's store counts.
  package struct StoreCounts: Sendable, Hashable {
    /// Plan taps that reached the store (users not yet entitled).
    package var purchaseTaps: Double
    /// Store attempts, retries included.
    package var purchaseAttempts: Double
    /// Purchase taps that ended with the user cancelling the payment sheet.
    package var purchaseCancels: Double
    /// Purchase taps that ended in a failure once the retries were used up or declined.
    package var purchaseFailures: Double
    /// Purchase taps that ended pending (e.g. Ask to Buy), whether approved later or not.
    package var purchasePendings: Double
    /// Pending purchases approved at the end of the walk (each such user is a purchaser).
    package var pendingApprovals: Double
    /// Times a restore action was taken.
    package var restoreAttempts: Double
    /// Restore attempts that found a purchase and entitled the user.
    package var restores: Double
  }

  /// Expected store events per user.
  package var store: StoreCounts

  /// Expected views of each screen (revisits included).
  package var views: [Double]
  /// Expected times each action slot is taken.
  package var actionCounts: [Double]
  /// Expected validation or task failures on each screen.
  package var failures: [Double]
  /// Expected times each option slot is selected.
  package var optionCounts: [Double]
  /// Expected milliseconds spent on each screen (over all views).
  package var screenMillis: [Double]
  /// Expected screen views per user, `Σ views`.
  package var expectedScreens: Double
  /// `E[T | completed]` in seconds, `T` the sum of the dwell times of a completer's
  /// views (`nil` when completion is impossible).
  package var meanSecondsToFinish: Double?
  /// `sd(T | completed)` in seconds.
  package var standardDeviationSecondsToFinish: Double?

  /// The outcome classes of positive probability, in a fixed order.
  package var outcomeClasses: [OutcomeClass]
  /// Probabilities of ``outcomeClasses`` (they sum to `1 − truncatedMass`).
  package var outcomeClassProbabilities: [Double]

  /// Probability mass still walking when the solver stopped early because it had
  /// fallen below ``ExactEngine/tolerance``, before the step limit. It bounds the
  /// absolute error of every probability above; an expectation of a count per view
  /// is off by at most `truncatedMass × stepLimit`.
  package var truncatedMass: Double

  /// P(abandoned) as the Monte Carlo aggregate counts it: quits plus step-limit cuts.
  package var abandonment: Double { abandonedAt.reduce(0, +) + stepLimitReached }

  /// The exact value of a metric (`nil` when its denominator is zero). Revenue per
  /// paying user and per paywall viewer are ratios of expectations,
  /// `E[revenue] / P(purchase)` and `E[revenue] / P(viewer)`: what the Monte Carlo's
  /// ratio of sums converges to.
  public func value(of metric: FunnelMetric) -> Double? {
    switch metric {
    case .completionRate: completion
    case .abandonmentRate: abandonment
    case .skipRate: skipped
    case .paywallViewRate: paywallViewers
    case .purchaseConversion: purchase
    case .purchaseConversionOfViewers: paywallViewers > 0 ? purchase / paywallViewers : nil
    case .personalizationRate: personalized
    case .timeToFinish: meanSecondsToFinish
    case .trialStartRate: trialStarts
    case .trialToPaid: trialStarts > 0 ? trialConversion : nil
    case .refundRate: purchase > 0 ? refunds / purchase : nil
    case .revenuePerUser: revenuePerUser
    case .revenuePerPayingUser: purchase > 0 ? revenuePerUser / purchase : nil
    case .revenuePerPaywallViewer: paywallViewers > 0 ? revenuePerUser / paywallViewers : nil
    case .realizedRevenuePerUser: realizedRevenuePerUser
    }
  }
}
