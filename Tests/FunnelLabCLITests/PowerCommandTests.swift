import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `funnellab power` against statsmodels 0.14 (values computed with
/// `samplesize_proportions_2indep_onetail`, `NormalIndPower().solve_power` with
/// `proportion_effectsize`, and `power_proportions_2indep`).
@Suite struct PowerCommandTests {
  func number(_ json: String, _ key: String) throws -> Double {
    let document = try JSONParser.parse(json)
    guard case .number(let x, _)? = document[key]?.kind else { throw CommandFailure(code: .software, text: "no \(key)") }
    return x
  }

  @Test func pooledSampleSizeMatchesStatsmodelsAndEvanMiller() throws {
    let r = funnellab("power", "--baseline", "0.10", "--mde", "0.01", "--alpha", "0.05", "--power", "0.8", "--format", "json")
    #expect(r.code == 0, "\(r.err)")
    let n = try number(r.out, "treatmentUsers")
    #expect(abs(n - 14750.790469044945) / 14750.790469044945 < 1e-9)
    #expect(try number(r.out, "totalUsers") == 29502)
    #expect(r.out.contains("\"method\": \"pooled normal\""))
    let table = funnellab("power", "--baseline", "0.10", "--mde", "0.01")
    #expect(table.out.contains("Power analysis · pooled normal · two-sided"))
    #expect(table.out.contains("users, treatment      14,751   ← solved"))
  }

  @Test func arcsineSampleSizeMatchesNormalIndPower() throws {
    let r = funnellab("power", "--baseline", "0.10", "--relative-mde", "0.1", "--method", "arcsine", "--format", "json")
    let n = try number(r.out, "treatmentUsers")
    // statsmodels' root finder stops near 1e-8 relative; FunnelStats bisects to full precision.
    #expect(abs(n - 14744.104836925611) / 14744.104836925611 < 1e-7)
  }

  @Test func powerForAGivenSampleMatchesStatsmodels() throws {
    let r = funnellab("power", "--baseline", "0.10", "--mde", "0.01", "--users-per-arm", "10000", "--format", "json")
    #expect(abs(try number(r.out, "power") - 0.6356078962785991) < 1e-9)
  }

  @Test func durationFollowsFromUsersPerDay() throws {
    let r = funnellab("power", "--baseline", "0.10", "--mde", "0.01", "--users-per-day", "1000", "--format", "json")
    #expect(try number(r.out, "days") == 30)
  }

  @Test(arguments: [
    (["power", "--mde", "0.01"], "Error: missing --baseline"),
    (["power", "--baseline", "1.5", "--mde", "0.01"], "Error: --baseline must be from 0.0 to 1.0"),
    (
      ["power", "--baseline", "12%", "--mde", "0.01"],
      "Error: --baseline expects a number, got '12%'; write a fraction: --baseline 0.12 for 12 %"
    ),
    (["power", "--baseline", "0.1"], "Error: give --mde (or --relative-mde) or --users-per-arm"),
    (
      ["power", "--baseline", "0.1", "--mde", "0.01", "--users-per-arm", "100", "--power", "0.8"],
      "Error: --mde, --users-per-arm and --power are all given"
    ),
    (["power", "--baseline", "0.1", "--mde", "0.01", "--relative-mde", "0.1"], "Error: give --mde or --relative-mde, not both"),
    (["power", "--baseline", "3", "--mde", "1", "--method", "means"], "Error: --method means needs --sd"),
    (
      ["power", "--baseline", "0.1", "--mde", "0.01", "--method", "bayes"],
      "Error: --method must be one of pooled, unpooled, arcsine, means"
    ),
  ])
  func badPowerQuestionsAreUsageErrors(arguments: [String], message: String) {
    let console = CapturingConsole()
    #expect(FunnelLabCommandLine.run(arguments, console: console) == 64)
    #expect(console.stderr.hasPrefix(message), "\(console.stderr)")
  }

  /// `--relative-mde` is a fraction of the baseline: 5 plans for +500 %, and says so.
  @Test func aRelativeEffectOfOneOrMoreGetsANote() {
    let large = funnellab("power", "--baseline", "0.1", "--relative-mde", "5", "--users-per-arm", "1000")
    #expect(large.code == 0)
    #expect(large.err.contains("note: --relative-mde 5 is +500 % of the baseline; for 5 % write --relative-mde 0.05"), "\(large.err)")
    let usual = funnellab("power", "--baseline", "0.1", "--relative-mde", "0.5", "--users-per-arm", "1000")
    #expect(usual.code == 0 && usual.err.isEmpty, "\(usual.err)")
  }

  @Test func unreachableDesignIsReportedNotCrashed() {
    // 80% power with 2 users per arm, a 0.1% baseline and a decrease to detect: no rate in (0, 0.001) gets there.
    let r = funnellab("power", "--baseline", "0.001", "--users-per-arm", "2", "--alternative", "less")
    #expect(r.code == 64)
    #expect(r.err.hasPrefix("Error: no solution: the requested power is unreachable; increase the sample size, effect or alpha"))
    #expect(r.out.isEmpty)
  }
}

@Suite struct PowerPlanningCommandTests {
  @Test func plansASpecByWithSimulation() {
    let r = funnellab(
      "power", experimentPath("klick-onboarding"), "--variant", "features5", "--replicates", "500", "--users-per-day", "20000")
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.contains("planning purchase conversion"))
    #expect(r.out.contains("Peeking: a look every day"))
    let json = funnellab("power", experimentPath("klick-onboarding"), "--variant", "features5", "--replicates", "500", "--format", "json")
    let again = funnellab("power", experimentPath("klick-onboarding"), "--variant", "features5", "--replicates", "500", "--format", "json")
    #expect(json.out == again.out)
    #expect(json.out.contains("\"analyticUsersPerArm\""))
  }

  /// UrbanNest has no paywall: decided on purchase conversion, every arm has 0, so `--metric` plans what its
  /// variants move, and the plain plan says why it is empty.
  @Test func aMetricFlagPlansAnotherProportion() throws {
    let purchase = try temporaryFile(
      "urbannest-purchase.json",
      contents: try String(contentsOfFile: experimentPath("urbannest-onboarding"), encoding: .utf8).replacingOccurrences(
        of: "\"name\": \"urbannest-onboarding\",",
        with: "\"name\": \"urbannest-onboarding\", \"metrics\": {\"primary\": \"purchaseConversion\"},"
      ))
    let plain = funnellab("power", purchase, "--replicates", "100")
    #expect(plain.code == 0, "\(plain.err)")
    #expect(plain.out.contains("planning purchase conversion"))
    #expect(
      plain.err.contains("note: no variant changes purchaseConversion (exactly 0.00% in every arm), so there is nothing to detect"),
      "\(plain.err)")
    let r = funnellab("power", purchase, "--metric", "completionRate", "--replicates", "100", "--format", "json")
    #expect(r.code == 0, "\(r.err)")
    #expect(!r.err.contains("note:"), "\(r.err)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    #expect(json["metric"] as? String == "completionRate")
    let experiment = try ExperimentLoader.load(
      text: try String(contentsOfFile: experimentPath("urbannest-onboarding"), encoding: .utf8), source: "test")
    let variants = try #require(json["variants"] as? [[String: Any]])
    #expect(variants.count == experiment.variants.count - 1)
    for variant in variants {
      let index = try #require(experiment.variants.firstIndex { $0.id == variant["id"] as? String })
      let exact = ExactEngine.solve(try FlowCompiler.compile(experiment, variant: index)).value(of: .completionRate)
      let rate = try #require(variant["variantRate"] as? Double)
      #expect(abs(rate - (exact ?? .nan)) < 1e-12, "\(variant)")
      #expect(variant["analyticUsersPerArm"] as? Int != nil, "\(variant)")
    }
  }

  @Test(arguments: [
    (["--metric", "timeToFinish"], "Error: --metric timeToFinish is a mean; planning simulates proportion metrics and revenue per user"),
    (["--metric", "completonRate"], "did you mean 'completionRate'?"),
    (["--metric", "completion"], "did you mean 'completionRate'?"),
    (["--metric", "purchase-conversion"], "did you mean 'purchaseConversion'?"),
    (["--metric", "zzz"], "one of completionRate, abandonmentRate"),
    (["--metric", "completionRate", "--shard", "1/2"], "Error: --metric is not taken with --shard"),
    (["--metric", "completionRate", "--compare-bandit", "--users-per-day", "100"], "Error: --metric is not taken with --compare-bandit"),
    // Two flags for one setting: neither is dropped silently.
    (["--looks", "5", "--days", "6", "--users-per-day", "20000"], "Error: --days and --looks both set the daily looks"),
  ])
  func aBadMetricIsAUsageError(extra: [String], message: String) {
    let r = funnellab(["power", experimentPath("urbannest-onboarding")] + extra)
    #expect(r.code == 64, "\(r.err)")
    #expect(r.err.contains(message), "\(r.err)")
    #expect(r.out.isEmpty)
  }

  /// Revenue per user is planned from the spec's exact revenue distribution: users per arm for each
  /// BetFree variant, the simulated power at that size and whether the normal approximation holds,
  /// in every format; a flow without plans is refused (65), as are the flags of the proportion plan (64).
  @Test func revenuePerUserIsPlannedFromTheSpec() throws {
    let betfree = experimentPath("betfree-onboarding")
    let r = funnellab("power", betfree, "--metric", "revenuePerUser", "--replicates", "500", "--format", "json")
    #expect(r.code == 0, "\(r.err)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    #expect(json["mode"] as? String == "revenue")
    let variants = try #require(json["variants"] as? [[String: Any]])
    #expect(variants.count == 3)
    for v in variants {
      #expect((v["usersPerArm"] as? Int ?? 0) > 0, "\(v)")
      #expect(v["normalApproximationHolds"] as? Bool != nil, "\(v)")
    }
    let summary = try #require(json["summary"] as? [String: Any])
    #expect(summary["quickest"] as? String == "defaultMonthly" || summary["quickest"] as? String == "defaultLifetime")
    let table = funnellab("power", betfree, "--metric", "revenuePerUser", "--replicates", "500", "--users-per-day", "20000")
    #expect(table.code == 0 && table.out.contains("is the quickest to test on revenue per user"), "\(table.out)")
    #expect(table.out.split(separator: "\n").allSatisfy { $0.count <= 100 }, "\(table.out)")
    for format in ["csv", "markdown", "html"] {
      let other = funnellab("power", betfree, "--metric", "revenuePerUser", "--replicates", "200", "--format", format)
      #expect(other.code == 0 && other.out.contains("defaultLifetime"), "\(format): \(other.err)")
    }
    // A flow that sells no plan: --metric is blamed (it was metrics.primary, 65), with the metrics the flow has.
    let urbannest = experimentPath("urbannest-onboarding")
    let none = funnellab("power", urbannest, "--metric", "revenuePerUser")
    #expect(none.code == 64, "\(none.err)")
    #expect(
      none.err.hasPrefix(
        "Error: --metric revenuePerUser: the flow of \(urbannest) sells no plan, so it is 0 in every arm;"
          + " plan a metric the flow produces: completionRate, abandonmentRate, skipRate"), "\(none.err)")
    #expect(!none.err.contains("purchaseConversion") && !none.err.contains("metrics.primary"), "\(none.err)")
    let paywall = funnellab("power", urbannest, "--metric", "paywallViewRate")
    #expect(
      paywall.code == 64 && paywall.err.hasPrefix("Error: --metric paywallViewRate: the flow of \(urbannest) has no paywall screen"),
      "\(paywall.err)")
    let flag = funnellab("power", betfree, "--metric", "revenuePerUser", "--users-per-arm", "1000")
    #expect(flag.code == 64 && flag.err.contains("--users-per-arm is not taken when planning revenue per user"), "\(flag.err)")
  }

  /// Daily looks need traffic: `--days`/`--looks` without `--users-per-day` are refused, not ignored; and when the
  /// plan needs more days than the looks simulated (at most 100), the report says so beside the peeking table.
  @Test func dailyLooksNeedTrafficAndSayWhenTheyStopShort() {
    for flag in ["--days", "--looks"] {
      let r = funnellab("power", experimentPath("klick-onboarding"), "--variant", "features5", flag, "5", "--replicates", "100")
      #expect(r.code == 64, "\(r.err)")
      #expect(r.err.contains("\(flag) sets the daily looks of the peeking simulation, which needs --users-per-day"), "\(r.err)")
    }
    let long = funnellab(
      "power", experimentPath("klick-onboarding"), "--variant", "goalOptional", "--users-per-day", "20000", "--replicates", "100", "--wide")
    #expect(long.code == 0, "\(long.err)")
    #expect(long.out.contains("goalOptional: the plan needs 1,354 days at this traffic; the looks are simulated over the first 100 only"))
    // More than a year is not a plan: the report says so under the design table, in every text format.
    #expect(
      long.out.contains("goalOptional: infeasible at this traffic: 1,354 days (more than 365) to find a true Δ of -0.02 pp with 80% power"))
    let markdown = funnellab(
      "power", experimentPath("klick-onboarding"), "--variant", "goalOptional", "--users-per-day", "20000", "--replicates", "100", "-f",
      "markdown")
    #expect(markdown.out.contains("**goalOptional: infeasible at this traffic: 1,354 days"))
    let short = funnellab(
      "power", experimentPath("klick-onboarding"), "--variant", "features5", "--users-per-day", "20000", "--replicates", "100", "--wide")
    #expect(short.code == 0, "\(short.err)")
    #expect(short.out.contains("Peeking: a look every day"))
    #expect(!short.out.contains("the looks are simulated over"))
    #expect(!short.out.contains("infeasible"))
  }

  @Test func formulaFlagsAreRefusedWithASpec() {
    let r = funnellab("power", experimentPath("klick-onboarding"), "--baseline", "0.1")
    #expect(r.code == 64)
    #expect(r.err.hasPrefix("Error: --baseline is for the formula mode, not with a spec"))
  }
}

