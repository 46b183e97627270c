import Foundation
import FunnelLab
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `analyze --users-file` on `experiments/data/betfree-users.csv` against independent
/// computations on the same rows (`Fixtures/make_users_reference.py`): Welch and CUPED
/// directly with numpy, Lin's regression with statsmodels OLS (HC1), the ratio by the delta
/// method, the split by scipy's chisquare and ssrm-test.
@Suite struct AnalyzeUsersTests {
  static let file = "experiments/data/betfree-users.csv"
  static let reference: JSONValue? = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/users-reference.json")
    return (try? String(contentsOf: url, encoding: .utf8)).flatMap { try? JSONParser.parse($0) }
  }()

  static func number(_ value: JSONValue?, _ path: String...) -> Double? {
    var current = value
    for key in path { current = current?[key] }
    if case .number(let x, _)? = current?.kind { return x }
    return nil
  }

  static func at(_ value: JSONValue?, _ i: Int) -> JSONValue? {
    guard case .array(let items)? = value?.kind, items.indices.contains(i) else { return nil }
    return items[i]
  }

  static func close(_ x: Double?, _ reference: Double?, _ label: String) -> Bool {
    guard let x, let reference else {
      Issue.record("\(label): missing (\(String(describing: x)), \(String(describing: reference)))")
      return false
    }
    let ok = abs(x - reference) <= 1e-9 * abs(reference)
    if !ok { Issue.record("\(label): \(x) against \(reference)") }
    return ok
  }

  func analysis(_ extra: [String] = []) throws -> JSONValue {
    let r = funnellab(
      [
        "analyze", "--users-file", Self.file, "--metric", "revenue", "--covariate", "pre_sessions", "--ratio", "revenue/purchases",
        "--format", "json",
      ] + extra)
    #expect(r.code == 0, "\(r.err)")
    return try JSONParser.parse(r.out)
  }

  @Test func everyMethodEqualsItsReference() throws {
    let doc = try analysis()
    let ref = try #require(Self.reference)
    guard case .array(let comparisons)? = doc["comparisons"]?.kind, let c = comparisons.first else {
      Issue.record("no comparison")
      return
    }
    let n = Self.number
    // Welch, directly.
    #expect(Self.close(n(c, "welch", "difference", "estimate"), n(ref, "welch", "difference"), "Welch Δ"))
    #expect(Self.close(n(c, "welch", "standardError"), n(ref, "welch", "standardError"), "Welch SE"))
    #expect(Self.close(n(c, "welch", "test", "degreesOfFreedom"), n(ref, "welch", "degreesOfFreedom"), "Welch ν"))
    #expect(Self.close(n(c, "welch", "test", "pValue"), n(ref, "welch", "pValue"), "Welch p"))
    // CUPED: θ = cov(y, x)/var(x) pooled; Δ = (ȳₜ − θx̄ₜ) − (ȳ꜀ − θx̄꜀).
    #expect(Self.close(n(c, "cuped", "theta"), n(ref, "cuped", "theta"), "θ"))
    #expect(Self.close(n(c, "cuped", "difference", "estimate"), n(ref, "cuped", "difference"), "CUPED Δ"))
    #expect(Self.close(n(c, "cuped", "standardError"), n(ref, "cuped", "standardError"), "CUPED SE"))
    #expect(Self.close(n(c, "cuped", "test", "degreesOfFreedom"), n(ref, "cuped", "degreesOfFreedom"), "CUPED ν"))
    #expect(Self.close(n(c, "cuped", "test", "pValue"), n(ref, "cuped", "pValue"), "CUPED p"))
    #expect(Self.close(n(c, "cuped", "difference", "interval", "lower"), n(ref, "cuped", "lower"), "CUPED lower"))
    #expect(Self.close(n(c, "cuped", "difference", "interval", "upper"), n(ref, "cuped", "upper"), "CUPED upper"))
    // Lin: statsmodels OLS(y, [1, T, x − x̄, T(x − x̄)]).fit(cov_type="HC1"), the coefficient of T.
    #expect(c["lin"]?["standardErrorType"]?.kind == .string("hc1"))
    #expect(Self.close(n(c, "lin", "difference", "estimate"), n(ref, "lin", "difference"), "Lin Δ"))
    #expect(Self.close(n(c, "lin", "standardError"), n(ref, "lin", "standardError"), "Lin SE"))
    #expect(Self.close(n(c, "lin", "test", "pValue"), n(ref, "lin", "pValue"), "Lin p"))
    #expect(Self.close(n(c, "lin", "difference", "interval", "lower"), n(ref, "lin", "lower"), "Lin lower"))
    #expect(Self.close(n(c, "lin", "difference", "interval", "upper"), n(ref, "lin", "upper"), "Lin upper"))
    // The ratio revenue/purchases by the delta method.
    guard case .array(let ratios)? = c["ratio"]?["ratios"]?.kind, case .array(let errors)? = c["ratio"]?["standardErrors"]?.kind else {
      Issue.record("no ratio")
      return
    }
    #expect(Self.close(n(ratios[0]), n(ref, "ratio", "control"), "control's ratio"))
    #expect(Self.close(n(ratios[1]), n(ref, "ratio", "treatment"), "treatment's ratio"))
    let se = (n(errors[0]) ?? 0) * (n(errors[0]) ?? 0) + (n(errors[1]) ?? 0) * (n(errors[1]) ?? 0)
    #expect(Self.close(se.squareRoot(), n(ref, "ratio", "standardError"), "ratio SE"))
    #expect(Self.close(n(c, "ratio", "difference", "estimate"), n(ref, "ratio", "difference"), "ratio Δ"))
    #expect(Self.close(n(c, "ratio", "test", "pValue"), n(ref, "ratio", "pValue"), "ratio p"))
    #expect(Self.close(n(c, "ratio", "test", "degreesOfFreedom"), n(ref, "ratio", "degreesOfFreedom"), "ratio ν"))
    // The split.
    #expect(Self.close(n(doc, "sampleRatioMismatch", "test", "pValue"), n(ref, "srm", "pValue"), "χ² p"))
    guard case .array(let sequential)? = doc["sampleRatioMismatch"]?["anytimeValid"]?["pValues"]?.kind,
      case .array(let expected)? = ref["srm"]?["sequentialPValues"]?.kind
    else {
      Issue.record("no anytime-valid p-values")
      return
    }
    #expect(sequential.count == expected.count && sequential.count == 14)
    for (a, b) in zip(sequential, expected) { #expect(Self.close(n(a), n(b), "anytime-valid p")) }
  }

  /// The decision is CUPED's, and the summary carries it with the interval it was made on.
  @Test func decidesOnCUPED() throws {
    let doc = try analysis()
    #expect(doc["primaryMethod"]?.kind == .string("cuped"))
    #expect(doc["summary"]?["primaryMetric"]?.kind == .string("revenue"))
    guard case .array(let arms)? = doc["summary"]?["arms"]?.kind, let arm = arms.first else {
      Issue.record("no summary arm")
      return
    }
    #expect(arm["call"]?.kind == .string("wins"))
    #expect(
      Self.number(arm, "primary", "difference", "estimate")
        == Self.number(Self.at(doc["comparisons"], 0), "cuped", "difference", "estimate"))
    // Without a covariate, Welch decides; with only a ratio, the ratio does.
    let welch = funnellab("analyze", "--users-file", Self.file, "--metric", "revenue", "--format", "json")
    #expect(try JSONParser.parse(welch.out)["primaryMethod"]?.kind == .string("welch"))
    let ratio = funnellab("analyze", "--users-file", Self.file, "--ratio", "revenue/purchases", "--format", "json")
    #expect(try JSONParser.parse(ratio.out)["primaryMethod"]?.kind == .string("ratio"))
  }

  /// The sums are streamed: the same users in another order, or split over lines differently
  /// (CRLF, a quoted arm), give the same report, and the control may be any arm.
  @Test func orderAndQuotingDoNotMatter() throws {
    let text = try String(contentsOfFile: Self.file, encoding: .utf8)
    var lines = text.split(separator: "\n").map(String.init)
    let header = lines.removeFirst()
    let reversed =
      ([header] + lines.reversed().map { $0.replacingOccurrences(of: ",control,", with: ",\"control\",") })
      .joined(separator: "\r\n") + "\r\n"
    let path = try temporaryFile("users.csv", contents: reversed)
    let a = funnellab("analyze", "--users-file", Self.file, "--metric", "revenue", "--covariate", "pre_sessions", "--format", "json")
    let b = funnellab("analyze", "--users-file", path, "--metric", "revenue", "--covariate", "pre_sessions", "--format", "json")
    #expect(b.code == 0, "\(b.err)")
    let x = try JSONParser.parse(a.out)
    let y = try JSONParser.parse(b.out)
    for path in [["lin", "difference", "estimate"], ["cuped", "difference", "estimate"], ["cuped", "standardError"]] {
      let u = path.reduce(Self.at(x["comparisons"], 0)) { $0?[$1] }
      let v = path.reduce(Self.at(y["comparisons"], 0)) { $0?[$1] }
      #expect(Self.close(Self.number(v), Self.number(u), path.joined(separator: ".")))
    }
  }

  @Test(arguments: [
    ("json", "analyze-users.json"), ("csv", "analyze-users.csv"), ("markdown", "analyze-users.md"), ("table", "analyze-users.txt"),
  ])
  func golden(format: String, file: String) throws {
    let r = funnellab(
      "analyze", "--users-file", Self.file, "--metric", "revenue", "--covariate", "pre_sessions", "--ratio", "revenue/purchases",
      "--format", format)
    #expect(r.code == 0, "\(r.err)")
    try expectGolden(r.out, file)
  }

  @Test func htmlIsWellFormedAndLeadsWithTheDecision() throws {
    let html = funnellab(
      "analyze", "--users-file", Self.file, "--metric", "revenue", "--covariate", "pre_sessions", "--format", "html"
    ).out
    let s = ReportStructure(html)
    #expect(s.error == nil, "\(String(describing: s.error))")
    let decision = try #require(html.range(of: "data-role=\"decision\""))
    let firstTable = try #require(html.range(of: "<table"))
    #expect(decision.lowerBound < firstTable.lowerBound)
  }

  /// Every problem of the file names its line and what to write, exits 65 and writes nothing.
  @Test(arguments: [
    ("", "1: the file is empty"),
    ("arm,revenue\n", "2: no users after the header"),
    ("variant,revenue\nb,1\n", "1: the header has no 'arm' column"),
    ("arm,revenue,revenue\nb,1,2\n", "1: the header names the column 'revenue' twice"),
    ("arm,revnue\nb,1\n", "1: no column 'revenue' for --metric in the header (arm, revnue); did you mean 'revnue'?"),
    ("arm,revenue\na,1\nb\n", "3: 1 fields, expected 2"),
    ("arm,revenue\na,1\nb,\n", "3: 'revenue' is empty; write 0 for a user without it"),
    ("arm,revenue\na,1\nb,1.5e400\n", "3: 'revenue' is '1.5e400', not a decimal number"),
    ("arm,revenue\na,1\nb,0x10\n", "3: 'revenue' is '0x10', not a decimal number"),
    ("arm,revenue\na,1\nb,2e13\n", "3: 'revenue' is 2e13, beyond ±1e12"),
    ("arm,revenue\n,1\n", "2: the arm is empty"),
    ("arm,revenue\n\"a,1\n", "2: a quoted field never closes"),
    ("arm,revenue\na,1\na,2\n", "needs at least two arms"),
  ])
  func refusesABadFile(contents: String, message: String) throws {
    let path = try temporaryFile("users.csv", contents: contents)
    let out = try temporaryFile("out.json", contents: "kept")
    let r = funnellab("analyze", "--users-file", path, "--metric", "revenue", "-o", out)
    #expect(r.code == 65, "\(r.err)")
    #expect(r.err.contains(message), "\(r.err)")
    #expect(r.err.split(separator: "\n").count == 1, "one line: \(r.err)")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "kept")
  }

  @Test func refusesTooManyArms() throws {
    let rows = (0...UserFile.maximumArms).map { "a\($0),1" }.joined(separator: "\n")
    let path = try temporaryFile("users.csv", contents: "arm,revenue\n" + rows + "\n")
    let r = funnellab("analyze", "--users-file", path, "--metric", "revenue")
    #expect(r.code == 65 && r.err.contains(":66: more than 64 arms"), "\(r.err)")
  }

  @Test func refusesAZeroDenominatorAndAnUnknownControl() throws {
    let path = try temporaryFile("users.csv", contents: "arm,revenue,purchases\na,1,0\na,2,0\nb,1,1\nb,3,1\n")
    let r = funnellab("analyze", "--users-file", path, "--ratio", "revenue/purchases")
    #expect(r.code == 65 && r.err.contains("denominator"), "\(r.err)")
    let control = funnellab("analyze", "--users-file", Self.file, "--metric", "revenue", "--control", "nope")
    #expect(control.code == 64 && control.err.contains("--control") && control.err.contains("no arm 'nope'"), "\(control.err)")
  }

  /// Flags that belong to the other kind of input are refused, with what to do.
  @Test(arguments: [
    (["--metric", "revenue"], "--metric reads a per-user file; add --users-file FILE"),
    (["--users-file", "experiments/data/betfree-users.csv"], "--users-file needs --metric COLUMN or --ratio NUM/DEN"),
    (["--users-file", "experiments/data/betfree-users.csv", "--covariate", "pre_sessions"], "--covariate adjusts --metric"),
    (["--users-file", "experiments/data/betfree-users.csv", "--ratio", "revenue"], "--ratio 'revenue' is not numerator/denominator"),
    (["--users-file", "experiments/data/betfree-users.csv", "--metric", "revenue", "--arm", "a=1:1"], "--arm reads counts"),
    (["--users-file", "experiments/data/betfree-users.csv", "--metric", "revenue", "--margin", "0.01"], "--margin reads counts"),
    (
      ["--users-file", "experiments/data/betfree-users.csv", "--metric", "revenue", "--alternative", "greater"],
      "a per-user file is read two-sided"
    ),
  ])
  func refusesFlagsOfTheOtherInput(arguments: [String], message: String) {
    let r = funnellab(["analyze"] + arguments)
    #expect(r.code == 64, "\(r.err)")
    #expect(r.err.contains(message), "\(r.err)")
  }

  /// A broken split is flagged by the anytime-valid check over the days, every verdict turns
  /// to "do not trust", and --fail-on-srm exits 1.
  @Test func aBrokenSplitIsNotTrusted() throws {
    var rows = ["day,arm,revenue"]
    for day in 1...7 {
      for i in 0..<600 { rows.append("\(day),control,\(i % 7 == 0 ? 9.99 : 0)") }
      for i in 0..<500 { rows.append("\(day),b,\(i % 6 == 0 ? 9.99 : 0)") }
    }
    let path = try temporaryFile("users.csv", contents: rows.joined(separator: "\n") + "\n")
    let r = funnellab("analyze", "--users-file", path, "--metric", "revenue", "--format", "json", "--fail-on-srm")
    #expect(r.code == 1, "\(r.err)")
    let doc = try JSONParser.parse(r.out)
    #expect(doc["sampleRatioMismatch"]?["mismatch"]?.kind == .bool(true))
    #expect(doc["sampleRatioMismatch"]?["anytimeValid"]?["mismatch"]?.kind == .bool(true))
    #expect(Self.at(doc["comparisons"], 0)?["conclusion"]?.kind == .string("sampleRatioMismatch"))
    let table = funnellab("analyze", "--users-file", path, "--metric", "revenue")
    #expect(table.out.contains("MISMATCH"))
  }
  /// A metric far from 0 keeps its variance's digits (the sums are measured from the first
  /// value): revenue of 10⁸ + small noise gives the standard error a direct two-pass
  /// computation gives, to 1e-9.
  @Test func aLargeMeanKeepsItsVariance() throws {
    var rng = SplitMix64(seed: 3)
    var rows = ["arm,revenue,pre"]
    var values: [String: [Double]] = ["control": [], "b": []]
    for k in 0..<2_000 {
      let arm = k % 2 == 0 ? "control" : "b"
      let noise = Double(rng.next() % 1_000_000) / 1_000_000
      let y = 100_000_000 + noise
      values[arm, default: []].append(y)
      rows.append("\(arm),\(y),\(noise * 2)")
    }
    let path = try temporaryFile("big.csv", contents: rows.joined(separator: "\n") + "\n")
    let r = funnellab("analyze", "--users-file", path, "--metric", "revenue", "--covariate", "pre", "--format", "json")
    try #require(r.code == 0, "\(r.err)")
    let doc = try JSONParser.parse(r.out)
    func variance(_ v: [Double]) -> Double {
      let m = v.reduce(0, +) / Double(v.count)
      return v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count - 1)
    }
    let c = values["control"] ?? []
    let b = values["b"] ?? []
    let se = (variance(c) / Double(c.count) + variance(b) / Double(b.count)).squareRoot()
    let welch = Self.number(Self.at(doc["comparisons"], 0), "welch", "standardError")
    #expect(welch.map { abs($0 - se) <= 1e-6 * se } == true, "\(String(describing: welch)) against \(se)")
    // The covariate is the noise itself: CUPED removes nearly all the variance.
    #expect((Self.number(Self.at(doc["comparisons"], 0), "cuped", "varianceReduction") ?? 0) > 0.99)
  }

  /// Days that read as the same number ("1", "01") are ordered the same way on every run.
  @Test func daysAreOrderedDeterministically() throws {
    var rows = ["day,arm,revenue"]
    for (k, day) in ["1", "01", "001", "2", "02"].enumerated() {
      for j in 0..<40 { rows.append("\(day),\(j % 2 == 0 ? "control" : "b"),\(Double((j + k) % 5))") }
    }
    let path = try temporaryFile("days.csv", contents: rows.joined(separator: "\n") + "\n")
    let first = funnellab("analyze", "--users-file", path, "--metric", "revenue", "--format", "json").out
    for _ in 0..<3 { #expect(funnellab("analyze", "--users-file", path, "--metric", "revenue", "--format", "json").out == first) }
  }
}
