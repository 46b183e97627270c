package import FunnelLab

/// The words of a check's result, as `funnellab check` prints them: the library gives
/// values (``ExpectationResult/evidence``, ``ExpectationResult/failures``), this puts
/// them in sentences with numbers at four significant digits (``CheckRenderer/format(_:)``).
extension ExpectationResult {
  /// The expectation in words, e.g. `control completionRate in [0.55, 0.7]`.
  package var statement: String {
    let e = expectation
    let metric = e.metric.rawValue
    switch e.kind {
    case .range:
      guard let reference = e.relativeTo else { return "\(e.variant) \(metric) \(bounds)" }
      return e.scale == .relative
        ? "\(e.variant) \(metric) relative to \(reference)'s \(bounds)" : "\(e.variant) \(metric) − \(reference)'s \(bounds)"
    case .lift:
      var parts: [String] = []
      if let a = e.atLeast { parts.append("lifts \(metric) by ≥ \(amount(a))") }
      if let m = e.atMost { parts.append("lifts \(metric) by ≤ \(amount(m))") }
      if let c = e.costsAtLeast { parts.append("costs ≥ \(amount(c)) of \(metric)") }
      if let c = e.costsAtMost { parts.append("costs ≤ \(amount(c)) of \(metric)") }
      if let w = e.within { parts.append("is within ±\(amount(w)) of \(control) on \(metric)") }
      return "\(e.variant) " + parts.joined(separator: " and ") + direction
    case .beats:
      let users = e.users.map { "\($0)" } ?? "?"
      return "\(e.variant) beats \(control) on \(metric) (adj. p < \(f(e.alpha ?? 0.05))) at \(users)/arm, power ≥ \(f(e.power ?? 0.8))"
        + direction
    case .best:
      return "\(e.variant) has the best \(metric) of \(Vocabulary.plural(arms.count, "arm")) with P ≥ \(f(e.probability ?? 0.9))"
        + direction
    case .varianceReduction:
      return "\(e.method ?? "?") removes \(bounds) of the variance of \(e.variant) − \(control) on \(metric)"
    case .equivalent:
      let users = e.users.map { "\($0)" } ?? "?"
      let margin = e.scale == .relative ? "±\(f((e.within ?? 0) * 100))% of \(control)'s value" : "±\(f(e.within ?? 0))"
      return
        "a test of \(users)/arm shows \(e.variant) equivalent to \(control) on \(metric) within \(margin) (TOST p < \(f(e.alpha ?? 0.05))), power ≥ \(f(e.power ?? 0.8))"
    }
  }

  /// A range expectation's `[min, max]` in words: `in [a, b]`, `≥ a`, `≤ b`.
  private var bounds: String {
    switch (expectation.min, expectation.max) {
    case (let a?, let b?): "in [\(amount(a)), \(amount(b))]"
    case (let a?, nil): "≥ \(amount(a))"
    case (nil, let b?): "≤ \(amount(b))"
    default: "(no bounds)"
    }
  }

  /// The measured quantity as the table shows it: on the expectation's scale (`-2.114%`
  /// on the relative scale), `n/a` when undefined.
  package var measuredText: String { measured.map(amount) ?? "n/a" }

  /// Whether the expectation's bounds are relative to a reference's value (shown as percentages).
  private var isRelative: Bool {
    expectation.scale == .relative && (expectation.kind == .lift || expectation.relativeTo != nil)
  }

  /// A bound or a difference on the expectation's scale: `0.02`, or `2%` on the relative scale.
  private func amount(_ x: Double) -> String { isRelative ? f(x * 100) + "%" : f(x) }

  /// ` (skipRate: higher counted as better)` for a metric whose better direction is a
  /// convention (``FunnelMetric/betterDirectionIsAConvention``); empty otherwise.
  private var direction: String {
    let m = expectation.metric
    guard m.betterDirectionIsAConvention else { return "" }
    return " (\(m.rawValue): \(m.higherIsBetter ? "higher" : "lower") counted as better)"
  }

