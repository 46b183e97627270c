/// Everything a run needs: a base flow, the population that walks it, the behavior
/// parameters, the variants to compare and the seed.
///
/// The first variant is the control; every other variant is compared with it.
public struct Experiment: Sendable, Hashable {
  /// The experiment's name: the title of every report and the `source` of its errors when no file is named.
  public var name: String
  /// What the experiment is about, in words (the spec's `description`).
  public var summary: String?
  /// Where the flow comes from (a design document).
  public var source: String?
  /// The seed of every random stream (users, replicates); the same spec and seed give the same bytes. Default 1.
  public var seed: UInt64
  /// Users simulated per variant by default.
  public var users: Int
  /// The behavior model's parameters: the defaults with the spec's `behavior` overrides applied.
  public var behavior: BehaviorParameters
  /// Who walks the flow: segments by weight, each with its intent and overrides.
  public var population: Population
  /// The base flow every variant patches.
  public var flow: Flow
  /// The variants, the control first; required in a spec (at least the control).
  public var variants: [Variant]
  /// The simulator's own settings: step limit and intent bins.
  public var simulation: SimulationSettings
  /// How the mock purchase layer behaves.
  public var store: StoreSettings
  /// Trials, renewals, refunds, fee, horizon and analysis day.
  public var revenue: RevenueSettings
  /// The primary metric, guardrails and decision settings.
  public var metrics: MetricsSpec
  /// How experiment mode assigns users to arms.
  public var design: ExperimentDesign
  /// The salt of the assignment hash: `design.salt`, or the experiment's name when it has none.
  package var assignmentSalt: String { design.salt.isEmpty ? name : design.salt }
  /// Factors crossed into more variants (after the listed ones).
  public var grid: Grid?
  /// Assumptions checked by `funnellab check` (see ``FunnelExpectation``).
  public var expectations: [FunnelExpectation]
  /// What is uncertain about the behavior parameters (the spec's `parameterUncertainty`), drawn from by
  /// `--parameter-uncertainty`; `nil` when the spec has no such section.
  public var parameterUncertainty: ParameterUncertainty?

  /// An experiment built in code; ``metrics``, ``design``, ``grid`` and ``expectations`` start at their
  /// defaults (set them afterwards).
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
    metrics = MetricsSpec()
    design = ExperimentDesign()
    grid = nil
    expectations = []
    parameterUncertainty = nil
  }
}

extension Experiment: Decodable {
  enum CodingKeys: String, CodingKey {
    case schema = "$schema"
    case name, description, source, seed, users, behavior, population, flow, variants, simulation, store, revenue, metrics, design, grid,
      expectations, parameterUncertainty
  }

  /// Decodes a spec: `name`, `flow` and `variants` are required, every other key defaults as in the
  /// memberwise initializer; `$schema` is accepted and ignored.
  /// - Throws: ``SpecError`` for a missing or mistyped key or an unknown behavior parameter.
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
    metrics = try c.decodeIfPresent(MetricsSpec.self, forKey: .metrics) ?? MetricsSpec()
    design = try c.decodeIfPresent(ExperimentDesign.self, forKey: .design) ?? ExperimentDesign()
    grid = try c.decodeIfPresent(Grid.self, forKey: .grid)
    expectations = try c.decodeIfPresent([FunnelExpectation].self, forKey: .expectations) ?? []
    parameterUncertainty = try c.decodeIfPresent(ParameterUncertainty.self, forKey: .parameterUncertainty)
    let primaryGiven = (try? c.nestedContainer(keyedBy: MetricsSpec.CodingKeys.self, forKey: .metrics).contains(.primary)) ?? false
    if !primaryGiven, !sellsAnything { metrics.primary = .completionRate }
  }

  /// Whether the flow, or a variant's inserted screen, has a paywall. A flow that sells nothing has
  /// purchase conversion 0 in every arm, so its primary metric defaults to completion instead.
  var sellsAnything: Bool {
    flow.screens.contains { $0.kind == .paywall }
      || allVariants.contains { variant in
        variant.patches.contains { patch in
          if case .insertScreen(let screen, _, _) = patch { return screen.kind == .paywall }
          return false
        }
      }
  }
}

extension Experiment {
  /// The variants with the grid's cells appended (each cell once; a cell whose id
  /// equals a listed variant's is skipped).
  public var allVariants: [Variant] {
    guard let grid else { return variants }
    let listed = Set(variants.map(\.id))
    return variants + grid.variants().filter { !listed.contains($0.id) }
  }

  /// This experiment with its grid expanded into ``variants``.
  public func expandingGrid() -> Experiment {
    var copy = self
    copy.variants = allVariants
    copy.grid = nil
    return copy
  }
}
