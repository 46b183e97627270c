import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Issue 39's acceptance: two-sided lift bounds on a Klick copy, α that grid cells do not
/// move, `check --baseline` / `--update-baseline`, `diff`, and the CI formats (GitHub
/// annotations at the expectation's line, Markdown, HTML).
@Suite struct CheckBaselineTests {
  /// A copy of `name` with `edit` applied to its text; fails the test when `edit` changed nothing.
  func edited(_ name: String, _ edit: (String) -> String) throws -> String {
    let text = try experimentText(name)
    let changed = edit(text)
    try #require(changed != text, "the edit changed nothing")
    return try temporaryFile("\(name).json", contents: changed)
  }

  /// Klick with its expectations replaced by `items` (JSON array items).
  func klick(expectations items: String, dropUpsellPatches: Bool = false) throws -> String {
    try edited("klick-onboarding") { text in
      var t = text
      if let start = t.range(of: "\"expectations\": [") {
        t = String(t[..<start.upperBound]) + "\n    " + items + "\n  ]\n}\n"
      }
      if dropUpsellPatches, let id = t.range(of: "\"id\": \"upsellAfter3\""),
        let open = t.range(of: "\"patches\": [", range: id.upperBound..<t.endIndex),
        let close = t.range(of: "]\n", range: open.upperBound..<t.endIndex)
      {
        t.replaceSubrange(open.upperBound..<close.lowerBound, with: "")
      }
      return t
    }
  }

  static let costsAtLeast =
    #"{ "id": "early upsell costs completion", "kind": "lift", "variant": "upsellAfter3", "metric": "completionRate", "costsAtLeast": 0.005 }"#

  /// The issue's first "done when": the early upsell costs at least half a point of
  /// completion, and without its patches (the control's flow) it does not.
  @Test func anEarlyUpsellCostsCompletion() throws {
    let pass = funnellab("check", try klick(expectations: Self.costsAtLeast))
    #expect(pass.code == 0, "\(pass.out)\(pass.err)")
    #expect(pass.out.contains("PASS    early upsell costs completion"), "\(pass.out)")
    #expect(pass.out.contains("upsellAfter3 costs ≥ 0.005 of completionRate"))
    let fail = funnellab("check", try klick(expectations: Self.costsAtLeast, dropUpsellPatches: true), "--wide")
    #expect(fail.code == 1, "\(fail.out)\(fail.err)")
    #expect(fail.out.contains("FAIL    early upsell costs completion"), "\(fail.out)")
    #expect(fail.out.contains("it does not cost: the improvement is 0, where a cost of at least 0.005 was expected"))
  }

  /// A `beats` is judged at its own α (one comparison), printed, whether or not the spec has
  /// a grid; `among` shares α by Bonferroni and says so.
  @Test func alphaIsTheExpectationsOwnAndGridsDoNotMoveIt() throws {
    let beats =
      #"{ "id": "5 features detectable", "kind": "beats", "variant": "features5", "metric": "purchaseConversion", "users": 200000 }"#
    let withGrid = try klick(expectations: beats)
    var object = try #require(
      try JSONSerialization.jsonObject(with: Data(try String(contentsOfFile: withGrid, encoding: .utf8).utf8)) as? [String: Any])
    #expect(object.removeValue(forKey: "grid") != nil)
    let withoutGrid = try temporaryFile(
      "no-grid.json", contents: String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
    let a = funnellab("check", withGrid, "--format", "json")
    let b = funnellab("check", withoutGrid, "--format", "json")
    #expect(a.code == 0 && b.code == 0, "\(a.err)\(b.err)")
    let detail = "power 0.9978 at α 0.05 (its own comparison)"
    #expect(a.out.contains(detail), "\(a.out)")
    #expect(b.out.contains(detail), "\(b.out)")
    #expect(a.out.contains("\"alpha\": 0.05"))
    let among = try klick(
      expectations:
        #"{ "kind": "beats", "variant": "features5", "metric": "purchaseConversion", "users": 200000, "among": ["features3", "goalOptional"] }"#
    )
    let shared = funnellab("check", among, "--wide")
    #expect(shared.out.contains("α 0.05/3 = 0.01667 (Bonferroni: goalOptional, features3, features5)"), "\(shared.out)")
  }

