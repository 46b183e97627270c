package import FunnelStats
package import Testing

extension StatisticalBand {
  /// Records an issue unless `successes / trials` lies within the band around `exact`;
  /// see ``proportion(_:of:exact:)``.
  package func expectProportion(
    _ successes: UInt64, of trials: UInt64, exact p: Double, _ what: @autoclosure () -> String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let c = proportion(successes, of: trials, exact: p)
    #expect(c.passed, "\(what()): \(c)", sourceLocation: sourceLocation)
  }

  /// Records an issue unless the sample mean lies within the band around `exact`; see ``mean(_:exact:)``.
  package func expectMean(
    _ statistic: SampleMeanStatistic, exact: Double, _ what: @autoclosure () -> String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let c = mean(statistic, exact: exact)
    #expect(c.passed, "\(what()): \(c)", sourceLocation: sourceLocation)
  }

  /// Records an issue unless `estimate` lies within `z` standard errors of `exact`.
  package func expect(
    _ estimate: Double, exact: Double, standardError: Double, _ what: @autoclosure () -> String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let c = comparison(estimate, exact: exact, standardError: standardError)
    #expect(c.passed, "\(what()): \(c)", sourceLocation: sourceLocation)
  }
}
