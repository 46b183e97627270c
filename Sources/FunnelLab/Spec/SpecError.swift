/// One step of a path into a spec document: an object key or an array index.
public enum SpecPathComponent: Sendable, Hashable {
  /// An object member's key, e.g. `screens`.
  case key(String)
  /// A 0-based array index, e.g. `3`.
  case index(Int)
}

/// Where in a spec a value lives, written as `flow.screens[3].actions.skip.to`.
public struct SpecPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByArrayLiteral {
  /// The steps from the document's root, outermost first; empty for the document itself.
  public var components: [SpecPathComponent]

  /// The path through `components`; no argument gives ``root``.
  public init(_ components: [SpecPathComponent] = []) { self.components = components }
  /// A path written as a list: `[.key("flow"), .key("screens"), .index(3)]`.
  public init(arrayLiteral elements: SpecPathComponent...) { components = elements }

  /// The document itself, described as `(document)`.
  public static let root = SpecPath()

  /// This path extended by the object key `key`.
  public func key(_ key: String) -> SpecPath { SpecPath(components + [.key(key)]) }
  /// This path extended by the 0-based array index `index`.
  public func index(_ index: Int) -> SpecPath { SpecPath(components + [.index(index)]) }
  /// `rhs` appended to `lhs`: a relative path resolved under a parent.
  public static func + (lhs: SpecPath, rhs: SpecPath) -> SpecPath { SpecPath(lhs.components + rhs.components) }

  /// Keys joined by `.`, indices as `[3]`; a key that is not letters, digits, `_` or `-` as `["key"]` with
  /// control characters escaped; `(document)` for the root.
  public var description: String {
    var out = ""
    for component in components {
      switch component {
      case .key(let key):
        let plain =
          !key.isEmpty && key.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
        if plain {
          if !out.isEmpty { out += "." }
          out += key
        } else {
          out += "[\"\(key.escapingControlCharacters)\"]"
        }
      case .index(let i): out += "[\(i)]"
      }
    }
    return out.isEmpty ? "(document)" : out
  }
}

/// A problem found in a spec, with where it is and what to do about it.
///
/// ```
/// flow.screens[3].actions.skip.to (line 42): unknown screen 'pro'; did you mean 'proUpsell'?
/// ```
///
/// Its ``kind`` says what sort of problem it is, so a caller can act on it (choose an
/// exit code, decide whether decoding can go on) without reading ``message``, which is
/// for people. The kind is not part of ``description``.
public struct SpecError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What sort of problem a ``SpecError`` is.
  public enum Kind: Sendable, Hashable, CaseIterable {
    /// The input cannot be read at all: no such file, a folder, no permission
    /// (what `funnellab` reports with exit 66).
    case unreadable
    /// The text is not a JSON document (or not UTF-8 text).
    case syntax
    /// A value has the wrong JSON type (a string where a number belongs).
    case type
    /// A required key is absent.
    case missingKey
    /// A key the spec does not define (usually a typo).
    case unknownKey
    /// A value of the right type that is not allowed: out of range, probabilities that do
    /// not sum to 1, a duplicate id, an unknown enumeration value, a damaged shard.
    case invalidValue
    /// An id that names nothing: an unknown screen, action, plan or variant.
    case unknownReference
    /// A property of the whole flow graph: a screen no path reaches, or no path to
    /// completion. It depends on every action's target and probability, so it is not
    /// reported when a wrong value was set aside to keep decoding (its default may be the cause).
    case unreachable
    /// Inputs that do not belong together (shard files of different runs).
    case mismatch
    /// A size past the documented limits (`Limits`): too many screens, variants, cells, bytes.
    case limit
  }

  /// What sort of problem this is; not printed.
  public var kind: Kind
  /// Where the problem is in the spec, e.g. `flow.screens[3].actions.skip.to`.
  public var path: SpecPath
  /// The 1-based line in the source text, when known.
  public var line: Int?
  /// What is wrong, lower case, without a final period (`unknown screen 'pro'`).
  public var message: String
  /// What to do about it (`did you mean 'proUpsell'?`), when there is something to suggest.
  public var hint: String?

  /// A problem of kind `kind` at `path`; `line` is the 1-based line in the source text, when the
  /// decoder knows it. Without a kind, the problem is an ``Kind/invalidValue``.
  public init(_ kind: Kind = .invalidValue, path: SpecPath, line: Int? = nil, message: String, hint: String? = nil) {
    self.kind = kind
    self.path = path
    self.line = line
    self.message = message
    self.hint = hint
  }

  /// One line: control characters from the spec (a newline in a value, a terminal
  /// escape in an id) are shown escaped.
  public var description: String {
    var text = path.description
    if let line { text += " (line \(line))" }
    text += ": " + message.escapingControlCharacters
    if let hint { text += "; " + hint.escapingControlCharacters }
    return text
  }
}

