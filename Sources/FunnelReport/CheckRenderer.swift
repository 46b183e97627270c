import Foundation
package import FunnelLab

/// Renders the results of `funnellab check` as a pass/fail table, as JSON (schema
/// version ``schemaVersion``) and as JUnit XML for CI systems.
package enum CheckRenderer {
  /// The `schemaVersion` written by ``json(_:)``; raised when a field changes meaning or goes away.
  package static let schemaVersion = 1

  /// The checked expectations of one spec file.
  package struct File: Sendable {
    /// The spec file as the user named it (shown in the table, the JSON and the JUnit failure text).
    package var path: String
    /// The experiment's name: the table's block title and the JUnit test suite's name.
    package var experiment: String
    /// One result per expectation, in the spec's order; empty when the spec declares none.
    package var results: [ExpectationResult]
    /// The 1-based line of each expectation in the spec file (``ExperimentLoader/expectationLines(in:)``),
    /// for annotations on the spec's lines; empty or `nil` where unknown.
    package var lines: [Int?]
    /// The spec's exact funnel compared with a baseline (`--baseline`), when asked for.
    package var baseline: SnapshotRenderer.Report?

    /// A file's results as ``ExpectationChecker/check(_:)`` returned them.
    package init(
      path: String, experiment: String, results: [ExpectationResult], lines: [Int?] = [], baseline: SnapshotRenderer.Report? = nil
    ) {
      self.path = path
      self.experiment = experiment
      self.results = results
      self.lines = lines
      self.baseline = baseline
    }

    /// Whether every expectation passed and nothing moved from the baseline.
    package var passed: Bool { results.allSatisfy(\.passed) && (baseline?.comparison.passed ?? true) }

    /// The line of the `index`th expectation, when known.
    package func line(_ index: Int) -> Int? { lines.indices.contains(index) ? lines[index] : nil }
  }

  /// The interval column's cell: `[lower, upper]`, `none (exact)` for an exact value (no sampling
  /// noise, so no interval), `—` when there is none for another reason.
  static func interval(_ r: ExpectationResult) -> String {
    guard let i = r.interval else { return r.basis == .exact ? "none (exact)" : "—" }
    return "[\(format(i.lower)), \(format(i.upper))]"
  }

  /// Four significant digits (integers whole, `∞` for an infinite bound), as every
  /// check report shows numbers.
  package static func format(_ x: Double) -> String {
    guard x.isFinite else { return x > 0 ? "∞" : "-∞" }
    if x == 0 { return "0" }
    if x == x.rounded(), abs(x) < 1e9 { return String(Int64(x)) }
    return String(format: "%.4g", x)
  }

  // MARK: - Table

  /// One block per file: result, id, measured value, its interval and basis; the
  /// statement and, on failure, the explanation under each row.
  package static func table(_ files: [File]) -> String {
    let failed = files.contains { !$0.passed }
    var out = (failed ? Tone.bad : Tone.good).mark(outcome(files)) + "\n\n"
    var passed = 0
    var total = 0
    for file in files {
      out += "\(file.experiment) (\(file.path))\n"
      if file.results.isEmpty { out += "  (no expectations)\n" }
      let idWidth = max(11, file.results.map(\.expectation.id.count).max() ?? 0)
      // One line per result when it fits the width; else the id alone, the numbers on the line below.
      let rowWidth = 10 + idWidth + 2 + 10 + 2 + 20 + 2 + (file.results.map(\.basisDescription.count).max() ?? 0)
      let stacked = rowWidth > (TerminalLayout.current.width ?? .max)
      if !file.results.isEmpty, !stacked {
        out += "  result  " + pad("expectation", idWidth) + "  " + pad("measured", 10) + "  " + pad("interval", 20) + "  basis\n"
      }
      for r in file.results {
        total += 1
        if r.passed { passed += 1 }
        let verdict = "  " + (r.passed ? Tone.good.mark("PASS") : Tone.bad.mark("FAIL")) + "    "
        out +=
          stacked
          ? verdict + r.expectation.id + "\n          measured " + r.measuredText
            + (r.interval == nil ? "" : ", interval " + interval(r)) + " · basis: " + r.basisDescription + "\n"
          : verdict + pad(r.expectation.id, idWidth) + "  " + pad(r.measuredText, 10) + "  " + pad(interval(r), 20) + "  "
            + r.basisDescription + "\n"
        out += "          " + r.statement + " · " + r.detail + "\n"
        if let why = r.explanation { out += "          ✗ " + why + "\n" }
      }
      if let baseline = file.baseline {
        for line in SnapshotRenderer.table(baseline).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
          out += line.isEmpty ? "\n" : "  \(line)\n"
        }
      }
      out += "\n"
    }
    out += "\(passed) of \(Vocabulary.plural(total, "expectation")) passed"
    out += passed == total ? "." : "; \(total - passed) failed."
    let baselines = files.compactMap(\.baseline)
    if !baselines.isEmpty {
      let moved = baselines.filter { !$0.comparison.passed }.count
      out += moved == 0 ? " The exact funnel is unchanged from its baseline." : " The exact funnel moved from its baseline."
    }
    return out + "\n"
  }

  static func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
  }

  // MARK: - JSON

  /// Pretty-printed JSON (`command` `"check"`): overall `passed` (true when every expectation of every file
  /// passed), the number of `failures`, then per file each expectation's id, kind, variant, metric, measured
  /// value and interval (`null` when exact), basis and words.
  package static func json(_ files: [File]) -> String {
    let all = files.flatMap(\.results)
    let document = JSONReportHead(schemaVersion: schemaVersion, command: "check").document([
      ("passed", .bool(files.allSatisfy(\.passed))),
      ("failures", .integer(all.filter { !$0.passed }.count + files.filter { !($0.baseline?.comparison.passed ?? true) }.count)),
      ("files", .array(files.map(file))),
    ])
    return JSONWriter.write(document)
  }

  static func file(_ f: File) -> JSONValue {
    .object([
      ("path", .string(f.path)),
      ("experiment", .string(f.experiment)),
      ("expectations", .array(f.results.map(result))),
      ("baseline", f.baseline.map(SnapshotRenderer.jsonValue) ?? .null),
    ])
  }

  static func result(_ r: ExpectationResult) -> JSONValue {
    .object([
      ("id", .string(r.expectation.id)),
      ("kind", .string(r.expectation.kind.rawValue)),
      ("variant", .string(r.expectation.variant)),
      ("metric", .string(r.expectation.metric.rawValue)),
      ("passed", .bool(r.passed)),
      ("scale", .string(r.expectation.scale.rawValue)),
      ("alpha", r.alpha.map { .number($0) } ?? .null),
      ("arms", .array(r.arms.map { .string($0) })),
      ("measured", r.measured.map { .number($0) } ?? .null),
      ("interval", r.interval.map { .array([.number($0.lower), .number($0.upper)]) } ?? .null),
      ("basis", .string(r.basisDescription)),
      ("statement", .string(r.statement)),
      ("detail", .string(r.detail)),
      ("explanation", r.explanation.map { .string($0) } ?? .null),
    ])
  }

  // MARK: - JUnit

  /// JUnit XML: `<testsuites>` with one `<testsuite>` per file and one `<testcase>`
  /// per expectation, a failed one holding a `<failure>` with the explanation.
  package static func junit(_ files: [File]) -> String {
    let all = files.flatMap(\.results)
    let baselines = files.compactMap(\.baseline)
    let failed = all.filter { !$0.passed }.count + baselines.filter { !$0.comparison.passed }.count
    var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    out += "<testsuites name=\"funnellab check\" tests=\"\(all.count + baselines.count)\" failures=\"\(failed)\">\n"
    for f in files {
      let failures = f.results.filter { !$0.passed }.count + (f.baseline.map { $0.comparison.passed ? 0 : 1 } ?? 0)
      let tests = f.results.count + (f.baseline == nil ? 0 : 1)
      out +=
        "  <testsuite name=\"\(xml(f.experiment))\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\">\n"
      for r in f.results {
        let attributes = "classname=\"\(xml(f.experiment))\" name=\"\(xml(r.expectation.id))\" time=\"0\""
        guard let why = r.explanation, !r.passed else {
          out += "    <testcase \(attributes)/>\n"
          continue
        }
        out += "    <testcase \(attributes)>\n"
        out += "      <failure message=\"\(xml(why))\" type=\"\(r.expectation.kind.rawValue)\">"
        out += xml(
          "\(r.statement)\nmeasured \(r.measuredText)\(r.interval == nil ? "" : " " + interval(r)) (\(r.basisDescription)): \(r.detail)\n\(why)\nin \(f.path)"
        )
        out += "</failure>\n"
        out += "    </testcase>\n"
      }
      if let baseline = f.baseline {
        let attributes = "classname=\"\(xml(f.experiment))\" name=\"baseline \(xml(baseline.baseline))\" time=\"0\""
        if baseline.comparison.passed {
          out += "    <testcase \(attributes)/>\n"
        } else {
          out += "    <testcase \(attributes)>\n      <failure message=\"\(xml(SnapshotRenderer.outcome(baseline)))\" type=\"baseline\">"
          out += xml(SnapshotRenderer.table(baseline) + "in \(f.path)") + "</failure>\n    </testcase>\n"
        }
      }
      out += "  </testsuite>\n"
    }
    out += "</testsuites>\n"
    return out
  }

  /// Escapes text for XML attributes and content.
  static func xml(_ s: String) -> String {
    // Control characters other than tab and newline are not allowed in XML 1.0.
    var kept = String.UnicodeScalarView()
    kept.append(contentsOf: s.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\t" || $0 == "\n" })
    return HTMLDocument.escape(String(kept)).split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "&#10;")
  }
}
