import FunnelLab
import FunnelStats

/// Number formatting shared by the text renderers: fixed decimals, thousands
/// separators, percentages. Pure functions of their input, identical on every
/// platform (no locale).
package enum NumberText {
  /// `value` with `decimals` digits after the point, rounded half away from zero.
  /// Items joined in prose: `a`, `a and b`, `a, b and c`.
  package static func list(_ items: [String]) -> String {
    guard let last = items.last else { return "" }
    return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " and " + last
  }

  package static func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "n/a" : (value > 0 ? "∞" : "-∞") }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
    let negative = value < 0 && scaled > 0
    let whole = scaled / scale
    let intPart = whole.rounded(.towardZero)
    // Beyond 10¹⁵ the decimals are noise and Int64 may not hold the value: shortest form.
    guard abs(value) < 1e15, let wholeDigits = Int64(rounding: intPart), let frac = Int64(rounding: scaled - intPart * scale)
    else { return JSONValue.format(value) }
    var text = String(wholeDigits)
    if decimals > 0 {
      let digits = String(frac)
      text += "." + String(repeating: "0", count: max(0, decimals - digits.count)) + digits
    }
    return negative ? "-" + text : text
  }

  /// A count held in a `Double` (a sample size), rounded by `rule`, with `,` between
  /// thousands; the shortest decimal form when it does not fit an `Int`.
  package static func grouped(_ value: Double, rounding rule: FloatingPointRoundingRule) -> String {
    Int(rounding: value, rule).map { grouped($0) } ?? JSONValue.format(value)
  }

  /// An interval bound: `value` with `decimals` digits, or more when fewer would print a
  /// non-zero bound as zero (so that an interval never looks as if it touched or crossed 0
  /// when it does not); at most 12 decimals, then scientific notation with one digit before
  /// the point (`1.00e-13`).
  package static func bound(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite, value != 0 else { return fixed(value, decimals) }
    var digits = decimals
    while digits < 12 {
      let text = fixed(value, digits)
      if text.contains(where: { "123456789".contains($0) }) { return text }
      digits += 1
    }
    var exponent = 0
    var mantissa = abs(value)
    while mantissa < 1 {
      mantissa *= 10
      exponent -= 1
    }
    var significand = fixed(mantissa, 2)
    if significand == "10.00" {
      // 9.995 and above (or a product that fell just short of 1) round up to the next power of ten.
      significand = "1.00"
      exponent += 1
    }
    return (value < 0 ? "-" : "") + significand + "e" + String(exponent)
  }

  /// A whole number with `,` between thousands.
  package static func grouped<T: BinaryInteger>(_ value: T) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
      if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
      out.append(c)
    }
    return value < 0 ? "-" + out : out
  }

  /// The confidence level `1 − alpha` as a label, e.g. `0.05` → `95%`, `0.1` → `90%`,
  /// `0.025` → `97.5%` (up to three decimals, trailing zeros dropped).
  package static func level(alpha: Double) -> String {
    var text = fixed((1 - alpha) * 100, 3)
    while text.contains("."), text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text + "%"
  }

  /// A proportion as a percentage, e.g. `0.1234` → `12.3%`.
  package static func percent(_ value: Double?, decimals: Int = 1) -> String {
    guard let value else { return "n/a" }
    return fixed(value * 100, decimals) + "%"
  }

  /// A difference of proportions in percentage points with a sign, e.g. `+1.2 pp`.
  package static func points(_ value: Double?, decimals: Int = 1) -> String {
    guard let value else { return "n/a" }
    return signed(value * 100, decimals) + " pp"
  }

  /// A difference through ``fixed(_:_:)`` with `+` before a positive one; one that rounds
  /// to zero has no sign (`0.00`, never `+0.00` beside an exact `0.00`).
  package static func signed(_ value: Double, _ decimals: Int) -> String {
    let text = fixed(value, decimals)
    let roundsToZero = !text.contains { "123456789".contains($0) }
    return value > 0 && !roundsToZero && value.isFinite ? "+" + text : text
  }

  /// A relative lift in percent with two decimals and its interval, e.g.
  /// `+4.59% [4.37, 4.80]`; only the lift when it has no interval, `n/a` without one.
  static func lift(_ lift: IntervalEstimate?) -> String {
    guard let estimate = lift?.estimate else { return "n/a" }
    let text = signed(estimate * 100, 2) + "%"
    guard let i = lift?.interval else { return text }
    return text + " [\(bound(i.lower * 100, 2)), \(bound(i.upper * 100, 2))]"
  }

  /// An exact relative lift in percent with two decimals and a sign, e.g. `-2.10%`; `n/a` when `nil`.
  package static func lift(_ value: Double?) -> String { value.map { signed($0 * 100, 2) + "%" } ?? "n/a" }

  /// A duration in seconds through ``fixed(_:_:)`` with an ` s` suffix, e.g. `12.3 s`; `n/a` when `nil`.
  package static func seconds(_ value: Double?, decimals: Int = 1) -> String {
    guard let value else { return "n/a" }
    return fixed(value, decimals) + " s"
  }
}

