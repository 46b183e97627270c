import FunnelLab
import Testing

@testable import FunnelReport

/// ``CSVWriter`` follows RFC 4180: fields with a comma or a quote are quoted and their
/// quotes doubled; every line, the last included, ends with CRLF. Control characters but tab
/// are escaped as in messages (issue 58: a field never spans two lines).
@Suite struct CSVWriterTests {
  @Test(arguments: [
    ("plain", "plain"), ("", ""), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("two\nlines", "two\\nlines"),
    ("cr\rhere", "cr\\rhere"), ("crlf\r\nhere", "crlf\\r\\nhere"), ("a,\nb", "\"a,\\nb\""), ("\"", "\"\"\"\""),
    ("  spaced  ", "  spaced  "),
    ("semi;colon", "semi;colon"), ("tab\there", "tab\there"), ("🙂,é", "\"🙂,é\""),
  ])
  func fieldsAreQuotedWhenTheyMustBe(value: String, field: String) {
    #expect(CSVWriter.field(value) == field)
  }

  /// The writer does not defend spreadsheets against formulas: a field starting with `=`,
  /// `+`, `-` or `@` is written as it is (the reports' fields are ids and numbers; a
  /// negative number must stay a number).
  @Test func formulaLikeFieldsAreWrittenAsTheyAre() {
    #expect(CSVWriter.field("=SUM(A1:A2)") == "=SUM(A1:A2)")
    #expect(CSVWriter.field("-0.5") == "-0.5")
    #expect(CSVWriter.field("=HYPERLINK(\"x\",\"y\")") == "\"=HYPERLINK(\"\"x\"\",\"\"y\"\")\"")
  }

  @Test func rowsEndWithCRLFAndKeepTheirWidth() {
    var w = CSVWriter(header: ["id", "value"])
    w.add(["a,1", "2"])
    w.add(["line\nbreak"])
    #expect(w.text == "id,value\r\n\"a,1\",2\r\nline\\nbreak\r\n")
  }

  /// Splitting the text by RFC 4180 gives back every field as written, control characters escaped.
  @Test func textRoundTripsThroughAnRFC4180Reader() {
    let rows = [["id", "note"], ["x\"y", "a,b\r\nc"], ["", "\n"], ["🙂", "plain"]]
    var w = CSVWriter(header: rows[0])
    for row in rows.dropFirst() { w.add(row) }
    #expect(Self.parse(w.text) == rows.map { $0.map(\.escapingControlCharacters) })
  }

  @Test func numbersAreShortestAndAbsentOrNonFiniteAreEmpty() {
    #expect(CSVWriter.number(0.1) == "0.1")
    #expect(CSVWriter.number(3) == "3")
    #expect(CSVWriter.number(-2.5e-7) == "-2.5e-07")
    #expect(CSVWriter.number(nil) == "")
    #expect(CSVWriter.number(.nan) == "")
    #expect(CSVWriter.number(.infinity) == "")
  }

  /// A minimal RFC 4180 reader (quoted fields, doubled quotes, CRLF records).
  static func parse(_ text: String) -> [[String]] {
    var rows: [[String]] = []
    var row: [String] = []
    var field = ""
    var quoted = false
    var chars = Array(text)[...]
    while let c = chars.popFirst() {
      if quoted {
        if c == "\"" {
          if chars.first == "\"" {
            field.append(chars.removeFirst())
          } else {
            quoted = false
          }
        } else {
          field.append(c)
        }
      } else if c == "\"" {
        quoted = true
      } else if c == "," {
        row.append(field)
        field = ""
      } else if c == "\r\n" {
        row.append(field)
        rows.append(row)
        row = []
        field = ""
      } else {
        field.append(c)
      }
    }
    return rows
  }
}
