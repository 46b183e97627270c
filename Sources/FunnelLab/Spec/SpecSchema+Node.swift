extension SpecSchema {
  /// A JSON value written as Swift literals (`["type": "object", "minimum": 0]`), so a schema
  /// fragment reads like the JSON it writes. Object members keep the literal's order.
  struct Node: Sendable, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
  {
    /// The value written.
    var json: JSONValue

    /// Wraps a built value.
    init(_ json: JSONValue) { self.json = json }

    /// An object with these members, in order.
    init(dictionaryLiteral elements: (String, Node)...) { json = .object(elements.map { ($0.0, $0.1.json) }) }
    /// An array of these elements, in order.
    init(arrayLiteral elements: Node...) { json = .array(elements.map(\.json)) }
    /// A string.
    init(stringLiteral value: String) { json = .string(value) }
    /// A whole number.
    init(integerLiteral value: Int) { json = .integer(value) }
    /// A number.
    init(floatLiteral value: Double) { json = .number(value) }
    /// `true` or `false`.
    init(booleanLiteral value: Bool) { json = .bool(value) }
    /// `null`.
    init(nilLiteral: ()) { json = .null }

    /// A number (``JSONValue/format(_:)``: a whole one without a fraction).
    static func number(_ value: Double) -> Node { Node(.number(value)) }
    /// A whole number.
    static func integer<T: BinaryInteger>(_ value: T) -> Node { Node(.integer(value)) }
    /// A string.
    static func string(_ value: String) -> Node { Node(.string(value)) }
    /// An array of strings.
    static func strings(_ values: [String]) -> Node { Node(.array(values.map { .string($0) })) }
    /// An array of nodes.
    static func array(_ values: [Node]) -> Node { Node(.array(values.map(\.json))) }
    /// An object of these members, in order.
    static func object(_ members: [(String, Node)]) -> Node { Node(.object(members.map { ($0.0, $0.1.json) })) }

    /// The member `key`, when this is an object that has one.
    subscript(key: String) -> Node? { json[key].map(Node.init) }

    /// This object with `key` set to `value`: in its place when present, else last.
    func with(_ key: String, _ value: Node) -> Node { merging([(key, value)]) }

    /// This object with `members` set, each in its place when present, else appended in order
    /// (Python's `{**a, **b}`).
    func merging(_ members: [(String, Node)]) -> Node {
      guard case .object(var own) = json.kind else { return self }
      for (key, value) in members {
        if let i = own.firstIndex(where: { $0.key == key }) {
          own[i].value = value.json
        } else {
          own.append(JSONValue.Member(key: key, value: value.json))
        }
      }
      return Node(JSONValue(.object(own)))
    }

    /// This object with the members of the object `other` set (``merging(_:)``).
    func merging(_ other: Node) -> Node {
      guard case .object(let members) = other.json.kind else { return self }
      return merging(members.map { ($0.key, Node($0.value)) })
    }
  }
}
