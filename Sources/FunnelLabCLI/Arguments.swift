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
  var options: [OptionSpec]
  var examples: [String] = []

  static let helpOption = OptionSpec(name: "help", short: "h", help: "Show this help.")

  var allOptions: [OptionSpec] {
    options + [TerminalOptions.color, TerminalOptions.wide, TerminalOptions.quiet].filter { o in !options.contains { $0.name == o.name } }
      + [Self.helpOption]
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

/// The parsed command line of one command.
struct ParsedArguments: Sendable {
  var values: [String: [String]] = [:]
  var flags: Set<String> = []
  var positionals: [String] = []

  func value(_ name: String) -> String? { values[name]?.last }
  func all(_ name: String) -> [String] { values[name] ?? [] }
  func flag(_ name: String) -> Bool { flags.contains(name) }

  /// An integer option within `range`.
  func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = value(name) else { return nil }
    guard let n = decimalInteger(text) else {
      // 1000.5 suggests 1001, not the range's lower bound.
      let rounded = decimalNumber(text).flatMap { Int(rounding: $0) }.flatMap { range.contains($0) ? $0 : nil }
      throw UsageError(
        message: "--\(name) expects a whole number, got '\(text)'",
        hint: "e.g. --\(name) \(rounded ?? (range.lowerBound == 0 ? 1 : range.lowerBound))")
    }
    guard range.contains(n) else {
      throw UsageError(message: "--\(name) must be from \(range.lowerBound) to \(range.upperBound), got \(n)", hint: nil)
    }
    return n
  }

  /// A `UInt64` option (seeds).
  func unsigned(_ name: String) throws(UsageError) -> UInt64? {
    guard let text = value(name) else { return nil }
    guard let n = UInt64(text) else {
      throw UsageError(message: "--\(name) expects a whole number from 0 to \(UInt64.max), got '\(text)'", hint: nil)
    }
    return n
  }

  /// A number option within `range`.
  func number(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
    guard let text = value(name) else { return nil }
    guard let x = decimalNumber(text) else {
      // `12%` is a percentage; the options take fractions.
      let percent = text.hasSuffix("%") ? decimalNumber(String(text.dropLast())) : nil
      throw UsageError(
        message: "--\(name) expects a number, got '\(text.escapingControlCharacters)'",
        hint: percent.map { "write a fraction: --\(name) \(JSONValue.format($0 / 100)) for \(JSONValue.format($0)) %" })
    }
    guard range.contains(x) else {
      throw UsageError(message: "--\(name) must be from \(range.lowerBound) to \(range.upperBound), got \(text)", hint: nil)
    }
    return x
  }

  /// One of a fixed set of words.
  func choice(_ name: String, _ allowed: [String]) throws(UsageError) -> String? {
    guard let text = value(name) else { return nil }
    guard allowed.contains(text) else {
      throw UsageError(
        message: "--\(name) must be one of \(allowed.joined(separator: ", ")), got '\(text)'",
        hint: closest(text, allowed).map { "did you mean '\($0)'?" })
    }
    return text
  }

}

/// A whole number written in decimal: digits with an optional sign and `_`
/// separators (`1_000_000`), or scientific notation when whole (`1e6`). Hexadecimal
/// (`0x10`, which `Double` would read as 16), `inf` and `nan` are refused.
func decimalInteger(_ text: String) -> Int? {
  let cleaned = text.filter { $0 != "_" }
  guard let first = cleaned.first, first != "_", cleaned.allSatisfy({ "0123456789+-eE.".contains($0) }) else { return nil }
  if let n = Int(cleaned) { return n }
  guard let d = Double(cleaned), d.isFinite, d == d.rounded(), abs(d) <= 9e15 else { return nil }
  return Int(rounding: d)
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
      if !option.repeatable, parsed.values[option.name] != nil {
        throw UsageError(message: "--\(option.name) was given more than once", hint: "give it once")
      }
      parsed.values[option.name, default: []].append(value)
    } else {
      if inlineValue != nil { throw UsageError(message: "--\(option.name) takes no value", hint: "write just --\(option.name)") }
      parsed.flags.insert(option.name)
    }
  }
  try checkPositionalCount(parsed, spec: spec)
  return parsed
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
  if parsed.positionals.count > maxPositionals, !parsed.flag("help") {
    throw UsageError(
      message: "unexpected argument '\(parsed.positionals[maxPositionals])'",
      hint:
        "'funnellab \(spec.name)' takes \(maxPositionals == 0 ? "no" : String(maxPositionals)) argument\(maxPositionals == 1 ? "" : "s")")
  }
  let required = spec.positionals.filter { !$0.optional }.count
  if parsed.positionals.count < required, !parsed.flag("help") {
    throw UsageError(
      message: "missing argument <\(spec.positionals[parsed.positionals.count].name)>", hint: "see 'funnellab \(spec.name) --help'")
  }
}
