/// What reads an event log line by line (``EventIngest`` for `ingest`, ``FlowInference``
/// for `infer`): the lines go in, and the bad lines and a fatal one come out, so that one
/// loop streams a log into either and stops it the same way.
package protocol EventLogReading {
  /// Reads one line (a CSV record's first line number for a record).
  mutating func add(line text: String, number: Int)
  /// Counts a line the line reader could not give as text (not UTF-8, too long).
  mutating func addBadLine(_ message: String, number: Int)
  /// Ends the log (a CSV record still open, users still on their way).
  mutating func finish()
  /// Lines that gave nothing, counted.
  var badLines: UInt64 { get }
  /// The first bad lines, with what was wrong.
  var firstBadLines: [EventIngest.BadLine] { get }
  /// A line that stops the reading (the log cannot be read on from it).
  var fatal: EventIngest.BadLine? { get }
}

extension EventIngest: EventLogReading {}
extension FlowInference: EventLogReading {}
