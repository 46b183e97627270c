import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `funnellab check`: exit codes, the table, JSON and JUnit XML.
@Suite struct CheckCommandTests {
  /// UrbanNest with its expectations replaced by `expectations` (JSON array items).
  func spec(_ expectations: String) throws -> String {
    let text = try String(contentsOfFile: experimentPath("urbannest-onboarding"), encoding: .utf8)
    guard let start = text.range(of: "\"expectations\": [") else { throw CommandFailure(code: .software, text: "no expectations") }
    return try temporaryFile("spec.json", contents: String(text[..<start.upperBound]) + "\n" + expectations + "\n  ]\n}\n")
  }

  static let wrong = """
    { "id": "control completes 70%+", "kind": "range", "variant": "control", "metric": "completionRate", "min": 0.7 },
    { "id": "two slides lift", "kind": "lift", "variant": "twoSlides", "metric": "completionRate", "atLeast": 0.02 }
    """

  @Test func passingExpectationsExitZero() throws {
    let r = funnellab("check", experimentPath("urbannest-onboarding"), experimentPath("ncdb-first-launch"))
    #expect(r.code == 0, "\(r.out)\(r.err)")
    #expect(r.out.contains("PASS    control completes 60-70%"))
    #expect(r.out.hasSuffix("7 of 7 expectations passed.\n"), "\(r.out)")
    #expect(!r.out.contains("FAIL"))
  }

  @Test func aWrongExpectationExitsOneWithAnExplanation() throws {
    let r = funnellab("check", try spec(Self.wrong))
    #expect(r.code == 1)
    #expect(r.out.contains("FAIL    control completes 70%+"))
    #expect(r.out.contains("✗ the exact completionRate of control is 0.6497, below the minimum 0.7 by 0.05029"), "\(r.out)")
    #expect(r.out.contains("PASS    two slides lift"))
    #expect(r.out.hasSuffix("1 of 2 expectations passed; 1 failed.\n"))
  }

  @Test func anInvalidSpecExits65WithThePath() throws {
    let path = try spec(#"{ "kind": "lift", "variant": "twoSlidez", "metric": "completionRate", "atLeast": 0.01 }"#)
    let r = funnellab("check", path)
    #expect(r.code == 65)
    #expect(r.err.contains("expectations[0].variant"), "\(r.err)")
    #expect(r.err.contains("did you mean 'twoSlides'?"))
    #expect(funnellab("check").code == 64)
    #expect(funnellab("check", "/no/such/spec.json").code == 66)
  }

  @Test func theSchemaFileIsSkipped() {
    let r = funnellab("check", experimentPath("schema"), experimentPath("urbannest-onboarding"))
    #expect(r.code == 0)
    #expect(r.err.contains("skipping"))
  }

  /// A check that checks nothing fails (exit 1) unless --allow-empty: a spec without
  /// expectations, or files none of which is a spec; nothing is written then.
  @Test func nothingToCheckFailsUnlessAllowed() throws {
    let empty = try spec("")
    let junit = try temporaryFile("check.xml")
    let none = funnellab("check", empty, "--junit", junit)
    #expect(none.code == 1)
    #expect(
      none.err
        == "Error: \(empty): no expectations to check; add an \"expectations\" list (docs/guide-ci-checks.md), or pass --allow-empty\n")
    #expect(none.out.isEmpty && !FileManager.default.fileExists(atPath: junit))
    let schema = funnellab("check", experimentPath("schema"))
    #expect(schema.code == 1)
    #expect(schema.err.contains("Error: nothing to check: \(experimentPath("schema")) is not an experiment spec"), "\(schema.err)")
    // One spec without expectations beside one with them still fails, naming the empty one.
    #expect(funnellab("check", empty, experimentPath("urbannest-onboarding")).code == 1)
    for arguments in [[empty], [experimentPath("schema")], [empty, experimentPath("urbannest-onboarding")]] {
      let allowed = funnellab(["check"] + arguments + ["--allow-empty"])
      #expect(allowed.code == 0, "\(allowed.err)")
      #expect(allowed.out.hasSuffix("expectations passed.\n"), "\(allowed.out)")
    }
  }

  @Test func jsonReportsEveryExpectation() throws {
    let r = funnellab("check", try spec(Self.wrong), "--format", "json")
    #expect(r.code == 1)
    let document = try JSONParser.parse(r.out)
    #expect(document["passed"]?.kind == .bool(false))
    #expect(document["failures"]?.kind == .number(1, literal: "1"))
    guard case .array(let files)? = document["files"]?.kind, case .array(let items)? = files.first?["expectations"]?.kind else {
      Issue.record("no expectations in \(r.out)")
      return
    }
    #expect(items.count == 2)
    #expect(items[0]["passed"]?.kind == .bool(false))
    #expect(items[0]["explanation"]?.kind != .null)
  }

  @Test func junitIsWellFormedWithOneFailure() throws {
    let out = try temporaryFile("check.xml")
    let r = funnellab("check", try spec(Self.wrong), "--junit", out)
    #expect(r.code == 1)
    let xml = try String(contentsOfFile: out, encoding: .utf8)
    #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"funnellab check\" tests=\"2\" failures=\"1\">"))
    #expect(xml.contains("<testsuite name=\"urbannest-onboarding\" tests=\"2\" failures=\"1\""))
    #expect(xml.contains("<testcase classname=\"urbannest-onboarding\" name=\"two slides lift\" time=\"0\"/>"))
    #expect(xml.contains("<failure message=\"the exact completionRate of control is 0.6497"))
    let counter = ElementCounter()
    let parser = XMLParser(data: Data(xml.utf8))
    parser.delegate = counter
    #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    #expect(counter.names == ["testsuites": 1, "testsuite": 1, "testcase": 2, "failure": 1])
  }
}

