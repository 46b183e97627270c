/// Successes out of trials (conversions out of users), validated.
public struct ProportionCount: Sendable, Hashable, Codable {
  /// Number of successes, `0 ≤ successes ≤ trials`.
  public let successes: Int
  /// Number of trials, `≥ 0`.
  public let trials: Int

  /// Creates a count.
  ///
  /// - Throws: ``StatsError`` (`.negativeCount`, `.conversionsExceedUsers`) naming `field`.
  public init(successes: Int, trials: Int, field: StatsError.Field = [.name(.table)]) throws(StatsError) {
    guard trials >= 0 else {
      throw StatsError(.negativeCount, field: field.appending(.name(.trials)), message: "is negative (\(trials))")
    }
    guard successes >= 0 else {
      throw StatsError(
        .negativeCount, field: field.appending(.name(.successes)), message: "is negative (\(successes))")
    }
    guard successes <= trials else {
      throw StatsError(
        .conversionsExceedUsers, field: field.appending(.name(.successes)),
        message: "\(successes) successes exceed \(trials) trials",
        hint: "check that users and conversions are not swapped")
    }
    self.successes = successes
    self.trials = trials
  }

  private enum CodingKeys: String, CodingKey { case successes, trials }

  /// Decodes and validates a count.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      successes: container.decode(Int.self, forKey: .successes),
      trials: container.decode(Int.self, forKey: .trials))
  }

  /// Creates a count without validation; callers guarantee `0 ≤ successes ≤ trials`.
  internal init(uncheckedSuccesses successes: Int, trials: Int) {
    self.successes = successes
    self.trials = trials
  }

  /// The observed rate `successes / trials`, or `nil` when there are no trials.
  public var rate: Double? { trials > 0 ? Double(successes) / Double(trials) : nil }
}
