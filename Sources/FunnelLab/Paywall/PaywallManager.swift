public import FunnelStats

/// A completed purchase, as a store reports it.
public struct StoreTransaction: Sendable, Hashable {
  /// The plan bought.
  public var productID: String
  /// The price charged per period (before the store's fee).
  public var price: Double
  /// The purchase starts a free trial rather than a paid period.
  public var isTrial: Bool
  /// Days after the tap when the transaction happened (an approved Ask to Buy comes later).
  public var delayDays: Double

  /// A transaction; `delayDays` 0 means at the tap.
  public init(productID: String, price: Double, isTrial: Bool, delayDays: Double = 0) {
    self.productID = productID
    self.price = price
    self.isTrial = isTrial
    self.delayDays = delayDays
  }
}

/// Why a purchase failed.
public enum PurchaseFailure: String, Sendable, Hashable, CaseIterable {
  /// The connection failed; the only failure ``MockPaywallManager`` produces.
  case network
  /// The payment method was refused (for custom purchase layers).
  case paymentDeclined
  /// The store could not be reached or is not available in the region (for custom purchase layers).
  case storeUnavailable
}

/// The outcome of a purchase, shaped like StoreKit 2's `Product.PurchaseResult`
/// (`.success`, `.userCancelled`, `.pending`) with failures as a case instead of a
/// thrown `StoreKitError`.
public enum PurchaseResult: Sendable, Hashable {
  /// Bought: the transaction starts a paid period or a free trial.
  case success(StoreTransaction)
  /// The payment sheet was dismissed; the user is back on the paywall.
  case userCancelled
  /// Ask to Buy: approval is needed; the app goes on without the entitlement for now.
  case pending
  /// The purchase failed after the attempts the user made.
  case failed(PurchaseFailure)
}

/// The outcome of "Restore purchases".
public enum RestoreResult: Sendable, Hashable {
  /// A previous purchase was found: the user is entitled.
  case restored
  /// The store has no purchase to restore for this user.
  case nothingToRestore
  /// The restore could not complete.
  case failed(PurchaseFailure)
}

/// A purchase attempt as the simulator sees it: the result, the simulated seconds it
/// took, and how many times the user tried.
public struct PurchaseAttempt: Sendable, Hashable {
  /// How the purchase ended.
  public var result: PurchaseResult
  /// Simulated seconds the purchase took, added to the user's simulated clock (a negative value counts as 0).
  public var latencySeconds: Double
  /// Store attempts made, retries included (at least 1 is counted).
  public var attempts: Int

  /// An attempt; by default instantaneous and first-time.
  public init(result: PurchaseResult, latencySeconds: Double = 0, attempts: Int = 1) {
    self.result = result
    self.latencySeconds = latencySeconds
    self.attempts = attempts
  }
}

/// The purchase layer a paywall talks to (StoreKit 2 or RevenueCat style).
///
/// The simulator calls it when a user taps a plan or "Restore purchases". Each call
/// receives the user's own store stream, so an implementation is deterministic as long
/// as it draws only from `rng`. ``MockPaywallManager`` is the built-in one; plug in
/// your own to model a different store:
/// ```swift
/// struct AlwaysBuys: PaywallManager {
///   func purchase(_ plan: Plan, using rng: inout Xoshiro256StarStar) -> PurchaseAttempt {
///     PurchaseAttempt(result: .success(StoreTransaction(productID: plan.id, price: plan.price, isTrial: plan.trialDays > 0)))
///   }
///   func restorePurchases(using rng: inout Xoshiro256StarStar) -> RestoreResult { .nothingToRestore }
/// }
/// let result = try Simulation.run(experiment, paywall: AlwaysBuys())
/// ```
public protocol PaywallManager: Sendable {
  /// Buys `plan`: the payment sheet, the store's answer, retries.
  func purchase(_ plan: Plan, using rng: inout Xoshiro256StarStar) -> PurchaseAttempt
  /// What becomes of a pending purchase: a later transaction, or `nil` if declined.
  func resolvePending(_ plan: Plan, using rng: inout Xoshiro256StarStar) -> StoreTransaction?
  /// Restores a returning user's purchases.
  func restorePurchases(using rng: inout Xoshiro256StarStar) -> RestoreResult
}

extension PaywallManager {
  /// By default a pending purchase is never approved.
  public func resolvePending(_ plan: Plan, using rng: inout Xoshiro256StarStar) -> StoreTransaction? { nil }
}
