import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// Options are typed keys declared once (``Option``): the conflicts and requirements each command
/// declares are what the parser enforces, the shared options have one help text, and every command
/// that runs in parallel takes `--threads` without its result depending on it.
///
/// A misspelt option cannot be shown by a test that runs: ``ParsedArguments`` has no read by a name
/// written as a string (its storage is private; a read is `arguments[Key.users]`), so a typo such as
/// `arguments[Key.usres]` does not compile.
@Suite struct OptionDeclarationTests {
  /// Every command's declared conflicts and requirements, by command.
  static let relations: [(command: String, conflicts: Int, requirements: Int)] = FunnelLabCommandLine.commands.map {
    ($0.spec.name, $0.spec.conflicts.count, $0.spec.requirements.count)
  }

  /// A command line of `spec` giving `options` (a value each where one is taken) and its required
  /// positional arguments (never read: the parser refuses first).
  static func arguments(_ spec: CommandSpec, _ options: [any OptionKey]) -> [String] {
    let positionals = spec.positionals.filter { !$0.optional }.map { "\($0.name).json" }
    return positionals + options.flatMap { o in ["--\(o.spec.name)"] + (o.spec.valueName == nil ? [] : ["1"]) }
  }

  /// Each declared conflict is refused (64) with its message, before anything is read.
  @Test(arguments: FunnelLabCommandLine.commands.map(\.spec.name))
  func declaredConflictsAreRefused(command: String) throws {
    let spec = try #require(FunnelLabCommandLine.commands.first { $0.spec.name == command }).spec
    for conflict in spec.conflicts {
      let line = [command] + Self.arguments(spec, [conflict.first, conflict.second])
      let r = funnellab(line)
      #expect(r.code == 64, "\(line): \(r.err)")
      #expect(r.err.hasPrefix("Error: \(conflict.message)"), "\(line): \(r.err)")
    }
  }

  /// Each declared requirement is refused (64) with its message when the option comes alone (with
  /// what the same option's earlier requirements need, so that this one is the first to fail).
  @Test(arguments: FunnelLabCommandLine.commands.map(\.spec.name))
  func declaredRequirementsAreRefused(command: String) throws {
    let spec = try #require(FunnelLabCommandLine.commands.first { $0.spec.name == command }).spec
    for (k, requirement) in spec.requirements.enumerated() {
      let earlier = spec.requirements[..<k].filter { $0.option.spec.name == requirement.option.spec.name }.map(\.needs)
      let line = [command] + Self.arguments(spec, [requirement.option] + earlier)
      let r = funnellab(line)
      #expect(r.code == 64, "\(line): \(r.err)")
      #expect(r.err.hasPrefix("Error: \(requirement.message)"), "\(line): \(r.err)")
    }
  }

  /// The relations are declared where the commands refuse them, and `--help` is never refused by them.
  @Test func relationsAreDeclaredAndHelpIsNotRefused() {
    let declared = Dictionary(uniqueKeysWithValues: Self.relations.map { ($0.command, $0.conflicts + $0.requirements) })
    for command in ["run", "grid", "exact", "power", "analyze", "infer", "check", "calibrate"] {
      #expect((declared[command] ?? 0) > 0, "\(command) declares no conflict or requirement")
    }
    let r = funnellab("power", "--mde", "0.01", "--relative-mde", "0.1", "--help")
    #expect(r.code == 0 && r.out.contains("USAGE: funnellab power"))
    let refused = funnellab("power", "--baseline", "0.1", "--mde", "0.01", "--relative-mde", "0.1")
    #expect(
      refused.code == 64
        && refused.err
          == "Error: give --mde or --relative-mde, not both\nUsage: funnellab power [<spec>] [options]\n  See 'funnellab power --help'.\n"
    )
  }

  /// The shared options (seed, α, threads, output, terminal) are declared once: every command that
  /// takes one shows the same help text, and each help lists each option once.
  @Test(arguments: FunnelLabCommandLine.commands.map(\.spec.name))
  func sharedOptionsHaveOneHelpText(command: String) throws {
    let spec = try #require(FunnelLabCommandLine.commands.first { $0.spec.name == command }).spec
    let shared: [any OptionKey] =
      [SharedOptions.seed, SharedOptions.alpha, SharedOptions.threads, OutputDestination.option] + TerminalOptions.options
    let names = spec.allOptions.map(\.name)
    #expect(Set(names).count == names.count, "\(command) lists an option twice: \(names)")
    for option in shared {
      guard let declared = spec.allOptions.first(where: { $0.name == option.spec.name }) else { continue }
      #expect(declared.help == option.spec.help, "\(command) --\(option.spec.name): \(declared.help)")
      #expect(declared.short == option.spec.short && declared.valueName == option.spec.valueName)
      let help = spec.help(width: 10_000)
      #expect(help.components(separatedBy: "--\(option.spec.name)").count - 1 >= 1)
      #expect(help.components(separatedBy: option.spec.help).count - 1 == 1, "\(command): \(option.spec.name)'s help twice")
    }
  }

  /// Every command that runs in parallel takes `--threads`.
  @Test func everyParallelCommandTakesThreads() {
    for command in ["run", "grid", "exact", "power", "calibrate", "sensitivity"] {
      let spec = FunnelLabCommandLine.commands.first { $0.spec.name == command }?.spec
      #expect(spec?.allOptions.contains { $0.name == "threads" } == true, "\(command)")
    }
    let zero = funnellab("exact", "--threads", "0")
    #expect(zero.code == 64 && zero.err.contains("--threads must be from 1 to 1024, got 0"))
  }

  /// `exact`, `power <spec>` and `sensitivity` write the same bytes on one thread as on two.
  @Test(arguments: [
    ["exact", experimentPath("klick-onboarding"), "--format", "json"],
    [
      "exact", experimentPath("betfree-onboarding"), "--parameter-uncertainty", "--variant", "defaultMonthly", "--draws", "8",
      "--format", "json",
    ],
    ["power", experimentPath("klick-onboarding"), "--variant", "features5", "--replicates", "200", "--format", "json"],
    ["sensitivity", experimentPath("urbannest-onboarding"), "--vary", "fatiguePerScreen=0:0.1:0.05", "--format", "json"],
  ])
  func resultsDoNotDependOnThreads(arguments: [String]) {
    let one = funnellab(arguments + ["--threads", "1"])
    let two = funnellab(arguments + ["--threads", "2"])
    #expect(one.code == 0, "\(one.err)")
    #expect(two.code == 0 && one.out == two.out && !one.out.isEmpty)
  }

  /// `calibrate --variants` takes `--threads` (the fit is the same); one variant's fit, which runs on one thread, refuses it.
  @Test func calibrateTakesThreadsForTheJointFit() throws {
    let spec = try temporaryFile("spec.json", contents: pastTestSpec())
    let observed = try temporaryFile("observed.csv", contents: pastTestCountsCSV())
    let line = ["calibrate", spec, observed, "--variants", "all", "--fit", "defaultPlanBias", "--no-profile", "--format", "json"]
    let one = funnellab(line + ["--threads", "1"])
    let two = funnellab(line + ["--threads", "2"])
    #expect(one.code == 0, "\(one.err)")
    #expect(two.code == 0 && one.out == two.out)
    let single = funnellab("calibrate", spec, observed, "--variant", "control", "--threads", "2")
    #expect(single.code == 64 && single.err.contains("--threads sets the workers of the joint fit"), "\(single.err)")
  }
}
