import FunnelLab
import FunnelReport

/// What docs/TestingYourAssumptions.md and docs/reference/library.md show a library user doing,
/// written against the public API only: load and run a spec, read a metric, its interval, the
/// comparison with the control and the exact value, check the spec's expectations, render the report.
public enum LibraryUse {
  /// The purchase conversion of `variant` in the spec at `path`: simulated, with its interval, the
  /// exact value, and the report `funnellab run --format markdown` would print.
  public static func summary(ofSpecAt path: String, variant: String) throws(SpecErrors) -> String {
    let result = try Simulation.run(contentsOf: path, users: 20_000, seed: 7)
    let arm = try result.variant(variant)
    let estimate = arm.metric(.purchaseConversion)
    let interval = estimate.interval.map { "[\($0.lower), \($0.upper)]" } ?? "n/a"
    let difference = arm.comparison(.purchaseConversion)?.difference?.estimate
    let exact = arm.exact(.purchaseConversion)
    let failed = try Simulation.check(contentsOf: path).filter { !$0.passed }.count
    return "\(estimate.estimate ?? .nan) \(interval) Δ \(difference ?? .nan) exact \(exact ?? .nan), \(failed) failed\n"
      + RunReport.render(result, format: .markdown)
  }
}