  /// The third "done when": the exact funnel saved as a baseline passes unchanged and fails,
  /// naming the metrics and the screen, when one screen's quit probability moves by 0.02.
  @Test func aBaselineCatchesAMovedQuitAndNamesTheScreen() throws {
    let baseline = try temporaryFile("base.json")
    let spec = experimentPath("urbannest-onboarding")
    #expect(funnellab("exact", spec, "--format", "json", "-o", baseline).code == 0)
    let same = funnellab("check", spec, "--baseline", baseline, "--wide")
    #expect(same.code == 0, "\(same.out)\(same.err)")
    #expect(same.out.contains("Unchanged from \(baseline): every metric within 1e-09 + 1e-09 × |baseline|."), "\(same.out)")
    let moved = try edited("urbannest-onboarding") {
      $0.replacingOccurrences(
        of: "\"continue\": { \"probability\": 0.83, \"label\": \"Next\" }",
        with: "\"continue\": { \"probability\": 0.81, \"label\": \"Next\" }"
      )
      .replacingOccurrences(of: "\"quit\": 0.045", with: "\"quit\": 0.065")
    }
    let r = funnellab("check", moved, "--baseline", baseline)
    #expect(r.code == 1, "\(r.out)\(r.err)")
    #expect(r.out.contains("Changed from \(baseline): "), "\(r.out)")
    #expect(r.out.contains(/control +completionRate +0\.6497 +0\.6366 +-0\.01308/), "\(r.out)")
    #expect(r.out.contains("control: quits moved most at slide2 (0.04556 → 0.0651 of all users)"), "\(r.out)")
    // twoSlides has no slide 2: nothing of it moved.
    #expect(!r.out.contains("twoSlides  "), "\(r.out)")
    #expect(r.out.hasSuffix("The exact funnel moved from its baseline.\n"))
    // A tolerance wide enough lets the move pass; one metric's own tolerance overrides.
    #expect(funnellab("check", moved, "--baseline", baseline, "--tolerance", "0.5").code == 0)
    let one = funnellab("check", moved, "--baseline", baseline, "--tolerance", "0.5", "--tolerance", "completionRate=0.001", "--wide")
    #expect(one.code == 1)
    #expect(one.out.contains("2 values moved in 2 variants"), "\(one.out)")
  }

  /// `--update-baseline` writes what `exact --format json` writes, which then passes.
  @Test func updateBaselineWritesTheExactReport() throws {
    let spec = experimentPath("urbannest-onboarding")
    let written = try temporaryFile("updated.json")
    let r = funnellab("check", spec, "--update-baseline", written)
    #expect(r.code == 0, "\(r.err)")
    let exact = funnellab("exact", spec, "--format", "json")
    #expect(try String(contentsOfFile: written, encoding: .utf8) == exact.out)
    #expect(funnellab("check", spec, "--baseline", written).code == 0)
  }

  /// Bad baselines and flags: the right code, a one-line reason, and no output file touched.
  @Test func badBaselinesAndFlagsAreRefused() throws {
    let spec = experimentPath("urbannest-onboarding")
    let junit = try temporaryFile("junit.xml")
    let notBaseline = funnellab("check", spec, "--baseline", spec, "--junit", junit)
    #expect(notBaseline.code == 65)
    #expect(notBaseline.err.contains("command (line 1): not a baseline"), "\(notBaseline.err)")
    #expect(!FileManager.default.fileExists(atPath: junit))
    let broken = try temporaryFile(
      "broken.json",
      contents:
        "{\"schemaVersion\": 1, \"command\": \"exact\", \"experiment\": \"urbannest-onboarding\", \"variants\": [{\"id\": \"control\",\n \"metrics\": {\"completionRate\": \"high\"}}]}"
    )
    let bad = funnellab("check", spec, "--baseline", broken)
    #expect(bad.code == 65)
    #expect(bad.err.contains("variants[0].metrics.completionRate (line 2)"), "\(bad.err)")
    #expect(funnellab("check", spec, "--baseline", "/no/such/base.json").code == 66)
    for flags in [
      ["--tolerance", "0.1"], ["--baseline", broken, "--tolerance", "-1"], ["--baseline", broken, "--tolerance", "conversion=0.1"],
      ["--baseline", broken, "--tolerance", "nan"], ["--baseline", broken, experimentPath("ncdb-first-launch")],
    ] {
      let r = funnellab(["check", spec] + flags)
      #expect(r.code == 64, "\(flags): \(r.err)")
      #expect(r.err.hasPrefix("Error: --"), "\(r.err)")
    }
  }

