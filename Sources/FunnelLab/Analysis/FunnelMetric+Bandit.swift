extension FunnelMetric {
  /// Whether a bandit can optimise this metric: a rate over every user (so that an arm's
  /// successes per user are what showing it to everyone would give) where higher is better.
  package var isBanditReward: Bool {
    switch definition {
    case .proportion(.count(_, of: .users)): higherIsBetter
    default: false
    }
  }

  /// The refusal of a metric a bandit cannot optimise, at `metrics.primary`; `nil` for a reward.
  func banditRefusal() -> SpecError? {
    guard !isBanditReward else { return nil }
    let why =
      !isProportion ? "is a mean" : (!higherIsBetter ? "is better when lower" : "is not a rate over every user")
    return SpecError(
      path: [.key("metrics"), .key("primary")], message: "a bandit maximises a rate over every user; \(rawValue) \(why)",
      hint: "use purchaseConversion, completionRate, trialStartRate or another rate of all users as the primary metric")
  }
}
