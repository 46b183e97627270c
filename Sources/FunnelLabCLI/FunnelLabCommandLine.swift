import Foundation
import FunnelLab
import FunnelReport

/// The `funnellab` command line: parses, calls the library, renders, and returns
/// an exit code. Everything is in this library target so tests drive it in-process.
package enum FunnelLabCommandLine {
  /// The version `funnellab --version` prints (`funnellab 0.1.0`); not derived from a git tag.
  package static let version = "0.1.0"

  static let commands: [CommandEntry] = [
    CommandEntry(RunCommand.self), CommandEntry(ValidateCommand.self), CommandEntry(GridCommand.self),
    CommandEntry(ExactCommand.self), CommandEntry(PowerCommand.self), CommandEntry(AnalyzeCommand.self), CommandEntry(MergeCommand.self),
    CommandEntry(TraceCommand.self), CommandEntry(IngestCommand.self), CommandEntry(InferCommand.self), CommandEntry(CheckCommand.self),
    CommandEntry(CalibrateCommand.self),
    CommandEntry(SensitivityCommand.self), CommandEntry(DiffCommand.self), CommandEntry(SchemaCommand.self),
  ]

  /// The names of every command's options that write a file (``FileRole/writes``).
  static var outputOptionNames: Set<String> {
    Set(commands.flatMap { $0.spec.allOptions.filter { $0.file == .writes }.map(\.name) })
  }

  /// The overview at the default width.
  static var overview: String { overview(width: TerminalOptions.defaultWidth) }

  /// The overview with its tables folded to `width` columns.
  static func overview(width: Int) -> String {
    var out = """
      OVERVIEW: FunnelLab — try an onboarding or paywall experiment before you ship it.

      Synthetic users, drawn from a population of segments, walk a flow of screens by
      seeded probabilistic behavior models; variants change the flow; results are
      deterministic for a given spec and seed.

      USAGE: funnellab <command> [options]

      COMMANDS:

      """
    for c in commands { out += CommandSpec.row(c.spec.name, c.spec.abstract, width: width) }
    out += """

      OPTIONS:
        -h, --help                Show this help.
        --version                 Show the version.
        --color, --wide, --quiet  Every command's terminal options: see 'funnellab <command> --help'.

      Run 'funnellab <command> --help' for a command's options and examples.
      Start with: funnellab run   (the built-in Klick onboarding experiment)

      EXIT CODES:

      """
    for code in ExitCode.allCases { out += CommandSpec.row(String(code.rawValue), code.meaning, width: width) }
    return out
  }

  /// `funnellab help [command]` (or `--help`, `-h`): the overview, or one command's
  /// help. Anything else after it is refused (exit 64), not ignored.
  static func help(_ rest: [String], console: any Console) -> Int32 {
    let width = TerminalOptions.width(console)
    guard let topic = rest.first else {
      console.out(overview(width: width))
      return ExitCode.success.rawValue
    }
    let names = commands.map(\.spec.name)
    if rest.count == 1, let command = commands.first(where: { $0.spec.name == topic }) {
      console.out(command.spec.help(width: width))
      return ExitCode.success.rawValue
    }
    let problem =
      names.contains(topic)
      ? "help takes one command, not '\(rest.dropFirst().joined(separator: " ").escapingControlCharacters)'"
      : "no command '\(topic.escapingControlCharacters)' to show help for"
    let hint = closest(topic, names).map { "did you mean '\($0)'?" } ?? "commands: " + names.joined(separator: ", ")
    console.err("Error: \(problem); \(hint)\nUsage: funnellab help [command]; see 'funnellab --help'.\n")
    return ExitCode.usage.rawValue
  }

  /// Runs the command line `arguments` (without the program name).
  package static func run(_ arguments: [String], console: any Console = StandardConsole()) -> Int32 {
    guard let first = arguments.first else {
      console.out(overview(width: TerminalOptions.width(console)))
      return ExitCode.success.rawValue
    }
    if first == "-h" || first == "--help" || first == "help" {
      return help(Array(arguments.dropFirst()), console: console)
    }
    if first == "--version" {
      console.out("funnellab \(version)\n")
      return ExitCode.success.rawValue
    }
    guard let command = commands.first(where: { $0.spec.name == first }) else {
      let names = commands.map(\.spec.name)
      let hint = closest(first, names).map { "did you mean '\($0)'?" } ?? "commands: " + names.joined(separator: ", ")
      console.err(
        "Error: unknown command '\(first.escapingControlCharacters)'; \(hint)\nUsage: funnellab <command> [options]; see 'funnellab --help'.\n"
      )
      return ExitCode.usage.rawValue
    }
    let spec = command.spec
    do {
      let parsed = try parseArguments(Array(arguments.dropFirst()), spec: spec)
      let layout = try TerminalOptions.layout(parsed, console: console)
      if try parsed[CommandSpec.helpOption] {
        console.out(spec.help(width: layout.width ?? Int.max / 2))
        return ExitCode.success.rawValue
      }
      try refuseCollidingFiles(parsed, spec: spec, console: console)
      return try TerminalOptions.$layout.withValue(layout) {
        try TerminalOptions.$isQuiet.withValue(parsed[TerminalOptions.quiet]) { try command.run(parsed, console).rawValue }
      }
    } catch let error as UsageError {
      var text = "Error: \(error.message.escapingControlCharacters)"
      // The last line points to --help; a hint saying the same is left out.
      if let hint = error.hint, !hint.contains("--help") { text += "; \(hint.escapingControlCharacters)" }
      console.err(text + "\nUsage: \(spec.usage)\n  See 'funnellab \(spec.name) --help'.\n")
      return ExitCode.usage.rawValue
    } catch let error as CommandFailure {
      console.err(error.text)
      return error.code.rawValue
    } catch {
      console.err("Error: internal error: \(String(describing: error).escapingControlCharacters)\n")
      return ExitCode.software.rawValue
    }
  }
}

