/// A paired 2×2 table: every unit (user) observed under the control and under the
/// treatment, counted by its pair of binary outcomes.
///
/// ```
///                      treatment 0     treatment 1
///   control 0            neither       treatmentOnly
///   control 1          controlOnly         both
/// ```
/// The marginal proportions are `p̂₀ = (controlOnly + both) / n` and
/// `p̂₁ = (treatmentOnly + both) / n`; their difference depends only on the discordant
/// cells: `p̂₁ − p̂₀ = (treatmentOnly − controlOnly) / n`.
///
/// - Complexity: every member O(1).
public struct PairedProportionCount: Sendable, Hashable, Codable {
  /// Units with the outcome under neither condition.
  public let neither: Int
  /// Units with the outcome under the treatment only.
  public let treatmentOnly: Int
  /// Units with the outcome under the control only.
  public let controlOnly: Int
  /// Units with the outcome under both conditions.
  public let both: Int

  /// Creates a table from its four cells.
  ///
  /// - Throws: ``StatsError`` (`.negativeCount`) naming the negative cell, or
  ///   (`.invalidParameter`) when the cells add up to more than `Int.max`.
  public init(neither: Int, treatmentOnly: Int, controlOnly: Int, both: Int, field: StatsError.Field = [.name(.table)]) throws(StatsError) {
    for (name, value) in [
      (StatsError.Field.Name.neither, neither), (.treatmentOnly, treatmentOnly), (.controlOnly, controlOnly), (.both, both),
    ]
    where value < 0 {
      throw StatsError(.negativeCount, field: field.appending(.name(name)), message: "is negative (\(value))")
    }
    let (partial, o1) = neither.addingReportingOverflow(treatmentOnly)
    let (partial2, o2) = partial.addingReportingOverflow(controlOnly)
    let (_, o3) = partial2.addingReportingOverflow(both)
    guard !(o1 || o2 || o3) else {
      throw StatsError(.invalidParameter, field: field, message: "the cells add up to more than \(Int.max)")
    }
    self.neither = neither
    self.treatmentOnly = treatmentOnly
    self.controlOnly = controlOnly
    self.both = both
  }

  private enum CodingKeys: String, CodingKey { case neither, treatmentOnly, controlOnly, both }

  /// Decodes and validates a table.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      neither: c.decode(Int.self, forKey: .neither), treatmentOnly: c.decode(Int.self, forKey: .treatmentOnly),
      controlOnly: c.decode(Int.self, forKey: .controlOnly), both: c.decode(Int.self, forKey: .both))
  }

  /// The number of pairs `n`.
  public var pairs: Int { neither + treatmentOnly + controlOnly + both }

  /// The discordant pairs `treatmentOnly + controlOnly`: the only ones that carry
  /// information about the difference.
  public var discordant: Int { treatmentOnly + controlOnly }

  /// The control's marginal count `controlOnly + both` out of ``pairs``.
  public var control: ProportionCount { ProportionCount(uncheckedSuccesses: controlOnly + both, trials: pairs) }

  /// The treatment's marginal count `treatmentOnly + both` out of ``pairs``.
  public var treatment: ProportionCount { ProportionCount(uncheckedSuccesses: treatmentOnly + both, trials: pairs) }

  /// The difference of the marginal proportions `(treatmentOnly − controlOnly) / n`, `nil` when empty.
  public var difference: Double? {
    pairs > 0 ? (Double(treatmentOnly) - Double(controlOnly)) / Double(pairs) : nil
  }
}
