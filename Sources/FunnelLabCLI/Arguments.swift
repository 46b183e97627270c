import FunnelLab
import FunnelReport
import FunnelStats

/// Whether an option's value names a file that the command reads or one that it writes.
///
/// Declared once, on the option (``OptionSpec/file``): ``refuseCollidingFiles(_:spec:console:)``
/// reads it to refuse an output that is an input or another output, so a new file option
/// cannot escape that check.
enum FileRole: Sendable, Hashable {
  /// An input: read, never written.
  case reads
  /// An output: written whole, only when the command succeeds.
  case writes
}

/// A command-line option of a command.
struct OptionSpec: Sendable {
  var name: String
  var short: Character? = nil
  /// The value's placeholder; `nil` for a flag that takes no value.
  var valueName: String? = nil
  var help: String
  var repeatable = false
  /// What the value names when it is a file: read or written; `nil` when it is not a file.
  var file: FileRole? = nil
}

/// A positional argument of a command: always a file the command reads (`-`: standard input).
struct PositionalSpec: Sendable {
  var name: String
  var help: String
  var optional = true
  var variadic = false
  /// Whether the command reads standard input when the argument is not given.
  var standardInputWhenAbsent = false
}

/// What a command accepts, and its help text.
struct CommandSpec: Sendable {
  var name: String
  var abstract: String
  var discussion: String
  var positionals: [PositionalSpec] = []
  /// The command's options, each declared once as a typed key (``Option``).
  var options: [any OptionKey]
  /// Options refused together, checked by ``parseArguments(_:spec:)`` (not with `--help`).
  var conflicts: [OptionConflict] = []
  /// Options refused without another, checked by ``parseArguments(_:spec:)`` after the conflicts.
  var requirements: [OptionRequirement] = []
  var examples: [String] = []

  /// `--help`, `-h`: every command's.
  static let helpOption = Option<Bool>.flag("help", short: "h", help: "Show this help.")

  /// The options' declarations as the help lists them: the command's, then the terminal options, then `--help`.
  var allOptions: [OptionSpec] {
    let own = options.map(\.spec)
    let terminal = TerminalOptions.options.map(\.spec).filter { o in !own.contains { $0.name == o.name } }
    return own + terminal + [Self.helpOption.spec]
  }

  var usage: String {
    var parts = ["funnellab", name]
    for p in positionals {
      let core = "<\(p.name)>" + (p.variadic ? " ..." : "")
      parts.append(p.optional ? "[\(core)]" : core)
    }
    parts.append("[options]")
    return parts.joined(separator: " ")
  }

  /// The help at the default width (``TerminalOptions/defaultWidth``).
  var help: String { help(width: TerminalOptions.defaultWidth) }

  /// The help folded to `width` columns: the discussion's long lines at spaces, option
  /// descriptions in their column, an example's long command line with a trailing `\\` (it
  /// still pastes into a shell).
  func help(width: Int) -> String {
    var out = TerminalLayout(width: width, color: false).fit("OVERVIEW: \(abstract)") + "\n\n"
    if !discussion.isEmpty { out += TerminalLayout(width: width, color: false).fit(discussion) + "\n\n" }
    out += TerminalLayout(width: width, color: false).fit("USAGE: \(usage)") + "\n"
    if !positionals.isEmpty {
      out += "\nARGUMENTS:\n"
      for p in positionals { out += Self.row("<\(p.name)>", p.help, width: width) }
    }
    out += "\nOPTIONS:\n"
    for o in allOptions {
      var left = o.short.map { "-\($0), " } ?? ""
      left += "--\(o.name)"
      if let v = o.valueName { left += " <\(v)>" }
      out += Self.row(left, o.help + (o.repeatable ? " (repeatable)" : ""), width: width)
    }
    if !examples.isEmpty {
      out += "\nEXAMPLES:\n"
      for e in examples {
        var command = e
        // A comment that does not fit beside its command goes on a line of its own above it.
        if e.count + 2 > width, let hash = e.range(of: "  # ") {
          out += "  " + e[hash.lowerBound...].trimmingCharacters(in: .whitespaces) + "\n"
          command = String(e[..<hash.lowerBound])
        }
        let lines = TextWrap.wrap(command, width: max(20, width - 4), indent: 4)
        out += lines.enumerated().map { "  " + $1 + ($0 < lines.count - 1 ? " \\" : "") + "\n" }.joined()
      }
    }
    return out
  }

