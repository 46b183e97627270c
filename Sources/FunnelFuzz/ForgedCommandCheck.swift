/// What a CI runner or a terminal acts on in output text: the one check of the fuzz judge
/// (``FuzzCase/judge(_:)``) and of the escaping tests.

/// Names a test feeds through every writer: each one a workflow command, a line break, or a
/// terminal escape that must come out as text.
public let hostileNames = [
  "a\nb", "a\rb", "::warning title=x::y", "  ::error::z", "##[error]w", "%0A::notice::p", "\u{1B}[31mred", "\u{9B}31m",
  "\u{202E}gnp.exe", "x\n::warning::y", "x\r::error::y", "##vso[task.setvariable variable=x]1", "ok ::notice::n", "###[", "##VSO[x]",
  "\t::debug::t", "\u{2028}::warning::u",
]

/// The lines of `text` (split at every line feed and carriage return, as a CI runner reads
/// them) that a CI runner or a terminal would act on, each with the reason: a line whose first
/// non-blank characters are `::` (a GitHub Actions workflow command; `annotations` allows the
/// `::error file=` lines `check --format github` writes), `##[` or `##vso[` anywhere
/// (GitHub's legacy parser, Azure Pipelines), or a control character other than tab, line feed
/// and a carriage return ending a line, a C1 control, a bidirectional override or a line separator.
public func forgedCommandLines(_ text: String, annotations: Bool = false) -> [String] {
  var problems: [String] = []
  let scalars = Array(text.unicodeScalars)
  for (i, c) in scalars.enumerated() where isTerminalControl(c) {
    if c == "\r", i + 1 < scalars.count, scalars[i + 1] == "\n" { continue }
    problems.append("control character U+\(String(c.value, radix: 16, uppercase: true))")
  }
  let lines = text.unicodeScalars.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" }.map { String($0) }
  for line in lines {
    let trimmed = String(String.UnicodeScalarView(line.unicodeScalars.drop { $0.properties.isWhitespace }))
    let annotation = annotations && trimmed.hasPrefix("::error file=")
    if trimmed.hasPrefix("::"), !annotation { problems.append("a line starts with '::': \(line.debugDescription)") }
    if line.contains("##[") || line.lowercased().contains("##vso[") { problems.append("'##[' in \(line.debugDescription)") }
  }
  return problems
}

/// Whether a terminal or a runner acts on `c`: C0 but tab and line feed (a carriage return is
/// judged by its place), DEL, C1, bidirectional overrides and isolates, line and paragraph separators.
func isTerminalControl(_ c: Unicode.Scalar) -> Bool {
  switch c.value {
  case 0x09, 0x0A: false
  case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
  default: false
  }
}
