import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `funnellab exact`: exit codes, output formats, and its numbers against a simulation.
@Suite struct ExactCommandTests {
  /// The variants of a JSON document, as (id, variant object).
  func variants(_ json: String) throws -> [(id: String, value: JSONValue)] {
    let document = try JSONParser.parse(json)
    guard case .array(let items)? = document["variants"]?.kind else { return [] }
    return items.compactMap { item in
      guard case .string(let id)? = item["id"]?.kind else { return nil }
      return (id, item)
    }
  }

  func number(_ value: JSONValue?, _ path: String...) -> Double? {
    var current = value
    for key in path { current = current?[key] }
    guard case .number(let x, _)? = current?.kind else { return nil }
    return x
  }

  @Test func solvesTheBuiltInExperimentWithoutArguments() {
    let r = funnellab("exact")
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.hasPrefix("klick-onboarding · exact solution"))
    for variant in ["control", "upsellAfter3", "goalOptional", "features3", "features5"] {
      #expect(r.out.contains("Variant \(variant)"))
    }
    #expect(r.out.contains("revenue per user (12 months, net, USD)"))
    #expect(r.out.contains("trial starts"))
    #expect(r.err.isEmpty)
  }

  @Test func jsonHasASchemaVersionAndEveryMetric() throws {
    let r = funnellab("exact", experimentPath("betfree-onboarding"), "--format", "json")
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.hasPrefix("{\n  \"schemaVersion\": 1,\n  \"command\": \"exact\","))
    let all = try variants(r.out)
    #expect(all.map(\.id) == ["control", "defaultMonthly", "defaultLifetime", "yearlyPrice4999"])
    for (id, v) in all {
      // BetFree sells no plan with a trial: its trial metrics cannot be, so they are not there.
      for metric in FunnelMetric.allCases where ![.trialToPaid, .trialStartRate].contains(metric) {
        #expect(number(v, "metrics", metric.rawValue) != nil, "\(id) \(metric)")
      }
      #expect(v["metrics"]?["trialStartRate"] == nil && v["metrics"]?["trialToPaid"] == nil, "\(id)")
      guard case .array(let screens)? = v["screens"]?.kind else { throw CommandFailure(code: .software, text: "no screens") }
      #expect(screens.count == 5)
    }
    // The same bytes again, and to a file with -o.
    #expect(funnellab("exact", experimentPath("betfree-onboarding"), "--format", "json").out == r.out)
    let path = try temporaryFile("exact.json")
    let written = funnellab("exact", experimentPath("betfree-onboarding"), "--format", "json", "-o", path)
    #expect(written.code == 0)
    #expect(written.out.isEmpty)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == r.out)
  }

  /// The exact completion, purchase, paywall view and revenue per user agree with a
  /// 200,000-user simulation of the same spec, in a band set for the 4 checks per
  /// variant (``StatisticalBand``; betfree's 4 variants: n = 16, z ≈ 4.00).
  @Test func exactNumbersAgreeWithTheSimulation() throws {
    let path = experimentPath("betfree-onboarding")
    let exact = try variants(funnellab("exact", path, "--format", "json").out)
    let run = funnellab("run", path, "--users", "200000", "--format", "json", "--quiet")
    #expect(run.code == 0, "\(run.err)")
    let simulated = try variants(run.out)
    #expect(exact.map(\.id) == simulated.map(\.id))
    let band = StatisticalBand(checks: 4 * exact.count)
    for ((id, x), (_, mc)) in zip(exact, simulated) {
      for metric in ["completionRate", "purchaseConversion", "paywallViewRate"] {
        let p = try #require(number(x, "metrics", metric))
        let rate = try #require(number(mc, "metrics", metric))
        band.expect(rate, exact: p, standardError: (p * (1 - p) / 200_000).squareRoot(), "\(id) \(metric)")
      }
      let arpu = try #require(number(x, "metrics", "revenuePerUser"))
      let estimate = try #require(number(mc, "estimates", "revenuePerUser", "estimate"))
      let lower = try #require(number(mc["estimates"]?["revenuePerUser"]?["interval"], "lower"))
      let upper = try #require(number(mc["estimates"]?["revenuePerUser"]?["interval"], "upper"))
      // The interval is a 95% one, ±1.96 SE.
      #expect(number(mc["estimates"]?["revenuePerUser"]?["interval"], "level") == 0.95)
      band.expect(estimate, exact: arpu, standardError: (upper - lower) / 2 / 1.959_964, "\(id) revenue per user")
    }
  }

  @Test func variantSelectionKeepsTheControl() throws {
    let r = funnellab("exact", experimentPath("betfree-onboarding"), "--variant", "defaultMonthly", "--format", "json")
    #expect(r.code == 0, "\(r.err)")
    #expect(try variants(r.out).map(\.id) == ["control", "defaultMonthly"])
  }

  struct ErrorCase: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var code: Int32
    var message: String
    var testDescription: String { arguments.joined(separator: " ") }
  }

  static let errorCases = [
    ErrorCase(
      arguments: ["exact", "--variant", "defaultMonthy"], code: 64,
      message: "--variant 'defaultMonthy': klick-onboarding has no such variant"),
    ErrorCase(arguments: ["exact", "--format", "xml"], code: 64, message: "--format must be one of table, json"),
    ErrorCase(arguments: ["exact", "--users", "10"], code: 64, message: "unknown option '--users'"),
    ErrorCase(arguments: ["exact", "/nonexistent/spec.json"], code: 66, message: "no such file"),
    ErrorCase(arguments: ["exact", "-o", "/dev/null/dir/out.txt"], code: 73, message: "cannot write"),
  ]

  @Test(arguments: errorCases)
  func errorsHaveTheirExitCodes(_ c: ErrorCase) {
    let console = CapturingConsole()
    let code = FunnelLabCommandLine.run(c.arguments, console: console)
    #expect(code == c.code, "\(console.stderr)")
    #expect(console.stderr.contains(c.message), "\(console.stderr)")
    #expect(console.stdout.isEmpty)
  }

  @Test func helpListsTheCommand() {
    #expect(funnellab("--help").out.contains("exact"))
    let help = funnellab("exact", "--help")
    #expect(help.code == 0)
    #expect(help.out.contains("USAGE: funnellab exact [<spec>] [options]"))
  }
}
