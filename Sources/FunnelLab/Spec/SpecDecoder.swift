/// Decodes `Decodable` types from a ``JSONValue`` and reports problems the way a
/// spec author needs them: with the JSON path and line, and with every key the
/// types never asked for reported as unknown (typos are not ignored silently).
///
/// Decoding does not stop at the first wrong type: the offending value is set aside and
/// decoding starts again (see ``decodeCollecting(_:from:)``), so one run reports every
/// wrong type it can reach, and every unknown key.
package struct SpecDecoder {
  /// A label for the source in error messages (usually the file name).
  package var source: String

  /// The most decoding passes ``decodeCollecting(_:from:)`` makes, so at most this many
  /// decoding problems are reported however many the document has.
  package static let maximumPasses = 64

  /// A decoder whose errors name `source` (`spec` when not told).
  package init(source: String = "spec") { self.source = source }

  /// Parses `text` and decodes a `T` from it.
  package func decode<T: Decodable>(_ type: T.Type, from text: String) throws(SpecErrors) -> (T, JSONValue) {
    let document = try parse(text)
    return (try decode(type, from: document), document)
  }

  /// Parses `text` as JSON, reporting a syntax error as a ``SpecErrors`` with its line.
  package func parse(_ text: String) throws(SpecErrors) -> JSONValue {
    do {
      return try JSONParser.parse(text)
    } catch {
      throw SpecErrors(
        source: source,
        errors: [
          SpecError(
            .syntax, path: .root, line: error.line, message: "not valid JSON: column \(error.column): \(error.message)",
            hint: "fix the syntax at that position")
        ])
    }
  }

  /// Decodes a `T` from an already parsed document.
  package func decode<T: Decodable>(_ type: T.Type, from document: JSONValue) throws(SpecErrors) -> T {
    let outcome = decodeCollecting(type, from: document)
    let errors = outcome.errors + outcome.reported
    guard let result = outcome.value, errors.isEmpty else { throw SpecErrors(source: source, errors: errors) }
    return result
  }

  /// Decodes what can be decoded and returns it with every decoding problem found.
  ///
  /// Decoding is repeated: after a problem at path `P` (a wrong type, an unknown
  /// enumeration value), the value at `P` is set aside (an object member is removed, so an
  /// optional field takes its default; an array element becomes `null`) and the document
  /// is decoded again. It stops when a pass succeeds (the value is then returned, decoded
  /// with the defaults at the set-aside paths), at a missing key, at a problem that is a
  /// consequence of setting a value aside (at a set-aside path or one of its ancestors:
  /// the field was required; it is not reported), or after ``maximumPasses`` passes.
  ///
  /// Unknown keys are those of the last pass, left out for the objects whose decoding
  /// its problem interrupted (they never asked for their remaining keys).
  ///
  /// - Complexity: O(*p* × *n*) for *p* ≤ ``maximumPasses`` passes over a document of *n* values.
  package func decodeCollecting<T: Decodable>(_ type: T.Type, from document: JSONValue) -> SpecDecodingOutcome<T> {
    var current = document
    var outcome = SpecDecodingOutcome<T>(value: nil, errors: [], setAside: [], reported: [])
    for pass in 1...SpecDecoder.maximumPasses {
      let state = DecodingState(document: current)
      let problems: [SpecError]
      do {
        outcome.value = try T(from: ValueDecoder(value: current, path: .root, state: state))
        outcome.errors += state.unknownKeyErrors()
        outcome.reported = state.reported
        return outcome
      } catch let error as SpecError {
        problems = [error]
      } catch let error as SpecErrors {
        problems = error.errors
      } catch {
        problems = [SpecError(path: .root, line: current.line, message: "\(error)")]
      }
      let consequence = problems.contains { problem in outcome.setAside.contains { outcome.isAffected($0, by: problem.path) } }
      if !consequence { outcome.errors += problems }
      let last = pass == SpecDecoder.maximumPasses || consequence || problems.count != 1
      if !last, let problem = problems.first, problem.kind != .missingKey, current.setAside(problem.path) {
        outcome.setAside.append(problem.path)
        continue
      }
      // An object whose decoding was interrupted by the problem never asked for its
      // remaining keys: only objects off the problem's path can report unknown keys.
      let interrupted = problems.map(\.path.components)
      outcome.errors += state.unknownKeyErrors().filter { error in
        let object = error.path.components.dropLast()
        return !interrupted.contains { $0.starts(with: object) }
      }
      break
    }
    outcome.value = nil
    return outcome
  }
}

