import Foundation
package import Testing

/// The two stages of the test suite.
///
/// `swift test` runs the **fast** stage: units, goldens, error paths, and property and
/// statistical tests sized to run in seconds. CI's second stage runs the whole suite again
/// in release mode with `FUNNELLAB_LONG_TESTS=1`, the **long** stage: the same tests at full
/// size (thousands of replicates, every fuzz chunk, every help example on the seed specs)
/// plus the suites that only make sense at that size (``Testing/Trait/longStage``).
/// Nothing is dropped: every check runs in CI.
///
/// A statistical test sized by ``size(fast:long:)`` keeps its band at the same number of
/// standard errors in both stages (``StatisticalBand`` is set by the number of checks, not by
/// the replicates), so the fast stage is a weaker check only in its power, never in its
/// false-alarm rate.
package enum TestStage {
  /// The environment variable that selects the long stage (`1`).
  package static let variable = "FUNNELLAB_LONG_TESTS"

  /// True in CI's long stage (`FUNNELLAB_LONG_TESTS=1`).
  package static let isLong = ProcessInfo.processInfo.environment[variable] == "1"

  /// `fast` in the default stage, `long` in the long stage: a replicate count, a user count, a list of cases.
  package static func size<Value>(fast: Value, long: Value) -> Value { isLong ? long : fast }
}

extension Trait where Self == ConditionTrait {
  /// Runs a test or suite only in the long stage (`FUNNELLAB_LONG_TESTS=1`, CI's release-mode stage).
  package static var longStage: Self {
    .enabled(if: TestStage.isLong, "long stage only: FUNNELLAB_LONG_TESTS=1 swift test -c release (CI runs it)")
  }
}