  /// `--tolerance =0.1` names no metric: refused (64), not taken as the tolerance of every metric.
  @Test(arguments: ["=0.1", "=", "completionRate="])
  func aToleranceWithoutAMetricNameIsRefused(text: String) throws {
    let spec = experimentPath("urbannest-onboarding")
    let baseline = try temporaryFile("base.json")
    #expect(funnellab("exact", spec, "--format", "json", "-o", baseline).code == 0)
    let r = funnellab("check", spec, "--baseline", baseline, "--tolerance", text)
    #expect(r.code == 64, "\(r.err)")
    let said = text.hasPrefix("=0") ? "Error: --tolerance '=0.1' names no metric before '='" : "Error: --tolerance expects a number"
    #expect(r.err.hasPrefix(said), "\(r.err)")
    #expect(funnellab("diff", spec, spec, "--tolerance", text).code == 64)
  }

  /// A baseline that lists fewer metrics (written before a metric existed) compares those it
  /// lists; a listed `null` is compared as undefined.
  @Test func aBaselineComparesTheMetricsItLists() throws {
    let spec = experimentPath("urbannest-onboarding")
    let full = funnellab("exact", spec, "--format", "json").out
    let snapshot = try FunnelSnapshot.decode(exactJSON: full, source: "full")
    var partial = snapshot
    for v in partial.variants.indices {
      partial.variants[v].metrics = partial.variants[v].metrics.filter {
        $0.key == .completionRate || $0.key == .purchaseConversionOfViewers
      }
    }
    #expect(SnapshotComparison.compare(baseline: partial, current: snapshot).passed)
    partial.variants[0].metrics[.completionRate] = 0.5
    partial.variants[1].metrics[.purchaseConversionOfViewers] = .some(0.1)
    let moved = SnapshotComparison.compare(baseline: partial, current: snapshot)
    #expect(moved.changes.map { "\($0.variant) \($0.metric)" } == ["control completionRate", "noSkipOnSlide1 purchaseConversionOfViewers"])
  }

  /// `diff` of two specs, or of a baseline and a spec: 0 when nothing moved, 1 when something did.
  @Test func diffComparesSpecsAndBaselines() throws {
    let spec = experimentPath("urbannest-onboarding")
    let baseline = try temporaryFile("base.json")
    #expect(funnellab("exact", spec, "--format", "json", "-o", baseline).code == 0)
    #expect(funnellab("diff", spec, spec).code == 0)
    #expect(funnellab("diff", baseline, spec).code == 0)
    let moved = try edited("urbannest-onboarding") {
      $0.replacingOccurrences(of: "\"quit\": 0.13", with: "\"quit\": 0.15").replacingOccurrences(
        of: "\"type\": { \"probability\": 0.84", with: "\"type\": { \"probability\": 0.82")
    }
    let r = funnellab("diff", baseline, moved)
    #expect(r.code == 1)
    #expect(r.out.hasPrefix("Changed from \(baseline): "), "\(r.out)")
    #expect(r.out.contains("quits moved most at registration"), "\(r.out)")
    let json = funnellab("diff", spec, moved, "--format", "json")
    #expect(json.out.contains("\"command\": \"diff\"") && json.out.contains("\"passed\": false"))
    #expect(funnellab("diff", spec).code == 64)
  }

