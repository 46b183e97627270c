import Foundation

/// Splits bytes that arrive in chunks into lines, holding at most one line: what a
/// reader of a log larger than memory needs. Lines end with LF or CRLF; a UTF-8 byte
/// order mark before the first line is dropped.
///
/// A line that is not UTF-8, or longer than ``maximumLineBytes``, comes out as a
/// problem instead of text (its bytes are not kept: a longer line is skipped to its
/// end). A line longer than ``maximumSkippedBytes`` ends the reading: a file without
/// line ends (`/dev/zero`) is not a log.
package struct LineReader {
  /// One line, by its 1-based number: its text, or why it has none.
  package enum Line: Equatable {
    case text(String)
    case problem(String)
  }

  /// The longest line kept, in bytes (1 MiB).
  package let maximumLineBytes: Int
  /// The longest line skipped before the reading stops, in bytes (64 MiB).
  package let maximumSkippedBytes: Int
  private var pending: [UInt8] = []
  private var skipped = 0
  private var number = 0
  private var started = false
  /// Set once a line passed ``maximumSkippedBytes``, with that line's number and why:
  /// nothing more is read.
  package private(set) var stopped: (line: Int, message: String)?

  /// A reader with the given bounds.
  package init(maximumLineBytes: Int = 1 << 20, maximumSkippedBytes: Int = 64 << 20) {
    self.maximumLineBytes = maximumLineBytes
    self.maximumSkippedBytes = maximumSkippedBytes
  }

  /// Reads `chunk`, handing each line it completes to `body` with its number.
  package mutating func feed(_ chunk: ArraySlice<UInt8>, _ body: (Int, Line) -> Void) {
    guard stopped == nil else { return }
    var start = chunk.startIndex
    if !started, !chunk.isEmpty {
      // The byte order mark may straddle two chunks: wait for three bytes.
      let head = pending + chunk.prefix(3)
      if head.count < 3, [0xEF, 0xBB, 0xBF].starts(with: head) {
        pending = head
        return
      }
      started = true
      if head.starts(with: [0xEF, 0xBB, 0xBF]) {
        let fromPending = min(pending.count, 3)
        pending.removeFirst(fromPending)
        start += 3 - fromPending
      }
    }
    chunk.withUnsafeBufferPointer { buffer in
      guard let first = buffer.baseAddress else { return }
      var from = start - chunk.startIndex
      // `memchr` finds each line end: one call a line, not a generic scan a byte.
      while from < buffer.count, let found = memchr(first + from, 0x0A, buffer.count - from) {
        let newline = UnsafeRawPointer(first).distance(to: found)
        take(UnsafeBufferPointer(rebasing: buffer[from..<newline]))
        finishLine(body)
        from = newline + 1
        if stopped != nil { return }
      }
      if from < buffer.count { take(UnsafeBufferPointer(rebasing: buffer[from...])) }
    }
  }

  /// Ends the input: the last line, when it has no line end.
  package mutating func finish(_ body: (Int, Line) -> Void) {
    guard stopped == nil, !pending.isEmpty || skipped > 0 else { return }
    finishLine(body)
  }

  private mutating func take(_ bytes: UnsafeBufferPointer<UInt8>) {
    if skipped > 0 || pending.count + bytes.count > maximumLineBytes {
      skipped += pending.count + bytes.count
      pending.removeAll(keepingCapacity: true)
      if skipped > maximumSkippedBytes {
        stopped = (number + 1, "longer than \(Self.size(maximumSkippedBytes)): not a log of one event per line")
      }
    } else {
      pending.append(contentsOf: bytes)
    }
  }

  private mutating func finishLine(_ body: (Int, Line) -> Void) {
    number += 1
    defer {
      pending.removeAll(keepingCapacity: true)
      skipped = 0
    }
    if skipped > 0 {
      body(number, .problem("longer than \(Self.size(maximumLineBytes))"))
      return
    }
    if pending.last == 0x0D { pending.removeLast() }
    guard let text = String(validating: pending, as: UTF8.self) else {
      body(number, .problem("not UTF-8 text"))
      return
    }
    body(number, .text(text))
  }

  /// `n` bytes in words: whole MiB from 1 MiB up.
  static func size(_ n: Int) -> String { n >= 1 << 20 ? "\(n >> 20) MiB" : "\(n) bytes" }
}
