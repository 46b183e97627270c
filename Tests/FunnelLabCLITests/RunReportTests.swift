import FunnelLab
import FunnelReport
import FunnelTestSupport
import Testing

/// The public entry of the renderers writes what `funnellab run` writes: a library user who runs
/// `Simulation.run` and renders the result gets the command line's bytes (with `--wide`: the
/// command line folds its terminal tables to the terminal's width, the library does not).
@Suite struct RunReportTests {
  @Test(arguments: RunReport.formats)
  func theLibraryWritesTheCommandLinesReport(format: ReportFormat) throws {
    let path = repositoryRoot.appendingPathComponent("experiments/urbannest-onboarding.json").path
    let result = try Simulation.run(contentsOf: path, users: 3_000, seed: 11)
    let cli = funnellab("run", path, "--users", "3000", "--seed", "11", "--format", format.rawValue, "--wide")
    #expect(cli.code == 0, "\(cli.err)")
    #expect(RunReport.render(result, format: format) == cli.out)
  }
}
