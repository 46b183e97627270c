import Testing

@testable import FunnelLab
@testable import FunnelLabCLI

/// The exit code of an invalid spec comes from its problems' kinds, never their text.
@Suite struct SpecErrorExitCodeTests {
  static let unreadable = SpecError(.unreadable, path: .root, message: "no such file", hint: "check the path")
  static let wrong = SpecError(.type, path: [.key("users")], line: 3, message: "no such file")

  @Test(arguments: [
    ([unreadable], ExitCode.noInput),
    ([unreadable, unreadable], .noInput),
    ([unreadable, wrong], .invalidInput),
    ([wrong], .invalidInput),
  ])
  func exitCodeFollowsTheKinds(_ errors: [SpecError], _ code: ExitCode) {
    #expect(CommandFailure.invalid(SpecErrors(source: "x.json", errors: errors)).code == code)
  }

  /// The report is the same whatever the kinds: the kind is never printed.
  @Test func reportTextIgnoresTheKind() {
    let text = CommandFailure.invalid(SpecErrors(source: "x.json", errors: [Self.unreadable])).text
    #expect(text == "x.json: (document): no such file; check the path\nError: 1 problem in x.json; nothing was run.\n")
  }
}
