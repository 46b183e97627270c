public import FunnelStats

/// A guardrail: a metric the variant must not make worse by more than a margin.
///
/// Judged by non-inferiority on the difference variant − control (for metrics where
/// lower is better, such as time, the sign is flipped): **ok** when the whole
/// `1 − α` interval lies above `−margin`, **violated** when the point estimate is
/// below `−margin`, **inconclusive** otherwise.
public struct Guardrail: Sendable, Hashable, Decodable {
  public var metric: FunnelMetric
  /// The largest acceptable worsening, in the metric's unit (0.02 = 2 points of a rate; seconds for time).
  public var margin: Double

  public init(metric: FunnelMetric, margin: Double) {
    self.metric = metric
    self.margin = margin
  }

  enum CodingKeys: String, CodingKey { case metric, margin }

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
public struct MetricsSpec: Sendable, Hashable, Decodable {
  public var primary: FunnelMetric
  public var guardrails: [Guardrail]
  public var alpha: Double
  public var correction: MultipleTestingCorrection

  public init(primary: FunnelMetric = .purchaseConversion, guardrails: [Guardrail] = [], alpha: Double = 0.05,
              correction: MultipleTestingCorrection = .holm) {
    self.primary = primary
    self.guardrails = guardrails
    self.alpha = alpha
    self.correction = correction
  }

  enum CodingKeys: String, CodingKey { case primary, guardrails, alpha, correction }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    primary = try c.decodeEnumIfPresent(FunnelMetric.self, forKey: .primary) ?? .purchaseConversion
    guardrails = try c.decodeIfPresent([Guardrail].self, forKey: .guardrails) ?? []
    alpha = try c.decodeIfPresent(Double.self, forKey: .alpha) ?? 0.05
    correction = try c.decodeEnumIfPresent(MultipleTestingCorrection.self, forKey: .correction) ?? .holm
  }

  func validationErrors(at path: SpecPath) -> [SpecError] {
    var errors: [SpecError] = []
    if !(alpha > 0 && alpha < 0.5) { errors.append(SpecError(path: path.key("alpha"), message: "alpha must be in (0, 0.5)", hint: "the default is 0.05")) }
    for (i, g) in guardrails.enumerated() where !(g.margin.isFinite && g.margin >= 0) {
      errors.append(SpecError(path: path.key("guardrails").index(i).key("margin"), message: "a margin must be a finite number ≥ 0", hint: "0.02 is 2 points of a rate"))
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
    case .abandonmentRate, .timeToFinish: false
    default: true
    }
  }
}

/// How users are split among arms in experiment mode, as feature-flag systems do it.
public struct ExperimentDesign: Sendable, Hashable, Decodable {
  /// Mixed into the assignment hash: a new salt reshuffles users among arms.
  public var salt: String
  /// Relative weight of each arm by variant id (e.g. `{"control": 90, "b": 10}`); missing arms get 1.
  public var allocation: [String: Double]

  public init(salt: String = "funnellab", allocation: [String: Double] = [:]) {
    self.salt = salt
    self.allocation = allocation
  }

  enum CodingKeys: String, CodingKey { case salt, allocation }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    salt = try c.decodeIfPresent(String.self, forKey: .salt) ?? "funnellab"
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
