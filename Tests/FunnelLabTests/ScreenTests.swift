import Foundation
import Testing

@testable import FunnelLab

/// Screens hold only their kind's fields: a field given on another kind is reported by
/// the decoder, at the field's path and line, and never reaches the ``Screen``.
@Suite struct ScreenTests {
  /// A field of another kind, as a spec would give it on the info screen `intro`.
  struct Misplaced: Sendable, CustomTestStringConvertible {
    var field: String
    var json: String
    var kinds: String
    var testDescription: String { field }
  }

  static let misplaced = [
    Misplaced(field: "options", json: #"["a"]"#, kinds: "choice"),
    Misplaced(field: "multiSelect", json: "true", kinds: "choice"),
    Misplaced(field: "personalizes", json: "true", kinds: "choice and slider"),
    Misplaced(field: "validationFailureProbability", json: "0.1", kinds: "input"),
    Misplaced(field: "range", json: "[1, 20]", kinds: "slider"),
    Misplaced(field: "failureProbability", json: "0.2", kinds: "task"),
    Misplaced(field: "plans", json: #"[{"id": "x", "price": 1, "period": "week"}]"#, kinds: "paywall"),
    Misplaced(field: "defaultPlan", json: #""x""#, kinds: "paywall"),
    Misplaced(field: "features", json: "3", kinds: "paywall"),
    Misplaced(field: "permission", json: #""photos""#, kinds: "permission"),
    Misplaced(field: "required", json: "false", kinds: "choice and input"),
  ]

  /// `tinySpec` with `fields` on the info screen `intro`, one a line from line 8.
  func spec(with fields: [Misplaced]) -> String {
    let lines = fields.map { "\"\($0.field)\": \($0.json),\n" }.joined()
    return replacing(#""id": "intro", "kind": "info", "actions""#, "\"id\": \"intro\", \"kind\": \"info\",\n\(lines)\"actions\"")
  }

  @Test(arguments: misplaced)
  func aFieldOnTheWrongKindIsReportedByTheDecoderWithItsPathAndLine(_ m: Misplaced) throws {
    let decoder = SpecDecoder(source: "test")
    let outcome = decoder.decodeCollecting(Experiment.self, from: try decoder.parse(spec(with: [m])))
    let expected = "flow.screens[0].\(m.field) (line 8): \(m.field) is only for \(m.kinds) screens; remove it or change the kind"
    #expect(outcome.errors.isEmpty)
    #expect(outcome.reported.map(\.description) == [expected])
    #expect(outcome.reported.map(\.kind) == [.invalidValue])
    let screen = try #require(outcome.value?.flow.screens.first)
    #expect(screen.content == .info, "the screen does not hold the field")
    #expect(problems(spec(with: [m])).map(\.description) == [expected], "the loader reports it once")
    #expect(try load(tinySpec).validationErrors().isEmpty)
  }

  /// Several fields on the wrong kind: each on its line, in the order of the fields.
  @Test func everyMisplacedFieldIsReported() {
    let reported = problems(spec(with: Self.misplaced))
    #expect(reported.map(\.path.description) == Self.misplaced.map { "flow.screens[0].\($0.field)" })
    #expect(reported.map(\.line) == Self.misplaced.indices.map { 8 + $0 })
  }

  /// A field's default value on another kind (`"options": []`, `"required": true`) is no problem.
  @Test func aDefaultValueOnAnotherKindIsNoProblem() {
    let defaults = [
      Misplaced(field: "options", json: "[]", kinds: ""), Misplaced(field: "required", json: "true", kinds: ""),
      Misplaced(field: "features", json: "0", kinds: ""), Misplaced(field: "multiSelect", json: "false", kinds: ""),
    ]
    #expect(problems(spec(with: defaults)).isEmpty)
  }

  /// A decoder that cannot collect problems (Foundation's) throws the first one.
  @Test func aForeignDecoderThrowsAMisplacedField() throws {
    let json = #"{ "id": "a", "kind": "info", "options": ["x"], "actions": { "continue": 1 } }"#
    let error = try #require(throws: SpecError.self) { try JSONDecoder().decode(Screen.self, from: Data(json.utf8)) }
    #expect(error.path.description == "options")
    #expect(error.message == "options is only for choice screens")
  }

  /// A choice screen has no paywall fields to read, and each kind's accessor answers for its kind only.
  @Test func aChoiceScreenCannotHoldAPaywallsPlans() throws {
    let e = try load(tinySpec)
    let goal = e.flow.screens[1]
    #expect(goal.kind == .choice)
    #expect(goal.paywall == nil)
    #expect(goal.choice?.options.map(\.id) == ["a", "b"])
    #expect(goal.required == true)
    let paywall = e.flow.screens[2]
    #expect(paywall.choice == nil)
    #expect(paywall.paywall?.plans.map(\.id) == ["monthly", "yearly"])
    #expect(paywall.paywall?.defaultPlan == "yearly")
    #expect(paywall.required == nil, "a paywall asks nothing")
    let built = Screen(id: "c", content: .choice(Screen.Choice(options: [ChoiceOption(id: "a")])), actions: [])
    #expect(built.paywall == nil && built.input == nil && built.slider == nil && built.task == nil && built.permission == nil)
  }

  /// Patches change a kind's fields on screens of that kind only.
  @Test func patchesChangeTheFieldsOfTheirKind() throws {
    let e = try load(tinySpec)
    let patched = try e.applying(
      Variant(
        id: "v",
        patches: [
          .setRequired(screen: "goal", required: false), .setDefaultPlan(screen: nil, plan: "monthly"),
          .setFeatures(screen: nil, count: 4), .setPlan(screen: nil, plan: "yearly", price: 49.99, badge: "Best", trialDays: 7),
        ]),
      at: [.key("variants"), .index(0)])
    #expect(patched.flow.screens[1].choice?.required == false)
    let paywall = try #require(patched.flow.screens[2].paywall)
    #expect(paywall.defaultPlan == "monthly" && paywall.features == 4)
    #expect(paywall.plans[1] == Plan(id: "yearly", price: 49.99, period: .year, trialDays: 7, badge: "Best"))
    #expect(throws: SpecErrors.self) {
      try e.applying(Variant(id: "v", patches: [.setFeatures(screen: "goal", count: 4)]), at: [.key("variants"), .index(0)])
    }
  }
}
