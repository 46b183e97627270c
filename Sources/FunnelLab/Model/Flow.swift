/// A graph of screens and actions: the onboarding or paywall flow under test.
///
/// Screens are listed in display order; "next" and "previous" are positions in
/// this list, so moving a screen moves the flow. Targets name screens by id, or
/// the terminal outcomes ``Flow/completed`` and ``Flow/abandoned``.
public struct Flow: Sendable, Hashable {
  /// Reserved target: the user finished the flow.
  public static let completed = "completed"
  /// Reserved target: the user left the app.
  public static let abandoned = "abandoned"

  /// The first screen's id (default: the first listed).
  public var start: String?
  /// The screens in display order: "next" and "previous" are neighbours in this list.
  public var screens: [Screen]

  /// A flow; `start` `nil` begins at the first screen listed.
  public init(start: String? = nil, screens: [Screen]) {
    self.start = start
    self.screens = screens
  }

  /// The id of the screen users begin on: ``start``, else the first screen's id; `nil` for an empty flow.
  public var startID: String? { start ?? screens.first?.id }

  /// The position of the screen with id `id` in ``screens`` (the first when ids repeat); `nil` when none has it.
  public func index(of id: String) -> Int? { screens.firstIndex(where: { $0.id == id }) }
  /// The screen with id `id` (the first when ids repeat); `nil` when none has it.
  public func screen(_ id: String) -> Screen? { screens.first(where: { $0.id == id }) }
}

extension Flow: Decodable {
  enum CodingKeys: String, CodingKey { case start, screens }

  /// Decodes a spec's `flow`: `screens` is required, `start` may be omitted.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    start = try c.decodeIfPresent(String.self, forKey: .start)
    screens = try c.decode([Screen].self, forKey: .screens)
  }
}

/// Settings of the simulation itself (not of user behavior).
public struct SimulationSettings: Sendable, Hashable, Decodable {
  /// Steps after which a walk is cut off and counted as abandoned (reported as
  /// `stepLimitReached`): back navigation makes cycles possible.
  public var stepLimit: Int
  /// Equiprobable bins the continuous intent trait is discretised into.
  public var traitBins: Int

  /// Settings; the defaults are those of a spec that omits them. Validation allows ``Limits/stepLimit`` and
  /// ``Limits/traitBins``.
  public init(stepLimit: Int = 500, traitBins: Int = 32) {
    self.stepLimit = stepLimit
    self.traitBins = traitBins
  }

  enum CodingKeys: String, CodingKey { case stepLimit, traitBins }

  /// Decodes a spec's `simulation` object; either key may be omitted (500 steps, 32 bins).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    stepLimit = try c.decodeIfPresent(Int.self, forKey: .stepLimit) ?? 500
    traitBins = try c.decodeIfPresent(Int.self, forKey: .traitBins) ?? 32
  }
}
