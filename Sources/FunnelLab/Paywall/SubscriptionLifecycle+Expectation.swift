import FunnelStats

extension SubscriptionLifecycle {
  /// The expected value of an ``Outcome``: what one transaction earns on average.
  package struct Expectation: Sendable, Hashable {
    /// `E[horizonCents]`.
    package var horizonCents = 0.0
    /// `E[realizedCents]`.
    package var realizedCents = 0.0
    /// `E[payments]`.
    package var payments = 0.0
    /// `P(convertedFromTrial)`.
    package var trialConversion = 0.0
    /// `P(refunded)`.
    package var refund = 0.0

    /// All zero: the expectation of a transaction that earns nothing.
    package init() {}
  }

  /// The exact expectation of ``outcome(of:plan:using:)``, in closed form.
  ///
  /// Let `d₀` be the day of the first payment (`delayDays`, plus `trialDays` for a
  /// trial), `dᵢ = d₀ + i·P` the day of payment `i` (accumulated in floating point
  /// exactly as the simulation does), `H` the horizon in days, `n = #{i : dᵢ < H}`
  /// (`n ≤ 1` for a lifetime plan), `cᵢ = round(100 · priceᵢ · (1 − storeFee))` the
  /// net cents of payment `i` (the intro price for `i < introPeriods`), `q` the trial
  /// conversion (1 without a trial), `r` the renewal and `ρ` the refund probability,
  /// each as the exact probability of its draw (`P(nextUnitDouble() < x)`, within
  /// `2⁻⁵³` of `x`). Payment `i` happens when the trial converted and the first `i`
  /// renewals did, with probability `q·rⁱ`, and the first is refunded with `ρ`, so
  /// ```
  /// E[horizon]  = q · ( (1 − ρ)·c₀ + Σ_{1≤i<n} rⁱ·cᵢ )
  /// E[realized] = the same sum over the payments with dᵢ < analysisDay
  /// ```
  /// a geometric series truncated at the horizon.
  /// - Complexity: `O(n)`, the payments that fit in the horizon.
  package func expectation(of transaction: StoreTransaction, plan: Plan) -> Expectation {
    var e = Expectation()
    var schedule = PaymentSchedule(delayDays: transaction.delayDays, isTrial: transaction.isTrial, plan: plan, settings: settings)
    var alive = 1.0
    if transaction.isTrial {
      alive = UnitDraw.probabilityBelow(settings.trialConversion)
      e.trialConversion = alive
    }
    let renews = UnitDraw.probabilityBelow(renewal(of: plan))
    let refund = UnitDraw.probabilityBelow(settings.refundProbability)
    while alive > 0, let payment = schedule.next() {
      var cents = Double(payment.cents)
      if payment.index == 0 {
        e.refund = alive * refund
        cents *= 1 - refund
      }
      e.horizonCents += alive * cents
      if payment.day < settings.analysisDay { e.realizedCents += alive * cents }
      e.payments += alive
      alive *= renews
    }
    return e
  }

  /// The exact distribution of ``outcome(of:plan:using:)``'s horizon cents: each value a
  /// transaction can earn with its probability (0 included), summing to 1.
  ///
  /// With the notation of ``expectation(of:plan:)``: the trial fails to convert with `1 − q`
  /// (0 cents); otherwise the subscription makes payments `0…k` and stops, `k` renewals with
  /// probability `rᵏ(1 − r)` (`k < n − 1`) or `rⁿ⁻¹` (every payment within the horizon), and
  /// earns `c₀ + … + c_k`, less `c₀` when the first payment is refunded (`ρ`, independent of
  /// the renewals). Its mean is ``Expectation/horizonCents`` (tested to 1e-12).
  /// - Complexity: `O(n)`, the payments that fit in the horizon.
  package func distribution(of transaction: StoreTransaction, plan: Plan) -> [Int64: Double] {
    var values: [Int64: Double] = [:]
    var schedule = PaymentSchedule(delayDays: transaction.delayDays, isTrial: transaction.isTrial, plan: plan, settings: settings)
    let converts = transaction.isTrial ? UnitDraw.probabilityBelow(settings.trialConversion) : 1
    if converts < 1 { values[0, default: 0] += 1 - converts }
    let renews = schedule.renews ? UnitDraw.probabilityBelow(renewal(of: plan)) : 0
    let refund = UnitDraw.probabilityBelow(settings.refundProbability)
    var alive = converts
    var total: Int64 = 0
    var first: Int64 = 0
    var payment = schedule.next()
    if payment == nil, alive > 0 { values[0, default: 0] += alive }
    while alive > 0, let current = payment {
      if current.index == 0 { first = current.cents }
      total &+= current.cents
      payment = schedule.next()
      // The subscription stops after this payment: no renewal, or no next payment within the horizon.
      let stops = payment == nil ? alive : alive * (1 - renews)
      values[total, default: 0] += stops * (1 - refund)
      if refund > 0 { values[total &- first, default: 0] += stops * refund }
      alive *= renews
    }
    return values
  }
}
