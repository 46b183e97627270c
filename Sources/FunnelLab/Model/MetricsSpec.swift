public import FunnelStats

/// A guardrail: a metric the variant must not make worse by more than a margin.
///
/// Judged by non-inferiority on the difference variant − control (for metrics where
/// lower is better, such as time, the sign is flipped): **ok** when the whole
/// `1 − α` interval lies above `−margin`, **violated** when the point estimate is
/// below `−margin`, **inconclusive** otherwise.
public struct Guardrail: Sendable, Hashable, Decodable {
  /// The metric guarded; its direction (``FunnelMetric/higherIsBetter``) says what "worse" means.
  public var metric: FunnelMetric
  /// The largest acceptable worsening, in the metric's unit (0.02 = 2 points of a rate; seconds for time).
  public var margin: Double

  /// A guardrail on `metric`; validation requires `margin` finite and ≥ 0.
  public init(metric: FunnelMetric, margin: Double) {
    self.metric = metric
    self.margin = margin
  }

  enum CodingKeys: String, CodingKey { case metric, margin }

  /// Decodes `{"metric": …, "margin": …}`; both are required.
  /// - Throws: ``SpecError`` for an unknown metric name (with the closest name as a hint).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    metric = try c.decodeEnum(FunnelMetric.self, forKey: .metric)
    margin = try c.decode(Double.self, forKey: .margin)
  }
}

/// What an experiment measures and how it decides: one primary metric, guardrails,
/// the significance level and the multiple-testing correction across arms.
///
/// The decision rule: **ship** a variant when its primary metric is significantly
/// better than the control's (adjusted p < α, in the metric's good direction) and no
/// guardrail is violated or inconclusive; **do not ship** when the primary metric is
/// significantly worse or a guardrail is violated; otherwise **no decision**.
///
/// **Practical equivalence.** A verdict is graded against the exact difference with
/// a margin below which an effect is too small to matter: a *relative* margin on
/// the control's exact value, `margin = equivalenceMargin × |control|`, so
/// the default 0.01 calls any true effect within ±1 % of the control's value
/// negligible (a not-significant result on it is a correct null; a significant
/// one "detected a negligible effect"). 1 % is below the smallest lift product
/// experiments are usually powered for (2–10 % relative) and below what a team
/// would act on. Override it for all metrics (`equivalenceMargin`) or per metric
/// (`equivalenceMargins: {"timeToFinish": 0.05}`); 0 grades against the exact sign.
public struct MetricsSpec: Sendable, Hashable, Decodable {
  /// The metric the decision rule ships on; default `purchaseConversion`.
  public var primary: FunnelMetric
  /// Metrics that must not worsen beyond their margins, in the spec's order; none by default.
  public var guardrails: [Guardrail]
  /// The significance level of every test, in (0, 0.5); intervals are at `1 − alpha`. Default 0.05.
  public var alpha: Double
  /// How p-values are adjusted across the non-control arms; default Holm.
  public var correction: MultipleTestingCorrection
  /// The relative practical-equivalence margin of every metric not listed in
  /// ``equivalenceMargins``. Default ``defaultEquivalenceMargin`` (0.01 = 1 %).
  public var equivalenceMargin: Double
  /// Per-metric relative margins that override ``equivalenceMargin``.
  public var equivalenceMargins: [FunnelMetric: Double]

  /// The default relative practical-equivalence margin: 1 % of the control's value.
  public static let defaultEquivalenceMargin = 0.01

  /// Creates a metrics spec; every argument has the documented default.
  public init(
    primary: FunnelMetric = .purchaseConversion, guardrails: [Guardrail] = [], alpha: Double = 0.05,
    correction: MultipleTestingCorrection = .holm, equivalenceMargin: Double = MetricsSpec.defaultEquivalenceMargin,
    equivalenceMargins: [FunnelMetric: Double] = [:]
  ) {
    self.primary = primary
    self.guardrails = guardrails
    self.alpha = alpha
    self.correction = correction
    self.equivalenceMargin = equivalenceMargin
    self.equivalenceMargins = equivalenceMargins
  }

  /// The practical-equivalence margin of `metric` in the metric's unit, given the
  /// control's exact value: `relative margin × |control|`.
  public func equivalenceMargin(for metric: FunnelMetric, control: Double) -> Double {
    relativeMargin(for: metric) * abs(control)
  }

  /// The relative practical-equivalence margin of `metric`: its override in
  /// ``equivalenceMargins``, else ``equivalenceMargin``.
  public func relativeMargin(for metric: FunnelMetric) -> Double {
    equivalenceMargins[metric] ?? equivalenceMargin
  }

  enum CodingKeys: String, CodingKey { case primary, guardrails, alpha, correction, equivalenceMargin, equivalenceMargins }

