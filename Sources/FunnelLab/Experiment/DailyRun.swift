/// An experiment-mode run day by day: what a live test's dashboard would have shown.
public struct DailyRun: Sendable {
  /// The run over every day's users, analysed like any experiment-mode run (exact solution included).
  package var run: RunResult
  /// Users arriving each day (all arms).
  package var usersPerDay: Int
  /// Each arm's aggregate over the users of day 1 through day `d + 1`, in ``RunResult/variants`` order.
  package var cumulative: [[FunnelAggregate]]
}
