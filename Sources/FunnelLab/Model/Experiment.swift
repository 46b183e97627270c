/// Everything a run needs: a base flow, the population that walks it, the behavior
/// parameters, the variants to compare and the seed.
///
/// The first variant is the control; every other variant is compared with it.
public struct Experiment: Sendable, Hashable {
  public var name: String
  public var summary: String?
  /// Where the flow comes from (a design document).
  public var source: String?
  public var seed: UInt64
  /// Users simulated per variant by default.
  public var users: Int
  public var behavior: BehaviorParameters
  public var population: Population
  public var flow: Flow
  public var variants: [Variant]
  public var simulation: SimulationSettings
  /// How the mock purchase layer behaves.
  public var store: StoreSettings
  /// Trials, renewals, refunds, fee, horizon and analysis day.
  public var revenue: RevenueSettings

  public init(
    name: String, summary: String? = nil, source: String? = nil, seed: UInt64 = 1, users: Int = 100_000,
    behavior: BehaviorParameters = BehaviorParameters(), population: Population = Population(), flow: Flow,
    variants: [Variant] = [Variant(id: "control")], simulation: SimulationSettings = SimulationSettings(),
    store: StoreSettings = StoreSettings(), revenue: RevenueSettings = RevenueSettings()
  ) {
    self.name = name
    self.summary = summary
    self.source = source
    self.seed = seed
    self.users = users
    self.behavior = behavior
    self.population = population
    self.flow = flow
    self.variants = variants
    self.simulation = simulation
    self.store = store
    self.revenue = revenue
  }
}

extension Experiment: Decodable {
  enum CodingKeys: String, CodingKey {
    case schema = "$schema"
    case name, description, source, seed, users, behavior, population, flow, variants, simulation, store, revenue
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    _ = c.contains(.schema)
    name = try c.decode(String.self, forKey: .name)
    summary = try c.decodeIfPresent(String.self, forKey: .description)
    source = try c.decodeIfPresent(String.self, forKey: .source)
    seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? 1
    users = try c.decodeIfPresent(Int.self, forKey: .users) ?? 100_000
    if c.contains(.behavior) {
      behavior = BehaviorParameters().applying(try BehaviorParameters.decodeOverrides(from: c.superDecoder(forKey: .behavior)))
    } else {
      behavior = BehaviorParameters()
    }
    population = try c.decodeIfPresent(Population.self, forKey: .population) ?? Population()
    flow = try c.decode(Flow.self, forKey: .flow)
    variants = try c.decode([Variant].self, forKey: .variants)
    simulation = try c.decodeIfPresent(SimulationSettings.self, forKey: .simulation) ?? SimulationSettings()
    store = try c.decodeIfPresent(StoreSettings.self, forKey: .store) ?? StoreSettings()
    revenue = try c.decodeIfPresent(RevenueSettings.self, forKey: .revenue) ?? RevenueSettings()
  }
}
