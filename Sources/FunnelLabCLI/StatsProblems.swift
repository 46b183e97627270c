internal import FunnelStats

/// FunnelStats errors told in the command line's words. Each error's typed path
/// (``StatsError/Field``) is mapped to where its value came from, a data file's line or a flag,
/// and that origin decides the exit code: a value read from a file is invalid input (65), a value
/// typed on the command line a usage error (64). Every command that calls FunnelStats on data
/// maps through here, so one condition gets one code and one wording in every command.
struct StatsProblems {
  /// Where a value came from.
  enum Origin: Equatable {
    /// A data file, at a line when known.
    case file(String, line: Int?)
    /// A flag's value, spelt as the user typed it (`--arm 'b=10:3'`).
    case flag(String)

    var code: ExitCode {
      switch self {
      case .file: .invalidInput
      case .flag: .usage
      }
    }

    var name: String {
      switch self {
      case .file(let file, let line): line.map { "\(file):\($0)" } ?? file
      case .flag(let flag): flag
      }
    }
  }

  /// Where each arm (`arms[i]`) came from.
  var arms: [Origin] = []
  /// Where each look's arms (`looks[k].arms[i]`) came from.
  var looks: [[Origin]] = []
  /// The data file of the command, which the arms as a whole and any other problem of the data
  /// are the problem of.
  var dataFile: String?
  /// The flag that set each argument or setting (`.control` → `--control`).
  var flags: [StatsError.Field.Name: String] = [
    .control: "--control", .alpha: "--alpha", .plannedUsers: "--planned-users", .plannedAllocation: "--allocation",
  ]

  /// Where `field`'s value came from, and what inside it (`conversions` of an arm's row).
  func origin(of field: StatsError.Field) -> (origin: Origin, detail: String) {
    if field.argument == .arms, let i = field.index(after: .arms), arms.indices.contains(i) {
      return (arms[i], field.members(after: .arms).description)
    }
    if field.argument == .looks, let k = field.index(after: .looks), let i = field.index(after: .arms), looks.indices.contains(k),
      looks[k].indices.contains(i)
    {
      return (looks[k][i], field.members(after: .arms).description)
    }
    var steps = field.steps[...]
    if steps.first == .name(.settings) { steps = steps.dropFirst() }
    if case .name(let name) = steps.first, let flag = flags[name] {
      return (.flag(flag + StatsError.Field(Array(steps.dropFirst())).description), "")
    }
    if field.argument == .arms, arms.contains(where: { if case .file = $0 { true } else { false } }), let dataFile {
      return (.file(dataFile, line: nil), "")
    }
    if let dataFile { return (.file(dataFile, line: nil), field.description) }
    return (.flag(field.description), "")
  }

  /// One `Error:` line per problem; the exit code is the data's (65) when any problem is in a
  /// file, else the command line's (64).
  func failure(_ problems: [StatsError]) -> CommandFailure {
    var text = ""
    var code = ExitCode.usage
    for problem in problems {
      let (origin, detail) = origin(of: problem.field)
      if origin.code == .invalidInput { code = .invalidInput }
      text += "Error: \(origin.name)" + (detail.isEmpty ? "" : " (\(detail))") + ": \(problem.message)"
      text += (problem.hint.map { "; \($0)" } ?? "") + "\n"
    }
    return CommandFailure(code: code, text: text.escapingControlCharactersButNewlines)
  }
}