/// What ``SpecDecoder/decodeCollecting(_:from:)`` made of a document.
package struct SpecDecodingOutcome<T> {
  /// The decoded value: `nil` when a problem stopped decoding; when ``setAside`` is not
  /// empty, decoded with the defaults at those paths (use it for more diagnostics, never
  /// as the spec).
  package var value: T?
  /// The decoding problems (wrong types, missing and unknown keys), in the order found.
  package var errors: [SpecError]
  /// The paths whose values were set aside after a problem, in the order set aside.
  package var setAside: [SpecPath]
  /// Problems the decoded types reported without stopping (fields given on a kind of
  /// screen that has no use for them), found by the pass that decoded ``value``; empty
  /// when it is `nil`. They are semantic problems: report them with validation's (see
  /// ``Experiment/validationErrors(placing:)``).
  package var reported: [SpecError]

  /// Whether a problem at `path` may be a consequence of setting `aside` aside: `path` is
  /// `aside`, one of its ancestors or one of its descendants.
  package func isAffected(_ aside: SpecPath, by path: SpecPath) -> Bool {
    aside.components.starts(with: path.components) || path.components.starts(with: aside.components)
  }

  /// Whether a problem at `path` may be a consequence of a set-aside value (see
  /// ``isAffected(_:by:)``): semantic problems there are not reported.
  package func isAffected(_ path: SpecPath) -> Bool {
    setAside.contains { isAffected($0, by: path) }
  }
}

extension JSONValue {
  /// Sets the value at `path` aside for another decoding pass: an object member is
  /// removed, an array element becomes `null`.
  /// - Returns: whether the document changed (`false` for the root, a path that names
  ///   nothing, or an element that is already `null`).
  mutating func setAside(_ path: SpecPath) -> Bool {
    guard let first = path.components.first else { return false }
    let rest = SpecPath(Array(path.components.dropFirst()))
    switch (first, kind) {
    case (.key(let key), .object(var members)):
      guard let i = members.firstIndex(where: { $0.key == key }) else { return false }
      if rest.components.isEmpty {
        members.remove(at: i)
      } else if !members[i].value.setAside(rest) {
        return false
      }
      kind = .object(members)
      return true
    case (.index(let i), .array(var elements)):
      guard elements.indices.contains(i) else { return false }
      if rest.components.isEmpty {
        if case .null = elements[i].kind { return false }
        elements[i] = JSONValue(.null, line: elements[i].line)
      } else if !elements[i].setAside(rest) {
        return false
      }
      kind = .array(elements)
      return true
    default:
      return false
    }
  }
}

/// A coding key built from any string or index.
package struct AnyCodingKey: CodingKey, Hashable, Sendable {
  /// The key's text (the decimal digits of ``intValue`` for an index key).
  package var stringValue: String
  /// The array index; `nil` for an object key.
  package var intValue: Int?
  /// An object key; never fails, so every key of an object can be enumerated.
  package init(stringValue: String) { self.stringValue = stringValue }
  /// An index key, also usable as the key `"\(intValue)"`.
  package init(intValue: Int) {
    stringValue = String(intValue)
    self.intValue = intValue
  }
  /// An object key (the unlabelled spelling of ``init(stringValue:)``).
  package init(_ string: String) { stringValue = string }
}

extension SpecPath {
  init(codingPath: [any CodingKey]) {
    self.init(
      codingPath.map { key in
        if let i = key.intValue { return .index(i) }
        return .key(key.stringValue)
      })
  }