  /// The width of a help row's left column (the option or argument).
  static let leftColumn = 26

  /// One help row: `left` in its column, `right` beside it folded to `width` (below it when
  /// `left` is wider than its column).
  static func row(_ left: String, _ right: String, width: Int = TerminalOptions.defaultWidth) -> String {
    let pad = String(repeating: " ", count: leftColumn + 2)
    let lines = TextWrap.wrap(right, width: max(20, width - pad.count), indent: 0)
    let body = lines.dropFirst().map { pad + $0 + "\n" }.joined()
    if left.count + 2 >= leftColumn { return "  \(left)\n" + pad + (lines.first ?? "") + "\n" + body }
    return "  " + left + String(repeating: " ", count: leftColumn - left.count) + (lines.first ?? "") + "\n" + body
  }
}

/// A wrong command line: what is wrong and what to do.
struct UsageError: Error, Sendable {
  var message: String
  var hint: String?
}

/// The parsed command line of one command. Options are read only through their typed keys
/// (`try arguments[Key.users]`, ``Option``): the values are stored by declaration and there is
/// no read by a name written as a string.
struct ParsedArguments: Sendable {
  private var values: [String: [String]] = [:]
  private var flags: Set<String> = []
  var positionals: [String] = []

  /// The value of `key`, read and checked as it declares (`nil`, `false` or `[]` when not given).
  subscript<Value>(_ key: Option<Value>) -> Value {
    get throws(UsageError) { try key.read(self) }
  }

  /// Whether the option `key` declares was given (a flag, or any value).
  func isGiven(_ key: any OptionKey) -> Bool { isSet(key.spec) || values[key.spec.name] != nil }

  /// The first of `keys` that was given.
  func firstGiven(_ keys: [any OptionKey]) -> (any OptionKey)? { keys.first(where: isGiven) }

  /// The values given to the option `spec` declares, in order (what a typed key reads).
  func texts(of spec: OptionSpec) -> [String] { values[spec.name] ?? [] }

  /// Whether the flag `spec` declares was given.
  func isSet(_ spec: OptionSpec) -> Bool { flags.contains(spec.name) }

  /// Records a value of `spec`.
  fileprivate mutating func add(_ value: String, for spec: OptionSpec) { values[spec.name, default: []].append(value) }

  /// Records the flag `spec`.
  fileprivate mutating func set(_ spec: OptionSpec) { flags.insert(spec.name) }
}

func closest(_ word: String, _ candidates: [String]) -> String? {
  NameSuggestion.closest(to: word, in: candidates)
}

/// Parses `arguments` (after the command name) against `spec`.
func parseArguments(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
  var parsed = ParsedArguments()
  var i = 0
  var onlyPositionals = false
  let options = spec.allOptions
  while i < arguments.count {
    let arg = arguments[i]
    i += 1
    if onlyPositionals || !arg.hasPrefix("-") || arg == "-" {
      parsed.positionals.append(arg)
      continue
    }
    if arg == "--" {
      onlyPositionals = true
      continue
    }
    let (option, inlineValue) = try namedOption(arg, options: options, spec: spec)
    if let valueName = option.valueName {
      let value = try optionValue(option, valueName: valueName, inlineValue: inlineValue, arguments: arguments, next: &i)
      if !option.repeatable, !parsed.texts(of: option).isEmpty {
        throw UsageError(message: "--\(option.name) was given more than once", hint: "give it once")
      }
      parsed.add(value, for: option)
    } else {
      if inlineValue != nil { throw UsageError(message: "--\(option.name) takes no value", hint: "write just --\(option.name)") }
      parsed.set(option)
    }
  }
  try checkPositionalCount(parsed, spec: spec)
  try checkDeclaredRelations(parsed, spec: spec)
  return parsed
}

