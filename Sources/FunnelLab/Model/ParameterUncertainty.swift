import FunnelStats

/// What is uncertain about the behavior parameters: a distribution per parameter (the
/// spec's `parameterUncertainty`), which `run`/`exact --parameter-uncertainty` and
/// `power --parameter-uncertainty` draw from to turn one assumed effect into a predictive
/// distribution of effects.
///
/// ```json
/// "parameterUncertainty": {
///   "draws": 200,
///   "parameters": {
///     "defaultPlanBias": {"mean": 1.03, "sd": 0.11},
///     "priceSensitivity": {"low": 1.5, "high": 2.5}
///   },
///   "correlations": [{"between": ["defaultPlanBias", "priceSensitivity"], "rho": 0.3}]
/// }
/// ```
///
/// A parameter with `mean` and `sd` is normal, truncated to its range
/// (``BehaviorParameter/range``: a draw with any normal value outside is drawn again);
/// one with `low` and `high` is uniform. Correlations join normal parameters (a
/// multivariate normal through the Cholesky factor of their covariance); `calibrate
/// --variants -o` writes the section from a fit's estimates and covariance. A parameter
/// not listed keeps its `behavior` value in every draw, and segments' overrides still win
/// over the drawn value, as they do over `behavior`; so does a variant's `setBehavior`
/// patch, which keeps that variant's own value in every draw while the control's is drawn.
/// Only behavior parameters are drawn: base probabilities (including those `calibrate`
/// fitted) stay at their written values.
public struct ParameterUncertainty: Sendable, Hashable {
  /// The distribution of one parameter.
  public enum Distribution: Sendable, Hashable {
    /// Normal with this mean and standard deviation, truncated to the parameter's range.
    case normal(mean: Double, sd: Double)
    /// Uniform on `low…high`.
    case uniform(low: Double, high: Double)
  }

  /// One uncertain parameter.
  public struct Uncertain: Sendable, Hashable {
    /// The behavior parameter (in `behavior`) each draw sets.
    public var parameter: BehaviorParameter
    /// What it is drawn from.
    public var distribution: Distribution

    /// A parameter drawn from `distribution`.
    public init(_ parameter: BehaviorParameter, _ distribution: Distribution) {
      self.parameter = parameter
      self.distribution = distribution
    }
  }

  /// The correlation of two normal parameters.
  public struct Correlation: Sendable, Hashable {
    /// The two parameters, both normal and listed in ``ParameterUncertainty/parameters``.
    public var between: [BehaviorParameter]
    /// Their correlation, in (−1, 1).
    public var rho: Double

    /// The correlation `rho` of `first` and `second`.
    public init(_ first: BehaviorParameter, _ second: BehaviorParameter, rho: Double) {
      between = [first, second]
      self.rho = rho
    }
  }

  /// The uncertain parameters, in ``BehaviorParameter``'s declaration order (the order of every draw's values).
  public var parameters: [Uncertain]
  /// Correlations between normal parameters; unlisted pairs are independent.
  public var correlations: [Correlation]
  /// How many draws (default 200; ``Limits/parameterDraws``); `--draws` overrides it.
  public var draws: Int
  /// Where the distributions come from, in words (the section's `description`).
  public var summary: String?

  /// The default number of draws: the Monte Carlo error of a probability is at most 0.035 (√(¼/200)).
  public static let defaultDraws = 200

  /// Uncertainty about `parameters` (sorted into declaration order).
  public init(parameters: [Uncertain], correlations: [Correlation] = [], draws: Int = defaultDraws, summary: String? = nil) {
    self.parameters = parameters.sorted { $0.parameter < $1.parameter }
    self.correlations = correlations
    self.draws = draws
    self.summary = summary
  }
}

extension ParameterUncertainty: Decodable {
  enum CodingKeys: String, CodingKey { case description, draws, parameters, correlations }
  enum DistributionKeys: String, CodingKey { case mean, sd, low, high }
  enum CorrelationKeys: String, CodingKey { case between, rho }