  var codingPath: [any CodingKey] {
    components.map { component -> any CodingKey in
      switch component {
      case .key(let k): AnyCodingKey(stringValue: k)
      case .index(let i): AnyCodingKey(intValue: i)
      }
    }
  }
}

/// What one decoding run has seen: every object visited and the keys asked of it.
final class DecodingState {
  let document: JSONValue
  private var visited: [SpecPath: (value: JSONValue, asked: Set<String>)] = [:]
  private var order: [SpecPath] = []
  /// Objects whose keys are all accepted (maps with free-form keys).
  private var openObjects: Set<SpecPath> = []

  /// Problems reported with ``SpecValueDecoding/report(_:)``: found while decoding, they did not stop it.
  private(set) var reported: [SpecError] = []

  init(document: JSONValue) { self.document = document }

  /// Records a problem that does not stop decoding, with the line of its path when it has none.
  func report(_ problem: SpecError) {
    var located = problem
    if located.line == nil { located.line = document.line(at: problem.path) }
    reported.append(located)
  }

  func visit(_ path: SpecPath, _ value: JSONValue) {
    if visited[path] == nil {
      visited[path] = (value, [])
      order.append(path)
    }
  }

  func ask(_ path: SpecPath, _ key: String) {
    visited[path]?.asked.insert(key)
  }

  func acceptAllKeys(_ path: SpecPath) { openObjects.insert(path) }

  func unknownKeyErrors() -> [SpecError] {
    var errors: [SpecError] = []
    for path in order where !openObjects.contains(path) {
      guard let entry = visited[path], case .object(let members) = entry.value.kind else { continue }
      for member in members where !entry.asked.contains(member.key) {
        errors.append(
          SpecError(
            .unknownKey, path: path.key(member.key), line: member.line > 0 ? member.line : nil,
            message: "unknown key '\(member.key)'",
            hint: NameSuggestion.hint(for: member.key, in: entry.asked.sorted())
              ?? "remove it, or see experiments/schema.json for the keys allowed here"))
      }
    }
    return errors
  }
}

struct ValueDecoder: SpecValueDecoding {
  let value: JSONValue
  let path: SpecPath
  let state: DecodingState

