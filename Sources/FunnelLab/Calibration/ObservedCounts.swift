/// Counts exported from an analytics tool, read from CSV for ``Calibration``.
///
/// The header names the columns `screen,action,count` and optionally `variant`
/// (in any order). A row with an empty `action` (or `action` = `views`) gives the
/// users who viewed the screen; the other rows give how many times an action was
/// taken. Rows of a variant other than the one calibrated are ignored.
/// ```
/// screen,action,count
/// welcome,,10000
/// welcome,continue,8512
/// ```
package struct ObservedCounts: Sendable, Hashable {
  /// Views per screen id, when the export has them.
  package var views: [String: UInt64]
  /// Counts per screen id and action id.
  package var actions: [String: [String: UInt64]]

  /// Counts given directly rather than parsed from CSV; no count is checked until the calibration uses it.
  package init(views: [String: UInt64] = [:], actions: [String: [String: UInt64]] = [:]) {
    self.views = views
    self.actions = actions
  }

  /// Parses CSV text (RFC 4180, through the one ``CSVReader``: CRLF, a byte order
  /// mark and quoted fields are read; a record whose first field starts with `#` is a comment).
  /// - Parameter variant: keep only rows of this variant (rows without a variant are kept).
  /// - Throws: ``SpecErrors`` whose errors carry the line (`file:line: message`).
  package static func parse(csv text: String, source: String, variant: String? = nil) throws(SpecErrors) -> ObservedCounts {
    var errors: [SpecError] = []
    var result = ObservedCounts()
    let records: [CSVRecord]
    do {
      records = try CSVReader.records(text)
    } catch {
      throw SpecErrors(source: source, errors: [SpecError(.syntax, path: .root, line: error.line, message: error.message)])
    }
    var columns: [String: Int] = [:]
    var headerSeen = false
    var rows = 0
    var otherVariants = Set<String>()
    for record in records {
      let line = record.line
      let fields = record.fields.map(\.trimmingSpaces)
      if fields.allSatisfy(\.isEmpty) || fields.first?.hasPrefix("#") == true { continue }
      if !headerSeen {
        headerSeen = true
        for (i, name) in fields.enumerated() { columns[name.lowercased()] = i }
        let missing = ["screen", "action", "count"].filter { columns[$0] == nil }
        if !missing.isEmpty {
          errors.append(
            SpecError(
              .missingKey, path: .root, line: line, message: "the header lacks \(missing.joined(separator: ", "))",
              hint: "the first line must name the columns: screen,action,count[,variant]"))
          break
        }
        continue
      }
      guard fields.count == columns.count else {
        errors.append(
          SpecError(
            .syntax, path: .root, line: line, message: "expected \(columns.count) fields, found \(fields.count)",
            hint: "screen,action,count"))
        continue
      }
      let screen = fields[columns["screen", default: 0]]
      let action = fields[columns["action", default: 1]]
      let countText = fields[columns["count", default: 2]]
      if let v = columns["variant"], let variant, !fields[v].isEmpty, fields[v] != variant {
        otherVariants.insert(fields[v])
        continue
      }
      guard !screen.isEmpty else {
        errors.append(SpecError(path: .root, line: line, message: "the screen is empty", hint: "name the screen's id"))
        continue
      }
      guard let count = UInt64(countText) else {
        errors.append(
          SpecError(.type, path: .root, line: line, message: "count '\(countText)' is not a whole number ≥ 0", hint: "e.g. 1250"))
        continue
      }
      rows += 1
      if let error = result.add(count, screen: screen, action: action, line: line) { errors.append(error) }
    }
    if !headerSeen {
      errors.append(SpecError(.syntax, path: .root, line: 1, message: "the file has no header", hint: "screen,action,count"))
    }
    if headerSeen, errors.isEmpty { errors += emptinessErrors(rows: rows, kept: result, variant: variant, otherVariants: otherVariants) }
    guard errors.isEmpty else { throw SpecErrors(source: source, errors: errors) }
    return result
  }
}

extension ObservedCounts {
  /// Adds `count` to the views (empty `action` or `views`) or the action's count of
  /// `screen`. Each count and each running total stays ≤ ``Limits/count`` (10¹⁵), so the
  /// addition cannot overflow.
  /// - Returns: the error (at `line`) when the count or the total would pass the limit.
  mutating func add(_ count: UInt64, screen: String, action: String, line: Int) -> SpecError? {
    let limit = UInt64(Limits.count)
    let isViews = action.isEmpty || action == "views"
    let total = (isViews ? views[screen] : actions[screen]?[action]) ?? 0
    guard count <= limit, total <= limit - count else {
      return SpecError(
        .limit, path: .root, line: line, message: "the count of \(screen) \(isViews ? "views" : action) passes the limit of \(limit)",
        hint: "counts are whole numbers up to 10^15")
    }
    if isViews {
      views[screen] = total + count
    } else {
      actions[screen, default: [:]][action] = total + count
    }
    return nil
  }

  /// The problem of a file that gives nothing to fit: no data rows, none of `variant`'s,
  /// or only zero counts.
  static func emptinessErrors(rows: Int, kept: ObservedCounts, variant: String?, otherVariants: Set<String>) -> [SpecError] {
    let counts = Array(kept.views.values) + kept.actions.values.flatMap(\.values)
    if rows == 0, otherVariants.isEmpty {
      return [SpecError(path: .root, line: 1, message: "the file has no counts after its header", hint: "add rows screen,action,count")]
    }
    if counts.isEmpty {
      return [
        SpecError(
          path: .root, line: 1, message: "no rows of variant '\(variant ?? "")'",
          hint: "the file has rows of " + otherVariants.sorted().joined(separator: ", ") + "; choose among them")
      ]
    }
    if counts.allSatisfy({ $0 == 0 }) {
      return [SpecError(path: .root, line: 1, message: "every count is 0", hint: "export the counts of a period with users")]
    }
    return []
  }
}

extension StringProtocol {
  /// The text without the spaces and tabs around it. On the UTF-8 bytes (a space or a tab is
  /// one byte and never part of another character's encoding), and the text itself when there
  /// is nothing to trim: a reader of millions of CSV fields calls it on every one.
  var trimmingSpaces: String {
    let text = String(self)
    let bytes = text.utf8
    func blank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
    guard let first = bytes.first, let last = bytes.last, blank(first) || blank(last) else { return text }
    guard let start = bytes.firstIndex(where: { !blank($0) }), let end = bytes.lastIndex(where: { !blank($0) }) else { return "" }
    return String(text[start...end])
  }
}

extension ObservedCounts {
  /// The distinct non-empty values of the CSV's `variant` column, in order of first
  /// appearance, and the line of the first data row whose variant is empty; no variants
  /// when the file has no such column or does not parse (``parse(csv:source:variant:)`` says why).
  package static func variantColumn(inCSV text: String) -> (variants: [String], unlabelledLine: Int?) {
    guard let records = try? CSVReader.records(text) else { return ([], nil) }
    var column: Int?
    var seen: [String] = []
    var unlabelled: Int?
    for record in records {
      let fields = record.fields.map(\.trimmingSpaces)
      if fields.allSatisfy(\.isEmpty) || fields.first?.hasPrefix("#") == true { continue }
      guard let c = column else {
        guard let i = fields.firstIndex(where: { $0.lowercased() == "variant" }) else { return ([], nil) }
        column = i
        continue
      }
      if c < fields.count, !fields[c].isEmpty {
        if !seen.contains(fields[c]) { seen.append(fields[c]) }
      } else if unlabelled == nil {
        unlabelled = record.line
      }
    }
    return (seen, unlabelled)
  }
}
