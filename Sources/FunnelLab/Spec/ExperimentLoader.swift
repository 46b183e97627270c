import Foundation

/// Reads experiment specs from files or text, reporting every problem at once.
public enum ExperimentLoader {
  /// Reads, decodes and validates the spec at `path`.
  /// - Throws: ``SpecErrors`` with every problem found (unreadable file, JSON syntax,
  ///   wrong types, unknown keys, and all semantic problems when decoding succeeded).
  public static func load(contentsOf path: String) throws(SpecErrors) -> Experiment {
    try load(text: readText(path, missingHint: "check the path; the seed experiments are in experiments/"), source: path)
  }

  /// The UTF-8 text of the file at `path` (any readable path: a file, a pipe,
  /// `/dev/stdin`, a process substitution).
  /// - Throws: ``SpecErrors`` at the root: "no such file" (with `missingHint`), "a
  ///   folder, not a file", "cannot read the file", "not UTF-8 text" or too large.
  public static func readText(_ path: String, missingHint: String) throws(SpecErrors) -> String {
    do {
      return try TextInput.read(path)
    } catch {
      let (message, hint) = error.messageAndHint
      throw SpecErrors(
        source: path, errors: [SpecError(error.specErrorKind, path: .root, message: message, hint: error == .missing ? missingHint : hint)])
    }
  }

  /// Decodes and validates a spec from JSON text.
  ///
  /// Decoding goes on after a wrong type (see ``SpecDecoder/decodeCollecting(_:from:)``);
  /// when the spec then decodes with defaults in place of the wrong values, its semantic
  /// problems are reported too, except those at, above or below a value set aside and
  /// those of the whole flow graph (``SpecError/Kind/unreachable``): they may come from the default.
  public static func load(text: String, source: String) throws(SpecErrors) -> Experiment {
    let decoder = SpecDecoder(source: source)
    let document = try decoder.parse(text)
    let outcome = decoder.decodeCollecting(Experiment.self, from: document)
    let semantic = outcome.value.map { $0.validationErrors(placing: outcome.reported) + $0.expectationErrors() } ?? []
    let problems =
      outcome.errors + semantic.filter { !outcome.isAffected($0.path) && (outcome.setAside.isEmpty || $0.kind != .unreachable) }
    let decoded = outcome.value
    let errors = problems.map { error in
      var located = error
      if located.line == nil { located.line = document.line(at: error.path) }
      return located
    }
    guard errors.isEmpty, let decoded else {
      let ordered = errors.enumerated().sorted { a, b in
        (a.element.line ?? Int.max, a.offset) < (b.element.line ?? Int.max, b.offset)
      }.map(\.element)
      throw SpecErrors(source: source, errors: ordered)
    }
    return decoded
  }

  /// The 1-based line of each entry of the spec's `expectations` in `text`, for annotations
  /// on the spec's lines; empty when the text does not parse or has no expectations.
  package static func expectationLines(in text: String) -> [Int?] {
    guard let document = try? SpecDecoder(source: "").parse(text),
      case .array(let items)? = document.value(at: [.key("expectations")])?.kind
    else { return [] }
    return items.indices.map { document.line(at: [.key("expectations"), .index($0)]) }
  }

  /// The text of the built-in default experiment.
  public static var defaultExperimentText: String { DefaultExperiment.json }

  /// The built-in default experiment (`experiments/klick-onboarding.json`).
  public static func defaultExperiment() throws(SpecErrors) -> Experiment {
    try load(text: DefaultExperiment.json, source: "built-in klick-onboarding")
  }
}
