import Testing

@testable import FunnelStats

/// Assurance against scipy (`Fixtures/make_assurance_reference.py`): the mean directional
/// power is closed form (1e-12 relative); the size for a target is an integer and must match.
@Suite struct AssuranceTests {
  static func draws(_ c: FixtureCase, from first: Int) -> [Assurance.Draw] {
    stride(from: first, to: c.args.count - 1, by: 2).map { Assurance.Draw(control: c.arg($0), variant: c.arg($0 + 1)) }
  }

  @Test(arguments: try Fixtures.load("assurance.json"))
  func matchesScipy(_ c: FixtureCase) throws {
    let draws = Self.draws(c, from: 2)
    try #require(!draws.isEmpty, "\(c.testDescription)")
    switch c.fn {
    case "assurance":
      #expect(close(Assurance.assurance(draws, usersPerArm: c.arg(1), alpha: c.arg(0)), c.value, 1e-12, c.testDescription))
    case "usersPerArm":
      let n = try #require(Assurance.usersPerArm(reaching: c.arg(1), draws: draws, alpha: c.arg(0)))
      #expect(Double(n) == c.value, "\(c.testDescription): got \(n)")
      // The smallest such size: one user fewer falls short.
      #expect(Assurance.assurance(draws, usersPerArm: Double(n - 1), alpha: c.arg(0)) < c.arg(1))
    default:
      Issue.record("unknown case \(c.testDescription)")
    }
  }

  @Test func oneDrawIsTheOneSidedTailOfTheTwoSidedPower() throws {
    let draw = Assurance.Draw(control: 0.1, variant: 0.115)
    let power = try PowerAnalysis.solve(
      PowerAnalysis.Problem(method: .pooledNormal, baseline: 0.1, effect: 0.115, sampleSize: 5000, power: nil, alpha: 0.05))
    let directional = Assurance.directionalPower(draw, usersPerArm: 5000, alpha: 0.05)
    // The far tail (a significant result of the wrong sign) is what the two differ by: tiny here.
    #expect(directional < power.power)
    #expect(power.power - directional < 1e-4)
  }

  @Test func drawsWithoutAnEffectAndUnreachableTargetsAreHandled() {
    let tie = Assurance.Draw(control: 0.2, variant: 0.2)
    #expect(Assurance.directionalPower(tie, usersPerArm: 1e9, alpha: 0.05) == 0)
    // Half the draws cannot succeed: 0.6 is never reached, so no size is returned.
    let half = [tie, Assurance.Draw(control: 0.2, variant: 0.25)]
    #expect(Assurance.usersPerArm(reaching: 0.6, draws: half, alpha: 0.05) == nil)
    #expect(Assurance.usersPerArm(reaching: 0.45, draws: half, alpha: 0.05) != nil)
    #expect(Assurance.usersPerArm(reaching: 1.5, draws: half, alpha: 0.05) == nil)
    #expect(Assurance.assurance([], usersPerArm: 100, alpha: 0.05) == 0)
    // 0 against 1: z = √(2n), significant from n = 2 on (1.41 < 1.96 < 2).
    let certain = Assurance.Draw(control: 0, variant: 1)
    #expect(Assurance.directionalPower(certain, usersPerArm: 1, alpha: 0.05) == 0)
    #expect(Assurance.directionalPower(certain, usersPerArm: 2, alpha: 0.05) == 1)
    #expect(Assurance.usersPerArm(reaching: 0.9, draws: [certain], alpha: 0.05) == 2)
  }
}
