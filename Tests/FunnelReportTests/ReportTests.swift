import FunnelLab
import Testing

@testable import FunnelReport

/// A report is written in the formats it conforms to (``Report``), and ``ReportFormat/render(_:fittingTable:)``
/// is the one mapping of a format to a rendering: the formats of every report family are its
/// conformances, and a format a report is not written in renders nothing.
@Suite struct ReportTests {
  /// A report written as a table and JSON only.
  struct Greeting: TableReport, JSONReport {
    var name: String
    func table() -> String { "Hello, \(name)\n" }
    func json() -> String { "{\"hello\": \"\(name)\"}\n" }
  }

  @Test func aReportIsWrittenInTheFormatsItConformsTo() {
    #expect(Greeting.formats == [.table, .json])
    #expect(Greeting(name: "Ada").rendered(as: .json) == "{\"hello\": \"Ada\"}\n")
    #expect(Greeting(name: "Ada").rendered(as: .csv) == nil)
    #expect(ReportFormat.csv.isWritten(by: Greeting.self) == false)
    #expect(ReportFormat.table.render(Greeting(name: "Ada"), fittingTable: { "[" + $0() + "]" }) == "[Hello, Ada\n]")
    #expect(ReportFormat.json.render(Greeting(name: "Ada"), fittingTable: { _ in "unused" }) == "{\"hello\": \"Ada\"}\n")
  }

  /// Every report family's formats: what each command's `--format` offers for it.
  static var families: [(name: String, type: any Report.Type, formats: [ReportFormat])] {
    [
      ("run", RunReport.Content.self, [.table, .json, .csv, .markdown, .html]),
      ("run --mode experiment", ExperimentReportRenderer.Report.self, [.table, .json, .csv, .markdown, .html]),
      ("run --mode bandit", BanditRenderer.RunReport.self, [.table, .json, .csv, .markdown, .html]),
      ("--parameter-uncertainty", PredictionRenderer.Report.self, [.table, .json, .html]),
      ("exact", ExactRenderer.Report.self, [.table, .json, .csv, .markdown, .html]),
      ("grid", GridRenderer.Report.self, [.table, .json, .csv, .markdown, .html]),
      ("grid --exact", GridRankingRenderer.Report.self, [.table, .json, .csv, .markdown, .html]),
      ("power (formula)", PowerRenderer.Report.self, [.table, .json, .csv, .markdown, .html]),
      ("power SPEC", PlanningRenderer.Report.self, [.table, .json, .csv, .markdown, .html]),
      ("power SPEC --parameter-uncertainty", PlanningRenderer.AssuranceReport.self, [.table, .json, .markdown, .html]),
      ("power SPEC --metric revenuePerUser", RevenuePlanRenderer.Report.self, [.table, .json, .csv, .markdown, .html]),
      ("power --compare-bandit", BanditRenderer.Report.self, [.table, .json, .csv, .markdown, .html]),
      ("analyze", AnalysisRenderer.Report.self, [.table, .json, .csv, .markdown, .html]),
      ("analyze --users-file", UserAnalysisRenderer.Report.self, [.table, .json, .csv, .markdown, .html]),
      ("check", CheckRenderer.Report.self, [.table, .json, .markdown, .html, .github]),
      ("diff", SnapshotRenderer.Report.self, [.table, .json, .markdown]),
      ("infer", InferenceRenderer.Report.self, [.table, .json, .markdown, .html]),
      ("sensitivity", SensitivityRenderer.Report.self, [.table, .json, .html]),
      ("calibrate", CalibrationReport<CalibrationRenderer>.self, [.table, .json, .html]),
      ("calibrate --variants", CalibrationReport<BehaviorCalibrationRenderer>.self, [.table, .json, .html]),
    ]
  }

  @Test(arguments: families.map(\.name))
  func eachFamilyIsWrittenInItsFormats(name: String) throws {
    let family = try #require(Self.families.first { $0.name == name })
    #expect(family.type.formats == family.formats)
  }

  @Test func theLibrarysRunReportIsWrittenInFiveFormats() {
    #expect(RunReport.formats == [.table, .json, .csv, .markdown, .html])
  }
}
