import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// Issue 58: a baseline says what it covers (its experiment, variants and metrics, a checksum),
/// and `check --baseline` and `diff` refuse one that cannot judge the spec, with 65 naming the
/// problem, instead of saying "unchanged" for a funnel that moved.
@Suite struct BaselineIntegrityTests {
  static let spec = experimentPath("urbannest-onboarding")

  /// The exact JSON of urbannest, parsed.
  static func exactDocument() throws -> JSONValue {
    try JSONParser.parse(funnellab("exact", spec, "--format", "json").out)
  }

  /// `document` with `edit` applied to each variant object, sealed again (or not) and written to a file.
  static func baseline(
    _ name: String, reseal: Bool = true, top: (inout [JSONValue.Member]) -> Void = { _ in },
    variants edit: (inout [JSONValue]) -> Void = { _ in }
  ) throws -> String {
    guard case .object(var members) = try exactDocument().kind else { throw CancellationError() }
    top(&members)
    if let k = members.firstIndex(where: { $0.key == "variants" }), case .array(var items) = members[k].value.kind {
      edit(&items)
      members[k].value = JSONValue(.array(items))
    }
    let document = JSONValue(.object(members))
    return try temporaryFile(name, contents: JSONWriter.write(reseal ? ContentChecksum.sealing(document) : document))
  }

  /// A variant object with its member `key` replaced by `value`.
  static func replacing(_ key: String, with value: JSONValue, in item: JSONValue) -> JSONValue {
    guard case .object(let members) = item.kind else { return item }
    return JSONValue(.object(members.map { $0.key == key ? JSONValue.Member(key: key, value: value) : $0 }))
  }

  /// Each defect, refused by both `check --baseline` and `diff` (as either side), with its message,
  /// and no output written.
  @Test(arguments: [
    ("empty-metrics", "variants[0].metrics: the variant 'control' has no value of completionRate"),
    ("duplicate", "variants[1].id (line"),
    ("other-experiment", "experiment: the baseline is of the experiment 'someone-else', not 'urbannest-onboarding'"),
    ("edited", "checksum (line"),
    ("no-checksum", "the file has no checksum; write the baseline again"),
    ("control-character", "variants[0].id (line"),
  ])
  func aDefectiveBaselineIsRefused(defect: String, message: String) throws {
    let path: String
    switch defect {
    case "empty-metrics":
      path = try Self.baseline(
        "empty.json", variants: { items in items = items.map { Self.replacing("metrics", with: JSONValue(.object([])), in: $0) } })
    case "duplicate": path = try Self.baseline("duplicate.json", variants: { items in items[1] = items[0] })
    case "control-character":
      path = try Self.baseline(
        "control.json", variants: { items in items[0] = Self.replacing("id", with: .string("con\ntrol\u{1B}[2J"), in: items[0]) })
    case "other-experiment":
      path = try Self.baseline(
        "other.json",
        top: { members in
          if let k = members.firstIndex(where: { $0.key == "experiment" }) { members[k].value = JSONValue(.string("someone-else")) }
        })
    case "edited":
      let text = try Self.exactDocument()
      let written = try temporaryFile("edited.json", contents: JSONWriter.write(text))
      let original = try String(contentsOfFile: written, encoding: .utf8)
      let edited = original.replacingOccurrences(of: "\"completionRate\": 0.6", with: "\"completionRate\": 0.7")
      try #require(edited != original)
      try edited.write(toFile: written, atomically: true, encoding: .utf8)
      path = written
    default: path = try Self.baseline("bare.json", reseal: false, top: { $0.removeAll { $0.key == ContentChecksum.key } })
    }
    let output = try temporaryFile("report.txt")
    for arguments in [
      ["check", Self.spec, "--baseline", path, "-o", output], ["diff", path, Self.spec, "-o", output], ["diff", Self.spec, path],
    ] {
      let r = funnellab(arguments)
      #expect(r.code == 65, "\(defect) \(arguments): \(r.err)")
      #expect(r.err.contains(message), "\(defect): \(r.err)")
      #expect(r.err.contains(path), "the file is named: \(r.err)")
      #expect(!r.err.contains("\u{1B}") && r.err.split(separator: "\n").allSatisfy { $0.hasPrefix(path) || $0.hasPrefix("Error:") })
      #expect(!FileManager.default.fileExists(atPath: output))
    }
  }

  /// `--allow-other-experiment` accepts a renamed experiment's baseline (the values still compared);
  /// without a baseline it is refused, as every flag a command would ignore.
  @Test func anotherExperimentIsAcceptedWhenAllowed() throws {
    let path = try Self.baseline(
      "renamed.json",
      top: { members in
        if let k = members.firstIndex(where: { $0.key == "experiment" }) { members[k].value = JSONValue(.string("urbannest-v2")) }
      })
    #expect(funnellab("check", Self.spec, "--baseline", path, "--allow-other-experiment").code == 0)
    #expect(funnellab("diff", path, Self.spec, "--allow-other-experiment").code == 0)
    #expect(funnellab("check", Self.spec, "--allow-other-experiment").code == 64)
  }

  /// What `exact --format json` writes is a sealed baseline, and the committed one is current.
  @Test func theExactJSONIsASealedBaseline() throws {
    let document = try Self.exactDocument()
    #expect(ContentChecksum.error(in: document) == nil)
    let committed = repositoryRoot.appendingPathComponent("experiments/baselines/klick-onboarding.json").path
    #expect(ContentChecksum.error(in: try JSONParser.parse(String(contentsOfFile: committed, encoding: .utf8))) == nil)
  }
}
