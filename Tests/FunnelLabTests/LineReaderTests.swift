import Testing

@testable import FunnelLab

/// The line splitter of streamed logs: the same lines whatever the chunks, bounded memory.
@Suite struct LineReaderTests {
  /// Every line of `bytes` fed in chunks of `size` bytes.
  static func lines(_ bytes: [UInt8], chunk size: Int, reader: LineReader = LineReader()) -> (
    lines: [LineReader.Line], stopped: (line: Int, message: String)?
  ) {
    var reader = reader
    var out: [(Int, LineReader.Line)] = []
    var start = 0
    while start < bytes.count {
      reader.feed(bytes[start..<min(start + size, bytes.count)]) { out.append(($0, $1)) }
      start += size
    }
    reader.finish { out.append(($0, $1)) }
    #expect(out.map(\.0) == Array(1..<(out.count + 1)), "numbered from 1 without gaps")
    return (out.map(\.1), reader.stopped)
  }

  /// LF and CRLF ends, a byte order mark (even split across chunks), a last line without
  /// an end, blank lines and multi-byte characters split across chunks: the same lines
  /// for every chunk size.
  @Test func theLinesDoNotDependOnTheChunks() {
    let text = "\u{FEFF}first\r\nsecond é😀\n\nlast"
    let expected: [LineReader.Line] = [.text("first"), .text("second é😀"), .text(""), .text("last")]
    for size in [1, 2, 3, 5, 64] { #expect(Self.lines(Array(text.utf8), chunk: size).lines == expected, "chunk \(size)") }
    #expect(Self.lines(Array("a\n".utf8), chunk: 1).lines == [.text("a")], "a final line end adds no empty line")
    #expect(Self.lines([0xEF, 0xBB], chunk: 1).lines == [.problem("not UTF-8 text")], "half a byte order mark is not text")
    #expect(Self.lines([], chunk: 4).lines.isEmpty)
  }

  /// A line that is not UTF-8 or too long is a problem line and the next lines read on;
  /// a line longer than the skipping bound stops the reader.
  @Test func badLinesAreProblemsAndEndlessLinesStopTheReading() {
    var bytes = Array("ok\n".utf8) + [0x61, 0xC3, 0x28, 0x0A] + Array(repeating: 0x78, count: 40) + Array("\nafter\n".utf8)
    let reader = LineReader(maximumLineBytes: 16, maximumSkippedBytes: 100)
    for size in [1, 7, 1000] {
      let result = Self.lines(bytes, chunk: size, reader: reader)
      #expect(result.lines == [.text("ok"), .problem("not UTF-8 text"), .problem("longer than 16 bytes"), .text("after")])
      #expect(result.stopped == nil)
    }
    bytes = Array("ok\n".utf8) + Array(repeating: 0, count: 500)
    let endless = Self.lines(bytes, chunk: 64, reader: reader)
    #expect(endless.lines == [.text("ok")])
    #expect(endless.stopped?.line == 2)
    #expect(endless.stopped?.message == "longer than 100 bytes: not a log of one event per line")
  }
}
