extension FunnelMetric {
  /// Whether the metric can be non-zero in a run of `flows`: paywall views need a paywall
  /// screen, purchases and revenue plans to sell, trial metrics a plan with a trial, refunds a
  /// refund probability, the goal answered a personalizing question (a choice or slider with
  /// `personalizes`), skips a skip action (an explicit one or an optional input's). A report shows no chart, column, row or key of a metric that cannot be
  /// (UrbanNest and NCDB have no paywall: no purchase or revenue metric anywhere).
  package func applies(to flows: [CompiledFlow]) -> Bool {
    switch self {
    case .paywallViewRate: flows.contains { $0.screenKinds.contains(.paywall) }
    case .purchaseConversion, .purchaseConversionOfViewers, .revenuePerUser, .revenuePerPayingUser, .revenuePerPaywallViewer,
      .realizedRevenuePerUser:
      flows.contains { !$0.plans.isEmpty }
    case .trialStartRate, .trialToPaid: flows.contains { $0.plans.contains { $0.plan.trialDays > 0 } }
    case .refundRate: flows.contains { !$0.plans.isEmpty && $0.revenue.refundProbability > 0 }
    case .personalizationRate: flows.contains { $0.has(CompiledFlow.Effect.personalizes) }
    case .skipRate: flows.contains { $0.has(CompiledFlow.Effect.skip) }
    case .completionRate, .abandonmentRate, .timeToFinish: true
    }
  }
}

extension FunnelCounter {
  /// Whether the counter can be non-zero in a run of `flows`: paywall viewers need a paywall
  /// screen, the store's counters plans to sell; the walk's counters always apply.
  package func applies(to flows: [CompiledFlow]) -> Bool {
    switch self {
    case .users, .completed, .stepLimitReached, .usersWhoSkipped, .usersWhoWentBack, .usersPersonalized: true
    case .paywallViewers: flows.contains { $0.screenKinds.contains(.paywall) }
    case .purchasers, .purchaseTaps, .purchaseAttempts, .purchaseCancels, .purchaseFailures, .purchasePendings, .pendingApprovals,
      .restoreAttempts, .restores, .trialStarts, .trialConversions, .refunds:
      flows.contains { !$0.plans.isEmpty }
    }
  }
}

extension CompiledFlow {
  /// Whether some outcome of the flow has `effect` (a bit of ``Effect``).
  func has(_ effect: UInt8) -> Bool { outcomeEffects.contains { $0 & effect != 0 } }
}
