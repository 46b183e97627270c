/// How the mock purchase layer behaves: the outcomes of the payment sheet and their
/// latency. Every probability is per purchase attempt; defaults are documented
/// per field and in docs/reference/spec-format.md.
public struct StoreSettings: Sendable, Hashable, Decodable {
  /// The user dismisses the payment sheet (StoreKit `.userCancelled`); they are back on the paywall.
  public var cancelProbability = 0.12
  /// The purchase fails (network, payment declined); they are back on the paywall unless they retry.
  public var failureProbability = 0.02
  /// After a failure, the chance the user immediately tries again (at most `maximumAttempts` in all).
  public var retryProbability = 0.5
  /// Attempts per tap, retries included.
  public var maximumAttempts = 3
  /// The purchase needs approval (Ask to Buy, StoreKit `.pending`); the flow goes on without it.
  public var pendingProbability = 0.01
  /// A pending purchase is approved later.
  public var approvalProbability = 0.6
  /// Days until a pending purchase is approved (matters for revenue realized by the analysis day).
  public var approvalDelayDays = 1.0
  /// "Restore purchases" finds an entitlement (the user is a returning subscriber).
  public var restoreSuccessProbability = 0.7
  /// Seconds the payment sheet and the store take per attempt (added to time metrics).
  public var latencySeconds = 2.0

  /// The defaults listed with each field.
  public init() {}

  enum CodingKeys: String, CodingKey {
    case cancelProbability, failureProbability, retryProbability, maximumAttempts, pendingProbability
    case approvalProbability, approvalDelayDays, restoreSuccessProbability, latencySeconds
  }

  /// Decodes a spec's `store` object; every key may be omitted and keeps its default.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = StoreSettings()
    cancelProbability = try c.decodeIfPresent(Double.self, forKey: .cancelProbability) ?? d.cancelProbability
    failureProbability = try c.decodeIfPresent(Double.self, forKey: .failureProbability) ?? d.failureProbability
    retryProbability = try c.decodeIfPresent(Double.self, forKey: .retryProbability) ?? d.retryProbability
    maximumAttempts = try c.decodeIfPresent(Int.self, forKey: .maximumAttempts) ?? d.maximumAttempts
    pendingProbability = try c.decodeIfPresent(Double.self, forKey: .pendingProbability) ?? d.pendingProbability
    approvalProbability = try c.decodeIfPresent(Double.self, forKey: .approvalProbability) ?? d.approvalProbability
    approvalDelayDays = try c.decodeIfPresent(Double.self, forKey: .approvalDelayDays) ?? d.approvalDelayDays
    restoreSuccessProbability = try c.decodeIfPresent(Double.self, forKey: .restoreSuccessProbability) ?? d.restoreSuccessProbability
    latencySeconds = try c.decodeIfPresent(Double.self, forKey: .latencySeconds) ?? d.latencySeconds
  }

  /// Problems with these settings, at `path`.
  func validationErrors(at path: SpecPath) -> [SpecError] {
    var errors: [SpecError] = []
    let probabilities: [(String, Double)] = [
      ("cancelProbability", cancelProbability), ("failureProbability", failureProbability),
      ("retryProbability", retryProbability), ("pendingProbability", pendingProbability),
      ("approvalProbability", approvalProbability), ("restoreSuccessProbability", restoreSuccessProbability),
    ]
    for (name, p) in probabilities where !(p.isFinite && p >= 0 && p <= 1) {
      errors.append(SpecError(path: path.key(name), message: "\(name) = \(JSONValue.format(p)) is outside [0, 1]", hint: "a probability"))
    }
    if cancelProbability + failureProbability + pendingProbability > 1 {
      errors.append(
        SpecError(
          path: path, message: "cancel, failure and pending probabilities sum to more than 1",
          hint: "they share one purchase attempt"))
    }
    if !(1...10).contains(maximumAttempts) {
      errors.append(SpecError(path: path.key("maximumAttempts"), message: "maximumAttempts must be from 1 to 10", hint: "the default is 3"))
    }
    if !(approvalDelayDays.isFinite && approvalDelayDays >= 0 && approvalDelayDays <= 365) {
      errors.append(SpecError(path: path.key("approvalDelayDays"), message: "approvalDelayDays must be from 0 to 365", hint: nil))
    }
    if !(latencySeconds.isFinite && latencySeconds >= 0 && latencySeconds <= 600) {
      errors.append(SpecError(path: path.key("latencySeconds"), message: "latencySeconds must be from 0 to 600", hint: nil))
    }
    return errors
  }
}

