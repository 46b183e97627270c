/// How often a plan bills.
public enum BillingPeriod: String, Sendable, Hashable, CaseIterable, Codable {
  /// Billed every week (12/52 of a month), month, year, or once (`lifetime`, never renewed).
  case week, month, year, lifetime

  /// Months in one period; `nil` for a one-time (lifetime) purchase.
  public var months: Double? {
    switch self {
    case .week: 12.0 / 52.0
    case .month: 1
    case .year: 12
    case .lifetime: nil
    }
  }
}

/// A product offered on a paywall.
public struct Plan: Sendable, Hashable, Decodable {
  /// The plan's id (the store's product id): unique on its paywall, the key of its purchase counts.
  public var id: String
  /// The name shown to users, from the spec; the simulation and the reports do not use it.
  public var label: String?
  /// Price per period (or once, for lifetime), in `currency`.
  public var price: Double
  /// An ISO 4217 code, `USD` by default; revenue is summed across plans without conversion, and reports
  /// label it with the first plan's currency, so a flow's plans should share one.
  public var currency: String
  /// How often the plan bills; a lifetime plan is paid once.
  public var period: BillingPeriod
  /// Length of the free trial in days (0: none).
  public var trialDays: Int
  /// A badge such as "Popular" or "Best value".
  public var badge: String?
  /// Extra utility of this plan on top of price, default and badge effects.
  public var utility: Double
  /// Intro offer: the price of each of the first ``introPeriods`` paid periods.
  public var introPrice: Double?
  /// Intro offer: how many paid periods are at ``introPrice``.
  public var introPeriods: Int
  /// This plan's renewal probability per period (default: the revenue settings' for its period).
  public var renewalProbability: Double?

  /// A plan; the defaults are those of a spec that omits the field (USD, no trial, badge or intro offer).
  public init(
    id: String, label: String? = nil, price: Double, currency: String = "USD", period: BillingPeriod,
    trialDays: Int = 0, badge: String? = nil, utility: Double = 0, introPrice: Double? = nil, introPeriods: Int = 0,
    renewalProbability: Double? = nil
  ) {
    self.id = id
    self.label = label
    self.price = price
    self.currency = currency
    self.period = period
    self.trialDays = trialDays
    self.badge = badge
    self.utility = utility
    self.introPrice = introPrice
    self.introPeriods = introPeriods
    self.renewalProbability = renewalProbability
  }

  enum CodingKeys: String, CodingKey {
    case id, label, price, currency, period, trialDays, badge, utility, introPrice, introPeriods, renewalProbability
  }

  /// Decodes one item of a paywall's `plans`: `id`, `price` and `period` are required.
  /// - Throws: ``SpecError`` for an unknown period or a missing or mistyped field.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    id = try c.decode(String.self, forKey: .id)
    label = try c.decodeIfPresent(String.self, forKey: .label)
    price = try c.decode(Double.self, forKey: .price)
    currency = try c.decodeIfPresent(String.self, forKey: .currency) ?? "USD"
    period = try c.decodeEnum(BillingPeriod.self, forKey: .period)
    trialDays = try c.decodeIfPresent(Int.self, forKey: .trialDays) ?? 0
    badge = try c.decodeIfPresent(String.self, forKey: .badge)
    utility = try c.decodeIfPresent(Double.self, forKey: .utility) ?? 0
    introPrice = try c.decodeIfPresent(Double.self, forKey: .introPrice)
    introPeriods = try c.decodeIfPresent(Int.self, forKey: .introPeriods) ?? 0
    renewalProbability = try c.decodeIfPresent(Double.self, forKey: .renewalProbability)
  }

  /// The price per month this plan amounts to; a lifetime price is spread over
  /// `lifetimeMonths`.
  public func monthlyEquivalentPrice(lifetimeMonths: Double) -> Double {
    guard let months = period.months else { return price / lifetimeMonths }
    return price / months
  }
}

extension KeyedDecodingContainer {
  /// Decodes a string-backed enum, naming the allowed values when it is not one.
  func decodeEnum<E: RawRepresentable & CaseIterable>(_ type: E.Type, forKey key: Key) throws -> E where E.RawValue == String {
    let raw = try decode(String.self, forKey: key)
    guard let value = E(rawValue: raw) else {
      let names = E.allCases.map(\.rawValue)
      throw SpecError(
        path: SpecPath(codingPath: codingPath).key(key.stringValue), message: "unknown value '\(raw)'",
        hint: NameSuggestion.hint(for: raw, in: names) ?? "use one of: " + names.joined(separator: ", "))
    }
    return value
  }

  func decodeEnumIfPresent<E: RawRepresentable & CaseIterable>(_ type: E.Type, forKey key: Key) throws -> E? where E.RawValue == String {
    guard contains(key), try !decodeNil(forKey: key) else { return nil }
    return try decodeEnum(type, forKey: key)
  }
}
