import FunnelStats
import Testing

/// A ``StatsError/Field`` is read by its steps; its text is only for people.
@Suite struct StatsErrorFieldTests {
  @Test func pathsReadAsTheAPISpellsThem() {
    let field: StatsError.Field = [.name(.looks), .index(3), .name(.arms), .index(1), .name(.revenue), .key("2.5")]
    #expect(field.description == "looks[3].arms[1].revenue[2.5]")
    #expect(field.argument == .looks)
    #expect(field.index(after: .looks) == 3)
    #expect(field.index(after: .arms) == 1)
    #expect(field.index(after: .revenue) == nil)
    #expect(field.members(after: .arms) == [.name(.revenue), .key("2.5")])
    #expect(StatsError.Field([.name(.table), .every, .index(0)]).description == "table[*][0]")
    #expect(StatsError.Field([]).argument == nil)
  }

  @Test func errorsCarryTheirTypedPath() {
    do throws(StatsError) {
      _ = try PairedProportionCount(neither: 1, treatmentOnly: -2, controlOnly: 0, both: 0)
      Issue.record("expected an error")
    } catch {
      #expect(error.field == [.name(.table), .name(.treatmentOnly)])
      #expect(error.description == "table.treatmentOnly: is negative (-2)")
    }
    do throws(StatsError) {
      _ = try SequentialAnalysis.analyze(
        looks: [.init(day: "1", arms: [ArmData(name: "c", users: 10, conversions: 1), ArmData(name: "t", users: 10, conversions: 11)])],
        control: "c")
      Issue.record("expected an error")
    } catch {
      #expect(error.field.argument == .looks)
      #expect(error.field.index(after: .looks) == 0)
      #expect(error.field.index(after: .arms) == 1)
    }
  }
}
