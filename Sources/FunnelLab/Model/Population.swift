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

  /// A segment; the defaults are those of a spec that omits the field (weight 1, standard normal intent, no overrides).
  public init(
    id: String, weight: Double = 1, intent: IntentDistribution = IntentDistribution(),
    behavior: [BehaviorParameter: Double] = [:], screens: [String: [String: Double]] = [:]
  ) {
    self.id = id
    self.weight = weight
    self.intent = intent
    self.behavior = behavior
    self.screens = screens
  }
}

extension Segment: Decodable {
  enum CodingKeys: String, CodingKey { case id, weight, intent, behavior, screens }

  /// Decodes a segment of a spec: `id` is required; `behavior` names must be behavior parameters, and
  /// `screens` maps screen ids to `{action id: probability}` objects.
  /// - Throws: ``SpecError`` for an unknown behavior parameter or a value of the wrong type.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    id = try c.decode(String.self, forKey: .id)
    weight = try c.decodeIfPresent(Double.self, forKey: .weight) ?? 1
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

/// A mixture of segments.
public struct Population: Sendable, Hashable, Decodable {
  /// The segments, in the spec's order; each user belongs to one, drawn by weight. At least one.
  public var segments: [Segment]

  /// A population; by default one segment, `everyone`, with weight 1 and standard normal intent.
  public init(segments: [Segment] = [Segment(id: "everyone")]) { self.segments = segments }

  enum CodingKeys: String, CodingKey { case segments }

  /// Decodes `{"segments": […]}`; `segments` is required.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    segments = try c.decode([Segment].self, forKey: .segments)
  }
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
            ?? "see the README's table of behavior parameters")
      }
      overrides[parameter] = try c.decode(Double.self, forKey: key)
    }
    return overrides
  }
}
