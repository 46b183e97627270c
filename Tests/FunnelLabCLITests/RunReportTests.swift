import FunnelLab
import FunnelReport
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// The public entry of the renderers writes what `funnellab run` writes: a library user who runs
/// `Simulation.run` and renders the result gets the command line's bytes (with `--wide`: the
/// command line folds its terminal tables to the terminal's width, the library does not).
@Suite struct RunReportTests {
  /// One run of each side: the command line's end to end in the first format, the report it wrote
  /// rendered in the others through its own call; the library's result rendered in every format.
  @Test func theLibraryWritesTheCommandLinesReport() throws {
    let path = repositoryRoot.appendingPathComponent("experiments/urbannest-onboarding.json").path
    let result = try Simulation.run(contentsOf: path, users: 3_000, seed: 11)
    let first = try #require(RunReport.formats.first)
    let console = CapturingConsole(alsoRendering: Array(RunReport.formats.dropFirst()))
    let code = FunnelLabCommandLine.run(
      ["run", path, "--users", "3000", "--seed", "11", "--format", first.rawValue, "--wide"], console: console)
    #expect(code == 0, "\(console.stderr)")
    #expect(RunReport.render(result, format: first) == console.stdout)
    for format in RunReport.formats.dropFirst() {
      #expect(RunReport.render(result, format: format) == console.rendering(format), "\(format.rawValue)")
    }
    // Every other format gives a text, never a trap: a run annotates nothing for GitHub.
    for format in ReportFormat.allCases where !RunReport.formats.contains(format) {
      #expect(RunReport.render(result, format: format).isEmpty, "\(format.rawValue)")
    }
  }
}
