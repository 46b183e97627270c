import FunnelStats

/// A parsed JSON value that remembers where it stood in its source text.
///
/// Object members keep their order of appearance, so that output written back is
/// stable and error messages can point at the line of the offending key.
package struct JSONValue: Sendable, Hashable {
  /// The shape of a JSON value.
  package enum Kind: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, with its literal text kept so integers survive exactly.
    case number(Double, literal: String)
    /// A string, unescaped.
    case string(String)
    /// An array, its elements in order.
    case array([JSONValue])
    /// An object, its members in the order they appear.
    case object([Member])
  }

  /// One `"key": value` member of an object.
  package struct Member: Sendable, Hashable {
    /// The member's name, unescaped; unique in a parsed object (the parser rejects a duplicate key).
    package var key: String
    /// The member's value.
    package var value: JSONValue
    /// The 1-based line of the key in the source.
    package var line: Int

    /// A member; `line` 0 for one built in code.
    package init(key: String, value: JSONValue, line: Int = 0) {
      self.key = key
      self.value = value
      self.line = line
    }
  }

  /// What the value is, with its contents.
  package var kind: Kind
  /// The 1-based line where the value starts (0 when built in code).
  package var line: Int

  /// A value; `line` 0 for one built in code. `line` takes part in `==`, so a parsed value and the same
  /// value built in code compare unequal.
  package init(_ kind: Kind, line: Int = 0) {
    self.kind = kind
    self.line = line
  }

  /// A short English name of the value's type, for error messages.
  package var typeName: String {
    switch kind {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  /// The member named `key`, if this is an object that has one.
  package subscript(key: String) -> JSONValue? {
    guard case .object(let members) = kind else { return nil }
    // An index loop, not `first(where:)`: a log's every property is read through here.
    var i = 0
    while i < members.count {
      if members[i].key == key { return members[i].value }
      i += 1
    }
    return nil
  }
}

extension JSONValue {
  /// Convenience constructors for building output documents in code.
  package static func number(_ value: Double) -> JSONValue {
    JSONValue(.number(value, literal: JSONValue.format(value)))
  }

  /// A whole number written with all its digits (the literal is `String(value)`, exact beyond 2⁵³ where
  /// the `Double` beside it is not).
  package static func integer<T: BinaryInteger>(_ value: T) -> JSONValue {
    JSONValue(.number(Double(value), literal: String(value)))
  }

  /// A string; the writer escapes quotes, backslashes and control characters.
  package static func string(_ value: String) -> JSONValue { JSONValue(.string(value)) }
  /// `true` or `false`.
  package static func bool(_ value: Bool) -> JSONValue { JSONValue(.bool(value)) }
  /// JSON `null`: what the reports write for an absent or undefined number.
  package static let null = JSONValue(.null)
  /// An array of `values`, in order.
  package static func array(_ values: [JSONValue]) -> JSONValue { JSONValue(.array(values)) }

  /// An object whose members appear in the given order.
  package static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
    JSONValue(.object(pairs.map { Member(key: $0.key, value: $0.value) }))
  }

  /// An object whose members appear in the given order (duplicate keys are kept, not merged).
  package static func object(_ members: [(String, JSONValue)]) -> JSONValue {
    JSONValue(.object(members.map { Member(key: $0.0, value: $0.1) }))
  }

  /// Formats a double the way every output of FunnelLab does: integers without a
  /// fraction, others as the shortest text that reads back to the same double
  /// (Swift's own algorithm, identical on every platform). Non-finite values, which
  /// JSON cannot carry, become `null` at the writer.
  package static func format(_ value: Double) -> String {
    guard value.isFinite else { return "null" }
    if value == value.rounded(), abs(value) < 1e15, let whole = Int64(rounding: value) {
      return String(whole)
    }
    return "\(value)"
  }
}

extension JSONValue {
  /// This object without its member `key` (itself when it has none, or is not an object).
  func removingMember(_ key: String) -> JSONValue {
    guard case .object(let members) = kind else { return self }
    return JSONValue(.object(members.filter { $0.key != key }), line: line)
  }

  /// This document with the member at `keys` set to `value`, creating the objects on the
  /// way when missing (member order kept; a new member goes last).
  func settingMember(_ keys: [String], to value: JSONValue) -> JSONValue {
    guard let key = keys.first else { return value }
    guard case .object(var members) = kind else { return self }
    if let i = members.firstIndex(where: { $0.key == key }) {
      members[i].value = members[i].value.settingMember(Array(keys.dropFirst()), to: value)
    } else {
      members.append(Member(key: key, value: JSONValue(.object([]), line: line).settingMember(Array(keys.dropFirst()), to: value)))
    }
    return JSONValue(.object(members), line: line)
  }
}