/// `power --looks`: the group-sequential design that replaces the fixed test.
@Suite struct PowerLooksTests {
  @Test func fiveLooksOfOBrienFlemingCostTwoAndAHalfPercent() throws {
    let r = funnellab("power", "--baseline", "0.10", "--mde", "0.01", "--looks", "5", "--format", "json")
    #expect(r.code == 0, "\(r.err)")
    let doc = try JSONParser.parse(r.out)
    let plan = try #require(doc["groupSequential"])
    guard case .number(let inflation, _)? = plan["inflation"]?.kind, case .array(let looks)? = plan["perLook"]?.kind else {
      Issue.record("no design in \(r.out)")
      return
    }
    #expect(inflation > 1.02 && inflation < 1.03)
    #expect(looks.count == 5)
    if case .number(let c, _)? = looks.first?["boundary"]?.kind { #expect(abs(c - 4.8769) < 2e-4) }
    let table = funnellab("power", "--baseline", "0.10", "--mde", "0.01", "--looks", "5", "--spending", "pocock")
    #expect(table.out.contains("Pocock-type spending"))
    #expect(table.out.contains("×1.21"), "\(table.out)")
  }

  @Test(arguments: [
    (["--baseline", "0.1", "--mde", "0.01", "--spending", "pocock"], "--spending needs --looks"),
    (["--baseline", "0.1", "--mde", "0.01", "--looks", "5", "--alternative", "greater"], "--looks plans a two-sided design"),
    (["--baseline", "0.1", "--mde", "0.01", "--looks", "21"], "--looks"),
    (["experiments/klick-onboarding.json", "--spending", "pocock"], "--spending is for the formula mode"),
  ])
  func badLooksAreRefused(arguments: [String], message: String) {
    let r = funnellab(["power"] + arguments)
    #expect(r.code == 64)
    #expect(r.err.contains(message), "\(r.err)")
    #expect(r.out.isEmpty)
  }
}

/// `power <spec> --compare-bandit`: bandit or A/B test, and every refusal.
@Suite struct PowerBanditCommandTests {
  static let base = ["power", "experiments/betfree-onboarding.json", "--compare-bandit", "--users-per-day", "2000", "--days", "6"]