/// Refuses the conflicts and missing requirements `spec` declares, in their order (unless `--help`):
/// the one place they are enforced.
private func checkDeclaredRelations(_ parsed: ParsedArguments, spec: CommandSpec) throws(UsageError) {
  guard !parsed.isSet(CommandSpec.helpOption.spec) else { return }
  for c in spec.conflicts where parsed.isGiven(c.first) && parsed.isGiven(c.second) {
    throw UsageError(message: c.message, hint: c.hint)
  }
  for r in spec.requirements where parsed.isGiven(r.option) && !parsed.isGiven(r.needs) {
    throw UsageError(message: r.message, hint: r.hint)
  }
}

/// The option that `arg` names (`--name`, `--name=value` or `-c`), with its inline value.
private func namedOption(_ arg: String, options: [OptionSpec], spec: CommandSpec) throws(UsageError)
  -> (option: OptionSpec, inlineValue: String?)
{
  if arg.hasPrefix("--") {
    let body = arg.dropFirst(2)
    let name: String
    var inlineValue: String?
    if let eq = body.firstIndex(of: "=") {
      name = String(body[..<eq])
      inlineValue = String(body[body.index(after: eq)...])
    } else {
      name = String(body)
    }
    guard let option = options.first(where: { $0.name == name }) else {
      throw UsageError(
        message: "unknown option '--\(name)'",
        hint: closest(name, options.map(\.name)).map { "did you mean '--\($0)'?" } ?? "see 'funnellab \(spec.name) --help'")
    }
    return (option, inlineValue)
  }
  let body = arg.dropFirst()
  guard body.count == 1, let c = body.first else {
    throw UsageError(message: "unknown option '\(arg)'", hint: "long options take two dashes, e.g. '-\(arg)'")
  }
  guard let option = options.first(where: { $0.short == c }) else {
    throw UsageError(message: "unknown option '\(arg)'", hint: "see 'funnellab \(spec.name) --help'")
  }
  return (option, nil)
}

/// The value of `option`: its inline `=value`, else the next argument (advancing `next`).
private func optionValue(
  _ option: OptionSpec, valueName: String, inlineValue: String?, arguments: [String], next i: inout Int
) throws(UsageError) -> String {
  let value: String
  if let inlineValue {
    value = inlineValue
  } else {
    guard i < arguments.count, !(arguments[i].hasPrefix("--") && arguments[i].count > 2) else {
      throw UsageError(message: "--\(option.name) needs a value <\(valueName)>", hint: "e.g. --\(option.name) <\(valueName)>")
    }
    value = arguments[i]
    i += 1
  }
  if option.file != nil {
    if value.isEmpty {
      throw UsageError(message: "--\(option.name) needs a file name, got ''", hint: "e.g. --\(option.name) <\(valueName)>")
    }
    // `-o -q` or `--junit -inf` is a forgotten value, not a file to create (a JUnit file
    // named `-inf` once reached the repository this way); `-` alone is the standard stream.
    if value.hasPrefix("-"), value != "-" {
      throw UsageError(
        message: "--\(option.name) needs a file name, got '\(value.escapingControlCharacters)', which looks like an option",
        hint: "for a file of that name, write ./\(value.escapingControlCharacters)")
    }
  }
  return value
}

/// Refuses more positional arguments than `spec` takes, or fewer than it requires (unless `--help`).
private func checkPositionalCount(_ parsed: ParsedArguments, spec: CommandSpec) throws(UsageError) {
  let maxPositionals = spec.positionals.contains(where: \.variadic) ? Int.max : spec.positionals.count
  let help = parsed.isSet(CommandSpec.helpOption.spec)
  if parsed.positionals.count > maxPositionals, !help {
    throw UsageError(
      message: "unexpected argument '\(parsed.positionals[maxPositionals])'",
      hint:
        "'funnellab \(spec.name)' takes \(maxPositionals == 0 ? "no" : String(maxPositionals)) argument\(maxPositionals == 1 ? "" : "s")")
  }
  let required = spec.positionals.filter { !$0.optional }.count
  if parsed.positionals.count < required, !help {
    throw UsageError(
      message: "missing argument <\(spec.positionals[parsed.positionals.count].name)>", hint: "see 'funnellab \(spec.name) --help'")
  }
}