  /// Decodes the section: `parameters` is required, `description` and `correlations` optional; an entry must give `mean` and `sd`, or `low` and `high`.
  /// - Throws: ``SpecError`` for an unknown parameter, a missing or mixed pair of keys, or a wrong type.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let draws = try c.decodeIfPresent(Int.self, forKey: .draws) ?? Self.defaultDraws
    let mapDecoder = try c.superDecoder(forKey: .parameters)
    mapDecoder.acceptAllKeys()
    let map = try mapDecoder.container(keyedBy: AnyCodingKey.self)
    var parameters: [Uncertain] = []
    for key in map.allKeys {
      let path = mapDecoder.specPath.key(key.stringValue)
      guard let parameter = BehaviorParameter(rawValue: key.stringValue) else {
        throw SpecError(
          .unknownKey, path: path, message: "unknown behavior parameter '\(key.stringValue)'",
          hint: NameSuggestion.hint(for: key.stringValue, in: BehaviorParameter.allCases.map(\.rawValue))
            ?? "see the behavior parameters in docs/reference/spec-format.md")
      }
      let d = try map.nestedContainer(keyedBy: DistributionKeys.self, forKey: key)
      let (mean, sd) = (try d.decodeIfPresent(Double.self, forKey: .mean), try d.decodeIfPresent(Double.self, forKey: .sd))
      let (low, high) = (try d.decodeIfPresent(Double.self, forKey: .low), try d.decodeIfPresent(Double.self, forKey: .high))
      switch (mean, sd, low, high) {
      case (let mean?, let sd?, nil, nil): parameters.append(Uncertain(parameter, .normal(mean: mean, sd: sd)))
      case (nil, nil, let low?, let high?): parameters.append(Uncertain(parameter, .uniform(low: low, high: high)))
      default:
        throw SpecError(
          path: path, message: "give either mean and sd (a normal distribution) or low and high (a uniform one)",
          hint: "e.g. {\"mean\": \(JSONValue.format(parameter.defaultValue)), \"sd\": 0.1}")
      }
    }
    var correlations: [Correlation] = []
    if c.contains(.correlations), try !c.decodeNil(forKey: .correlations) {
      var list = try c.nestedUnkeyedContainer(forKey: .correlations)
      while !list.isAtEnd {
        let entry = try list.nestedContainer(keyedBy: CorrelationKeys.self)
        let names = try entry.decode([String].self, forKey: .between)
        let rho = try entry.decode(Double.self, forKey: .rho)
        let path = decoder.specPath.key("correlations").index(correlations.count).key("between")
        let found = names.map(BehaviorParameter.init(rawValue:))
        guard found.count == 2, let first = found[0], let second = found[1] else {
          throw SpecError(
            path: path, message: "expected two behavior parameter names, got \(names.map { "'\($0)'" }.joined(separator: ", "))",
            hint: "e.g. [\"defaultPlanBias\", \"priceSensitivity\"]")
        }
        correlations.append(Correlation(first, second, rho: rho))
      }
    }
    self.init(
      parameters: parameters, correlations: correlations, draws: draws, summary: try c.decodeIfPresent(String.self, forKey: .description))
  }
}

extension ParameterUncertainty {
  /// The section as it is written in a spec (what ``init(from:)`` reads back).
  package var specJSON: JSONValue {
    var members: [(String, JSONValue)] = []
    if let summary { members.append(("description", .string(summary))) }
    members.append(("draws", .integer(draws)))
    members.append(
      (
        "parameters",
        .object(
          parameters.map { u in
            switch u.distribution {
            case .normal(let mean, let sd): (u.parameter.rawValue, .object([("mean", .number(mean)), ("sd", .number(sd))]))
            case .uniform(let low, let high): (u.parameter.rawValue, .object([("low", .number(low)), ("high", .number(high))]))
            }
          })
      ))
    if !correlations.isEmpty {
      members.append(
        (
          "correlations",
          .array(correlations.map { .object([("between", .array($0.between.map { .string($0.rawValue) })), ("rho", .number($0.rho))]) })
        ))
    }
    return .object(members)
  }

  /// The uncertainty a fit leaves: each parameter normal at its estimate with its standard
  /// error, correlated as the estimates' `covariance` (rows and columns in `parameters`'
  /// order). Means and standard errors are written to 4 decimals (a standard error at least
  /// 0.0001), correlations to 3 (those that round to 0 are left out); `nil` when a standard
  /// error is not a positive number or the rounded correlations are not consistent. The
  /// entries of `earlier` (the spec's section) for parameters not fitted are kept, with
  /// their correlations among themselves, and so is its draw count.
  public static func fitted(
    _ parameters: [BehaviorParameter], estimates: [Double], covariance: [[Double]], keeping earlier: ParameterUncertainty?,
    summary: String
  ) -> ParameterUncertainty? {
    let sds = parameters.indices.map { covariance[$0][$0].squareRoot() }
    guard sds.allSatisfy({ $0.isFinite && $0 > 0 }) else { return nil }
    func round(_ x: Double, _ scale: Double) -> Double { (x * scale).rounded() / scale }
    guard !parameters.isEmpty else { return nil }
    let fitted = Set(parameters)
    let uncertain = parameters.indices.map { k in
      Uncertain(parameters[k], .normal(mean: round(estimates[k], 10_000), sd: max(round(sds[k], 10_000), 0.0001)))
    }
    let kept = earlier?.parameters.filter { !fitted.contains($0.parameter) } ?? []
    var correlations = earlier?.correlations.filter { $0.between.allSatisfy { !fitted.contains($0) } } ?? []
    for i in parameters.indices {
      for j in parameters.indices where j > i {
        let rho = round(covariance[i][j] / (sds[i] * sds[j]), 1000)
        if rho != 0 { correlations.append(Correlation(parameters[i], parameters[j], rho: rho)) }
      }
    }
    let section = ParameterUncertainty(
      parameters: uncertain + kept, correlations: correlations, draws: earlier?.draws ?? defaultDraws, summary: summary)
    return section.validationErrors(at: [.key("parameterUncertainty")]).isEmpty ? section : nil
  }
}
