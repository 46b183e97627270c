import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `calibrate --variants`: past tests fitted jointly, from an event log to the parameters.
@Suite struct CalibrateJointTests {
  /// `trace | ingest | calibrate`: two arms traced from the true parameters (their own
  /// users: different seeds), ingested by variant, fitted jointly; the fitted bias's
  /// interval holds the truth and the spec's guess is flagged; the calibrated spec is written.
  /// (Half a minute in a debug build: the long stage.)
  @Test(.longStage) func traceIngestCalibrateRecoversTheParameterWithinItsInterval() throws {
    let truth = try temporaryFile("truth.json", contents: pastTestSpec(defaultPlanBias: 1.3))
    let spec = try temporaryFile("spec.json", contents: pastTestSpec())
    var log = ""
    for (variant, seed) in [("control", "11"), ("defaultMonthly", "12")] {
      let trace = funnellab("trace", truth, "-n", "20000", "--seed", seed, "--variant", variant, "--variant-property", "variant")
      #expect(trace.code == 0, "\(trace.err)")
      log += trace.out
    }
    let events = try temporaryFile("events.ndjson", contents: log)
    let observed = try temporaryFile("observed.csv")
    let ingest = funnellab("ingest", events, "--variant-property", "variant", "-o", observed)
    #expect(ingest.code == 0, "\(ingest.err)")
    let output = try temporaryFile("calibrated.json")
    // --wide: the row is read whole, as one line.
    let r = funnellab(
      "calibrate", spec, observed, "--variants", "all", "--fit", "defaultPlanBias,featureUtility", "--write-spec", output, "--wide")
    #expect(r.code == 0, "\(r.err)")
    let row = try #require(r.out.split(separator: "\n").first { $0.hasPrefix("  defaultPlanBias ") })
    let numbers = row.split(whereSeparator: { " [],".contains($0) }).compactMap { Double($0) }
    // spec, fitted, SE, Wald lower, upper, profile lower, upper
    #expect(numbers.count == 7, "\(row)")
    guard numbers.count == 7 else { return }
    #expect(numbers[3] <= 1.3 && 1.3 <= numbers[4], "\(row)")
    #expect(numbers[5] <= 1.3 && 1.3 <= numbers[6], "\(row)")
    #expect(row.hasSuffix("✗ spec value outside"))
    #expect(r.out.contains("featureUtility  does not change the observed counts"), "\(r.out)")
    #expect(r.err.contains("wrote the calibrated spec to"))
    let calibrated = try ExperimentLoader.load(text: String(contentsOfFile: output, encoding: .utf8), source: output)
    // The table prints 4 significant digits, the spec 4 decimals.
    #expect(abs(calibrated.behavior.defaultPlanBias - numbers[1]) < 1e-3)
    // The fit's uncertainty is written for --parameter-uncertainty: the bias normal at its estimate with its SE.
    let section = try #require(calibrated.parameterUncertainty)
    #expect(section.parameters.map(\.parameter) == [.defaultPlanBias])
    guard case .normal(let mean, let sd) = section.parameters.first?.distribution else {
      Issue.record("not normal: \(section)")
      return
    }
    #expect(mean == calibrated.behavior.defaultPlanBias)
    #expect(abs(sd - numbers[2]) < 1e-3, "\(sd) vs \(row)")
    let predicted = funnellab("exact", output, "--parameter-uncertainty", "--draws", "20", "--variant", "defaultMonthly", "--wide")
    #expect(predicted.code == 0, "\(predicted.err)")
    #expect(predicted.out.contains("20 draws (seed 1) of defaultPlanBias ~ normal(\(JSONValue.format(mean)), sd \(JSONValue.format(sd)))"))
  }