  /// The same seed gives the same bytes, whatever the number of worker threads (blocks summed
  /// in order): 300 replicates are a full block of 250 (`BanditPlanner.block`) and a partial one,
  /// so two workers each take one.
  @Test func sameBytesOnAnyThreadCount() throws {
    let experiment = try ExperimentLoader.load(contentsOf: "experiments/betfree-onboarding.json")
    var options = BanditOptions(usersPerDay: 2000)
    options.days = 6
    options.replicates = 300
    options.threads = 1
    let one = try BanditPlanner.compare(experiment, options: options)
    options.threads = 2
    let two = try BanditPlanner.compare(experiment, options: options)
    #expect(one.counts == two.counts)
    #expect(one.counts.replicates == 300)
  }

  @Test(arguments: [
    (["--policy", "greedy"], "Error: --policy"),
    (["--epsilon", "0.2"], "Error: --epsilon is for --policy epsilon-greedy"),
    (["--min-share", "0.3"], "Error: --min-share 0.3: must be in [0.0001, 1/4) for 4 arms"),
    (["--min-share", "0"], "Error: --min-share"),
    (["--holdout", "0.7"], "Error: --holdout"),
    (["--users-per-arm", "1000"], "Error: --users-per-arm is not used by --compare-bandit"),
    (["--parameter-uncertainty"], "Error: --parameter-uncertainty is not used by --compare-bandit"),
    (["--parameter-uncertainty", "--draws", "4"], "Error: --parameter-uncertainty is not used by --compare-bandit"),
    (["--burn-in", "-1"], "Error: --burn-in"),
    // The same refusals, words and code as `run --mode bandit` (they exited 65, blaming the spec).
    (["--burn-in", "50"], "Error: --burn-in 50 must be shorter than --days 6"),
    (["--variant", "control"], "Error: a bandit takes 2 to 20 arms, got 1"),
    (["--horizon-days", "x"], "Error: --horizon-days"),
  ])
  func badOptionsAreUsageErrors(extra: [String], message: String) {
    let r = funnellab(Self.base + extra)
    #expect(r.code == 64, "\(r.err)")
    #expect(r.err.hasPrefix(message), "\(r.err)")
    #expect(r.out.isEmpty)
  }

