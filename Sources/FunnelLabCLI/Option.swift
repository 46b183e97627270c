import FunnelLab
import FunnelReport
import FunnelStats

/// An option of a command as a declaration: its ``OptionSpec`` (what the help and the parser
/// know), whatever the type of its value. ``CommandSpec/options``, conflicts and requirements
/// hold these.
protocol OptionKey: Sendable {
  /// The option's name, value, help and file role.
  var spec: OptionSpec { get }
}

/// A typed option: its declaration and the one way to read it, with its bounds.
///
/// A command declares each option once, as a `static let` of this type, lists it in its
/// ``CommandSpec`` and reads it with `try arguments[Key.users]`; the value comes back typed
/// (`Int?`, `Double?`, `Bool`, `[String]`, ``OutputFormat``), checked against its range or
/// choices. There is no way to read an option by a name written as a string, so a misspelt
/// option is a compile error, not a silent `nil`.
struct Option<Value: Sendable>: OptionKey {
  let spec: OptionSpec
  /// Reads the value from the parsed command line (`nil`, `false` or `[]` when not given).
  let read: @Sendable (ParsedArguments) throws(UsageError) -> Value

  init(_ spec: OptionSpec, read: @escaping @Sendable (ParsedArguments) throws(UsageError) -> Value) {
    self.spec = spec
    self.read = read
  }
}

extension Option where Value == Bool {
  /// A flag: `true` when given.
  static func flag(_ name: String, short: Character? = nil, help: String) -> Self {
    let spec = OptionSpec(name: name, short: short, help: help)
    return Self(spec) { $0.isSet(spec) }
  }
}

extension Option where Value == String? {
  /// A value taken as written (the last one given).
  static func text(
    _ name: String, short: Character? = nil, valueName: String, help: String, file: FileRole? = nil
  ) -> Self {
    let spec = OptionSpec(name: name, short: short, valueName: valueName, help: help, file: file)
    return Self(spec) { $0.texts(of: spec).last }
  }

  /// One of a fixed set of words.
  static func choice(_ name: String, short: Character? = nil, valueName: String, help: String, _ allowed: [String]) -> Self {
    choice(OptionSpec(name: name, short: short, valueName: valueName, help: help), allowed)
  }

  /// One of `allowed`, declared by `spec`.
  static func choice(_ spec: OptionSpec, _ allowed: [String]) -> Self {
    Self(spec) { (arguments) throws(UsageError) in try OptionValue.choice(arguments.texts(of: spec).last, spec.name, allowed) }
  }
}

extension Option where Value == [String] {
  /// A repeatable option: every value, in order.
  static func repeatable(_ name: String, valueName: String, help: String, file: FileRole? = nil) -> Self {
    let spec = OptionSpec(name: name, valueName: valueName, help: help, repeatable: true, file: file)
    return Self(spec) { $0.texts(of: spec) }
  }
}

extension Option where Value == Int? {
  /// A whole number within `range`.
  static func integer(
    _ name: String, short: Character? = nil, valueName: String, help: String, in range: ClosedRange<Int>
  ) -> Self {
    integer(OptionSpec(name: name, short: short, valueName: valueName, help: help), in: range)
  }

  /// A whole number within `range`, declared by `spec`.
  static func integer(_ spec: OptionSpec, in range: ClosedRange<Int>) -> Self {
    Self(spec) { (arguments) throws(UsageError) in try OptionValue.integer(arguments.texts(of: spec).last, spec.name, in: range) }
  }

  /// The same option (one declaration, one help text) read within another range.
  func within(_ range: ClosedRange<Int>) -> Self { .integer(spec, in: range) }
}

extension Option where Value == Double? {
  /// A number within `range`.
  static func number(_ name: String, valueName: String, help: String, in range: ClosedRange<Double>) -> Self {
    number(OptionSpec(name: name, valueName: valueName, help: help), in: range)
  }

  /// A number within `range`, declared by `spec`.
  static func number(_ spec: OptionSpec, in range: ClosedRange<Double>) -> Self {
    Self(spec) { (arguments) throws(UsageError) in try OptionValue.number(arguments.texts(of: spec).last, spec.name, in: range) }
  }

  /// The same option (one declaration, one help text) read within another range.
  func within(_ range: ClosedRange<Double>) -> Self { .number(spec, in: range) }
}

