import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// A small valid spec; tests break it in one place at a time.
let tinySpec = """
  {
    "name": "tiny",
    "seed": 1,
    "users": 1000,
    "flow": {
      "screens": [
        { "id": "intro", "kind": "info", "actions": { "continue": 0.8, "skip": { "to": "goal", "probability": 0.1 }, "quit": 0.1 } },
        { "id": "goal", "kind": "choice", "options": ["a", "b"], "actions": { "select": 0.9, "back": 0.05, "quit": 0.05 } },
        { "id": "paywall", "kind": "paywall",
          "plans": [ { "id": "monthly", "price": 9.99, "period": "month" }, { "id": "yearly", "price": 59.99, "period": "year" } ],
          "defaultPlan": "yearly",
          "actions": { "purchase": 0.1, "dismiss": 0.85, "quit": 0.05 } }
      ]
    },
    "variants": [ { "id": "control" }, { "id": "optional", "patches": [ { "op": "setRequired", "screen": "goal", "required": false } ] } ]
  }
  """

func replacing(_ old: String, _ new: String, in text: String = tinySpec) -> String {
  precondition(text.contains(old), "test setup: '\(old)' not in the spec")
  return text.replacingOccurrences(of: old, with: new)
}

@Suite struct SpecTests {
  @Test func tinySpecIsValid() throws {
    let e = try load(tinySpec)
    #expect(e.flow.screens.map(\.id) == ["intro", "goal", "paywall"])
    #expect(e.flow.screens[0].actions.map(\.id) == ["continue", "skip", "quit"])
    #expect(e.variants.count == 2)
  }

