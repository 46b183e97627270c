import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `run`/`exact`/`power --parameter-uncertainty` end to end, and every way to misuse them.
@Suite struct PredictionCommandTests {
  static let section = #"{"draws": 30, "parameters": {"defaultPlanBias": {"mean": 1, "sd": 0.3}}}"#

  static func specFile() throws -> String {
    var text = pastTestSpec()
    let end = try #require(text.range(of: "}", options: .backwards))
    text.replaceSubrange(end, with: ", \"parameterUncertainty\": \(section) }")
    return try temporaryFile("spec.json", contents: text)
  }

  @Test func exactAndRunPredictTheSameEffects() throws {
    let spec = try Self.specFile()
    let exact = funnellab("exact", spec, "--parameter-uncertainty", "--format", "json")
    let run = funnellab("run", spec, "--parameter-uncertainty", "--format", "json", "--threads", "1")
    #expect(exact.code == 0, "\(exact.err)")
    #expect(run.code == 0, "\(run.err)")
    #expect(exact.out.replacingOccurrences(of: "\"command\": \"exact\"", with: "\"command\": \"run\"") == run.out)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(exact.out.utf8)) as? [String: Any])
    #expect(json["mode"] as? String == "prediction")
    #expect((json["draws"] as? [Any])?.count == 30)
    let variants = try #require(json["variants"] as? [[String: Any]])
    #expect(variants.map { $0["id"] as? String } == ["control", "defaultMonthly", "goalOptional"])
    // Pre-selecting monthly loses conversions whatever the bias (it is positive in every draw).
    #expect(variants[1]["probabilityToBeatControl"] as? Double == 0)
    let table = funnellab("exact", spec, "--parameter-uncertainty", "--variant", "defaultMonthly", "--draws", "10", "--alpha", "0.1")
    #expect(table.code == 0, "\(table.err)")
    #expect(table.out.contains("10 draws (seed 1) of defaultPlanBias ~ normal(1, sd 0.3)."), "\(table.out)")
    #expect(table.out.contains("90% predictive interval"))
    #expect(!table.out.contains("goalOptional"))
  }

  @Test func effectsAreOnTheMetricAsked() throws {
    let spec = try Self.specFile()
    let r = funnellab("exact", spec, "--parameter-uncertainty", "--metric", "revenuePerUser", "--draws", "5", "--format", "json")
    #expect(r.code == 0, "\(r.err)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    #expect(json["metric"] as? String == "revenuePerUser")
    let experiment = try ExperimentLoader.load(text: try String(contentsOfFile: spec, encoding: .utf8), source: "test")
    #expect(experiment.metrics.primary != .revenuePerUser)
    let variants = try #require(json["variants"] as? [[String: Any]])
    for (i, variant) in variants.enumerated() {
      let exact = ExactEngine.solve(try FlowCompiler.compile(experiment, variant: i)).value(of: .revenuePerUser)
      #expect(variant["assumedValue"] as? Double == exact, "\(variant)")
    }
    let table = funnellab("run", spec, "--parameter-uncertainty", "--metric", "revenuePerUser", "--draws", "5")
    #expect(table.code == 0, "\(table.err)")
    #expect(table.out.contains("predicted effect on revenue per user under parameter uncertainty"), "\(table.out)")
  }

  @Test func powerReportsTheAssuranceBesideThePower() throws {
    let spec = try Self.specFile()
    let r = funnellab(
      "power", spec, "--parameter-uncertainty", "--variant", "defaultMonthly", "--replicates", "200", "--target-assurance", "0.9",
      "--format", "json")
    #expect(r.code == 0, "\(r.err)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    let assurance = try #require(json["assurance"] as? [String: Any])
    #expect(assurance["target"] as? Double == 0.9)
    let v = try #require((assurance["variants"] as? [[String: Any]])?.first)
    let planned = try #require((json["variants"] as? [[String: Any]])?.first)
    // The same users per arm as the plan; below the target power's assurance only because the effect is uncertain.
    #expect(v["usersPerArm"] as? Int == planned["usersPerArm"] as? Int)
    let a = try #require(v["assurance"] as? Double)
    #expect(a > 0.3 && a < 0.95, "\(a)")
    let n = try #require(v["usersPerArmForTarget"] as? Int)
    #expect(n > (planned["usersPerArm"] as? Int ?? .max))
    let table = funnellab("power", spec, "--parameter-uncertainty", "--variant", "defaultMonthly", "--replicates", "200")
    #expect(table.out.contains("Assurance: the chance the test is significant"), "\(table.out)")
    #expect(table.out.contains("users/arm for 80% assurance"))
    // power takes α up to 0.5, beyond what a spec's metrics.alpha allows: the intervals follow the flag, the spec is not blamed.
    let wide = funnellab("power", spec, "--parameter-uncertainty", "--variant", "defaultMonthly", "--replicates", "100", "--alpha", "0.5")
    #expect(wide.code == 0, "\(wide.err)")
    #expect(wide.out.contains("50% predictive interval of Δ"), "\(wide.out)")
  }

  @Test(arguments: [
    (["exact", "SPEC", "--draws", "10"], 64, "--draws needs --parameter-uncertainty"),
    (["exact", "SPEC", "--parameter-uncertainty", "--draws", "1"], 64, "--draws"),
    (["exact", "SPEC", "--parameter-uncertainty", "--format", "csv"], 64, "writes a table, JSON or HTML"),
    (["exact", "SPEC", "--seed", "3"], 64, "--seed and --alpha need --parameter-uncertainty"),
    (["exact", "SPEC", "--metric", "revenuePerUser"], 64, "--metric needs --parameter-uncertainty"),
    (["run", "SPEC", "--metric", "revenuePerUser"], 64, "--metric needs --parameter-uncertainty"),
    (["exact", "SPEC", "--parameter-uncertainty", "--metric", "revenuPerUser"], 64, "did you mean 'revenuePerUser'?"),
    (["run", "SPEC", "--parameter-uncertainty", "--mode", "experiment"], 64, "takes no --mode"),
    (["run", "SPEC", "--parameter-uncertainty", "--users", "10"], 64, "simulates no users and takes no --users"),
    (["power", "SPEC", "--parameter-uncertainty", "--draws", "1"], 64, "--draws"),
    (["exact", "SPEC", "--parameter-uncertainty", "--variant", "nope"], 64, "nope"),
    (["power", "SPEC", "--target-assurance", "0.9"], 64, "--target-assurance needs --parameter-uncertainty"),
    (["power", "SPEC", "--parameter-uncertainty", "--format", "csv"], 64, "drop --shard and --format csv"),
    (["power", "--baseline", "0.1", "--mde", "0.01", "--parameter-uncertainty"], 64, "not for the formula mode"),
    (["exact", "PLAIN", "--parameter-uncertainty"], 65, "parameterUncertainty: the spec has no parameterUncertainty section"),
  ])
  func misuseIsRefusedWithItsFix(arguments: [String], code: Int32, message: String) throws {
    let spec = try Self.specFile()
    let plain = try temporaryFile("plain.json", contents: pastTestSpec())
    let output = try temporaryFile("out.txt", contents: "kept")
    let r = funnellab(arguments.map { $0 == "SPEC" ? spec : $0 == "PLAIN" ? plain : $0 } + ["-o", output])
    #expect(r.code == code, "\(arguments): \(r.err)")
    #expect(r.err.contains(message), "\(arguments): \(r.err)")
    #expect(try String(contentsOfFile: output, encoding: .utf8) == "kept")
  }
}