  /// On a terminal every stage of the fit draws a bar in its own unit (parameters for a
  /// Jacobian, evaluations for the observed information), then the profile its ends; on stderr
  /// only, none with -q, and the report is the same bytes.
  @Test func theFitShowsEachStageOnATerminal() throws {
    let spec = try temporaryFile("spec.json", contents: pastTestSpec())
    let observed = try temporaryFile("observed.csv", contents: pastTestCountsCSV())
    let arguments = ["calibrate", spec, observed, "--variants", "all", "--fit", "defaultPlanBias"]
    let terminal = CapturingConsole(terminal: true)
    #expect(FunnelLabCommandLine.run(arguments, console: terminal) == 0, "\(terminal.stderr)")
    for bar in [
      "identifying parameters ████", "fitting, iteration 1 ████", "observed information ████", "profile intervals ████",
    ] {
      #expect(terminal.stderr.contains(bar), "\(bar): \(terminal.stderr)")
    }
    #expect(terminal.stderr.contains("parameters/s") && terminal.stderr.contains("evaluations/s") && terminal.stderr.contains("ends/s"))
    #expect(!terminal.stdout.contains("█") && terminal.stdout.contains("defaultPlanBias"))
    let quiet = CapturingConsole(terminal: true)
    #expect(FunnelLabCommandLine.run(arguments + ["-q"], console: quiet) == 0)
    #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
    #expect(quiet.stdout == terminal.stdout)
    let pipe = CapturingConsole()
    #expect(FunnelLabCommandLine.run(arguments, console: pipe) == 0)
    #expect(pipe.stderr.isEmpty && pipe.stdout == terminal.stdout, "off a terminal a short fit is silent: \(pipe.stderr)")
  }

  /// Every mistake in the options is a usage error (64) naming the fix, and nothing is written.
  @Test func badVariantsAndParametersAreUsageErrors() throws {
    let spec = try temporaryFile("spec.json", contents: pastTestSpec())
    let csv = try temporaryFile(
      "observed.csv", contents: "screen,action,count,variant\ngoal,,100,control\ngoal,select,90,control\ngoal,,100,defaultMonthly\n")
    let plain = try temporaryFile("plain.csv", contents: "screen,action,count\ngoal,,100\ngoal,select,90\n")
    let output = try temporaryFile("calibrated.json")
    let cases: [([String], String)] = [
      (["--variants", "control,defaultMonthy"], "no variant 'defaultMonthy' in the spec; did you mean 'defaultMonthly'?"),
      (["--variants", "control,control"], "a variant is named twice"),
      (["--variant", "control", "--variant", "defaultMonthy"], "--variant: no variant 'defaultMonthy' in the spec"),
      (["--variant", "control", "--variant", "control"], "--variant: a variant is named twice"),
      (["--variants", "all", "--fit", "dwellSigm"], "'dwellSigm' is not a behavior parameter that acts on the counts"),
      (["--variants", "all", "--fit", "dwellSigma"], "'dwellSigma' is not a behavior parameter that acts on the counts"),
    ]
    for (options, message) in cases {
      let r = funnellab(["calibrate", spec, csv, "--write-spec", output] + options)
      #expect(r.code == 64, "\(options): \(r.err)")
      #expect(r.err.contains(message), "\(options): \(r.err)")
      #expect(!FileManager.default.fileExists(atPath: output))
    }
    let none = funnellab("calibrate", spec, plain, "--variants", "control")
    #expect(none.code == 64)
    #expect(none.err.contains("has no variant column"), "\(none.err)")
    let both = funnellab("calibrate", spec, csv, "--variants", "all", "--variant", "control")
    #expect(both.code == 64 && both.err.contains("--variant and --variants both name the past tests"), "\(both.err)")
    for alone in [["--fit", "defaultPlanBias"], ["--no-profile"]] {
      let r = funnellab(["calibrate", spec, csv] + alone)
      #expect(r.code == 64 && r.err.contains("add --variants"), "\(alone): \(r.err)")
    }
    // A row without a variant would count in every arm: refused with its line.
    let unlabelled = try temporaryFile("unlabelled.csv", contents: "screen,action,count,variant\ngoal,,100,control\ngoal,select,90,\n")
    let r = funnellab("calibrate", spec, unlabelled, "--variants", "all", "--write-spec", output)
    #expect(r.code == 65, "\(r.err)")
    #expect(r.err.contains("unlabelled.csv:3: the row has no variant"), "\(r.err)")
    #expect(!FileManager.default.fileExists(atPath: output))
    // An arm the spec does not have is left out, and said so.
    let other = try temporaryFile(
      "other.csv",
      contents: "screen,action,count,variant\ngoal,,1000,control\ngoal,select,850,control\npaywall,,850,control\n"
        + "paywall,purchase,70,control\npaywall,dismiss,780,control\ngoal,,10,oldTest\ngoal,select,9,oldTest\n")
    let note = funnellab("calibrate", spec, other, "--variants", "all", "--fit", "featureUtility", "--no-profile")
    #expect(note.code == 0, "\(note.err)")
    #expect(note.err.contains("has rows of 'oldTest', which is not a variant of the spec"), "\(note.err)")
    // --variant repeated (or 'all') is the same joint fit as --variants.
    let repeated = funnellab("calibrate", spec, other, "--variant", "all", "--fit", "featureUtility", "--no-profile")
    #expect(repeated.code == 0 && repeated.out == note.out, "\(repeated.err)")
  }
}