  /// `--format github` puts an `::error` at the failing expectation's line in the spec.
  @Test func githubAnnotationsPointAtTheExpectationsLine() throws {
    let path = try klick(expectations: Self.costsAtLeast, dropUpsellPatches: true)
    let r = funnellab("check", path, "--format", "github")
    #expect(r.code == 1)
    let error = try #require(r.out.split(separator: "\n").first { $0.hasPrefix("::error ") }, "\(r.out)")
    let line = try #require(error.firstMatch(of: /line=(\d+)/).flatMap { Int($0.1) })
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines[line - 1].contains("early upsell costs completion"), "line \(line): \(lines[line - 1])")
    #expect(error.contains("title=funnellab check%3A early upsell costs completion::"), "\(error)")
    #expect(r.out.hasSuffix("1 of 1 expectation failed: early upsell costs completion.\n"), "\(r.out)")
  }

  /// Markdown and HTML open with the outcome (in HTML, the page's decision section); the HTML is well-formed XML.
  @Test func markdownAndHTMLLeadWithTheOutcome() throws {
    let path = try klick(expectations: Self.costsAtLeast, dropUpsellPatches: true)
    let md = funnellab("check", path, "--format", "markdown")
    #expect(md.out.hasPrefix("### ❌ funnellab check: 1 of 1 expectation failed: early upsell costs completion."), "\(md.out)")
    let html = funnellab("check", experimentPath("urbannest-onboarding"), "--format", "html")
    #expect(html.code == 0)
    #expect(
      html.out.contains("<section class=\"decision\">\n<p class=\"headline\" data-role=\"decision\">All 3 expectations passed.</p>"),
      "\(html.out)")
    let data = Data(html.out.utf8)
    #expect(XMLParser(data: data).parse())
  }
}

/// The CI jobs in docs/guide-ci-checks.md run: every `funnellab` line of their YAML passes on
/// this repository (the target branch's spec standing for the one `git show` would write),
/// and the YAML parses where Python's yaml module is installed. The jobs check every seed
/// experiment (seconds of release code, half a minute unoptimised), so their lines run in the
/// long stage.
@Suite struct CIJobTests {
  /// The fenced YAML blocks of the guide.
  static func jobs() throws -> [String] {
    let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/guide-ci-checks.md"), encoding: .utf8)
    return guide.components(separatedBy: "```yaml\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
  }

  @Test(.longStage) func everyFunnellabLineOfTheJobsPasses() throws {
    let jobs = try Self.jobs()
    #expect(jobs.count == 2, "a GitHub Actions job and a GitLab CI job")
    let folder = try scratchFolder("ci-jobs")
    var ran = 0
    for job in jobs {
      for line in job.split(separator: "\n") {
        guard let start = line.range(of: ".build/release/funnellab ") else { continue }
        var command = String(line[start.upperBound...])
        for end in [" >>", " ||"] { if let cut = command.range(of: end) { command = String(command[..<cut.lowerBound]) } }
        var arguments: [String] = []
        var isOutput = false
        for word in command.split(separator: " ").map(String.init) {
          defer { isOutput = word == "--junit" }
          if isOutput {
            arguments.append(folder.appendingPathComponent(word).path)
          } else if word == "klick-target.json" {
            arguments.append(experimentPath("klick-onboarding"))
          } else if word.contains("*") {
            arguments += try HelpExampleTests.expand(word, roots: [repositoryRoot])
          } else if FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(word).path) {
            arguments.append(repositoryRoot.appendingPathComponent(word).path)
          } else {
            arguments.append(word)
          }
        }
        let r = funnellab(arguments)
        #expect(r.code == 0, "\(line)\n\(r.out)\(r.err)")
        ran += 1
      }
    }
    #expect(ran == 7, "the jobs' funnellab lines")
  }

  @Test func theJobsParseAsYAML() throws {
    func status(_ arguments: [String]) throws -> Int32 {
      let p = Process()
      p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      p.arguments = arguments
      p.standardError = FileHandle.nullDevice
      try p.run()
      p.waitUntilExit()
      return p.terminationStatus
    }
    guard (try? status(["python3", "-c", "import yaml"])) == 0 else { return }
    for job in try Self.jobs() {
      let path = try temporaryFile("job.yml", contents: job)
      #expect(try status(["python3", "-c", "import sys, yaml; yaml.safe_load(open(sys.argv[1]))", path]) == 0, "\(job)")
    }
  }
}
