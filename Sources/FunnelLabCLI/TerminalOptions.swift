import FunnelReport

/// `--color`, `--wide` and `--quiet`, which every command takes, and the ``TerminalLayout`` they give
/// its terminal text: the width of the terminal (or `COLUMNS`), 100 columns when stdout is
/// not a terminal, none with `--wide`; colour on a terminal unless `NO_COLOR` is set.
enum TerminalOptions {
  /// `--color auto|always|never`.
  static let color = Option<String?>.choice(
    "color", valueName: "when",
    help: "Colour wins, losses and warnings: auto (when stdout is a terminal and NO_COLOR is not set), always or never"
      + " (default: auto).", ["auto", "always", "never"])
  /// `--wide`.
  static let wide = Option<Bool>.flag(
    "wide",
    help: "Print tables whole however wide they are (default: fit the terminal's width, or COLUMNS, or 100 columns"
      + " when stdout is not a terminal).")

  /// `--quiet`, `-q`.
  static let quiet = Option<Bool>.flag("quiet", short: "q", help: "No progress on stderr (a long run's announcement included).")

  /// `--color`, `--wide` and `--quiet`, which every command's help lists after its own options.
  static let options: [any OptionKey] = [color, wide, quiet]

  /// Whether the running command was asked for no progress (bound by ``FunnelLabCommandLine/run(_:console:)``).
  @TaskLocal static var isQuiet = false

  /// The width when stdout is not a terminal and `COLUMNS` is not set.
  static let defaultWidth = 100

  /// The layout of the running command's terminal text (bound by ``FunnelLabCommandLine/run(_:console:)``).
  @TaskLocal static var layout = TerminalLayout(width: defaultWidth, color: false)

  /// The layout `arguments` ask for on `console`.
  /// - Throws: ``UsageError`` for a `--color` that is not auto, always or never.
  static func layout(_ arguments: ParsedArguments, console: any Console) throws(UsageError) -> TerminalLayout {
    let toFile = try arguments[OutputDestination.option].map { $0 != "-" } ?? false
    let color: Bool =
      switch try arguments[Self.color] {
      case "always": true
      case "never": false
      default: !toFile && console.outIsTerminal && (console.environment("NO_COLOR") ?? "").isEmpty && console.environment("TERM") != "dumb"
      }
    return TerminalLayout(width: try arguments[Self.wide] ? nil : width(console, toFile: toFile), color: color)
  }

  /// The width of a note on stderr when neither `COLUMNS` nor the terminal tells it.
  static let noteWidth = 80

  /// `text` (a paragraph) folded for stderr with ``TextWrap``, continuation lines indented by two:
  /// to `COLUMNS`, else the terminal's width, else ``noteWidth`` columns; ends in a line feed.
  static func note(_ text: String, console: any Console) -> String {
    let width: Int
    if let text = console.environment("COLUMNS"), let n = Int(text), n > 0 {
      width = min(n, 10_000)
    } else {
      width = console.terminalColumns ?? noteWidth
    }
    return TextWrap.wrap(text, width: max(20, width), indent: 2).joined(separator: "\n") + "\n"
  }

  /// `COLUMNS` when it is a positive whole number, else the terminal's width when stdout is
  /// one (and the text is not written to a file), else ``defaultWidth``.
  static func width(_ console: any Console, toFile: Bool = false) -> Int {
    if let text = console.environment("COLUMNS"), let n = Int(text), n > 0 { return min(n, 10_000) }
    if !toFile, let n = console.terminalColumns { return n }
    return defaultWidth
  }
}

/// A table meant for a terminal, fitted to the command's ``TerminalOptions/layout`` (folded to
/// its width, coloured or not), with every control character from input (an ANSI escape
/// sequence in an id, a carriage return) shown escaped; its own line feeds kept. `table` is
/// rendered inside the layout, so its ``TextTable``s fit too.
func terminal(_ table: @autoclosure () -> String) -> String {
  let layout = TerminalOptions.layout
  return TerminalLayout.$current.withValue(layout) { layout.fit(table().escapingControlCharactersButNewlines) }
}