/// Counts the elements of an XML document.
final class ElementCounter: NSObject, XMLParserDelegate {
  var names: [String: Int] = [:]
  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
    attributes attributeDict: [String: String] = [:]
  ) {
    names[elementName, default: 0] += 1
  }
}

/// `funnellab calibrate`: the committed example, a calibrated spec, bad CSV lines.
@Suite struct CalibrateCommandTests {
  @Test func theCommittedExampleFindsTheContradictedAssumptions() throws {
    let out = try temporaryFile("calibrated.json")
    let r = funnellab(
      "calibrate", experimentPath("urbannest-onboarding"), repositoryRoot.appendingPathComponent("experiments/urbannest-observed.csv").path,
      "--write-spec", out, "--wide")
    #expect(r.code == 0, "\(r.err)")
    // The answer first: the contradicted assumptions, in the report's first lines.
    let head = r.out.split(separator: "\n").prefix(3).joined(separator: "\n")
    #expect(head.contains("4 of 19 assumptions are contradicted beyond noise"), "\(head)")
    #expect(head.contains("slide1.skip (observed 0.1427 per view"))
    #expect(head.contains("registration.quit (observed 0.2816 per view"))
    #expect(!head.contains("slide2.skip"))
    #expect(r.err.contains("wrote the calibrated spec"))
    let document = try JSONParser.parse(try String(contentsOfFile: out, encoding: .utf8))
    #expect(document["name"]?.kind == .string("urbannest-onboarding"))
    // The variants' patches are rebalanced for the fitted probabilities: the spec validates.
    #expect(r.err.contains("note: variants[1].patches[1]: slide1.continue"))
    #expect(funnellab("validate", out).code == 0)
  }

  /// `-o` is the report, as in every command; `--write-spec` the calibrated spec; `--format json` the report as JSON.
  @Test func theReportAndTheCalibratedSpecGoWhereTheirFlagsSay() throws {
    let report = try temporaryFile("fit.json")
    let spec = try temporaryFile("calibrated.json")
    let r = funnellab(
      "calibrate", experimentPath("urbannest-onboarding"), repositoryRoot.appendingPathComponent("experiments/urbannest-observed.csv").path,
      "--format", "json", "-o", report, "--write-spec", spec)
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.isEmpty)
    let document = try JSONParser.parse(try String(contentsOfFile: report, encoding: .utf8))
    #expect(document["command"]?.kind == .string("calibrate"))
    guard case .array(let ids)? = document["summary"]?["contradicted"]?.kind else {
      throw CommandFailure(code: .software, text: "no summary")
    }
    #expect(ids.map(\.kind) == ["slide1.continue", "slide1.skip", "registration.type", "registration.quit"].map { .string($0) })
    #expect(try JSONParser.parse(try String(contentsOfFile: spec, encoding: .utf8))["name"]?.kind == .string("urbannest-onboarding"))
  }

  @Test func aBadCSVLineExits65WithFileAndLine() throws {
    let csv = try temporaryFile("observed.csv", contents: "screen,action,count\nslide1,,100\nslide1,continue,eighty\nslide9,quit,3\n")
    let r = funnellab("calibrate", experimentPath("urbannest-onboarding"), csv)
    #expect(r.code == 65)
    #expect(r.err.hasPrefix("\(csv):3: count 'eighty' is not a whole number ≥ 0"), "\(r.err)")
    let unknown = try temporaryFile("observed.csv", contents: "screen,action,count\nslide1,,100\nslide1,contine,80\n")
    let u = funnellab("calibrate", experimentPath("urbannest-onboarding"), unknown)
    #expect(u.code == 65)
    #expect(u.err.contains("screen 'slide1' has no action 'contine'; did you mean 'continue'?"), "\(u.err)")
  }
}

/// `funnellab sensitivity`: the table, JSON chart data and usage errors.
@Suite struct SensitivityCommandTests {
  @Test func reportsTheFlipAsTableAndJSON() throws {
    let spec = experimentPath("urbannest-onboarding")
    let r = funnellab("sensitivity", spec, "--vary", "fatiguePerScreen=0:0.1:0.05", "--metric", "completionRate")
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.contains("sensitivity of the winner on completion"))
    // The answer first: the line after the title.
    #expect(
      r.out.split(separator: "\n").dropFirst().first == "No flip: twoSlides wins on completion everywhere in the ranges tried.", "\(r.out)")
    let j = funnellab("sensitivity", spec, "--vary", "fatiguePerScreen=0:0.1:0.05", "--metric", "completionRate", "--format", "json")
    let document = try JSONParser.parse(j.out)
    guard case .array(let points)? = document["points"]?.kind else {
      Issue.record("no points")
      return
    }
    #expect(points.count == 3)
  }

  @Test func badVaryIsAUsageError() {
    #expect(funnellab("sensitivity", experimentPath("urbannest-onboarding"), "--vary", "fatigue=0:1:0.1").code == 64)
    #expect(funnellab("sensitivity", experimentPath("urbannest-onboarding"), "--vary", "fatiguePerScreen=0:1").code == 64)
    #expect(funnellab("sensitivity", experimentPath("urbannest-onboarding")).code == 64)
    #expect(funnellab("sensitivity", experimentPath("urbannest-onboarding"), "--vary", "fatiguePerScreen=0:40:20").code == 64)
    let twice = funnellab(
      "sensitivity", experimentPath("urbannest-onboarding"), "--vary", "fatiguePerScreen=0:0.04:0.04", "--vary",
      "fatiguePerScreen=0:0.02:0.02")
    #expect(twice.code == 64)
    #expect(twice.err.contains("fatiguePerScreen is varied twice; give one range per parameter"), "\(twice.err)")
  }
}
