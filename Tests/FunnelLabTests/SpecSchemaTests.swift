import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// `experiments/schema.json` is ``SpecSchema`` 's output, and the schema names every case of the
/// model's enumerations.
@Suite struct SpecSchemaTests {
  /// The committed file is what `funnellab schema` writes now: a change to the model that the file
  /// does not reflect fails here, naming the first line that differs.
  @Test func committedSchemaIsCurrent() throws {
    let committed = try String(contentsOf: repositoryRoot.appendingPathComponent("experiments/schema.json"), encoding: .utf8)
    let generated = SpecSchema.text
    guard committed != generated else { return }
    let old = committed.split(separator: "\n", omittingEmptySubsequences: false)
    let new = generated.split(separator: "\n", omittingEmptySubsequences: false)
    let line = (0..<min(old.count, new.count)).first { old[$0] != new[$0] } ?? min(old.count, new.count)
    Issue.record(
      """
      experiments/schema.json is stale: line \(line + 1) is
        \(line < old.count ? String(old[line]) : "(end of file)")
      but the model gives
        \(line < new.count ? String(new[line]) : "(end of file)")
      Regenerate it: swift run funnellab schema -o experiments/schema.json
      """)
  }

  /// The strings of the array `value` (parsed values carry lines, so they are compared as strings).
  static func strings(_ value: JSONValue?) -> [String] {
    guard case .array(let items)? = value?.kind else { return [] }
    return items.compactMap { if case .string(let s) = $0.kind { s } else { nil } }
  }

  /// Each of the model's enumerations reaches the schema whole, in declaration order.
  @Test func schemaListsEveryCase() throws {
    let defs = try #require(try JSONParser.parse(SpecSchema.text)["$defs"])
    #expect(Self.strings(defs["actionKind"]?["enum"]) == ActionKind.allCases.map(\.rawValue))
    #expect(Self.strings(defs["screenKind"]?["enum"]) == ScreenKind.allCases.map(\.rawValue))
    #expect(Self.strings(defs["behaviorOverrides"]?["propertyNames"]?["enum"]) == BehaviorParameter.allCases.map(\.rawValue))
    #expect(Self.strings(defs["patch"]?["properties"]?["op"]?["enum"]) == Patch.Operation.allCases.map(\.rawValue))
    #expect(Self.strings(defs["expectation"]?["properties"]?["metric"]?["enum"]) == FunnelMetric.allCases.map(\.rawValue))
    #expect(Self.strings(defs["plan"]?["properties"]?["period"]?["enum"]) == BillingPeriod.allCases.map(\.rawValue))
  }

  /// A whole-number behavior parameter is whole in the schema too, and cannot be drawn.
  @Test(arguments: BehaviorParameter.allCases)
  func behaviorParameterBounds(_ parameter: BehaviorParameter) throws {
    let value = SpecSchema.behaviorValue(parameter)
    #expect(value["minimum"]?.json == .number(parameter.range.lowerBound))
    #expect(value["maximum"]?.json == .number(parameter.range.upperBound))
    #expect(value["default"]?.json == .number(parameter.defaultValue))
    #expect((value["multipleOf"] != nil) == parameter.isWholeNumber)
  }
}
