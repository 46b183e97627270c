/// The intent trait of a segment's users: normal with this mean and spread.
///
/// Intent is a latent motivation on the utility scale's own unit: the behavior
/// parameters `intentOnQuit` and `intentOnPurchase` say how much one unit moves
/// quitting and buying.
public struct IntentDistribution: Sendable, Hashable, Decodable {
  /// The mean intent, in utility units; 0 by default, at most 20 in absolute value.
  public var mean: Double
  /// The standard deviation of intent, in utility units, 0 to 20; 0 makes every user of the segment alike.
  public var sd: Double

  /// A normal intent; the default is standard normal (mean 0, the reference intent of the spec's probabilities).
  public init(mean: Double = 0, sd: Double = 1) {
    self.mean = mean
    self.sd = sd
  }

  enum CodingKeys: String, CodingKey { case mean, sd }

  /// Decodes `{"mean": …, "sd": …}`; either may be omitted (0 and 1).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    mean = try c.decodeIfPresent(Double.self, forKey: .mean) ?? 0
    sd = try c.decodeIfPresent(Double.self, forKey: .sd) ?? 1
  }
}

/// A group of users who share a weight in the population, an intent distribution,
/// behavior parameter overrides and, optionally, their own action probabilities.
public struct Segment: Sendable, Hashable {
  /// The segment's id: unique in the population, the key of its results.
  public var id: String
  /// Relative weight in the population (weights need not sum to 1).
  public var weight: Double
  /// The distribution of this segment's intent trait (discretised into ``SimulationSettings/traitBins`` bins).
  public var intent: IntentDistribution
  /// Behavior parameters that differ for this segment.
  public var behavior: [BehaviorParameter: Double]
  /// Per screen id, per action id: the probability this segment uses instead of the screen's.
  public var screens: [String: [String: Double]]
  /// Whether a user's membership is known when they are assigned (an acquisition
  /// channel, a platform): results are broken down by the observable segments, and
  /// adjustments may stratify on them. The other segments form one stratum, `other`.
  public var observable: Bool
  /// This segment's mean of the pre-period covariate for a user of intent 0, instead of
  /// the population's ``PrePeriodCovariate/mean``.
  public var covariateMean: Double?

  /// A segment; the defaults are those of a spec that omits the field (weight 1, standard normal intent, no
  /// overrides, not observable).
  public init(
    id: String, weight: Double = 1, intent: IntentDistribution = IntentDistribution(),
    behavior: [BehaviorParameter: Double] = [:], screens: [String: [String: Double]] = [:], observable: Bool = false,
    covariateMean: Double? = nil
  ) {
    self.id = id
    self.weight = weight
    self.intent = intent
    self.behavior = behavior
    self.screens = screens
    self.observable = observable
    self.covariateMean = covariateMean
  }
}

extension Segment: Decodable {
  enum CodingKeys: String, CodingKey { case id, weight, intent, behavior, screens, observable, covariateMean }

  /// Decodes a segment of a spec: `id` is required; `behavior` names must be behavior parameters, and
  /// `screens` maps screen ids to `{action id: probability}` objects.
  /// - Throws: ``SpecError`` for an unknown behavior parameter or a value of the wrong type.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    id = try c.decode(String.self, forKey: .id)
    weight = try c.decodeIfPresent(Double.self, forKey: .weight) ?? 1
    observable = try c.decodeIfPresent(Bool.self, forKey: .observable) ?? false
    covariateMean = try c.decodeIfPresent(Double.self, forKey: .covariateMean)
    intent = try c.decodeIfPresent(IntentDistribution.self, forKey: .intent) ?? IntentDistribution()
    if c.contains(.behavior) {
      behavior = try BehaviorParameters.decodeOverrides(from: c.superDecoder(forKey: .behavior))
    } else {
      behavior = [:]
    }
    if c.contains(.screens) {
      let screensDecoder = try c.superDecoder(forKey: .screens)
      screensDecoder.acceptAllKeys()
      let map = try screensDecoder.container(keyedBy: AnyCodingKey.self)
      var screens: [String: [String: Double]] = [:]
      for key in map.allKeys {
        let actionsDecoder = try map.superDecoder(forKey: key)
        actionsDecoder.acceptAllKeys()
        let actions = try actionsDecoder.container(keyedBy: AnyCodingKey.self)
        var probabilities: [String: Double] = [:]
        for action in actions.allKeys {
          probabilities[action.stringValue] = try actions.decode(Double.self, forKey: action)
        }
        screens[key.stringValue] = probabilities
      }
      self.screens = screens
    } else {
      screens = [:]
    }
  }
}

