import FunnelStats
import Testing

@testable import FunnelLab

@Suite struct CSVReaderTests {
  @Test(arguments: ["\n", "\r\n", "\r"])
  func everyLineEndOfRFC4180AndOldMacs(lineEnd: String) throws {
    let text = ["arm,users", "a,1", "b,2"].joined(separator: lineEnd) + lineEnd
    let records = try CSVReader.records(text)
    #expect(records.map(\.fields) == [["arm", "users"], ["a", "1"], ["b", "2"]])
    #expect(records.map(\.line) == [1, 2, 3])
  }

  @Test func aByteOrderMarkIsSkipped() throws {
    #expect(try CSVReader.records("\u{FEFF}arm,users\na,1").first?.fields == ["arm", "users"])
  }

  @Test func quotedFieldsHoldCommasQuotesAndLineEnds() throws {
    let records = try CSVReader.records("name,note\r\n\"a,b\",\"say \"\"hi\"\"\"\r\n\"multi\r\nline\",x\r\nlast,1\r\n")
    #expect(records.map(\.fields) == [["name", "note"], ["a,b", "say \"hi\""], ["multi\r\nline", "x"], ["last", "1"]])
    #expect(records.map(\.line) == [1, 2, 3, 5], "a record's line is where it starts; a quoted line end counts")
  }

  @Test func blankLinesAndAMissingFinalLineEndAreFine() throws {
    #expect(try CSVReader.records("a,b\n\n1,2").map(\.fields) == [["a", "b"], ["1", "2"]])
    #expect(try CSVReader.records("").isEmpty)
    #expect(try CSVReader.records("a,,\n").first?.fields == ["a", "", ""])
  }

  @Test func anUnclosedQuoteAndTextAfterAQuoteAreErrorsWithTheirLine() {
    #expect(throws: CSVSyntaxError(line: 2, message: "a quoted field is never closed")) { try CSVReader.records("a\n\"open,1\n2\n") }
    #expect(throws: CSVSyntaxError.self) { try CSVReader.records("a\n\"x\"y,1\n") }
  }

  @Test func controlCharactersAreEscapedInMessages() {
    #expect("a\nError: fake\u{1B}[31m".escapingControlCharacters == "a\\nError: fake\\u{1B}[31m")
    #expect("line1\nline2\u{7}".escapingControlCharactersButNewlines == "line1\nline2\\u{7}")
    #expect("plain · text".escapingControlCharacters == "plain · text")
  }
  /// The record assembler's fast path (a line without quotes or carriage returns, split at its
  /// commas) gives the fields the reader gives, on seeded lines of commas, spaces, tabs, empty
  /// fields, numbers and multi-byte characters; and a quoted line still goes through the reader.
  @Test func theAssemblersSplitAgreesWithTheReader() throws {
    var rng = SplitMix64(seed: 20_261_128)
    let pieces = ["a", "12.5", "", " ", "\t", "é", "🙂", "x y", ",", ",,", " b ", "-3e2", "ü,ü"]
    for _ in 0..<2_000 {
      let text = (0..<Int(rng.next() % 8)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
      var assembler = CSVRecordAssembler()
      let step = assembler.add(text, number: 7)
      let isBlank = text.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 }
      if isBlank {
        #expect(step == .blank)
        continue
      }
      let expected = try CSVReader.records(text).first?.fields.map(\.trimmingSpaces) ?? []
      #expect(step == .record(expected, line: 7), "\(text.debugDescription)")
    }
    var assembler = CSVRecordAssembler()
    #expect(assembler.add("\"a,b\", c ", number: 1) == .record(["a,b", "c"], line: 1))
  }
}
