import Foundation
package import FunnelStats

/// The counts of a real experiment, one CSV row per arm: the file `funnellab analyze --data`
/// reads (RFC 4180, through the one ``CSVReader``).
///
/// **Columns.** A header names them, in any order and case: `arm`, `users` and `conversions`
/// are required; `revenue_sum` and `revenue_sum_squares` (the revenue's sum and sum of squares
/// over the arm's users) go together; a `day` column dates each row (the counts of that day, or
/// running totals), a `segment` column splits each arm by segment; a file has one or the other,
/// not both. Any other column is refused, with the nearest known name. Cells are trimmed of
/// spaces; users and conversions are whole numbers (`12_000` and `1.2e4` read), revenue sums
/// finite decimal numbers, a day or segment 1 to 40 characters.
///
/// ```swift
/// let rows = try CountsFile.read("arm,users,conversions\ncontrol,12000,1320\nb,12000,1404\n")
/// rows.map(\.arm.name)  // ["control", "b"]
/// ```
///
/// **Problems.** The first problem stops the reading: a ``Problem`` with its line and what is
/// wrong in words that say what to write instead (`funnellab analyze` prefixes the file's name).
package enum CountsFile {
  /// One row of the file: an arm's counts, on a day or in a segment when the file has that column.
  package struct Row: Sendable, Hashable {
    /// The arm's counts (and revenue sums, when the file has them).
    package var arm: ArmData
    /// The 1-based line of the file the row starts on.
    package var line: Int
    /// The row's day, when the file has a `day` column.
    package var day: String?
    /// The row's segment, when the file has a `segment` column.
    package var segment: String?
  }

  /// A problem that stops the reading: its line and what is wrong.
  package struct Problem: Error, Sendable, Hashable {
    /// The 1-based line of the problem.
    package var line: Int
    /// What is wrong and what to write instead.
    package var message: String
  }

  /// The columns every file names.
  static let required = ["arm", "users", "conversions"]
  /// Every column a file may name.
  static let known = Set(required + ["revenue_sum", "revenue_sum_squares", "day", "segment"])

  /// The rows of the counts file `text`, in file order (none when it has a header only).
  /// - Throws: ``Problem`` at the first line that cannot be read (the CSV's syntax, the header or a row).
  /// - Complexity: O(*n*) in the length of `text`.
  package static func read(_ text: String) throws(Problem) -> [Row] {
    let records: [CSVRecord]
    do { records = try CSVReader.records(text) } catch { throw Problem(line: error.line, message: error.message) }
    guard let header = records.first else {
      throw Problem(line: 1, message: "the file is empty; expected the header arm,users,conversions")
    }
    let columns = try self.columns(header)
    return try records.dropFirst().map { (record) throws(Problem) in try row(record, columns: columns) }
  }

  /// The header's column names, trimmed and lowercased, checked.
  static func columns(_ header: CSVRecord) throws(Problem) -> [String] {
    func fail(_ message: String) -> Problem { Problem(line: header.line, message: message) }
    let columns = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    for (k, name) in columns.enumerated() where columns[..<k].contains(name) {
      throw fail("column '\(name)' appears twice in the header; keep one")
    }
    for name in required where !columns.contains(name) {
      throw fail("missing column '\(name)'; the header must name arm,users,conversions[,revenue_sum,revenue_sum_squares]")
    }
    if columns.contains("segment"), columns.contains("day") {
      throw fail("a file has a day column or a segment column, not both; analyze the last day's rows by segment")
    }
    for name in columns where !known.contains(name) {
      throw fail(
        "unknown column '\(name)'"
          + (NameSuggestion.closest(to: name, in: Array(known).sorted()).map { "; did you mean '\($0)'?" } ?? ""))
    }
    if columns.contains("revenue_sum") != columns.contains("revenue_sum_squares") {
      throw fail("revenue_sum and revenue_sum_squares go together")
    }
    return columns
  }

  /// The row of `record` under `columns`.
  static func row(_ record: CSVRecord, columns: [String]) throws(Problem) -> Row {
    let cells = record.fields.map { $0.trimmingCharacters(in: .whitespaces) }
    let line = record.line
    func fail(_ message: String) -> Problem { Problem(line: line, message: message) }
    guard cells.count == columns.count else { throw fail("\(cells.count) fields, expected \(columns.count)") }
    func cell(_ name: String) -> String { columns.firstIndex(of: name).map { cells[$0] } ?? "" }
    guard !cell("arm").isEmpty else { throw fail("the arm name is empty") }
    guard let users = decimalInteger(cell("users")) else { throw fail("users '\(cell("users"))' is not a whole number") }
    guard let conversions = decimalInteger(cell("conversions")) else {
      throw fail("conversions '\(cell("conversions"))' is not a whole number")
    }
    var revenue: ArmData.Revenue?
    if columns.contains("revenue_sum") {
      guard let sum = decimalNumber(cell("revenue_sum")), let squares = decimalNumber(cell("revenue_sum_squares"))
      else { throw fail("revenue_sum and revenue_sum_squares must be numbers") }
      revenue = .statistic(SampleMeanStatistic(n: users, sum: sum, sumOfSquares: squares))
    }
    let day = columns.contains("day") ? cell("day") : nil
    if let day, day.isEmpty || day.count > 40 { throw fail("the day is empty or longer than 40 characters") }
    let segment = columns.contains("segment") ? cell("segment") : nil
    if let segment, segment.isEmpty || segment.count > 40 { throw fail("the segment is empty or longer than 40 characters") }
    return Row(
      arm: ArmData(name: cell("arm"), users: users, conversions: conversions, revenue: revenue), line: line, day: day, segment: segment)
  }
}