/// A count measured on every user before the experiment starts, known at assignment:
/// for a paywall test on existing free users, say, their app opens in the week before.
/// It is what covariate adjustment (CUPED, Lin's regression) uses to reduce variance.
///
/// A user of segment `s` and intent `θ` has a Poisson count with mean
/// `λ = mean_s · exp(intentEffect · θ)`, where `mean_s` is the segment's
/// ``Segment/covariateMean`` or else ``mean``. Intent drives both the count and the
/// user's behavior in the flow, so the count predicts the outcome as much as
/// `intentEffect` and the intent's spread allow; the exact engine knows that
/// relation, so the variance an adjustment removes is known before any user walks.
/// Each user's count comes from a stream of its own (seed, user), so it is the same in
/// every variant and the walk's draws are untouched.
public struct PrePeriodCovariate: Sendable, Hashable {
  /// The covariate's name in reports, e.g. `appOpensLastWeek`.
  public var name: String
  /// Mean count of a user of intent 0, in (0, ``Limits/covariateMean``].
  public var mean: Double
  /// How much one unit of intent multiplies the mean, on the log scale, within ±``Limits/covariateIntentEffect``.
  public var intentEffect: Double

  /// A covariate; by default a count of mean 5 at intent 0 whose log mean rises by 0.5 per unit of intent.
  public init(name: String = "prePeriodCount", mean: Double = 5, intentEffect: Double = 0.5) {
    self.name = name
    self.mean = mean
    self.intentEffect = intentEffect
  }
}

extension PrePeriodCovariate: Decodable {
  enum CodingKeys: String, CodingKey { case name, mean, intentEffect }

  /// Decodes `{"name": …, "mean": …, "intentEffect": …}`; each may be omitted (the defaults of ``init(name:mean:intentEffect:)``).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let defaults = PrePeriodCovariate()
    name = try c.decodeIfPresent(String.self, forKey: .name) ?? defaults.name
    mean = try c.decodeIfPresent(Double.self, forKey: .mean) ?? defaults.mean
    intentEffect = try c.decodeIfPresent(Double.self, forKey: .intentEffect) ?? defaults.intentEffect
  }
}

/// A mixture of segments.
public struct Population: Sendable, Hashable, Decodable {
  /// The segments, in the spec's order; each user belongs to one, drawn by weight. At least one.
  public var segments: [Segment]
  /// A count known for every user before the experiment; `nil` for none.
  public var covariate: PrePeriodCovariate?

  /// A population; by default one segment, `everyone`, with weight 1 and standard normal intent, and no covariate.
  public init(segments: [Segment] = [Segment(id: "everyone")], covariate: PrePeriodCovariate? = nil) {
    self.segments = segments
    self.covariate = covariate
  }

  enum CodingKeys: String, CodingKey { case segments, covariate }

  /// Decodes `{"segments": […], "covariate": {…}}`; `segments` is required.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    segments = try c.decode([Segment].self, forKey: .segments)
    covariate = try c.decodeIfPresent(PrePeriodCovariate.self, forKey: .covariate)
  }

  /// The strata an experiment can see: each observable segment, then `other` for the
  /// rest (when any segment is not observable). Per segment, its stratum's index.
  public var strata: (ids: [String], ofSegment: [Int]) {
    var ids: [String] = []
    var of: [Int] = []
    let hidden = segments.contains { !$0.observable }
    for segment in segments {
      if segment.observable {
        of.append(ids.count)
        ids.append(segment.id)
      } else {
        of.append(-1)
      }
    }
    if hidden {
      let other = ids.count
      ids.append(Self.otherStratum)
      of = of.map { $0 < 0 ? other : $0 }
    }
    return (ids, of)
  }

  /// The id of the stratum of the segments that are not observable.
  public static let otherStratum = "other"
}

extension BehaviorParameters {
  /// Decodes an object of `parameterName: value` members; unknown names are errors.
  static func decodeOverrides(from decoder: any Decoder) throws -> [BehaviorParameter: Double] {
    decoder.acceptAllKeys()
    let c = try decoder.container(keyedBy: AnyCodingKey.self)
    var overrides: [BehaviorParameter: Double] = [:]
    for key in c.allKeys {
      guard let parameter = BehaviorParameter(rawValue: key.stringValue) else {
        throw SpecError(
          .unknownKey, path: decoder.specPath.key(key.stringValue), message: "unknown behavior parameter '\(key.stringValue)'",
          hint: NameSuggestion.hint(for: key.stringValue, in: BehaviorParameter.allCases.map(\.rawValue))
            ?? "see the behavior parameters in docs/reference/spec-format.md")
      }
      overrides[parameter] = try c.decode(Double.self, forKey: key)
    }
    return overrides
  }
}
