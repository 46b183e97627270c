import FunnelLab

/// The keys every JSON report of FunnelLab starts with, in one order for every command
/// (docs/json-output.md):
///
/// ```
/// schemaVersion, command, experiment?, mode?, seed?, <the command's own keys>
/// ```
///
/// `experiment` is written when the report is of one spec, `mode` when the command has
/// modes, `seed` when the result is random. Keys may be added within a version; a removed
/// or renamed key raises the document's `schemaVersion`.
struct JSONReportHead: Sendable, Hashable {
  /// The document's schema version: an integer per kind of document, raised when a key is removed or renamed.
  var schemaVersion: Int
  /// The name of the command that writes the document (`merge` writes the document of the command merged).
  var command: String
  /// The spec's `name`; `nil` for a report of no single spec.
  var experiment: String?
  /// The command's mode (`truth`, `experiment`, `exact`, `formula`, `simulation`); `nil` for a command without modes.
  var mode: String?
  /// The seed of a random result; `nil` for an exact or observed one.
  var seed: UInt64?

  /// The document: this head, then `body`'s members in their order.
  ///
  /// - Complexity: O(`body.count`).
  func document(_ body: [(String, JSONValue)]) -> JSONValue {
    var head: [(String, JSONValue)] = [("schemaVersion", .integer(schemaVersion)), ("command", .string(command))]
    if let experiment { head.append(("experiment", .string(experiment))) }
    if let mode { head.append(("mode", .string(mode))) }
    if let seed { head.append(("seed", .integer(seed))) }
    return .object(head + body)
  }
}