  /// The α a `beats` used and how it is shared: `α 0.05 (its own comparison)` or
  /// `α 0.05/3 = 0.01667 (Bonferroni: a, b, c)`.
  private func level(_ p: PowerEvidence) -> String {
    let alpha = f(expectation.alpha ?? 0.05)
    guard p.comparisons > 1 else { return "α \(alpha) (its own comparison)" }
    return "α \(alpha)/\(p.comparisons) = \(f(p.level)) (Bonferroni: \(p.arms.joined(separator: ", ")))"
  }

  /// Where the measurement comes from: `exact`, `experiment 5000/arm seed 7` or
  /// `exact + experiment 5000/arm seed 7`.
  package var basisDescription: String {
    switch basis {
    case .exact: "exact"
    case .experiment(let users, let seed): "experiment \(users)/arm seed \(seed)"
    case .exactAndExperiment(let users, let seed): "exact + experiment \(users)/arm seed \(seed)"
    }
  }

  /// What was measured, in words (the value, the power, the adjusted p, P(best)).
  package var detail: String {
    let e = expectation
    switch evidence {
    case .undefined:
      return "undefined"
    case .exactValue(let v):
      if e.kind == .varianceReduction { return "variance removed by \(e.method ?? "?") = \(f(v))" }
      return "\(e.metric.rawValue) = \(f(v))"
    case .exactValues(let variant, let reference):
      return "\(e.variant) \(f(variant)) vs \(e.relativeTo ?? control) \(f(reference))"
    case .power(let p) where e.kind == .equivalent:
      var text = "Δ \(f(p.difference)) exact, margin ±\(f(p.margin ?? 0)), TOST power \(f(p.power)) at α \(f(p.level))"
      if let s = p.simulated { text += "; simulated Δ \(f(s.difference)), TOST p \(f(s.adjustedPValue))" }
      return text
    case .power(let p):
      var text = "Δ \(f(p.difference)) exact, power \(f(p.power)) at \(level(p))"
      if let s = p.simulated { text += "; simulated Δ \(f(s.difference)), adj. p \(f(s.adjustedPValue))" }
      return text
    case .exactRanking(let value, let runnerUp):
      let ranking = runnerUp.map { "exact: \(e.variant) \(f(value)), next \($0.id) \(f($0.value))" } ?? "only arm"
      return ranking + " (no test: exact values)"
    case .probabilityToBeBest(let p, let estimate):
      let interval = alpha.map { " (interval at α \(f($0)))" } ?? ""
      return "P(best) \(f(p)); \(e.variant) \(e.metric.rawValue) \(estimate.map(f) ?? "n/a")\(interval)"
    }
  }

  /// Why it failed, in words; `nil` when it passed (or failed with no reason to give).
  package var explanation: String? {
    guard !passed, !failures.isEmpty else { return nil }
    let reasons = failures.map(words).joined(separator: "; ")
    return expectation.kind == .lift && failures != [.undefined] ? "exact \(expectation.metric.rawValue): \(detail); " + reasons : reasons
  }

