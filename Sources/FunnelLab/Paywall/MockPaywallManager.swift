package import FunnelStats

/// The built-in purchase layer: outcomes drawn from ``StoreSettings`` with the user's
/// store stream.
///
/// Per attempt: cancelled with `cancelProbability`, failed with `failureProbability`
/// (the user retries with `retryProbability`, up to `maximumAttempts` attempts),
/// pending with `pendingProbability`, otherwise a success — a free trial when the plan
/// has one. A pending purchase is approved later with `approvalProbability`, after
/// `approvalDelayDays`. Every attempt takes `latencySeconds`.
package struct MockPaywallManager: PaywallManager, Hashable {
  /// The store's probabilities, retries and latency (the spec's `store`).
  package var settings: StoreSettings

  /// A mock store; the default settings are those of a spec without `store`.
  package init(settings: StoreSettings = StoreSettings()) { self.settings = settings }

  /// Draws attempts until one ends: cancelled, pending, a success, or a failure (`network`) the user does
  /// not retry or that exhausts `maximumAttempts`. The latency is `latencySeconds` × attempts.
  package func purchase(_ plan: Plan, using rng: inout Xoshiro256StarStar) -> PurchaseAttempt {
    var attempts = 0
    while true {
      attempts += 1
      let latency = settings.latencySeconds * Double(attempts)
      let u = rng.nextUnitDouble()
      if u < settings.cancelProbability {
        return PurchaseAttempt(result: .userCancelled, latencySeconds: latency, attempts: attempts)
      }
      if u < settings.cancelProbability + settings.failureProbability {
        if attempts < settings.maximumAttempts, rng.nextUnitDouble() < settings.retryProbability { continue }
        return PurchaseAttempt(result: .failed(.network), latencySeconds: latency, attempts: attempts)
      }
      if u < settings.cancelProbability + settings.failureProbability + settings.pendingProbability {
        return PurchaseAttempt(result: .pending, latencySeconds: latency, attempts: attempts)
      }
      let transaction = StoreTransaction(productID: plan.id, price: plan.price, isTrial: plan.trialDays > 0)
      return PurchaseAttempt(result: .success(transaction), latencySeconds: latency, attempts: attempts)
    }
  }

  /// Approves a pending purchase with `approvalProbability`, the transaction `approvalDelayDays` later; `nil` otherwise.
  package func resolvePending(_ plan: Plan, using rng: inout Xoshiro256StarStar) -> StoreTransaction? {
    guard rng.nextUnitDouble() < settings.approvalProbability else { return nil }
    return StoreTransaction(productID: plan.id, price: plan.price, isTrial: plan.trialDays > 0, delayDays: settings.approvalDelayDays)
  }

  /// `restored` with `restoreSuccessProbability`, otherwise `nothingToRestore` (never `failed`).
  package func restorePurchases(using rng: inout Xoshiro256StarStar) -> RestoreResult {
    rng.nextUnitDouble() < settings.restoreSuccessProbability ? .restored : .nothingToRestore
  }

  /// Probabilities of the final outcome of one tap (retries folded in), for exact computations:
  /// `(success, cancelled, pending, failed)`.
  package var outcomeProbabilities: (success: Double, cancelled: Double, pending: Double, failed: Double) {
    let c = settings.cancelProbability, f = settings.failureProbability, p = settings.pendingProbability
    let s = 1 - c - f - p
    // Each attempt: c, s, p end it; a failure retries with r while attempts remain.
    var reach = 1.0
    var success = 0.0, cancelled = 0.0, pending = 0.0, failed = 0.0
    for attempt in 1...max(settings.maximumAttempts, 1) {
      success += reach * s
      cancelled += reach * c
      pending += reach * p
      let retry = attempt < settings.maximumAttempts ? settings.retryProbability : 0
      failed += reach * f * (1 - retry)
      reach *= f * retry
    }
    return (success, cancelled, pending, failed)
  }
}
