import Testing

/// The fixture loader refuses what would silently skip a reference test.
@Suite struct FixtureTests {
  @Test func aFilterThatMatchesNothingThrows() {
    #expect(throws: FixtureError.self) { try Fixtures.cases("lift.json", prefix: "lift.paired#") }
    #expect(throws: FixtureError.self) { try Fixtures.cases("lift.json", fn: "lift.pair") }
    #expect(throws: FixtureError.self) { try Fixtures.load("no-such-fixture.json") }
  }

  @Test func theRelativeLiftFixtureHoldsItsThreeFamilies() throws {
    #expect(try Fixtures.cases("lift.json", fn: "lift.paired").count == 26)
    #expect(try Fixtures.cases("lift.json", prefix: "lift.welch").count == 9)
    #expect(try Fixtures.cases("lift.json", prefix: "lift.pairedmean").count == 6)
  }
}