  @Test(arguments: seedExperiments)
  func seedExperimentValidates(name: String) throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
    #expect(e.name == name)
    #expect(!e.variants.isEmpty)
  }

  /// A flow that sells nothing defaults its primary metric to completion (its purchase conversion is 0 in every
  /// arm); a paywall in the flow or inserted by a variant, or a primary the spec names, keeps purchase conversion.
  @Test func aFlowWithoutAPaywallIsDecidedOnCompletion() throws {
    let urbanNest = try String(contentsOfFile: experimentPath("urbannest-onboarding"), encoding: .utf8)
    #expect(try load(urbanNest).metrics.primary == .completionRate)
    #expect(try ExperimentLoader.load(contentsOf: experimentPath("ncdb-first-launch")).metrics.primary == .completionRate)
    #expect(try ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding")).metrics.primary == .purchaseConversion)
    #expect(try load(tinySpec).metrics.primary == .purchaseConversion)
    let named = replacing(
      "\"name\": \"urbannest-onboarding\",", "\"name\": \"urbannest-onboarding\", \"metrics\": {\"primary\": \"purchaseConversion\"},",
      in: urbanNest)
    #expect(try load(named).metrics.primary == .purchaseConversion)
    let inserted = replacing(
      "{ \"id\": \"control\", \"description\": \"As designed: three slides, Skip on slides 1-2.\" },",
      """
      { "id": "control", "description": "As designed: three slides, Skip on slides 1-2." },
      { "id": "withPaywall", "patches": [ { "op": "insertScreen", "after": "slide3", "screen": { "id": "pro", "kind": "paywall",
        "plans": [ { "id": "monthly", "price": 9.99, "period": "month" } ],
        "actions": { "purchase": 0.1, "dismiss": 0.85, "quit": 0.05 } } } ] },
      """, in: urbanNest)
    #expect(try load(inserted).metrics.primary == .purchaseConversion)
  }

  @Test func builtInDefaultIsTheKlickFile() throws {
    let file = try String(contentsOfFile: experimentPath("klick-onboarding"), encoding: .utf8)
    #expect(DefaultExperiment.json + "\n" == file, "run scripts/embed-default-experiment.sh")
    #expect(try ExperimentLoader.defaultExperiment() == ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding")))
  }

  /// The issue's acceptance case: a typo'd key, a dangling reference and a
  /// probability of 1.3 are all reported, each with its path and line.
  @Test func reportsEveryProblemWithPathAndLine() {
    var text = replacing("\"defaultPlan\": \"yearly\"", "\"defualtPlan\": \"yearly\"")
    text = replacing("\"to\": \"goal\"", "\"to\": \"gaol\"", in: text)
    text = replacing("\"select\": 0.9", "\"select\": 1.3", in: text)
    let errors = problems(text)
    let lines = errors.map(\.description)
    #expect(
      lines.contains { $0.hasPrefix("flow.screens[2].defualtPlan (line 11): unknown key 'defualtPlan'; did you mean 'defaultPlan'?") },
      "\(lines)")
    #expect(
      lines.contains { $0.hasPrefix("flow.screens[0].actions.skip.to (line 7): unknown screen 'gaol'; did you mean 'goal'?") }, "\(lines)")
    #expect(
      lines.contains { $0.hasPrefix("flow.screens[1].actions.select.probability (line 8): probability 1.3 is outside [0, 1]") }, "\(lines)")
  }

  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var old: String
    var new: String
    var path: String
    var message: String
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    // An id is printed in every table: a newline would split its row, an escape would reach the terminal.
    Case(
      name: "newline in a screen id", old: "{ \"id\": \"intro\"", new: "{ \"id\": \"in\\ntro\"",
      path: "flow.screens[0].id", message: "the screen id 'in\\ntro' contains a control character"),
    Case(
      name: "escape in a variant id", old: "{ \"id\": \"optional\"", new: "{ \"id\": \"opt\\u001b[31mional\"",
      path: "variants[1].id", message: "the variant id 'opt\\u{1B}[31mional' contains a control character"),
    Case(
      name: "tab in a plan id", old: "\"id\": \"monthly\"", new: "\"id\": \"mon\\tthly\"",
      path: "flow.screens[2].plans[0].id", message: "the plan id 'mon\\tthly' contains a control character"),
    Case(
      name: "duplicate screen id", old: "\"id\": \"goal\", \"kind\"", new: "\"id\": \"intro\", \"kind\"",
      path: "flow.screens[1].id", message: "duplicate screen id 'intro'"),
    Case(
      name: "unreachable screen", old: "\"select\": 0.9, \"back\": 0.05, \"quit\": 0.05",
      new: "\"select\": 0.0, \"back\": 0.05, \"quit\": 0.95",
      path: "flow.screens[2]", message: "screen 'paywall' is unreachable from 'intro'"),
    Case(
      name: "no reachable completion", old: "\"purchase\": 0.1, \"dismiss\": 0.85, \"quit\": 0.05",
      new:
        "\"purchase\": { \"to\": \"abandoned\", \"probability\": 0.1 }, \"dismiss\": { \"to\": \"abandoned\", \"probability\": 0.85 }, \"quit\": 0.05",
      path: "flow.screens", message: "no path from 'intro' reaches completion"),
    Case(
      name: "probabilities do not sum to 1", old: "\"continue\": 0.8", new: "\"continue\": 0.7",
      path: "flow.screens[0].actions", message: "probabilities of screen 'intro' sum to 0.9, not 1"),
    Case(
      name: "negative probability", old: "\"continue\": 0.8", new: "\"continue\": -0.1",
      path: "flow.screens[0].actions.continue.probability", message: "probability -0.1 is outside [0, 1]"),
    Case(
      name: "number out of range (inf)", old: "\"continue\": 0.8", new: "\"continue\": 1e999",
      path: "flow.screens[0].actions.continue", message: "number out of range"),
    Case(
      name: "negative price", old: "\"price\": 9.99", new: "\"price\": -9.99",
      path: "flow.screens[2].plans[0].price", message: "price must be a number > 0 and at most 1000000"),
    Case(
      name: "negative duration", old: "\"kind\": \"info\", \"actions\"",
      new: "\"kind\": \"info\", \"dwell\": { \"medianSeconds\": -3 }, \"actions\"",
      path: "flow.screens[0].dwell.medianSeconds", message: "medianSeconds must be from 0 to 86400"),
    Case(
      name: "empty variant list",
      old:
        "[ { \"id\": \"control\" }, { \"id\": \"optional\", \"patches\": [ { \"op\": \"setRequired\", \"screen\": \"goal\", \"required\": false } ] } ]",
      new: "[]", path: "variants", message: "the variant list is empty"),
    Case(name: "unknown key", old: "\"seed\": 1", new: "\"sede\": 1", path: "sede", message: "unknown key 'sede'"),
    Case(
      name: "wrong type", old: "\"users\": 1000", new: "\"users\": \"many\"", path: "users",
      message: "expected a whole number, found a string"),
    Case(
      name: "unknown action kind", old: "\"quit\": 0.1 } }", new: "\"quti\": 0.1 } }", path: "flow.screens[0].actions.quti",
      message: "unknown action kind 'quti'"),
    Case(
      name: "action not allowed on kind", old: "\"purchase\": 0.1, \"dismiss\": 0.85", new: "\"purchase\": 0.1, \"select\": 0.85",
      path: "flow.screens[2].actions.select", message: "a paywall screen cannot offer 'select'"),
    Case(
      name: "skip without target", old: "\"skip\": { \"to\": \"goal\", \"probability\": 0.1 }", new: "\"skip\": 0.1",
      path: "flow.screens[0].actions.skip", message: "a skip action needs a target"),
    Case(
      name: "unknown default plan", old: "\"defaultPlan\": \"yearly\"", new: "\"defaultPlan\": \"annual\"",
      path: "flow.screens[2].defaultPlan", message: "unknown plan 'annual'"),
    Case(
      name: "unknown start", old: "\"flow\": {", new: "\"flow\": { \"start\": \"nowhere\",", path: "flow.start",
      message: "unknown screen 'nowhere'"),
    Case(
      name: "patch names unknown screen", old: "\"screen\": \"goal\", \"required\": false",
      new: "\"screen\": \"gaol\", \"required\": false",
      path: "variants[1].patches[0].screen", message: "unknown screen 'gaol'"),
    Case(
      name: "unknown patch op", old: "\"op\": \"setRequired\"", new: "\"op\": \"setRequried\"", path: "variants[1].patches[0].op",
      message: "unknown patch operation 'setRequried'"),
    Case(
      name: "duplicate variant id", old: "{ \"id\": \"optional\"", new: "{ \"id\": \"control\"", path: "variants[1].id",
      message: "duplicate variant id 'control'"),
    Case(
      name: "behavior parameter out of range", old: "\"users\": 1000,",
      new: "\"users\": 1000, \"behavior\": { \"optionalSkipShare\": 1.5 },",
      path: "behavior.optionalSkipShare", message: "optionalSkipShare = 1.5 is outside its range"),
    Case(
      name: "unknown behavior parameter", old: "\"users\": 1000,", new: "\"users\": 1000, \"behavior\": { \"fatigue\": 0.1 },",
      path: "behavior.fatigue", message: "unknown behavior parameter 'fatigue'"),
    Case(name: "zero users", old: "\"users\": 1000", new: "\"users\": 0", path: "users", message: "users must be at least 1"),
    Case(
      name: "required choice with continue", old: "\"select\": 0.9, \"back\": 0.05",
      new: "\"select\": 0.85, \"continue\": 0.05, \"back\": 0.05",
      path: "flow.screens[1].required", message: "a required choice cannot be skipped or continued without an answer"),
    Case(
      name: "misplaced field", old: "\"kind\": \"info\", \"actions\"",
      new: "\"kind\": \"info\", \"plans\": [{\"id\": \"x\", \"price\": 1, \"period\": \"week\"}], \"actions\"",
      path: "flow.screens[0].plans", message: "plans is only for paywall screens"),
    Case(name: "JSON syntax", old: "\"seed\": 1,", new: "\"seed\": 1,,", path: "(document)", message: "not valid JSON"),
    Case(
      name: "segment weight negative", old: "\"users\": 1000,",
      new: "\"users\": 1000, \"population\": { \"segments\": [ { \"id\": \"a\", \"weight\": -1 } ] },",
      path: "population.segments[0].weight", message: "weight -1 must be a finite number ≥ 0"),
    Case(
      name: "covariate mean zero", old: "\"users\": 1000,",
      new: "\"users\": 1000, \"population\": { \"segments\": [ { \"id\": \"a\" } ], \"covariate\": { \"mean\": 0 } },",
      path: "population.covariate.mean", message: "the covariate's mean 0 must be above 0 and at most 1000"),
    Case(
      name: "covariate intent effect too large", old: "\"users\": 1000,",
      new: "\"users\": 1000, \"population\": { \"segments\": [ { \"id\": \"a\" } ], \"covariate\": { \"intentEffect\": 4 } },",
      path: "population.covariate.intentEffect", message: "intentEffect 4 must be within ±3"),
    Case(
      name: "covariate without a name", old: "\"users\": 1000,",
      new: "\"users\": 1000, \"population\": { \"segments\": [ { \"id\": \"a\" } ], \"covariate\": { \"name\": \"\" } },",
      path: "population.covariate.name", message: "the covariate's name must have 1 to 64 printable characters"),
    Case(
      name: "covariate mean reaches the cell limit", old: "\"users\": 1000,",
      new:
        "\"users\": 1000, \"population\": { \"segments\": [ { \"id\": \"a\", \"intent\": { \"mean\": 3, \"sd\": 2 } } ], \"covariate\": { \"mean\": 100, \"intentEffect\": 3 } },",
      path: "population.segments[0]", message: "the covariate's mean reaches"),
    Case(
      name: "segment covariate mean without a covariate", old: "\"users\": 1000,",
      new: "\"users\": 1000, \"population\": { \"segments\": [ { \"id\": \"a\", \"covariateMean\": 3 } ] },",
      path: "population.segments[0].covariateMean", message: "covariateMean needs a pre-period covariate"),
    Case(
      name: "segment covariate mean out of range", old: "\"users\": 1000,",
      new:
        "\"users\": 1000, \"population\": { \"segments\": [ { \"id\": \"a\", \"covariateMean\": 5000 } ], \"covariate\": {} },",
      path: "population.segments[0].covariateMean", message: "the covariate's mean 5000 must be above 0"),
    Case(
      name: "observable segment named other", old: "\"users\": 1000,",
      new:
        "\"users\": 1000, \"population\": { \"segments\": [ { \"id\": \"other\", \"observable\": true }, { \"id\": \"b\" } ] },",
      path: "population.segments[0].id", message: "an observable segment cannot be called 'other'"),
    Case(
      name: "variance reduction without method", old: "\"users\": 1000,",
      new:
        "\"users\": 1000, \"expectations\": [ { \"kind\": \"varianceReduction\", \"variant\": \"optional\", \"metric\": \"purchaseConversion\", \"min\": 0.1 } ],",
      path: "expectations[0]", message: "a varianceReduction expectation needs method"),
    Case(
      name: "variance reduction with an unknown method", old: "\"users\": 1000,",
      new:
        "\"users\": 1000, \"expectations\": [ { \"kind\": \"varianceReduction\", \"variant\": \"optional\", \"metric\": \"purchaseConversion\", \"method\": \"cupid\", \"min\": 0.1 } ],",
      path: "expectations[0].method", message: "unknown method 'cupid'"),
    Case(
      name: "variance reduction with users", old: "\"users\": 1000,",
      new:
        "\"users\": 1000, \"expectations\": [ { \"kind\": \"varianceReduction\", \"variant\": \"optional\", \"metric\": \"purchaseConversion\", \"method\": \"cuped\", \"min\": 0.1, \"users\": 100 } ],",
      path: "expectations[0].users", message: "users is not used by a varianceReduction expectation"),
  ]

  @Test(arguments: cases)
  func reportsProblem(_ c: Case) {
    let errors = problems(replacing(c.old, c.new))
    #expect(
      errors.contains { $0.path.description == c.path && $0.message.hasPrefix(c.message) },
      "expected \(c.path): \(c.message); got \(errors.map(\.description))")
    #expect(errors.allSatisfy { $0.line != nil }, "every problem names a line: \(errors.map(\.description))")
  }

  /// A misspelt required key stops decoding; keys the decoder never reached are not
  /// reported as unknown, and the typo is named in the hint.
  @Test func missingRequiredKeyNamesTheTypoWithoutSpuriousUnknownKeys() {
    let errors = problems(replacing("\"price\": 9.99", "\"prise\": 9.99"))
    #expect(
      errors.map(\.description) == [
        "flow.screens[2].plans[0].price (line 10): missing required key 'price'; found 'prise': did you mean 'price'?"
      ])
  }

  @Test func jsonParserNamesLineAndColumn() {
    do {
      _ = try JSONParser.parse("{\n  \"a\": [1, 2,\n  ]\n}")
      Issue.record("expected a failure")
    } catch {
      #expect(error.line == 3)
      #expect(error.message.contains("value was expected"))
    }
  }

  @Test func jsonParserRejectsDuplicateKeysAndDeepNesting() {
    #expect(throws: JSONParser.Failure.self) { try JSONParser.parse("{\"a\": 1, \"a\": 2}") }
    #expect(throws: JSONParser.Failure.self) {
      try JSONParser.parse(String(repeating: "[", count: 600) + String(repeating: "]", count: 600))
    }
  }

  @Test func jsonWriterRoundTrips() throws {
    let text = "{\n  \"a\": [1, 2.5, \"x\\n\\u0001\"],\n  \"b\": {\n    \"c\": null,\n    \"d\": true\n  }\n}\n"
    #expect(JSONWriter.write(try JSONParser.parse(text)) == text)
  }

  /// The writer escapes byte by byte: exactly the quote, the backslash and the control
  /// characters, never a byte of a multi-byte character (é, €, a skin-toned emoji, a
  /// combining accent), and the text reads back as the same string.
  @Test func jsonWriterEscapesOnlyWhatRFC8259Requires() throws {
    let raw = "é€👍🏽e\u{301} \"q\" \\ \n\r\t\u{0}\u{1f}\u{7f}/"
    let written = JSONWriter.write(JSONValue(.string(raw)))
    #expect(written == "\"é€👍🏽e\u{301} \\\"q\\\" \\\\ \\n\\r\\t\\u0000\\u001f\u{7f}/\"\n")
    #expect(try JSONParser.parse(written).kind == .string(raw))
    var quoted = "key="
    JSONWriter.writeString(raw, into: &quoted)
    #expect(quoted == "key=" + written.dropLast())
  }
}

@Suite struct DocumentationTests {
  /// The parameter table of docs/reference/spec-format.md is the user's reference: it must
  /// list every behavior parameter with its unit and its actual default.
  @Test(arguments: BehaviorParameter.allCases)
  func readmeDocumentsParameter(_ parameter: BehaviorParameter) throws {
    let readme = try String(
      contentsOf: repositoryRoot.appendingPathComponent("docs/reference").appendingPathComponent("spec-format.md"), encoding: .utf8)
    let row = "| `\(parameter.rawValue)` | \(parameter.unit) | \(JSONValue.format(parameter.defaultValue)) |"
    #expect(readme.contains(row), "README lacks the row: \(row)")
  }
}
