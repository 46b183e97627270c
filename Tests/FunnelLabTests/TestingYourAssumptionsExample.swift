// The example of docs/TestingYourAssumptions.md, compiled and run so it cannot rot
// (DocsExampleTests checks that the article shows exactly this code).

import Foundation
import FunnelLab
import Testing

/// The spec files of the package (adjust to where yours live).
func spec(_ name: String) -> String {
  URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("experiments/\(name).json").path
}

@Suite struct OnboardingAssumptions {
  @Test func theControlCompletesBetween55And70Percent() throws {
    let result = try Simulation.run(contentsOf: spec("klick-onboarding"), users: 20_000)
    let completion = try result.control().metric(.completionRate)
    let interval = try #require(completion.interval)
    #expect(interval.lower > 0.55 && interval.upper < 0.70, "completion \(completion.estimate ?? .nan)")
  }

  @Test func fiveFeaturesDoNotCostConversion() throws {
    let result = try Simulation.run(contentsOf: spec("klick-onboarding"), users: 20_000)
    let features5 = try result.variant("features5")
    // The simulated difference from the control, with its 95% interval.
    let difference = try #require(features5.comparison(.purchaseConversion)?.difference?.interval)
    #expect(difference.lower > -0.005)
    // The exact value (no sampling noise) lies inside the simulated interval.
    let conversion = features5.metric(.purchaseConversion)
    let exact = try #require(features5.exact(.purchaseConversion))
    #expect(try #require(conversion.interval).contains(exact))
  }

  @Test func theSpecsOwnExpectationsHold() throws {
    for result in try Simulation.check(contentsOf: spec("urbannest-onboarding")) {
      #expect(result.passed, "\(result.expectation.id): \(result.failures)")
    }
  }
}