/// Every problem found in one spec. Thrown as a whole: a spec with any problem
/// never produces a result.
public struct SpecErrors: Error, Sendable, Hashable, CustomStringConvertible {
  /// The file (or other origin) the spec was read from.
  public var source: String
  /// Every problem found, in the order found.
  public var errors: [SpecError]

  /// The problems `errors` of the spec read from `source`.
  public init(source: String, errors: [SpecError]) {
    self.source = source
    self.errors = errors
  }

  /// Whether there are problems and every one is ``SpecError/Kind/unreadable``: the input
  /// could not be read at all, as opposed to read and found wrong.
  public var isUnreadable: Bool { !errors.isEmpty && errors.allSatisfy { $0.kind == .unreadable } }

  /// Every problem on its own line, prefixed by the source: `experiments/x.json: flow.start: …`.
  public var description: String {
    errors.map { "\(source): \($0)" }.joined(separator: "\n")
  }
}

extension JSONValue {
  /// The value at `path`, if the document has one.
  public func value(at path: SpecPath) -> JSONValue? {
    var current = self
    for component in path.components {
      switch (component, current.kind) {
      case (.key(let key), .object):
        guard let next = current[key] else { return nil }
        current = next
      case (.index(let i), .array(let elements)):
        guard elements.indices.contains(i) else { return nil }
        current = elements[i]
      default:
        return nil
      }
    }
    return current
  }

  /// The line of the deepest value along `path` that exists in the document,
  /// preferring the line of the key itself when the last step is a key.
  public func line(at path: SpecPath) -> Int? {
    var current = self
    var best: Int? = current.line > 0 ? current.line : nil
    for component in path.components {
      switch (component, current.kind) {
      case (.key(let key), .object(let members)):
        guard let member = members.first(where: { $0.key == key }) else { return best }
        best = member.line > 0 ? member.line : best
        current = member.value
      case (.index(let i), .array(let elements)):
        guard elements.indices.contains(i) else { return best }
        current = elements[i]
        best = current.line > 0 ? current.line : best
      default:
        return best
      }
    }
    return best
  }
}

/// Suggests the closest known name to a misspelt one (Levenshtein distance), for
/// "did you mean …?" hints.
package enum NameSuggestion {
  /// The candidate nearest to `name` by case-insensitive Levenshtein distance (the first one on a tie),
  /// or `nil` when even that one is more than `max(2, name.count / 3)` edits away or there is no candidate.
  package static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
    let target = Array(name.lowercased())
    var best: (String, Int)?
    for candidate in candidates {
      let d = distance(target, Array(candidate.lowercased()))
      if best.map({ d < $0.1 }) ?? true { best = (candidate, d) }
    }
    guard let (candidate, d) = best else { return nil }
    let limit = max(2, target.count / 3)
    return d <= limit ? candidate : nil
  }

  /// `did you mean 'x'?` for the ``closest(to:in:)`` candidate `x`; `nil` when there is none.
  package static func hint(for name: String, in candidates: some Sequence<String>) -> String? {
    closest(to: name, in: candidates).map { "did you mean '\($0)'?" }
  }

  /// Every candidate, the nearest to `name` first (case-insensitive Levenshtein distance, ties
  /// in alphabetical order): the list to show when a name matches none.
  /// - Complexity: O(*k* · *m* · *n*) for *k* candidates of length *m* and a name of length *n*.
  package static func nearestFirst(to name: String, in candidates: some Sequence<String>) -> [String] {
    let target = Array(name.lowercased())
    let scored: [(name: String, distance: Int)] = candidates.map { ($0, distance(target, Array($0.lowercased()))) }
    return scored.sorted { $0.distance != $1.distance ? $0.distance < $1.distance : $0.name < $1.name }.map(\.name)
  }

  static func distance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}

extension SpecError {
  /// The error for an id holding a control character (a newline, a tab, an escape) or a
  /// bidirectional override, which would split or reorder every table and line the id
  /// appears in; `nil` for a printable id.
  package static func unprintable(id: String, at path: SpecPath, naming what: String) -> SpecError? {
    guard id.unicodeScalars.contains(where: \.isEscapedInMessages) else { return nil }
    return SpecError(
      path: path, message: "the \(what) id '\(id.escapingControlCharacters)' contains a control character",
      hint: "ids are printed in every table; use letters, digits, '-' or '_'")
  }
}
