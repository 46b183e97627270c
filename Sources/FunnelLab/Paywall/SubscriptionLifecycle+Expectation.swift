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
}
