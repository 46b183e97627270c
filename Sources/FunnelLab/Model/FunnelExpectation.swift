/// An assumption about a flow written down in the spec (`expectations`), checked by
/// `funnellab check` and ``ExpectationChecker``.
///
/// Four kinds, each evaluated where it cannot flicker between seeds when the truth
/// is clearly on one side:
/// - ``Kind/range``: a variant's metric lies in `[min, max]` — on the exact value
///   (``ExactEngine``), with no sampling noise.
/// - ``Kind/lift``: a variant improves a metric over the control by at least
///   `atLeast`, and/or worsens it by at most `costsAtMost` — on the exact
///   difference. "Improves" follows ``FunnelMetric/higherIsBetter``: for
///   abandonment and time a lift is a decrease.
/// - ``Kind/beats``: a variant beats the control with adjusted p < α at `users`
///   per arm with power ≥ `power` — the power of the pooled two-proportion z-test
///   (``PowerAnalysis``) at the exact rates and the Bonferroni level
///   `α / (arms − 1)`, arms counting grid cells (a lower bound of the Holm power); with `simulate`, an
///   experiment-mode run of that size must also reach adjusted p < α.
/// - ``Kind/best``: a variant has the best value of a metric among all arms with
///   probability ≥ `probability` — from the exact values (probability 1 or 0)
///   or, with `users`, the Bayesian probability to be best after an
///   experiment-mode run of that size (seeded by the spec: deterministic).
public struct FunnelExpectation: Sendable, Hashable, Decodable {
  /// What is expected: `range`, `lift`, `beats` or `best` (see the type's description for each rule).
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    /// The four rules, each described in ``FunnelExpectation``; the raw value is the spec's `kind`.
    case range, lift, beats, best
    /// The exact share of the variant-vs-control difference's variance that ``FunnelExpectation/method`` removes is in `[min, max]`.
    case varianceReduction
  }

  /// A name for reports; by default built from the kind, variant and metric.
  public var id: String
  /// The rule this expectation is checked by.
  public var kind: Kind
  /// The variant the expectation is about; not the control for `lift` and `beats`.
  public var variant: String
  /// The metric measured; `beats` needs a proportion metric (its power is a two-proportion z-test's).
  public var metric: FunnelMetric
  /// ``Kind/range`` bounds (at least one).
  public var min: Double?
  /// ``Kind/range``: the largest acceptable value, in the metric's unit (inclusive).
  public var max: Double?
  /// ``Kind/lift``: the smallest acceptable improvement over the control.
  public var atLeast: Double?
  /// ``Kind/lift``: the largest acceptable worsening against the control (≥ 0).
  public var costsAtMost: Double?
  /// ``Kind/beats`` (required) and ``Kind/best`` (optional): users per arm.
  public var users: Int?
  /// ``Kind/beats``: the least acceptable power (default 0.8).
  public var power: Double?
  /// ``Kind/beats``: the significance level (default the spec's `metrics.alpha`).
  public var alpha: Double?
  /// ``Kind/beats``: also run an experiment of `users` per arm and require significance.
  public var simulate: Bool
  /// ``Kind/best``: the least acceptable probability to be best.
  public var probability: Double?
  /// varianceReduction: the adjustment, `postStratified`, `cuped` or `regression` (``SegmentReport/Method/specName``).
  public var method: String?

  /// An expectation built in code; `id` `nil` gives `"<kind> <variant> <metric>"`. Validation checks that
  /// the fields the kind needs are present.
  @_optimize(none)
  public init(
    id: String? = nil, kind: Kind, variant: String, metric: FunnelMetric, min: Double? = nil, max: Double? = nil,
    atLeast: Double? = nil, costsAtMost: Double? = nil, users: Int? = nil, power: Double? = nil, alpha: Double? = nil,
    simulate: Bool = false, probability: Double? = nil
  ) {
    self.id = id ?? "\(kind.rawValue) \(variant) \(metric.rawValue)"
    self.kind = kind
    self.variant = variant
    self.metric = metric
    self.min = min
    self.max = max
    self.atLeast = atLeast
    self.costsAtMost = costsAtMost
    self.users = users
    self.power = power
    self.alpha = alpha
    self.simulate = simulate
    self.probability = probability
  }

  enum CodingKeys: String, CodingKey {
    case id, kind, variant, metric, min, max, atLeast, costsAtMost, users, power, alpha, simulate, probability, method
  }

  /// Decodes one item of a spec's `expectations`: `kind`, `variant` and `metric` are required, the rest
  /// optional; `id` defaults as in the initializer.
  @_optimize(none)
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    kind = try c.decodeEnum(Kind.self, forKey: .kind)
    variant = try c.decode(String.self, forKey: .variant)
    metric = try c.decodeEnum(FunnelMetric.self, forKey: .metric)
    id = try c.decodeIfPresent(String.self, forKey: .id) ?? "\(kind.rawValue) \(variant) \(metric.rawValue)"
    min = try c.decodeIfPresent(Double.self, forKey: .min)
    max = try c.decodeIfPresent(Double.self, forKey: .max)
    atLeast = try c.decodeIfPresent(Double.self, forKey: .atLeast)
    costsAtMost = try c.decodeIfPresent(Double.self, forKey: .costsAtMost)
    users = try c.decodeIfPresent(Int.self, forKey: .users)
    power = try c.decodeIfPresent(Double.self, forKey: .power)
    alpha = try c.decodeIfPresent(Double.self, forKey: .alpha)
    simulate = try c.decodeIfPresent(Bool.self, forKey: .simulate) ?? false
    probability = try c.decodeIfPresent(Double.self, forKey: .probability)
    method = try c.decodeIfPresent(String.self, forKey: .method)
  }

  /// Problems of this expectation against the experiment it belongs to.
  @_optimize(none)
  func validationErrors(at path: SpecPath, variants: [String]) -> [SpecError] {
    var errors: [SpecError] = []
    @_optimize(none)
    func fail(_ key: String?, _ message: String, _ hint: String? = nil, kind: SpecError.Kind = .invalidValue) {
      errors.append(SpecError(kind, path: key.map { path.key($0) } ?? path, message: message, hint: hint))
    }
    if !variants.contains(variant) {
      fail(
        "variant", "no variant '\(variant)'",
        NameSuggestion.hint(for: variant, in: variants) ?? "use one of: " + variants.joined(separator: ", "), kind: .unknownReference)
    } else if kind != .range, kind != .best, variant == variants.first {
      fail(
        "variant", "a \(kind.rawValue) expectation compares a variant with the control, and '\(variant)' is the control",
        "name another variant")
    }
    let allowed: Set<String> =
      switch kind {
      case .range: ["min", "max"]
      case .lift: ["atLeast", "costsAtMost"]
      case .beats: ["users", "power", "alpha", "simulate"]
      case .best: ["users", "probability"]
      case .varianceReduction: ["min", "max", "method"]
      }
    let set: [(String, Bool)] = [
      ("min", min != nil), ("max", max != nil), ("atLeast", atLeast != nil), ("costsAtMost", costsAtMost != nil),
      ("users", users != nil), ("power", power != nil), ("alpha", alpha != nil), ("simulate", simulate),
      ("probability", probability != nil), ("method", method != nil),
    ]
    for (key, isSet) in set where isSet && !allowed.contains(key) {
      fail(
        key, "\(key) is not used by a \(kind.rawValue) expectation",
        "a \(kind.rawValue) expectation takes: " + allowed.sorted().joined(separator: ", "), kind: .unknownKey)
    }
    for (key, value) in [("min", min), ("max", max), ("atLeast", atLeast), ("costsAtMost", costsAtMost)] {
      if let value, !value.isFinite { fail(key, "\(key) must be a finite number") }
    }
    switch kind {
    case .range:
      if min == nil, max == nil { fail(nil, "a range expectation needs min, max or both", "e.g. \"min\": 0.55, \"max\": 0.7") }
      if let lo = min, let hi = max, lo > hi { fail("max", "max \(JSONValue.format(hi)) is below min \(JSONValue.format(lo))") }
    case .lift:
      if atLeast == nil, costsAtMost == nil {
        fail(nil, "a lift expectation needs atLeast, costsAtMost or both", "e.g. \"atLeast\": 0.02 (2 points of a rate)")
      }
      if let c = costsAtMost, c < 0 { fail("costsAtMost", "costsAtMost must be ≥ 0", "it is the largest acceptable worsening") }
    case .beats:
      if users == nil { fail(nil, "a beats expectation needs users (per arm)", "e.g. \"users\": 50000") }
      if !metric.isProportion {
        fail("metric", "a beats expectation needs a proportion metric (its power comes from the exact rates)", "e.g. purchaseConversion")
      }
      if let p = power, !(p > 0 && p < 1) { fail("power", "power must be in (0, 1)", "the default is 0.8") }
      if let a = alpha, !(a > 0 && a < 0.5) { fail("alpha", "alpha must be in (0, 0.5)", "the default is metrics.alpha") }
    case .varianceReduction:
      let names = SegmentReport.Method.allCases.filter { $0 != .unadjusted }.map(\.specName)
      if let m = method, !names.contains(m) {
        fail("method", "unknown method '\(m)'", NameSuggestion.hint(for: m, in: names) ?? "use one of: " + names.joined(separator: ", "))
      } else if method == nil {
        fail(nil, "a varianceReduction expectation needs method", "one of: " + names.joined(separator: ", "))
      }
      if min == nil, max == nil { fail(nil, "a varianceReduction expectation needs min, max or both", "e.g. \"min\": 0.02") }
      if let lo = min, let hi = max, lo > hi { fail("max", "max \(JSONValue.format(hi)) is below min \(JSONValue.format(lo))") }
    case .best:
      if probability == nil { fail(nil, "a best expectation needs probability", "e.g. \"probability\": 0.9") }
      if let p = probability, !(p > 0 && p <= 1) { fail("probability", "probability must be in (0, 1]") }
    }
    if let n = users, !(2...100_000_000).contains(n) { fail("users", "users must be from 2 to 100000000, got \(n)") }
    return errors
  }
}

extension FunnelExpectation.Kind: CaseIterableRawEnum {}