/// A plain-text table with aligned columns, fitted to the width of the
/// ``TerminalLayout/current`` layout.
///
/// A table wider than the layout leaves out its ``secondary`` columns when that is enough, else splits its
/// columns into parts that each repeat the key columns (the leading left-aligned ones, as R
/// and pandas print a wide frame), and when a single column cannot fit beside the keys,
/// writes each row as a block of `header value` pairs. A line under it says what was left
/// out or split, and that `--wide` shows the whole table.
package struct TextTable {
  /// How a column's cells are padded: `left` for names and words, `right` for numbers.
  package enum Alignment { case left, right }
  /// The column titles; their count fixes the number of columns (a row may not have more cells).
  package var headers: [String]
  /// One alignment per column, in column order; the header row is aligned like the cells below it.
  package var alignments: [Alignment]
  /// The body rows, in display order.
  package var rows: [[String]] = []
  /// The columns (by index) a narrow layout leaves out first, right-most first: what the
  /// primary columns make redundant (an absolute difference beside the relative lift).
  package var secondary: [Int] = []
  /// How many leading columns name a row and are repeated in every split part; `nil`: the
  /// leading left-aligned ones that take at most half the width.
  package var keyColumns: Int?

  /// A table without rows; `alignments` needs one entry per header.
  package init(_ headers: [String], alignments: [Alignment], secondary: [Int] = []) {
    self.headers = headers
    self.alignments = alignments
    self.secondary = secondary
  }

  /// Appends a row: cells in column order, already formatted (see ``NumberText``).
  package mutating func add(_ row: [String]) { rows.append(row) }

  /// The header, a `─` rule and the rows, each line prefixed by `indent`, columns as wide as their widest cell
  /// (in display columns) and two spaces apart, trailing spaces trimmed; every line ends with a newline.
  /// Fitted to ``TerminalLayout/current``'s width (see the type's discussion).
  package func render(indent: String = "  ") -> String {
    render(indent: indent, width: TerminalLayout.current.width)
  }

  /// The table fitted to `width` display columns (`nil`: no limit).
  package func render(indent: String, width: Int?) -> String {
    let widths = headers.indices.map { c in ([headers] + rows).map { $0.indices.contains(c) ? TextWidth.columns($0[c]) : 0 }.max() ?? 0 }
    func span(_ columns: [Int]) -> Int { indent.count + columns.reduce(0) { $0 + widths[$1] } + 2 * max(0, columns.count - 1) }
    var shown = Array(headers.indices)
    guard let width, span(shown) > width else { return lines(shown, widths, indent) }
    // Secondary columns go only when that makes the table fit; a table split anyway keeps them.
    var dropped: [Int] = []
    if span(shown.filter { !secondary.contains($0) }) <= width {
      for c in secondary.reversed() where span(shown) > width && shown.contains(c) {
        shown.removeAll { $0 == c }
        dropped.insert(c, at: 0)
      }
    }
    var out: String
    var split = 0
    if span(shown) <= width {
      out = lines(shown, widths, indent)
    } else {
      var keys =
        keyColumns.map { Array(shown.prefix($0)) }
        ?? Array(shown.prefix { alignments[$0] == .left }.prefix { span(Array(shown.prefix($0 + 1))) <= width / 2 })
      if keys.isEmpty, let first = shown.first { keys = [first] }
      var parts: [[Int]] = []
      for c in shown where !keys.contains(c) {
        if let last = parts.indices.last, span(keys + parts[last] + [c]) <= width { parts[last].append(c) } else { parts.append([c]) }
      }
      if parts.isEmpty {
        // The key columns alone are too wide: a block per row, headed by the first.
        out = blocks(shown, keys: Array(keys.prefix(1)), indent: indent, width: width)
      } else if parts.contains(where: { span(keys + $0) > width }) {
        out = blocks(shown, keys: keys, indent: indent, width: width)
      } else {
        out = parts.map { lines(keys + $0, widths, indent) }.joined(separator: "\n")
        split = parts.count
      }
    }
    var notes: [String] = []
    if !dropped.isEmpty { notes.append("left out: " + dropped.map { headers[$0] }.joined(separator: ", ")) }
    if split > 1 { notes.append("split in \(split) parts") }
    if notes.isEmpty { notes.append("one block per row") }
    let note = "(" + notes.joined(separator: "; ") + " to fit \(width) columns; --wide shows the whole table)"
    return out + TextWrap.wrap(note, width: width - indent.count, indent: 1).map { indent + $0 + "\n" }.joined()
  }

  /// The header, its rule and the rows of `columns`.
  private func lines(_ columns: [Int], _ widths: [Int], _ indent: String) -> String {
    func line(_ cells: [String]) -> String {
      let parts = columns.map { c -> String in
        let cell = cells.indices.contains(c) ? cells[c] : ""
        let pad = String(repeating: " ", count: max(0, widths[c] - TextWidth.columns(cell)))
        return alignments[c] == .left ? cell + pad : pad + cell
      }
      var text = indent + parts.joined(separator: "  ")
      while text.hasSuffix(" ") { text.removeLast() }
      return text
    }
    var out = line(headers) + "\n"
    var rule = indent + columns.map { String(repeating: "─", count: widths[$0]) }.joined(separator: "  ")
    while rule.hasSuffix(" ") { rule.removeLast() }
    out += rule + "\n"
    for row in rows { out += line(row) + "\n" }
    return out
  }

  /// Each row as a block: its key cells as a heading, then `header value` pairs folded to `width`.
  private func blocks(_ columns: [Int], keys: [Int], indent: String, width: Int) -> String {
    var out = ""
    for row in rows {
      func cell(_ c: Int) -> String { row.indices.contains(c) ? row[c] : "" }
      out += indent + keys.map(cell).filter { !$0.isEmpty }.joined(separator: " · ") + "\n"
      let pairs = columns.filter { !keys.contains($0) && !cell($0).isEmpty }.map { headers[$0] + " " + cell($0) }
      for line in TextWrap.wrap(pairs.joined(separator: " · "), width: width - indent.count - 2, indent: 0) {
        out += indent + "  " + line + "\n"
      }
    }
    return out
  }
}

extension String {
  /// The string with its first character upper-cased (the start of a sentence).
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
