import Foundation

/// Renames FunnelLab's trace events to a team's own analytics taxonomy.
///
/// A mapping file is one JSON object from FunnelLab names to yours; names not in it
/// are kept:
/// ```json
/// { "onboarding_started": "Onboarding Started", "purchase_succeeded": "Subscription Purchased" }
/// ```
package struct EventNameMap: Sendable, Hashable {
  /// FunnelLab event name → the name to emit; names not listed are kept.
  package var renames: [String: String]

  /// A map with these renames, unchecked (``init(parsing:source:)`` checks a file's); the default keeps every name.
  package init(_ renames: [String: String] = [:]) { self.renames = renames }

  /// The name to emit for FunnelLab's `name`.
  package func name(of name: String) -> String { renames[name] ?? name }

  /// The inverse of ``name(of:)``: each name a trace written with this map emits, and the
  /// FunnelLab event it stands for. A checked map gives no two events one name; for an
  /// unchecked one that does, the first event in ``TraceEvent/names`` keeps the name.
  package var funnelLabNames: [String: String] {
    Dictionary(TraceEvent.names.map { (name(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// Parses a mapping file's text; every problem is reported, with its path and line.
  /// - Throws: ``SpecErrors`` for bad JSON, an empty object, a key that is not a FunnelLab event name,
  ///   a value that is not a non-empty string, or two events renamed to one name (or
  ///   one renamed to the name another keeps).
  package init(parsing text: String, source: String) throws(SpecErrors) {
    let root: JSONValue
    do {
      root = try JSONParser.parse(text)
    } catch {
      throw SpecErrors(source: source, errors: [SpecError(.syntax, path: .root, line: error.line, message: error.message)])
    }
    guard case .object(let members) = root.kind else {
      throw SpecErrors(
        source: source,
        errors: [
          SpecError(
            .type, path: .root, line: root.line, message: "expected an object of event names",
            hint: "write {\"onboarding_started\": \"your_name\", …}")
        ])
    }
    guard !members.isEmpty else {
      // An empty map renames nothing: a log it was meant for would fail line by line instead.
      let hint = "write {\"onboarding_started\": \"your_name\", …} for each event you renamed, or give no map to keep FunnelLab's names"
      let empty = SpecError(.invalidValue, path: .root, line: root.line, message: "maps no event", hint: hint)
      throw SpecErrors(source: source, errors: [empty])
    }
    var errors: [SpecError] = []
    var renames: [String: String] = [:]
    for member in members {
      let path = SpecPath.root.key(member.key)
      if !TraceEvent.names.contains(member.key) {
        errors.append(
          SpecError(
            .unknownKey, path: path, line: member.line, message: "unknown event '\(member.key)'",
            hint: NameSuggestion.hint(for: member.key, in: TraceEvent.names)))
      }
      guard case .string(let name) = member.value.kind, !name.isEmpty else {
        let kind: SpecError.Kind = if case .string = member.value.kind { .invalidValue } else { .type }
        errors.append(SpecError(kind, path: path, line: member.line, message: "expected a non-empty string (the event's new name)"))
        continue
      }
      renames[member.key] = name
    }
    // Two events may not end up with one name: a trace could not tell them apart.
    var owner: [String: String] = [:]
    for event in TraceEvent.names {
      let name = renames[event] ?? event
      if let other = owner[name] {
        let member = members.first { $0.key == event || $0.key == other }
        errors.append(
          SpecError(
            path: SpecPath.root.key(member?.key ?? event), line: member?.line,
            message: "'\(other)' and '\(event)' would both be named '\(name)'", hint: "give each event its own name"))
      } else {
        owner[name] = event
      }
    }
    guard errors.isEmpty else { throw SpecErrors(source: source, errors: errors) }
    self.renames = renames
  }
}

extension EventNameMap {
  /// Reads a mapping file.
  /// - Throws: ``SpecErrors``: "no such file" (at the root) when it is missing, else
  ///   every problem of its content.
  package init(contentsOf path: String) throws(SpecErrors) {
    try self.init(parsing: ExperimentLoader.readText(path, missingHint: "check the path of --events-map"), source: path)
  }
}
