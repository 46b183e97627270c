import Foundation
import Testing

/// One reference case from a fixture file written by `Fixtures/make_reference.py`.
struct FixtureCase: Sendable, CustomTestStringConvertible, Decodable {
  let id: String
  let fn: String
  let args: [String]
  let expected: [String]

  var testDescription: String { "\(id) \(fn)(\(args.joined(separator: ", "))) = \(expected)" }

  func arg(_ i: Int) -> Double { Double(args[i]) ?? .nan }
  func int(_ i: Int) -> Int { Int(args[i]) ?? Int(Double(args[i]) ?? -1) }
  var value: Double { Double(expected[0]) ?? .nan }
  func value(_ i: Int) -> Double { Double(expected[i]) ?? .nan }
}

struct FixtureFile: Decodable {
  let meta: [String: String]
  let cases: [FixtureCase]
}

enum Fixtures {
  static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

  /// Loads a fixture file; a missing or broken file yields no cases plus a failing sentinel.
  static func load(_ name: String) -> [FixtureCase] {
    let url = directory.appendingPathComponent(name)
    guard let data = try? Data(contentsOf: url),
      let file = try? JSONDecoder().decode(FixtureFile.self, from: data)
    else {
      return [FixtureCase(id: "missing", fn: "missing-fixture-file:\(name)", args: [], expected: [])]
    }
    return file.cases
  }

  static func cases(_ name: String, prefix: String) -> [FixtureCase] {
    load(name).filter { $0.fn.hasPrefix(prefix) || $0.fn.hasPrefix("missing") }
  }
}

/// Relative error with an absolute floor for expected zeros; equal infinities match.
func relativeError(_ got: Double, _ expected: Double, absoluteFloor: Double = 0) -> Double {
  if got == expected { return 0 }
  if got.isNaN || expected.isNaN { return .infinity }
  let diff = abs(got - expected)
  if diff <= absoluteFloor { return 0 }
  return diff / abs(expected)
}

/// `true` when `got` matches `expected` to `tolerance` (relative); prints the case otherwise.
func close(
  _ got: Double, _ expected: Double, _ tolerance: Double, absoluteFloor: Double = 0,
  _ label: @autoclosure () -> String
) -> Bool {
  let err = relativeError(got, expected, absoluteFloor: absoluteFloor)
  if err <= tolerance { return true }
  print("MISMATCH \(label()): got \(got) expected \(expected) relerr \(err) > tol \(tolerance)")
  return false
}
