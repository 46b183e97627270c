import Testing

@testable import FunnelStats

@Test func alternativeRawValues() {
  #expect(Alternative(rawValue: "two-sided") == .twoSided)
}
