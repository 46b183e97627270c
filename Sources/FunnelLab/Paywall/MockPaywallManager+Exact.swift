import FunnelStats

extension MockPaywallManager {
  /// The exact law of one purchase tap: its final result and the number of
  /// attempts it took, as ``MockPaywallManager/purchase(_:using:)`` draws them.
  ///
  /// With `U(x) = P(nextUnitDouble() < x)` (see `UnitDraw`), one attempt is
  /// cancelled with `U(c)`, fails with `f = U(c + f) − U(c)`, is pending with
  /// `U(c + f + p) − U(c + f)` and succeeds otherwise; after a failure the user
  /// retries with `r = U(retry)` while attempts remain. So attempt `a` happens with
  /// `(f·r)^{a−1}` and
  /// ```
  /// P(result, a) = (f·r)^{a−1} · P(result on one attempt)          (success, cancel, pending)
  /// P(failed, a) = (f·r)^{a−1} · f · (1 − r·1{a < maximumAttempts})
  /// ```
  /// The tap's latency is `latencySeconds · a`, added to the walk's clock in whole
  /// milliseconds (truncated, as the Monte Carlo does).
  package struct TapDistribution: Sendable, Hashable {
    /// A tap's final result.
    package enum Result: Int, Sendable, Hashable, CaseIterable {
      /// The four ends of a tap, matching ``PurchaseResult``'s cases; the raw value indexes ``probabilities``.
      case success, cancelled, pending, failed
    }

    /// `probabilities[result.rawValue][a − 1]` = P(the tap ends in `result` after `a` attempts).
    package var probabilities: [[Double]]
    /// The milliseconds a tap of `a` attempts adds to the clock, at index `a − 1`.
    package var latencyMillis: [Double]

    /// P(the tap ends in `result`).
    package func probability(of result: Result) -> Double { probabilities[result.rawValue].reduce(0, +) }

    /// `E[L · 1{result}]` and `E[L² · 1{result}]`, `L` the tap's latency in ms.
    package func latencyMoments(of result: Result) -> (first: Double, second: Double) {
      var first = 0.0
      var second = 0.0
      for (i, p) in probabilities[result.rawValue].enumerated() {
        first += p * latencyMillis[i]
        second += p * latencyMillis[i] * latencyMillis[i]
      }
      return (first, second)
    }

    /// `E[attempts]` per tap.
    package var meanAttempts: Double {
      var sum = 0.0
      for row in probabilities {
        for (k, p) in row.enumerated() { sum += p * Double(k + 1) }
      }
      return sum
    }
  }

  /// The exact law of one tap under these settings.
  /// - Complexity: `O(maximumAttempts)`.
  package var tapDistribution: TapDistribution {
    let s = settings
    let cancelBelow = UnitDraw.probabilityBelow(s.cancelProbability)
    let failBelow = UnitDraw.probabilityBelow(s.cancelProbability + s.failureProbability)
    let pendingBelow = UnitDraw.probabilityBelow(s.cancelProbability + s.failureProbability + s.pendingProbability)
    let cancel = cancelBelow
    let fail = failBelow - cancelBelow
    let pending = pendingBelow - failBelow
    let success = 1 - pendingBelow
    let retry = UnitDraw.probabilityBelow(s.retryProbability)
    let attempts = max(s.maximumAttempts, 1)
    var rows = [[Double]](repeating: [Double](repeating: 0, count: attempts), count: 4)
    var latency = [Double](repeating: 0, count: attempts)
    var reach = 1.0
    for a in 1...attempts {
      let again = a < s.maximumAttempts ? retry : 0
      rows[TapDistribution.Result.success.rawValue][a - 1] = reach * success
      rows[TapDistribution.Result.cancelled.rawValue][a - 1] = reach * cancel
      rows[TapDistribution.Result.pending.rawValue][a - 1] = reach * pending
      rows[TapDistribution.Result.failed.rawValue][a - 1] = reach * fail * (1 - again)
      latency[a - 1] = Double(UInt64(rounding: max(s.latencySeconds * Double(a), 0) * 1000, .towardZero) ?? 0)
      reach *= fail * again
    }
    return TapDistribution(probabilities: rows, latencyMillis: latency)
  }

  /// P("Restore purchases" restores), exactly as drawn.
  package var restoreProbability: Double { UnitDraw.probabilityBelow(settings.restoreSuccessProbability) }

  /// P(a pending purchase is approved), exactly as drawn.
  package var approvalProbability: Double { UnitDraw.probabilityBelow(settings.approvalProbability) }
}