/// A fit that breaks the flow is the data's problem, named by the data file and the fitted
/// actions, never blamed on the spec (which was valid as given); a tiny fitted probability is
/// written with its digits, not rounded to a 0 that would close the path.
@Suite struct CalibrationBreaksTheFlowTests {
  static let spec = """
    {"name": "mini", "users": 10000, "flow": {"screens": [
      {"id": "slide1", "kind": "info",
       "actions": {"continue": 0.8, "skip": {"to": "registration", "probability": 0.1}, "quit": 0.1}},
      {"id": "slide2", "kind": "info", "actions": {"continue": 0.9, "quit": 0.1}},
      {"id": "registration", "kind": "info", "actions": {"continue": 0.9, "quit": 0.1}}]},
     "variants": [{"id": "control"}]}
    """

  @Test(arguments: [
    (
      "screen,action,count\nslide1,,1000\nslide1,continue,0\nslide1,skip,900\n", [String](),
      ": the fit drives slide1.continue to 0, which leaves the flow broken: screen 'slide2' is unreachable from 'slide1'"
    ),
    (
      "screen,action,count\nregistration,,500\nregistration,quit,500\n", [],
      ": the fit drives registration.continue to 0, registration.quit to 1, which leaves the flow broken: "
        + "no path from 'slide1' reaches completion"
    ),
    (
      "variant,screen,action,count\ncontrol,slide1,,1000\ncontrol,slide1,continue,0\ncontrol,slide1,skip,900\n",
      ["--variants", "all", "--no-profile"],
      ": the fit drives slide1.continue to 0, which leaves the flow broken: screen 'slide2' is unreachable from 'slide1'"
    ),
  ])
  func aFitThatBreaksTheFlowNamesTheData(csv: String, flags: [String], message: String) throws {
    let spec = try temporaryFile("mini.json", contents: Self.spec)
    let data = try temporaryFile("counts.csv", contents: csv)
    let output = try temporaryFile("out.json")
    let r = funnellab(["calibrate", spec, data, "--write-spec", output] + flags)
    #expect(r.code == 65)
    #expect(r.err.hasPrefix(data + message), "\(r.err)")
    #expect(!r.err.contains("mini:"), "the spec is not to blame")
    #expect(r.out.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test func aTinyFittedProbabilityIsWrittenWithItsDigits() throws {
    let spec = try temporaryFile("mini.json", contents: Self.spec)
    let data = try temporaryFile("counts.csv", contents: "screen,action,count\nslide1,,100000\nslide1,continue,1\nslide1,skip,90000\n")
    let output = try temporaryFile("out.json")
    let r = funnellab("calibrate", spec, data, "--write-spec", output)
    #expect(r.code == 0, "\(r.err)")
    let written = try String(contentsOfFile: output, encoding: .utf8)
    #expect(written.contains("\"continue\": 1.009e-05"), "\(written)")
    #expect(funnellab("validate", output).code == 0)
  }
}