  @Test func banditOptionsNeedTheComparison() {
    let r = funnellab("power", "experiments/betfree-onboarding.json", "--policy", "top-two")
    #expect(r.code == 64)
    #expect(r.err.hasPrefix("Error: --policy needs --compare-bandit"), "\(r.err)")
    let formula = funnellab("power", "--baseline", "0.1", "--mde", "0.01", "--compare-bandit")
    #expect(formula.code == 64)
    #expect(formula.err.hasPrefix("Error: --compare-bandit is for planning a spec by simulation"), "\(formula.err)")
    let traffic = funnellab("power", "experiments/betfree-onboarding.json", "--compare-bandit")
    #expect(traffic.code == 64)
    #expect(traffic.err.hasPrefix("Error: --compare-bandit needs --users-per-day"), "\(traffic.err)")
  }

  @Test func aHoldoutNeedsAHorizon() {
    let r = funnellab(Self.base + ["--holdout", "0.05", "--horizon-days", "0"])
    #expect(r.code == 65, "\(r.err)")
    #expect(r.err.contains("horizonDays: a holdout is kept after the test"), "\(r.err)")
  }

  @Test func aMeanPrimaryMetricIsRefused() throws {
    let spec = try String(contentsOfFile: "experiments/betfree-onboarding.json", encoding: .utf8)
      .replacingOccurrences(
        of: "\"name\": \"betfree-onboarding\",", with: "\"name\": \"betfree-onboarding\", \"metrics\": {\"primary\": \"revenuePerUser\"},")
    let path = try scratchFolder("bandit-mean").appendingPathComponent("spec.json").path
    try spec.write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let r = funnellab("power", path, "--compare-bandit", "--users-per-day", "2000", "--days", "3")
    #expect(r.code == 65, "\(r.err)")
    #expect(r.err.contains("planning simulates proportion metrics"), "\(r.err)")
  }

  @Test func everyPolicyRuns() {
    for policy in [["--policy", "thompson"], ["--policy", "top-two"], ["--policy", "epsilon-greedy", "--epsilon", "0.2"]] {
      let r = funnellab(Self.base + policy + ["--replicates", "100", "--format", "json"])
      #expect(r.code == 0, "\(r.err)")
      #expect(r.out.contains("\"mode\": \"bandit\""))
    }
  }
}
