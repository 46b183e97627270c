extension PairedTallies {
  /// Every field as JSON, for shard files: the tables as `[neither, variantOnly,
  /// controlOnly, both]` per ``Outcome`` (keyed by the outcome's metric), the 128-bit sums
  /// as decimal strings and the users whose difference is not 0, so reading it back gives the
  /// same tallies exactly.
  package var json: JSONValue {
    func sums(_ s: DifferenceSums) -> JSONValue {
      .object([
        ("sumCents", .string(String(s.sum))), ("sumSquaredCents", .string(String(s.sumOfSquares))),
        ("differingUsers", .integer(s.differing)),
      ])
    }
    return .object([
      ("users", .integer(users)),
      (
        "tables",
        .object(
          Outcome.allCases.map { o in
            let t = tables[o.rawValue]
            return (o.metric.rawValue, .array([t.neither, t.variantOnly, t.controlOnly, t.both].map { .integer($0) }))
          })
      ),
      ("revenue", sums(revenue)),
      ("realizedRevenue", sums(realizedRevenue)),
    ])
  }

  /// Reads tallies written by ``json``, checking every field's shape.
  /// - Throws: ``SpecError`` at the offending path.
  package init(json value: JSONValue, at path: SpecPath) throws(SpecError) {
    self.init()
    func fail(_ p: SpecPath, _ message: String) -> SpecError { SpecError(path: p, message: message, hint: "the shard file is damaged") }
    guard case .number(_, let literal)? = value["users"]?.kind, let n = UInt64(literal) else {
      throw fail(path.key("users"), "expected a whole number ≥ 0")
    }
    users = n
    for o in Outcome.allCases {
      let p = path.key("tables").key(o.metric.rawValue)
      guard case .array(let cells)? = value["tables"]?[o.metric.rawValue]?.kind, cells.count == 4 else {
        throw fail(p, "expected [neither, variantOnly, controlOnly, both]")
      }
      var xs: [UInt64] = []
      for (i, cell) in cells.enumerated() {
        guard case .number(_, let literal) = cell.kind, let x = UInt64(literal) else {
          throw fail(p.index(i), "expected a whole number ≥ 0")
        }
        xs.append(x)
      }
      guard xs.reduce(0 as UInt128, { $0 + UInt128($1) }) == UInt128(n) else { throw fail(p, "the cells do not add up to users") }
      (tables[o.rawValue].neither, tables[o.rawValue].variantOnly, tables[o.rawValue].controlOnly, tables[o.rawValue].both) =
        (xs[0], xs[1], xs[2], xs[3])
    }
    func sums(_ key: String) throws(SpecError) -> DifferenceSums {
      guard case .string(let s)? = value[key]?["sumCents"]?.kind, let sum = Int128(s),
        case .string(let q)? = value[key]?["sumSquaredCents"]?.kind, let squares = UInt128(q),
        case .number(_, let k)? = value[key]?["differingUsers"]?.kind, let differing = UInt64(k)
      else {
        throw fail(
          path.key(key),
          "expected {\"sumCents\": \"…\", \"sumSquaredCents\": \"…\", \"differingUsers\": n} (the sums as whole numbers in strings)")
      }
      // The count of users who differ cannot exceed the users, and is 0 exactly when Σd² is.
      guard differing <= users, (differing == 0) == (squares == 0) else {
        throw fail(path.key(key).key("differingUsers"), "does not match the users and the sums")
      }
      var d = DifferenceSums()
      d.sum = sum
      d.sumOfSquares = squares
      d.differing = differing
      return d
    }
    revenue = try sums("revenue")
    realizedRevenue = try sums("realizedRevenue")
  }
}
