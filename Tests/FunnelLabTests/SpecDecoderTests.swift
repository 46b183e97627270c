import Foundation
import Testing

@testable import FunnelLab

/// Decoding that goes on after a wrong type, and the kinds of the problems it reports.
@Suite struct SpecDecoderTests {
  /// `tinySpec` with `extra` inserted at the start of screen `id`'s object.
  func adding(_ extra: String, toScreen id: String, in text: String = tinySpec) -> String {
    replacing("{ \"id\": \"\(id)\",", "{ \(extra) \"id\": \"\(id)\",", in: text)
  }

  @Test func twoTypeErrorsInDifferentScreensAreBothReported() {
    let text = adding("\"features\": \"many\",", toScreen: "paywall", in: adding("\"title\": 5,", toScreen: "intro"))
    let errors = problems(text)
    #expect(
      errors.map(\.description) == [
        "flow.screens[0].title (line 7): expected a string, found a number",
        "flow.screens[2].features (line 9): expected a whole number, found a string",
      ])
    #expect(errors.allSatisfy { $0.kind == .type })
  }

  @Test func typeErrorAndUnrelatedSemanticErrorAreBothReported() {
    let text = replacing("\"price\": 9.99", "\"price\": -9.99", in: adding("\"title\": 5,", toScreen: "intro"))
    let errors = problems(text)
    #expect(
      errors.map(\.description) == [
        "flow.screens[0].title (line 7): expected a string, found a number",
        "flow.screens[2].plans[0].price (line 10): price must be a number > 0 and at most 1000000; e.g. 9.99",
      ])
    #expect(errors.map(\.kind) == [.type, .invalidValue])
  }

  /// Without its wrong `to`, the skip has no target: that problem comes from setting
  /// the value aside, so only the wrong type is reported.
  @Test func settingAValueAsideCausesNoSpuriousSemanticError() {
    let errors = problems(replacing("\"to\": \"goal\"", "\"to\": 7"))
    #expect(errors.map(\.description) == ["flow.screens[0].actions.skip.to (line 7): expected a string, found a number"])
  }

  /// Reachability depends on every action: with a wrong probability set aside, the
  /// screen only that action reaches would look unreachable. Graph problems
  /// (``SpecError/Kind/unreachable``) are not reported after a value was set aside,
  /// and are reported when nothing was.
  @Test func noGraphProblemAfterAValueWasSetAside() {
    let spec = """
      { "name": "graph", "seed": 1, "users": 1000,
        "flow": { "screens": [
          { "id": "intro", "kind": "info", "actions": { "continue": 0.8, "skip": { "to": "bonus", "probability": 0.1 }, "quit": 0.1 } },
          { "id": "goal", "kind": "info", "actions": { "continue": 0.9, "jump": { "to": "completed", "probability": 0.05 }, "quit": 0.05 } },
          { "id": "last", "kind": "info", "actions": { "jump": { "to": "completed", "probability": 0.95 }, "quit": 0.05 } },
          { "id": "bonus", "kind": "info", "actions": { "continue": 1 } }
        ] },
        "variants": [ { "id": "control" } ] }
      """
    #expect(problems(spec).isEmpty)
    let wrongType = problems(replacing("\"probability\": 0.1", "\"probability\": \"0.1\"", in: spec))
    #expect(wrongType.map(\.description) == ["flow.screens[0].actions.skip.probability (line 3): expected a number, found a string"])
    let unreachable = problems(replacing("\"probability\": 0.1", "\"probability\": 0", in: spec))
    #expect(unreachable.map(\.kind).contains(.unreachable))
  }

  /// A required value of the wrong type stops decoding: no "missing key" for it, no semantics.
  @Test func wrongTypeOfRequiredValueStopsAfterReportingIt() {
    let text = replacing("\"select\": 0.9", "\"select\": 1.3", in: replacing("\"price\": 9.99", "\"price\": \"cheap\""))
    let errors = problems(text)
    #expect(errors.map(\.description) == ["flow.screens[2].plans[0].price (line 10): expected a number, found a string"])
  }

  /// An unknown key is reported once, not once per pass.
  @Test func unknownKeysAreReportedOnce() {
    let text = replacing("\"seed\": 1", "\"sede\": 1", in: adding("\"title\": 5,", toScreen: "intro"))
    let errors = problems(text)
    #expect(errors.filter { $0.kind == .unknownKey }.map(\.path.description) == ["sede"])
    #expect(errors.count == 2, "\(errors.map(\.description))")
  }

  /// Thousands of wrong types: at most ``SpecDecoder/maximumPasses`` are reported, quickly.
  @Test func hostileSpecStaysBoundedAndFast() throws {
    let screen = "{ \"id\": \"s\", \"title\": 1, \"kind\": \"info\", \"actions\": { \"continue\": 1 } }"
    let text =
      "{ \"name\": \"x\", \"flow\": { \"screens\": [" + Array(repeating: screen, count: 3_000).joined(separator: ",\n")
      + "] }, \"variants\": [{ \"id\": \"control\" }] }"
    let start = ContinuousClock.now
    let errors = problems(text)
    let elapsed = ContinuousClock.now - start
    #expect(errors.count == SpecDecoder.maximumPasses)
    #expect(errors.allSatisfy { $0.kind == .type && $0.message == "expected a string, found a number" })
    #expect(errors.map(\.line) == (1...SpecDecoder.maximumPasses).map { $0 })
    #expect(elapsed < .seconds(30), "\(elapsed)")
  }

  struct KindCase: CustomTestStringConvertible, Sendable {
    var name: String
    var old: String
    var new: String
    var kind: SpecError.Kind
    var testDescription: String { name }
  }

  static let kindCases: [KindCase] = [
    KindCase(name: "syntax", old: "\"seed\": 1,", new: "\"seed\": 1,,", kind: .syntax),
    KindCase(name: "type", old: "\"users\": 1000", new: "\"users\": \"many\"", kind: .type),
    KindCase(name: "missing key", old: "\"price\": 9.99", new: "\"prise\": 9.99", kind: .missingKey),
    KindCase(name: "unknown key", old: "\"seed\": 1", new: "\"sede\": 1", kind: .unknownKey),
    KindCase(name: "invalid value", old: "\"continue\": 0.8", new: "\"continue\": 0.7", kind: .invalidValue),
    KindCase(name: "unknown screen", old: "\"to\": \"goal\"", new: "\"to\": \"gaol\"", kind: .unknownReference),
    KindCase(name: "unknown plan", old: "\"defaultPlan\": \"yearly\"", new: "\"defaultPlan\": \"annual\"", kind: .unknownReference),
    KindCase(name: "users past the limit", old: "\"users\": 1000", new: "\"users\": 1000000000000", kind: .limit),
    KindCase(name: "users below 1", old: "\"users\": 1000", new: "\"users\": 0", kind: .invalidValue),
  ]

  @Test(arguments: kindCases)
  func problemHasKind(_ c: KindCase) {
    let errors = problems(replacing(c.old, c.new))
    #expect(errors.map(\.kind) == [c.kind], "\(errors.map(\.description))")
  }

  @Test func unreadableFileHasKindUnreadable() {
    do {
      _ = try ExperimentLoader.load(contentsOf: "/nonexistent/spec.json")
      Issue.record("expected a failure")
    } catch {
      #expect(error.errors.map(\.kind) == [.unreadable])
      #expect(error.isUnreadable)
      #expect(error.errors.map(\.message) == ["no such file"])
    }
    #expect(!SpecErrors(source: "x", errors: []).isUnreadable)
    #expect(
      !SpecErrors(source: "x", errors: [SpecError(.unreadable, path: .root, message: "a"), SpecError(path: .root, message: "b")])
        .isUnreadable)
  }

  /// The kind is not printed: the default kind and any other print the same line.
  @Test func kindIsNotPrinted() {
    let plain = SpecError(path: [.key("users")], line: 3, message: "m", hint: "h")
    for kind in SpecError.Kind.allCases {
      #expect(SpecError(kind, path: [.key("users")], line: 3, message: "m", hint: "h").description == plain.description)
    }
  }

  /// Another decoder (Foundation's) still decodes the shorthand forms the helpers
  /// recognise, and its errors carry the path.
  @Test func foreignDecoderDecodesShorthandAndReportsPaths() throws {
    let json = #"{ "id": "a", "kind": "info", "actions": { "continue": 0.9 } }"#
    let screen = try JSONDecoder().decode(Screen.self, from: Data(json.utf8))
    #expect(screen.actions.map(\.kind) == [.continue])
    #expect(screen.actions.map(\.probability) == [0.9])
    let wrong = #"{ "id": "a", "kind": "info", "actions": { "contniue": 1 } }"#
    do {
      _ = try JSONDecoder().decode(Screen.self, from: Data(wrong.utf8))
      Issue.record("expected a failure")
    } catch let error as SpecError {
      #expect(error.path.description == "actions.contniue")
      #expect(error.message == "unknown action kind 'contniue'")
      #expect(error.line == nil)
    }
  }

  @Test func settingAsideRemovesMembersAndNullsElements() throws {
    var document = try JSONParser.parse(#"{ "a": { "b": 1, "c": [1, 2] } }"#)
    let changed = [
      document.setAside([.key("a"), .key("b")]), document.setAside([.key("a"), .key("c"), .index(1)]),
      document.setAside([.key("a"), .key("c"), .index(1)]), document.setAside([.key("x")]), document.setAside(.root),
    ]
    #expect(changed == [true, true, false, false, false])
    #expect(JSONWriter.write(document).filter { !$0.isWhitespace } == #"{"a":{"c":[1,null]}}"#)
  }
}