  var codingPath: [any CodingKey] { path.codingPath }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func error(_ message: String, kind: SpecError.Kind = .type, hint: String? = nil) -> SpecError {
    SpecError(kind, path: path, line: value.line > 0 ? value.line : nil, message: message, hint: hint)
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let members) = value.kind else {
      throw error("expected an object, found \(value.typeName)")
    }
    state.visit(path, value)
    return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, members: members))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let elements) = value.kind else {
      throw error("expected an array, found \(value.typeName)")
    }
    return UnkeyedContainer(decoder: self, elements: elements)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(decoder: self) }

  /// Declares that every key of this object is data (a map), not a field name.
  func markAllKeysAccepted() { state.acceptAllKeys(path) }

  var isNumber: Bool {
    if case .number = value.kind { return true }
    return false
  }

  func problem(_ message: String, kind: SpecError.Kind, hint: String?) -> SpecError { error(message, kind: kind, hint: hint) }

  func report(_ problem: SpecError) { state.report(problem) }

  func child(_ value: JSONValue, _ component: SpecPathComponent) -> ValueDecoder {
    ValueDecoder(value: value, path: SpecPath(path.components + [component]), state: state)
  }

  func decodePrimitive<T: Decodable>(_ type: T.Type) throws -> T {
    func mismatch(_ expected: String) -> SpecError { error("expected \(expected), found \(value.typeName)") }
    switch type {
    case is Bool.Type:
      guard case .bool(let b) = value.kind, let r = b as? T else { throw mismatch("true or false") }
      return r
    case is String.Type:
      guard case .string(let s) = value.kind, let r = s as? T else { throw mismatch("a string") }
      return r
    case is Double.Type:
      guard case .number(let d, _) = value.kind else { throw mismatch("a number") }
      guard d.isFinite else { throw error("number out of range", kind: .invalidValue, hint: "use a finite number") }
      guard let r = d as? T else { throw mismatch("a number") }
      return r
    case is Int.Type, is UInt64.Type, is Int64.Type, is UInt32.Type, is Int32.Type, is UInt.Type:
      guard case .number(let d, let literal) = value.kind else { throw mismatch("a whole number") }
      let parsed: T?
      switch type {
      case is Int.Type: parsed = (Int(literal) ?? exactInteger(d).flatMap { Int(exactly: $0) }) as? T
      case is UInt64.Type: parsed = (UInt64(literal) ?? exactInteger(d).flatMap { UInt64(exactly: $0) }) as? T
      case is Int64.Type: parsed = (Int64(literal) ?? exactInteger(d).flatMap { Int64(exactly: $0) }) as? T
      case is UInt32.Type: parsed = (UInt32(literal) ?? exactInteger(d).flatMap { UInt32(exactly: $0) }) as? T
      case is Int32.Type: parsed = (Int32(literal) ?? exactInteger(d).flatMap { Int32(exactly: $0) }) as? T
      default: parsed = (UInt(literal) ?? exactInteger(d).flatMap { UInt(exactly: $0) }) as? T
      }
      guard let parsed else {
        throw error("expected a whole number in range, found \(literal)", kind: .invalidValue, hint: "use an integer such as 42")
      }
      return parsed
    default:
      return try T(from: self)
    }
  }

  private func exactInteger(_ d: Double) -> Double? {
    d.isFinite && d == d.rounded() && abs(d) < 9.007_199_254_740_992e15 ? d : nil
  }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: ValueDecoder
  let members: [JSONValue.Member]

  var codingPath: [any CodingKey] { decoder.codingPath }
  var allKeys: [Key] {
    members.compactMap { member in
      decoder.state.ask(decoder.path, member.key)
      return Key(stringValue: member.key)
    }
  }

  private func member(_ key: Key) -> JSONValue.Member? {
    decoder.state.ask(decoder.path, key.stringValue)
    return members.first(where: { $0.key == key.stringValue })
  }

  func contains(_ key: Key) -> Bool { member(key) != nil }

  private func childDecoder(_ key: Key) throws -> ValueDecoder {
    guard let m = member(key) else {
      let typo = NameSuggestion.closest(to: key.stringValue, in: members.map(\.key))
      throw SpecError(
        .missingKey, path: decoder.path.key(key.stringValue), line: decoder.value.line > 0 ? decoder.value.line : nil,
        message: "missing required key '\(key.stringValue)'",
        hint: typo.map { "found '\($0)': did you mean '\(key.stringValue)'?" } ?? "add \"\(key.stringValue)\" to this object")
    }
    var child = decoder.child(m.value, .key(key.stringValue))
    if child.value.line == 0 { child = ValueDecoder(value: JSONValue(m.value.kind, line: m.line), path: child.path, state: child.state) }
    return child
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    guard let m = member(key) else { return true }
    if case .null = m.value.kind { return true }
    return false
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try childDecoder(key).decodePrimitive(type)
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard let m = member(key) else { return nil }
    if case .null = m.value.kind { return nil }
    return try childDecoder(key).decodePrimitive(type)
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
    try childDecoder(key).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try childDecoder(key).unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder { decoder }
  func superDecoder(forKey key: Key) throws -> any Decoder { try childDecoder(key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
  let decoder: ValueDecoder
  let elements: [JSONValue]
  var currentIndex = 0

  init(decoder: ValueDecoder, elements: [JSONValue]) {
    self.decoder = decoder
    self.elements = elements
  }

  var codingPath: [any CodingKey] { decoder.codingPath }
  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  private mutating func next() throws -> ValueDecoder {
    guard !isAtEnd else { throw decoder.error("array has too few elements", kind: .invalidValue) }
    defer { currentIndex += 1 }
    return decoder.child(elements[currentIndex], .index(currentIndex))
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd else { return false }
    if case .null = elements[currentIndex].kind {
      currentIndex += 1
      return true
    }
    return false
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodePrimitive(type) }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
    try next().container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
  mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct SingleContainer: SingleValueDecodingContainer {
  let decoder: ValueDecoder
  var codingPath: [any CodingKey] { decoder.codingPath }
  func decodeNil() -> Bool {
    if case .null = decoder.value.kind { return true }
    return false
  }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodePrimitive(type) }
}

/// What the spec types' `init(from:)` ask of a decoder beyond `Decoder`: the spec
/// decoder answers from the JSON it holds; ``ForeignDecoder`` answers for any other.
protocol SpecValueDecoding: Decoder {
  /// Declares that this object's keys are data (a map keyed by ids), so none of them is
  /// reported as unknown.
  func markAllKeysAccepted()
  /// Whether the value being decoded is a JSON number (for shorthand forms).
  var isNumber: Bool { get }
  /// A problem of kind `kind` at this decoder's path (with the value's line when known).
  func problem(_ message: String, kind: SpecError.Kind, hint: String?) -> SpecError
  /// Reports a problem that need not stop decoding (a field given on a kind of screen
  /// that has no use for it): the spec decoder collects it and goes on.
  /// - Throws: `problem`, when the decoder cannot collect it.
  func report(_ problem: SpecError) throws
}

/// Another decoder (`JSONDecoder`, a property-list decoder) decoding the spec types:
/// it does not report unknown keys, so ``markAllKeysAccepted()`` has nothing to record; a
/// number is whatever decodes as a `Double`; errors carry the path without a line.
struct ForeignDecoder: SpecValueDecoding {
  /// The decoder wrapped.
  let base: any Decoder

  var codingPath: [any CodingKey] { base.codingPath }
  var userInfo: [CodingUserInfoKey: Any] { base.userInfo }
  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { try base.container(keyedBy: type) }
  func unkeyedContainer() throws -> any UnkeyedDecodingContainer { try base.unkeyedContainer() }
  func singleValueContainer() throws -> any SingleValueDecodingContainer { try base.singleValueContainer() }

  /// Nothing to record: this decoder never reports unknown keys.
  func markAllKeysAccepted() {}

  var isNumber: Bool { (try? base.singleValueContainer().decode(Double.self)) != nil }

  func problem(_ message: String, kind: SpecError.Kind, hint: String?) -> SpecError {
    SpecError(kind, path: SpecPath(codingPath: codingPath), message: message, hint: hint)
  }

  /// Throws `problem`: this decoder has nowhere to collect it.
  func report(_ problem: SpecError) throws { throw problem }
}

extension Decoder {
  /// The spec path of this decoder (for errors raised by `init(from:)`).
  var specPath: SpecPath { SpecPath(codingPath: codingPath) }

  /// This decoder as a ``SpecValueDecoding``: itself when it is one (the spec decoder),
  /// else a ``ForeignDecoder`` around it.
  var spec: any SpecValueDecoding { self as? any SpecValueDecoding ?? ForeignDecoder(base: self) }

  /// Declares that this object's keys are data (a map keyed by ids), so none of
  /// them is reported as unknown (see ``SpecValueDecoding/markAllKeysAccepted()``).
  func acceptAllKeys() { spec.markAllKeysAccepted() }

  /// Whether the value being decoded is a JSON number (for shorthand forms).
  var holdsNumber: Bool { spec.isNumber }

  /// A problem of kind `kind` (an ``SpecError/Kind/invalidValue`` when not told) at this decoder's path.
  func specError(_ message: String, kind: SpecError.Kind = .invalidValue, hint: String? = nil) -> SpecError {
    spec.problem(message, kind: kind, hint: hint)
  }

  /// Reports a problem that need not stop decoding (see ``SpecValueDecoding/report(_:)``).
  /// - Throws: `problem`, when this decoder cannot collect it (any decoder but the spec decoder).
  func reportProblem(_ problem: SpecError) throws { try spec.report(problem) }
}