/// A command's failure: what to print on stderr and the exit code.
struct CommandFailure: Error {
  var code: ExitCode
  var text: String

  /// Input that cannot be used (65), told in one line: `Error: <message>`.
  static func invalidInput(_ message: String) -> CommandFailure {
    CommandFailure(code: .invalidInput, text: "Error: \(message)\n")
  }

  /// The report of an invalid spec: one line per problem, then a summary line. The exit
  /// code comes from the problems' kinds, never their text: 66 when every problem is that
  /// the input cannot be read (``SpecErrors/isUnreadable``), else 65.
  static func invalid(_ errors: SpecErrors) -> CommandFailure {
    let source = errors.source.escapingControlCharacters
    var text = ""
    for e in errors.errors { text += "\(source): \(e)\n" }
    let n = errors.errors.count
    text += "Error: \(Vocabulary.plural(n, "problem")) in \(source); nothing was run.\n"
    return CommandFailure(code: ExitCode(errors), text: text)
  }
}

/// A subcommand as a value (its spec and its entry point).
struct CommandEntry: Sendable {
  var spec: CommandSpec
  var run: @Sendable (ParsedArguments, any Console) throws -> ExitCode

  init<C: Command>(_ command: C.Type) {
    spec = C.spec
    run = { try C.run($0, console: $1) }
  }
}

/// One `funnellab` subcommand.
protocol Command: SendableMetatype {
  static var spec: CommandSpec { get }
  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode
}

/// The shard to run, from `--shard i/n`, or from `--shards n` and a job-array
/// engine's environment; `nil` when neither is given. (Their conflicts are declared:
/// ``SharedOptions/shardConflicts(_:)``.)
func shard(_ arguments: ParsedArguments, console: any Console) throws(UsageError) -> Shard? {
  if let text = try arguments[SharedOptions.shard] {
    guard let shard = Shard(parsing: text) else {
      throw UsageError(message: "--shard expects i/n with 0 ≤ i < n, got '\(text)'", hint: "e.g. --shard 0/4")
    }
    return shard
  }
  guard let count = try arguments[SharedOptions.shards] else { return nil }
  guard let (found, variable) = Shard.fromEnvironment(count: count, { console.environment($0) }) else {
    throw UsageError(
      message: "--shards \(count) needs the shard index from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX",
      hint: "or give --shard i/\(count)")
  }
  guard let found else { throw UsageError(message: "\(variable) is not an index below \(count)", hint: "check the job array's size") }
  return found
}

/// The spec's `metrics.alpha`, overridden by `--alpha` when given.
func applyAlpha(_ arguments: ParsedArguments, to experiment: inout Experiment) throws(UsageError) {
  if let alpha = try arguments[SharedOptions.alpha] { experiment.metrics.alpha = alpha }
}

/// The `--variant` ids, each checked against the spec's variants: a wrong id is a
/// wrong command-line value (exit 64), not a wrong spec.
func knownVariants(_ wanted: [String], of experiment: Experiment) throws(UsageError) -> [String] {
  let ids = experiment.variants.map(\.id)
  for id in wanted where !ids.contains(id) {
    throw UsageError(
      message: "--variant '\(id)': \(experiment.name) has no such variant",
      hint: NameSuggestion.hint(for: id, in: ids) ?? "its variants: " + ids.joined(separator: ", "))
  }
  return wanted
}
