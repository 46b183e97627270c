/// How an event log writes its times; which one a log used is decided by its first event and
/// reported, so that a reader can see whether seconds were not taken for milliseconds.
package enum LogTimeFormat: String, Sendable, CaseIterable {
  /// A number of seconds since 1970-01-01 UTC (below 10¹¹).
  case epochSeconds
  /// A number of milliseconds since the epoch (10¹¹ to below 10¹⁴).
  case epochMilliseconds
  /// A number of microseconds since the epoch (10¹⁴ and above).
  case epochMicroseconds
  /// ISO 8601: `2024-03-13T10:21:14.250Z`, with `Z` or an offset `±HH:MM` (none: UTC).
  case iso8601
  /// `YYYY-MM-DD HH:MM:SS`, with optional fraction, read as UTC.
  case dateTime
}

/// Reads one event time into milliseconds since the epoch.
///
/// A number's unit is told by its size (seconds below 10¹¹, i.e. before year 5138;
/// milliseconds below 10¹⁴; microseconds above), a text by its shape
/// (`YYYY-MM-DD[T ]HH:MM:SS[.f…][Z|±HH[:MM]]`). Dates are checked (month, day of that month,
/// hour, minute, second) and the result lies in ``FlowInference/timestamps``.
///
/// - Complexity: O(n) in the text's length, no allocation but the number's parse.
package enum LogTimestamp {
  /// The time `text` gives, in milliseconds since the epoch, and how it was written;
  /// `nil` when it is not a time.
  package static func milliseconds(_ text: String) -> (milliseconds: Double, format: LogTimeFormat)? {
    if let number = Double(text), number.isFinite {
      let magnitude = abs(number)
      let (ms, format): (Double, LogTimeFormat) =
        magnitude < 1e11
        ? (number * 1000, .epochSeconds) : magnitude < 1e14 ? (number, .epochMilliseconds) : (number / 1000, .epochMicroseconds)
      return FlowInference.timestamps.contains(ms) ? (ms, format) : nil
    }
    guard let read = date(Array(text.utf8)), FlowInference.timestamps.contains(read.0) else { return nil }
    return (read.0, read.iso ? .iso8601 : .dateTime)
  }

  /// Parses `YYYY-MM-DD[T ]HH:MM:SS[.f…][Z|±HH[:MM]]`; `iso` when it had a `T` or a zone.
  private static func date(_ b: [UInt8]) -> (Double, iso: Bool)? {
    func digits(_ at: Int, _ n: Int) -> Int? {
      guard at + n <= b.count else { return nil }
      var v = 0
      for k in at..<at + n {
        guard (0x30...0x39).contains(b[k]) else { return nil }
        v = v * 10 + Int(b[k] - 0x30)
      }
      return v
    }
    guard b.count >= 19, let y = digits(0, 4), b[4] == 0x2D, let m = digits(5, 2), b[7] == 0x2D, let d = digits(8, 2),
      b[10] == 0x54 || b[10] == 0x20, let h = digits(11, 2), b[13] == 0x3A, let mi = digits(14, 2), b[16] == 0x3A,
      let s = digits(17, 2)
    else { return nil }
    guard (1...12).contains(m), d >= 1, d <= daysIn(month: m, year: y), h < 24, mi < 60, s <= 60 else { return nil }
    var at = 19
    var fraction = 0.0
    if at < b.count, b[at] == 0x2E {
      at += 1
      var scale = 0.1
      let start = at
      while at < b.count, (0x30...0x39).contains(b[at]) {
        fraction += Double(b[at] - 0x30) * scale
        scale /= 10
        at += 1
      }
      if at == start { return nil }
    }
    var iso = b[10] == 0x54
    var offsetMinutes = 0
    if at < b.count {
      iso = true
      if b[at] == 0x5A, at + 1 == b.count {
        at += 1
      } else if b[at] == 0x2B || b[at] == 0x2D, let oh = digits(at + 1, 2), oh < 24 {
        let sign = b[at] == 0x2D ? -1 : 1
        at += 3
        if at < b.count, b[at] == 0x3A { at += 1 }
        var om = 0
        if at < b.count {
          guard let v = digits(at, 2), v < 60 else { return nil }
          om = v
          at += 2
        }
        offsetMinutes = sign * (oh * 60 + om)
      }
      guard at == b.count else { return nil }
    }
    let days = daysFromCivil(year: y, month: m, day: d)
    let seconds = Double(days * 86_400 + h * 3_600 + mi * 60 + s - offsetMinutes * 60) + fraction
    return (seconds * 1000, iso)
  }

  private static func daysIn(month m: Int, year y: Int) -> Int {
    switch m {
    case 2: (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible
  /// Low-Level Date Algorithms", `days_from_civil`).
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// `milliseconds` since the epoch written as `YYYY-MM-DD HH:MM:SS.fff` (UTC), or in ISO 8601
  /// with `T` and `Z` when `iso`: what `trace` writes in the analytics tools' shapes.
  package static func text(milliseconds: UInt64, iso: Bool) -> String {
    let days = Int(milliseconds / 86_400_000)
    var rest = Int(milliseconds % 86_400_000)
    let (y, m, d) = civil(days: days)
    let h = rest / 3_600_000
    rest %= 3_600_000
    let mi = rest / 60_000
    rest %= 60_000
    func pad(_ v: Int, _ n: Int) -> String {
      let s = String(v)
      return String(repeating: "0", count: max(0, n - s.count)) + s
    }
    let time = "\(pad(h, 2)):\(pad(mi, 2)):\(pad(rest / 1000, 2)).\(pad(rest % 1000, 3))"
    return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))" + (iso ? "T\(time)Z" : " \(time)")
  }

  /// The date of `days` since 1970-01-01 (Hinnant's `civil_from_days`), for days ≥ 0.
  static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = z / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }
}
