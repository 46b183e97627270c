/// Observed data of one experiment arm, as the CLI reads it.
public struct ArmData: Sendable, Hashable, Codable {
  /// Revenue (or any per-user metric) of an arm.
  public enum Revenue: Sendable, Hashable, Codable {
    /// Sufficient statistics over the arm's users.
    case statistic(SampleMeanStatistic)
    /// A value→count map over the arm's users (enables Mann–Whitney and the bootstrap).
    case counts([Double: Int])
  }

  /// The arm's name (unique within an experiment).
  public var name: String
  /// Users exposed.
  public var users: Int
  /// Users who converted.
  public var conversions: Int
  /// Optional per-user revenue. Users not covered (statistic `n` or map total below `users`)
  /// count as zero revenue; more than `users` is an error.
  public var revenue: Revenue?

  /// Creates an arm.
  public init(name: String, users: Int, conversions: Int, revenue: Revenue? = nil) {
    self.name = name
    self.users = users
    self.conversions = conversions
    self.revenue = revenue
  }
}