extension Option where Value == UInt64? {
  /// A whole number from 0 to `UInt64.max` (a seed).
  static func unsigned(_ name: String, valueName: String, help: String) -> Self {
    let spec = OptionSpec(name: name, valueName: valueName, help: help)
    return Self(spec) { (arguments) throws(UsageError) in try OptionValue.unsigned(arguments.texts(of: spec).last, spec.name) }
  }
}

extension Option where Value == OutputFormat {
  /// `--format` of a command that writes reports of `types`: the formats they are written in
  /// (``ReportFormat/formats(of:)-swift.type.method``), the first one by default, with `help` or
  /// the list of them (``ReportFormat/option(_:)``).
  static func format(for types: any Report.Type..., help: String? = nil) -> Self {
    let formats = OutputFormat.formats(of: types)
    var declared = OutputFormat.option(formats)
    if let help { declared.help = help }
    let spec = declared
    let fallback = formats.first ?? .table
    return Self(spec) { (arguments) throws(UsageError) in
      let text = try OptionValue.choice(arguments.texts(of: spec).last, spec.name, formats.map(\.rawValue))
      return text.flatMap(OutputFormat.init(rawValue:)) ?? fallback
    }
  }
}

extension Option where Value == FunnelMetric? {
  /// `--metric`: a metric's name, or the report's words for it (`"purchase conversion"`).
  static func metric(help: String) -> Self {
    let spec = OptionSpec(name: "metric", valueName: "metric", help: help)
    return Self(spec) { (arguments) throws(UsageError) in try OptionValue.metric(arguments.texts(of: spec).last) }
  }
}

/// The readings of an option's text shared by the typed keys, with their messages.
enum OptionValue {
  /// An integer within `range`.
  static func integer(_ text: String?, _ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text else { return nil }
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

  /// A `UInt64` (seeds).
  static func unsigned(_ text: String?, _ name: String) throws(UsageError) -> UInt64? {
    guard let text else { return nil }
    guard let n = UInt64(text) else {
      throw UsageError(message: "--\(name) expects a whole number from 0 to \(UInt64.max), got '\(text)'", hint: nil)
    }
    return n
  }

  /// A number within `range`.
  static func number(_ text: String?, _ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
    guard let text else { return nil }
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
  static func choice(_ text: String?, _ name: String, _ allowed: [String]) throws(UsageError) -> String? {
    guard let text else { return nil }
    guard allowed.contains(text) else {
      throw UsageError(
        message: "--\(name) must be one of \(allowed.joined(separator: ", ")), got '\(text)'",
        hint: closest(text, allowed).map { "did you mean '\($0)'?" })
    }
    return text
  }

  /// A metric, by its name or its words in the reports.
  /// - Throws: ``UsageError`` for an unknown name, with the nearest metric.
  static func metric(_ name: String?) throws(UsageError) -> FunnelMetric? {
    guard let name else { return nil }
    guard let metric = FunnelMetric(rawValue: name) else {
      // The reports' words ("completion", "purchase conversion") are what a reader types.
      let words = name.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "_" }).joined(separator: " ")
      let named = FunnelMetric.allCases.first { $0.label.lowercased() == words }?.rawValue
      let suggestion = named ?? closest(name, FunnelMetric.allCases.map(\.rawValue))
      throw UsageError(
        message: "unknown metric '\(name)'",
        hint: suggestion.map { "did you mean '\($0)'?" }
          ?? "one of " + FunnelMetric.allCases.map(\.rawValue).joined(separator: ", "))
    }
    return metric
  }
}

/// Two options a command refuses together (``CommandSpec/conflicts``), checked by the parser.
struct OptionConflict: Sendable {
  var first: any OptionKey
  var second: any OptionKey
  var message: String
  var hint: String?

  /// `first` and `second` refused together: by default `give --a or --b, not both`.
  init(_ first: any OptionKey, _ second: any OptionKey, message: String? = nil, hint: String? = nil) {
    self.first = first
    self.second = second
    self.message = message ?? "give --\(first.spec.name) or --\(second.spec.name), not both"
    self.hint = hint
  }
}

/// An option that needs another (``CommandSpec/requirements``), checked by the parser.
struct OptionRequirement: Sendable {
  var option: any OptionKey
  var needs: any OptionKey
  var message: String
  var hint: String?

  /// `option` refused without `needs`: by default `--a needs --b; add --b`.
  init(_ option: any OptionKey, needs: any OptionKey, message: String? = nil, hint: String? = nil) {
    self.option = option
    self.needs = needs
    self.message = message ?? "--\(option.spec.name) needs --\(needs.spec.name)"
    self.hint = message == nil ? "add --\(needs.spec.name)" : hint
  }
}
