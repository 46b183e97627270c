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

extension ArmData {
  /// Problems of this arm's numbers on their own, each naming `field` (e.g. `arms[1]`):
  /// negative counts, counts above ``StatsLimits/maxCount``, more conversions than users,
  /// and revenue that no sample of the arm's users can have (see
  /// ``ExperimentAnalysis/analyze(arms:control:settings:)``).
  public func validationErrors(field: StatsError.Field) -> [StatsError] {
    var problems: [StatsError] = []
    for (key, value) in [(StatsError.Field.Name.users, users), (.conversions, conversions)] {
      if value < 0 {
        problems.append(StatsError(.negativeCount, field: field.appending(.name(key)), message: "is negative (\(value))"))
      } else if value > StatsLimits.maxCount {
        problems.append(
          StatsError(
            .invalidParameter, field: field.appending(.name(key)), message: "\(value) is above the limit of \(StatsLimits.maxCount)",
            hint: "counts are whole numbers up to 10^15"))
      }
    }
    if problems.isEmpty, conversions > users {
      problems.append(
        StatsError(
          .conversionsExceedUsers, field: field.appending(.name(.conversions)), message: "\(conversions) conversions exceed \(users) users",
          hint: "check that users and conversions are not swapped"))
    }
    if problems.isEmpty, case .failure(let error) = ExperimentAnalysis.revenueStatistic(self, field: field.appending(.name(.revenue))) {
      problems.append(error)
    }
    return problems
  }
}