/// What happens after a purchase and how revenue is counted: trials, renewals,
/// refunds, the store's fee, the revenue horizon and the day the test is read.
public struct RevenueSettings: Sendable, Hashable, Decodable {
  /// Months of revenue counted per user (lifetime value at this horizon).
  public var horizonMonths = 12.0
  /// Days after exposure when the experiment is read: revenue realized by then is
  /// reported beside the projection (unconverted trials and future renewals are not yet realized).
  public var analysisDay = 14.0
  /// Share of each payment the store keeps (0.15 small-business programme, 0.30 standard).
  public var storeFee = 0.15
  /// A free trial converts to the first paid period.
  public var trialConversion = 0.45
  /// A weekly subscription renews at the end of a week.
  public var weeklyRenewal = 0.75
  /// A monthly subscription renews at the end of a month.
  public var monthlyRenewal = 0.85
  /// A yearly subscription renews at the end of a year.
  public var yearlyRenewal = 0.55
  /// The first payment is refunded.
  public var refundProbability = 0.02

  /// The defaults listed with each field.
  public init() {}

  enum CodingKeys: String, CodingKey {
    case horizonMonths, analysisDay, storeFee, trialConversion, weeklyRenewal, monthlyRenewal, yearlyRenewal, refundProbability
  }

  /// Decodes a spec's `revenue` object; every key may be omitted and keeps its default.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = RevenueSettings()
    horizonMonths = try c.decodeIfPresent(Double.self, forKey: .horizonMonths) ?? d.horizonMonths
    analysisDay = try c.decodeIfPresent(Double.self, forKey: .analysisDay) ?? d.analysisDay
    storeFee = try c.decodeIfPresent(Double.self, forKey: .storeFee) ?? d.storeFee
    trialConversion = try c.decodeIfPresent(Double.self, forKey: .trialConversion) ?? d.trialConversion
    weeklyRenewal = try c.decodeIfPresent(Double.self, forKey: .weeklyRenewal) ?? d.weeklyRenewal
    monthlyRenewal = try c.decodeIfPresent(Double.self, forKey: .monthlyRenewal) ?? d.monthlyRenewal
    yearlyRenewal = try c.decodeIfPresent(Double.self, forKey: .yearlyRenewal) ?? d.yearlyRenewal
    refundProbability = try c.decodeIfPresent(Double.self, forKey: .refundProbability) ?? d.refundProbability
  }

  /// The renewal probability of a period (lifetime never renews).
  public func renewal(for period: BillingPeriod) -> Double {
    switch period {
    case .week: weeklyRenewal
    case .month: monthlyRenewal
    case .year: yearlyRenewal
    case .lifetime: 0
    }
  }

  func validationErrors(at path: SpecPath) -> [SpecError] {
    var errors: [SpecError] = []
    let probabilities: [(String, Double)] = [
      ("storeFee", storeFee), ("trialConversion", trialConversion), ("weeklyRenewal", weeklyRenewal),
      ("monthlyRenewal", monthlyRenewal), ("yearlyRenewal", yearlyRenewal), ("refundProbability", refundProbability),
    ]
    for (name, p) in probabilities where !(p.isFinite && p >= 0 && p <= 1) {
      errors.append(SpecError(path: path.key(name), message: "\(name) = \(JSONValue.format(p)) is outside [0, 1]", hint: nil))
    }
    if !(horizonMonths.isFinite && horizonMonths > 0 && horizonMonths <= 120) {
      errors.append(SpecError(path: path.key("horizonMonths"), message: "horizonMonths must be in (0, 120]", hint: "the default is 12"))
    }
    if !(analysisDay.isFinite && analysisDay >= 0 && analysisDay <= 3650) {
      errors.append(SpecError(path: path.key("analysisDay"), message: "analysisDay must be from 0 to 3650", hint: "the default is 14"))
    }
    return errors
  }
}