  /// Decodes a spec's `metrics` object; every key may be omitted and defaults as in the initializer.
  /// `equivalenceMargins` is keyed by metric name.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    primary = try c.decodeEnumIfPresent(FunnelMetric.self, forKey: .primary) ?? .purchaseConversion
    guardrails = try c.decodeIfPresent([Guardrail].self, forKey: .guardrails) ?? []
    alpha = try c.decodeIfPresent(Double.self, forKey: .alpha) ?? 0.05
    correction = try c.decodeEnumIfPresent(MultipleTestingCorrection.self, forKey: .correction) ?? .holm
    equivalenceMargin = try c.decodeIfPresent(Double.self, forKey: .equivalenceMargin) ?? Self.defaultEquivalenceMargin
    equivalenceMargins = [:]
    if c.contains(.equivalenceMargins) {
      let marginsDecoder = try c.superDecoder(forKey: .equivalenceMargins)
      let map = try marginsDecoder.container(keyedBy: AnyCodingKey.self)
      for metric in FunnelMetric.allCases {
        if let m = try map.decodeIfPresent(Double.self, forKey: AnyCodingKey(stringValue: metric.rawValue)) {
          equivalenceMargins[metric] = m
        }
      }
    }
  }

  func validationErrors(at path: SpecPath) -> [SpecError] {
    var errors: [SpecError] = []
    let margins =
      [(path.key("equivalenceMargin"), equivalenceMargin)]
      + FunnelMetric.allCases.compactMap { m in equivalenceMargins[m].map { (path.key("equivalenceMargins").key(m.rawValue), $0) } }
    for (at, m) in margins where !(m.isFinite && m >= 0 && m < 1) {
      errors.append(
        SpecError(
          path: at, message: "an equivalence margin must be in [0, 1) (relative to the control's value)",
          hint: "0.01 calls effects within ±1 % negligible"))
    }
    if !(alpha > 0 && alpha < 0.5) {
      errors.append(SpecError(path: path.key("alpha"), message: "alpha must be in (0, 0.5)", hint: "the default is 0.05"))
    }
    for (i, g) in guardrails.enumerated() where !(g.margin.isFinite && g.margin >= 0) {
      errors.append(
        SpecError(
          path: path.key("guardrails").index(i).key("margin"), message: "a margin must be a finite number ≥ 0",
          hint: "0.02 is 2 points of a rate"))
    }
    return errors
  }
}

extension FunnelMetric: CaseIterableRawEnum {}
extension MultipleTestingCorrection: CaseIterableRawEnum {}

/// String-backed enums decodable with ``KeyedDecodingContainer/decodeEnum(_:forKey:)``.
protocol CaseIterableRawEnum: RawRepresentable, CaseIterable where RawValue == String {}

extension FunnelMetric {
  /// Whether a larger value is better (false for abandonment and time).
  public var higherIsBetter: Bool {
    switch self {
    case .abandonmentRate, .timeToFinish, .refundRate: false
    default: true
    }
  }

  /// Whether ``higherIsBetter`` is a convention rather than obvious: skipping slides, seeing the
  /// paywall, time to finish and revenue per payer can each be good or bad (revenue per payer
  /// rises when fewer, richer users pay). Reports say which way they count "better" for these.
  public var betterDirectionIsAConvention: Bool {
    switch self {
    case .skipRate, .paywallViewRate, .timeToFinish, .revenuePerPayingUser: true
    default: false
    }
  }
}

/// How users are split among arms in experiment mode, as feature-flag systems do it.
public struct ExperimentDesign: Sendable, Hashable, Decodable {
  /// Mixed into the assignment hash: a new salt reshuffles users among arms. Empty (the
  /// default) means the experiment's name, as platforms hash with the experiment's key: two
  /// experiments never split the same users the same way unless they share a salt.
  public var salt: String
  /// Relative weight of each arm by variant id (e.g. `{"control": 90, "b": 10}`); missing arms get 1.
  public var allocation: [String: Double]

  /// A design; by default the experiment's name as the salt and equal weights for every arm.
  public init(salt: String = "", allocation: [String: Double] = [:]) {
    self.salt = salt
    self.allocation = allocation
  }

  enum CodingKeys: String, CodingKey { case salt, allocation }

  /// Decodes a spec's `design` object: `salt` and `allocation` (keyed by variant id) may be omitted.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    salt = try c.decodeIfPresent(String.self, forKey: .salt) ?? ""
    if c.contains(.allocation) {
      let allocationDecoder = try c.superDecoder(forKey: .allocation)
      allocationDecoder.acceptAllKeys()
      let map = try allocationDecoder.container(keyedBy: AnyCodingKey.self)
      var weights: [String: Double] = [:]
      for key in map.allKeys { weights[key.stringValue] = try map.decode(Double.self, forKey: key) }
      allocation = weights
    } else {
      allocation = [:]
    }
  }
}