  private func words(_ failure: Failure) -> String {
    let e = expectation
    let metric = e.metric.rawValue
    switch failure {
    case .undefined:
      return switch (e.kind, basis) {
      case (.range, _) where e.relativeTo != nil:
        "\(metric) is undefined for \(e.variant) or \(e.relativeTo ?? "")\(isRelative ? ", or is 0 for the latter (relative scale)" : "")"
      case (.range, _): "\(metric) is undefined for \(e.variant): its denominator is 0"
      case (.lift, _), (.beats, _), (.equivalent, _):
        "\(metric) is undefined for \(e.variant) or the control\(isRelative ? ", or is 0 for the control (relative scale)" : "")"
      case (.best, .exact): "\(metric) is undefined for \(e.variant)"
      case (.best, _): "no arm has data on \(metric)"
      case (.varianceReduction, _):
        "\(e.method ?? "the method") needs observable segments (postStratified) or population.covariate (cuped, regression), and a 0/1 metric of every user"
      }
    case .outOfRange(let v, let lo, let hi) where e.kind == .varianceReduction:
      let side = v < lo ? "below the minimum \(f(lo)) by \(f(lo - v))" : "above the maximum \(f(hi)) by \(f(v - hi))"
      return "\(e.method ?? "?") removes \(f(v)) of the variance, \(side); the population or its covariate changed, or the range is wrong"
    case .outOfRange(let v, let lo, let hi):
      let side =
        v < lo ? "below the minimum \(amount(lo)) by \(amount(lo - v))" : "above the maximum \(amount(hi)) by \(amount(v - hi))"
      let subject = e.relativeTo.map { "the exact \(metric) of \(e.variant) against \($0)'s" } ?? "the exact \(metric) of \(e.variant)"
      return "\(subject) is \(amount(v)), \(side); the flow or its assumptions changed, or the range is wrong"
    case .liftShort(let improvement, let wanted):
      return "the improvement is \(amount(improvement)), short of \(amount(wanted)) by \(amount(wanted - improvement))"
    case .costsTooMuch(let cost, let allowed):
      return "it costs \(amount(cost)), more than the \(amount(allowed)) allowed"
    case .liftTooLarge(let improvement, let allowed):
      return "the improvement is \(amount(improvement)), more than the \(amount(allowed)) allowed"
    case .costsTooLittle(let cost, let wanted):
      return cost <= 0
        ? "it does not cost: the improvement is \(amount(-cost)), where a cost of at least \(amount(wanted)) was expected"
        : "it costs \(amount(cost)), less than the \(amount(wanted)) expected"
    case .notEquivalent(let difference, let margin) where e.kind == .equivalent:
      return "the exact difference \(f(difference)) is not inside ±\(f(margin)): no test can show equivalence"
    case .notEquivalent(let improvement, let margin):
      return "the difference \(amount(improvement)) is outside ±\(amount(margin))"
    case .notShownEquivalentInSimulation(let p):
      return "the simulated experiment (seed \(seed)) did not show equivalence (TOST p \(f(p)) ≥ \(f(e.alpha ?? 0.05)))"
    case .notBetter(let variant, let controlValue):
      return "the exact \(metric) of \(e.variant) (\(f(variant))) is not better than \(control)'s (\(f(controlValue)))"
    case .underpowered(let power, let difference) where e.kind == .equivalent:
      let users = e.users.map { Vocabulary.plural($0, "user") } ?? "? users"
      return
        "at \(users) per arm the TOST's power is only \(f(power)) (< \(f(e.power ?? 0.8))) for a true difference of \(f(difference)); more users or a wider margin are needed"
    case .underpowered(let power, let difference):
      let users = e.users.map { Vocabulary.plural($0, "user") } ?? "? users"
      return
        "at \(users) per arm the power is only \(f(power)) (< \(f(e.power ?? 0.8))) for a true difference of \(f(difference)); more users are needed"
    case .notSignificantInSimulation(let p):
      return
        "the simulated experiment (seed \(seed)) did not reach adjusted p < \(f(e.alpha ?? 0.05)) in favour of \(e.variant) (adj. p \(f(p)))"
    case .tie(let other, let value):
      return "\(e.variant) ties \(other) on the exact \(metric) (both \(f(value))): a tie, neither beats the other"
    case .rivalIsBetter(let rival, let value):
      return "\(rival.id) has a better exact \(metric) (\(f(rival.value))) than \(e.variant) (\(f(value)))"
    case .probabilityTooLow(let p, let leader):
      let users = e.users.map { Vocabulary.plural($0, "user") } ?? "? users"
      let lead = leader.map { "; the likeliest best is \($0.id) (P \(f($0.value)))" } ?? ""
      return
        "after an experiment of \(users) per arm (seed \(seed)), P(\(e.variant) best) = \(f(p)) < \(f(e.probability ?? 0.9))\(lead)"
    }
  }

  private var seed: String {
    switch basis {
    case .exact: "?"
    case .experiment(_, let seed), .exactAndExperiment(_, let seed): "\(seed)"
    }
  }

  private func f(_ x: Double) -> String { CheckRenderer.format(x) }
}
