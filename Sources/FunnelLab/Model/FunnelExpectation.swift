/// An assumption about a flow written down in the spec (`expectations`), checked by
/// `funnellab check` and ``ExpectationChecker``.
///
/// Four kinds, each evaluated where it cannot flicker between seeds when the truth
/// is clearly on one side:
/// - ``Kind/range``: a variant's metric lies in `[min, max]` — on the exact value
///   (``ExactEngine``), with no sampling noise.
///   With `relativeTo` the bounds are on the difference from that variant (the metric's own
///   direction; relative to its value with `"scale": "relative"`).
/// - ``Kind/lift``: the exact improvement Δ of a variant over the control is bounded:
///   `atLeast` (Δ ≥ x), `atMost` (Δ ≤ x), `costsAtMost` (Δ ≥ −x), `costsAtLeast` (Δ ≤ −x)
///   and `within` (|Δ| ≤ m, equivalence of the model), any together. "Improves" follows
///   ``FunnelMetric/higherIsBetter``: for abandonment and time a lift is a decrease. Δ is
///   absolute (points of a rate) by default, relative to the control's value with
///   `"scale": "relative"` (``Scale``).
/// - ``Kind/beats``: a variant beats the control with adjusted p < α at `users`
///   per arm with power ≥ `power` — the power of the pooled two-proportion z-test
///   (``PowerAnalysis``) at the exact rates and the Bonferroni level `α / k`, where k
///   is 1 (its own comparison) or the number of arms it names (the variant and `among`;
///   a lower bound of the Holm power). Grid cells never change k. With `simulate`, an
///   experiment-mode run of the control and those arms must also reach adjusted p < α.
/// - ``Kind/best``: a variant has the best value of a metric among the control, itself
///   and `among` (by default every variant the spec declares, not its grid cells)
///   with probability ≥ `probability` — from the exact values (probability 1 or 0)
///   or, with `users`, the Bayesian probability to be best after an
///   experiment-mode run of those arms at that size (seeded by the spec: deterministic).
/// - ``Kind/equivalent``: a test of `users` per arm would show the variant equivalent to the
///   control within ±`within` (absolute, or relative to the control's value with `"scale":
///   "relative"`) with power ≥ `power`: the power of two one-sided z-tests at level α
///   (``TwoProportionEquivalenceTest``) at the exact rates; with `simulate`, a seeded
///   experiment-mode run of the control and the variant must also show it (TOST p < α).
public struct FunnelExpectation: Sendable, Hashable, Decodable {
  /// What is expected: `range`, `lift`, `beats`, `best`, `varianceReduction` or `equivalent` (see the type's description for each rule).
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    /// The four rules, each described in ``FunnelExpectation``; the raw value is the spec's `kind`.
    case range, lift, beats, best
    /// The exact share of the variant-vs-control difference's variance that ``FunnelExpectation/method`` removes is in `[min, max]`.
    case varianceReduction
    /// A test of `users` per arm shows the variant equivalent to the control within ±`within`
    /// (two one-sided tests at α) with power ≥ `power`: the detection counterpart of a `lift`'s `within`.
    case equivalent
  }

  /// The scale of a `lift`'s bounds, or of a `range` `relativeTo` another variant.
  public enum Scale: String, Sendable, Hashable, CaseIterable {
    /// The difference in the metric's unit (points of a rate, dollars, seconds).
    case absolute
    /// The difference divided by the reference's value (0.05 = 5 % of the control's value).
    case relative
  }

  /// A name for reports; by default built from the kind, variant and metric.
  public var id: String
  /// The rule this expectation is checked by.
  public var kind: Kind
  /// The variant the expectation is about; not the control for `lift`, `beats` and `equivalent`.
  public var variant: String
  /// The metric measured; `beats` and `equivalent` need a proportion metric (their power is a two-proportion z-test's).
  public var metric: FunnelMetric
  /// ``Kind/range`` bounds (at least one).
  public var min: Double?
  /// ``Kind/range``: the largest acceptable value, in the metric's unit (inclusive).
  public var max: Double?
  /// ``Kind/lift``: the smallest acceptable improvement over the control.
  public var atLeast: Double?
  /// ``Kind/lift``: the largest acceptable worsening against the control (≥ 0).
  public var costsAtMost: Double?
  /// ``Kind/lift``: the largest acceptable improvement over the control.
  public var atMost: Double?
  /// ``Kind/lift``: the smallest worsening against the control expected (≥ 0): the variant costs at least this.
  public var costsAtLeast: Double?
  /// ``Kind/lift``: an equivalence margin (≥ 0): the improvement lies in `[-within, within]`;
  /// ``Kind/equivalent``: the margin (> 0) a test must show the difference within.
  public var within: Double?
  /// ``Kind/lift``, ``Kind/equivalent`` and ``Kind/range`` with ``relativeTo``: the bounds' scale; default absolute.
  public var scale: Scale
  /// ``Kind/range``: a variant whose value is subtracted before the bounds apply (the control, usually).
  public var relativeTo: String?
  /// ``Kind/beats`` and ``Kind/best``: the other arms compared besides the control and
  /// ``variant``. `beats` shares α among its comparisons with the control (Bonferroni; by
  /// default its own comparison alone); `best` ranks the control, the variant and these (by
  /// default every variant the spec declares, not its grid cells).
  public var among: [String]?
  /// ``Kind/beats`` and ``Kind/equivalent`` (required), ``Kind/best`` (optional): users per arm.
  public var users: Int?
  /// ``Kind/beats`` and ``Kind/equivalent``: the least acceptable power (default 0.8).
  public var power: Double?
  /// ``Kind/beats`` and ``Kind/equivalent``: the significance level (default the spec's `metrics.alpha`).
  public var alpha: Double?
  /// ``Kind/beats`` and ``Kind/equivalent``: also run an experiment of `users` per arm and require
  /// significance (of the improvement, or of the equivalence).
  public var simulate: Bool
  /// ``Kind/best``: the least acceptable probability to be best.
  public var probability: Double?
  /// varianceReduction: the adjustment, `postStratified`, `cuped` or `regression` (``SegmentReport/Method/specName``).
  public var method: String?

  /// An expectation built in code; `id` `nil` gives `"<kind> <variant> <metric>"`. Validation checks that
  /// the fields the kind needs are present.
  public init(
    id: String? = nil, kind: Kind, variant: String, metric: FunnelMetric, min: Double? = nil, max: Double? = nil,
    atLeast: Double? = nil, costsAtMost: Double? = nil, atMost: Double? = nil, costsAtLeast: Double? = nil,
    within: Double? = nil, scale: Scale = .absolute, relativeTo: String? = nil, among: [String]? = nil, users: Int? = nil,
    power: Double? = nil, alpha: Double? = nil, simulate: Bool = false, probability: Double? = nil
  ) {
    self.id = id ?? "\(kind.rawValue) \(variant) \(metric.rawValue)"
    self.kind = kind
    self.variant = variant
    self.metric = metric
    self.min = min
    self.max = max
    self.atLeast = atLeast
    self.costsAtMost = costsAtMost
    self.atMost = atMost
    self.costsAtLeast = costsAtLeast
    self.within = within
    self.scale = scale
    self.relativeTo = relativeTo
    self.among = among
    self.users = users
    self.power = power
    self.alpha = alpha
    self.simulate = simulate
    self.probability = probability
  }

  enum CodingKeys: String, CodingKey {
    case id, kind, variant, metric, min, max, atLeast, costsAtMost, atMost, costsAtLeast, within, scale, relativeTo, among
    case users, power, alpha, simulate, probability, method
  }

  /// Decodes one item of a spec's `expectations`: `kind`, `variant` and `metric` are required, the rest
  /// optional; `id` defaults as in the initializer.
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
    atMost = try c.decodeIfPresent(Double.self, forKey: .atMost)
    costsAtLeast = try c.decodeIfPresent(Double.self, forKey: .costsAtLeast)
    within = try c.decodeIfPresent(Double.self, forKey: .within)
    scale = try c.decodeEnumIfPresent(Scale.self, forKey: .scale) ?? .absolute
    relativeTo = try c.decodeIfPresent(String.self, forKey: .relativeTo)
    among = try c.decodeIfPresent([String].self, forKey: .among)
    users = try c.decodeIfPresent(Int.self, forKey: .users)
    power = try c.decodeIfPresent(Double.self, forKey: .power)
    alpha = try c.decodeIfPresent(Double.self, forKey: .alpha)
    simulate = try c.decodeIfPresent(Bool.self, forKey: .simulate) ?? false
    probability = try c.decodeIfPresent(Double.self, forKey: .probability)
    method = try c.decodeIfPresent(String.self, forKey: .method)
  }

  /// The keys each kind takes besides `id`, `kind`, `variant` and `metric`.
  static func keys(of kind: Kind) -> Set<String> {
    switch kind {
    case .range: ["min", "max", "relativeTo", "scale"]
    case .lift: ["atLeast", "atMost", "costsAtLeast", "costsAtMost", "within", "scale"]
    case .beats: ["users", "power", "alpha", "simulate", "among"]
    case .best: ["users", "probability", "among"]
    case .varianceReduction: ["min", "max", "method"]
    case .equivalent: ["users", "within", "power", "alpha", "simulate", "scale"]
    }
  }

  /// A `lift`'s bounds on the improvement Δ: the largest lower bound (`atLeast`,
  /// `-costsAtMost`, `-within`) and the smallest upper bound (`atMost`, `-costsAtLeast`,
  /// `within`); infinite when not bounded on that side.
  public var liftBounds: (lower: Double, upper: Double) {
    let lower = [atLeast, costsAtMost.map { -$0 }, within.map { -$0 }].compactMap { $0 }.max() ?? -.infinity
    let upper = [atMost, costsAtLeast.map { -$0 }, within].compactMap { $0 }.min() ?? .infinity
    return (lower, upper)
  }

  /// Problems of this expectation against the experiment it belongs to.
  func validationErrors(at path: SpecPath, variants: [String]) -> [SpecError] {
    var errors: [SpecError] = []
    func fail(_ key: String?, _ message: String, _ hint: String? = nil, kind: SpecError.Kind = .invalidValue) {
      errors.append(SpecError(kind, path: key.map { path.key($0) } ?? path, message: message, hint: hint))
    }
    if !variants.contains(variant) {
      fail(
        "variant", "no variant '\(variant)'",
        NameSuggestion.hint(for: variant, in: variants) ?? "use one of: " + variants.joined(separator: ", "), kind: .unknownReference)
    } else if kind != .range, kind != .best, variant == variants.first {
      fail(
        "variant", "\(kind.withArticle) expectation compares a variant with the control, and '\(variant)' is the control",
        kind == .lift ? "name another variant; to bound the control itself use a range" : "name another variant")
    }
    let allowed = Self.keys(of: kind)
    let set: [(String, Bool)] = [
      ("min", min != nil), ("max", max != nil), ("atLeast", atLeast != nil), ("costsAtMost", costsAtMost != nil),
      ("atMost", atMost != nil), ("costsAtLeast", costsAtLeast != nil), ("within", within != nil), ("scale", scale != .absolute),
      ("relativeTo", relativeTo != nil), ("among", among != nil), ("users", users != nil), ("power", power != nil),
      ("alpha", alpha != nil), ("simulate", simulate), ("probability", probability != nil), ("method", method != nil),
    ]
    for (key, isSet) in set where isSet && !allowed.contains(key) {
      fail(
        key, "\(key) is not used by \(kind.withArticle) expectation",
        "\(kind.withArticle) expectation takes: " + allowed.sorted().joined(separator: ", "), kind: .unknownKey)
    }
    let numbers = [
      ("min", min), ("max", max), ("atLeast", atLeast), ("costsAtMost", costsAtMost), ("atMost", atMost),
      ("costsAtLeast", costsAtLeast), ("within", within),
    ]
    for (key, value) in numbers {
      if let value, !value.isFinite { fail(key, "\(key) must be a finite number") }
    }
    for (key, value) in [("costsAtMost", costsAtMost), ("costsAtLeast", costsAtLeast), ("within", within)] {
      if let value, value < 0 { fail(key, "\(key) must be ≥ 0", "it is a size; the direction is in the key's name") }
    }
    errors += referenceErrors(at: path, variants: variants)
    switch kind {
    case .range, .varianceReduction:
      if min == nil, max == nil { fail(nil, "\(kind.withArticle) expectation needs min, max or both", "e.g. \"min\": 0.55, \"max\": 0.7") }
      if let lo = min, let hi = max, lo > hi { fail("max", "max \(JSONValue.format(hi)) is below min \(JSONValue.format(lo))") }
      if kind == .range, scale == .relative, relativeTo == nil {
        fail("scale", "a relative range needs relativeTo (the variant it is relative to)", "e.g. \"relativeTo\": \"control\"")
      }
    case .lift:
      if [atLeast, atMost, costsAtLeast, costsAtMost, within].allSatisfy({ $0 == nil }) {
        fail(
          nil, "a lift expectation needs atLeast, atMost, costsAtLeast, costsAtMost or within",
          "e.g. \"atLeast\": 0.02 (2 points of a rate), or \"costsAtLeast\": 0.005 (it costs at least half a point)")
      } else if liftBounds.lower > liftBounds.upper {
        fail(
          nil,
          "no improvement meets every bound: it must be ≥ \(JSONValue.format(liftBounds.lower)) and ≤ \(JSONValue.format(liftBounds.upper))",
          "atLeast and costsAtMost bound it from below, atMost, costsAtLeast and within from above")
      }
    case .beats, .equivalent:
      if users == nil { fail(nil, "\(kind.withArticle) expectation needs users (per arm)", "e.g. \"users\": 50000") }
      if !metric.isProportion {
        fail(
          "metric", "\(kind.withArticle) expectation needs a proportion metric (its power comes from the exact rates)",
          "e.g. purchaseConversion")
      }
      if let p = power, !(p > 0 && p < 1) { fail("power", "power must be in (0, 1)", "the default is 0.8") }
      if let a = alpha, !(a > 0 && a < 0.5) { fail("alpha", "alpha must be in (0, 0.5)", "the default is metrics.alpha") }
      if kind == .equivalent, !(within.map { $0 > 0 } ?? false) {
        fail(nil, "an equivalent expectation needs within > 0 (the margin)", "e.g. \"within\": 0.005 (half a point of a rate)")
      }
    case .best:
      if probability == nil { fail(nil, "a best expectation needs probability", "e.g. \"probability\": 0.9") }
      if let p = probability, !(p > 0 && p <= 1) { fail("probability", "probability must be in (0, 1]") }
    }
    if kind == .varianceReduction { errors += methodErrors(at: path) }
    if let n = users, !Self.usersPerArm.contains(n) {
      fail("users", "users must be from \(Self.usersPerArm.lowerBound) to \(Self.usersPerArm.upperBound), got \(n)")
    }
    return errors
  }

  /// Problems of `relativeTo` and `among`: unknown variants, the expectation's own
  /// variant as its reference, the control among `beats`' arms, repeated arms.
  func referenceErrors(at path: SpecPath, variants: [String]) -> [SpecError] {
    var errors: [SpecError] = []
    func unknown(_ name: String, at place: SpecPath) {
      errors.append(
        SpecError(
          .unknownReference, path: place, message: "no variant '\(name)'",
          hint: NameSuggestion.hint(for: name, in: variants) ?? "use one of: " + variants.joined(separator: ", ")))
    }
    if let reference = relativeTo {
      if !variants.contains(reference) {
        unknown(reference, at: path.key("relativeTo"))
      } else if reference == variant {
        errors.append(
          SpecError(
            path: path.key("relativeTo"), message: "a range relative to its own variant is always 0",
            hint: "name another variant, e.g. \"relativeTo\": \"\(variants.first ?? "control")\""))
      }
    }
    for (i, arm) in (among ?? []).enumerated() {
      let place = path.key("among").index(i)
      if !variants.contains(arm) {
        unknown(arm, at: place)
      } else if kind == .beats, arm == variants.first {
        errors.append(SpecError(path: place, message: "the control is not a comparison with the control", hint: "list the other arms"))
      } else if (among ?? []).prefix(i).contains(arm) {
        errors.append(SpecError(path: place, message: "'\(arm)' is listed twice", hint: "list each arm once"))
      }
    }
    if let among, among.isEmpty {
      errors.append(SpecError(path: path.key("among"), message: "among lists no arm", hint: "name the arms compared, or leave among out"))
    }
    return errors
  }

  /// The accepted `users` (per arm) of an expectation.
  package static let usersPerArm: ClosedRange<Int> = 2...100_000_000

  /// The names a `varianceReduction`'s `method` may take: the adjustments, not `unadjusted`.
  package static var methodNames: [String] { SegmentReport.Method.allCases.filter { $0 != .unadjusted }.map(\.specName) }

  /// A `varianceReduction`'s `method`: present and one of the adjustments.
  func methodErrors(at path: SpecPath) -> [SpecError] {
    let names = Self.methodNames
    if let m = method, !names.contains(m) {
      return [
        SpecError(
          path: path.key("method"), message: "unknown method '\(m)'",
          hint: NameSuggestion.hint(for: m, in: names) ?? "use one of: " + names.joined(separator: ", "))
      ]
    }
    guard method == nil else { return [] }
    return [
      SpecError(path: path, message: "a varianceReduction expectation needs method", hint: "one of: " + names.joined(separator: ", "))
    ]
  }
}

extension FunnelExpectation.Kind: CaseIterableRawEnum {
  /// The kind with its article, for messages: `a lift`, `an equivalent`.
  var withArticle: String { (self == .equivalent ? "an " : "a ") + rawValue }
}
extension FunnelExpectation.Scale: CaseIterableRawEnum {}
