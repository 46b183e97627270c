import FunnelLab

/// The exit codes of `funnellab`, after BSD sysexits where one fits.
package enum ExitCode: Int32, Sendable, CaseIterable {
  /// Success.
  case success = 0
  /// The command ran, and an assumption check it evaluated failed (`check`, which also fails
  /// when it has nothing to check or the funnel moved from its baseline), `diff` found a
  /// moved value, or `analyze --fail-on-srm` found a sample ratio mismatch.
  case checkFailed = 1
  /// Wrong command line: unknown command or option, missing or malformed value.
  case usage = 64
  /// The spec or data file is invalid (JSON syntax, types, unknown keys, semantics).
  case invalidInput = 65
  /// An input file does not exist or cannot be read.
  case noInput = 66
  /// An internal error: a bug in FunnelLab; please report it.
  case software = 70
  /// The output file cannot be written.
  case cannotCreateOutput = 73

  /// One line for the `EXIT CODES` section of `funnellab --help`, lower case, no final period.
  package var meaning: String {
    switch self {
    case .success: "success"
    case .checkFailed:
      "an expectation checked by the command failed (or check found none to check, or the funnel moved from its baseline), diff found a moved value, or analyze --fail-on-srm found a sample ratio mismatch"
    case .usage: "usage error: unknown command or option, missing or malformed value"
    case .invalidInput: "invalid spec or data file (every problem is listed on stderr)"
    case .noInput: "an input file does not exist or cannot be read"
    case .software: "internal error (a bug: please report it)"
    case .cannotCreateOutput: "the output file cannot be written"
    }
  }
}

extension ExitCode {
  /// The exit code of a spec or data file's problems, chosen by their kind: 66 when
  /// every one is ``SpecError/Kind/unreadable``, else 65.
  init(_ errors: SpecErrors) {
    self = errors.isUnreadable ? .noInput : .invalidInput
  }
}
