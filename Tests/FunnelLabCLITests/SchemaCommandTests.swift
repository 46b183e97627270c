import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `funnellab schema`: the model's JSON Schema, to stdout or a file.
@Suite struct SchemaCommandTests {
  @Test func printsTheSchema() {
    let r = funnellab("schema")
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out == SpecSchema.text)
    #expect(r.err.isEmpty)
  }

  @Test func writesTheFile() throws {
    let file = try scratchFolder("schema").appendingPathComponent("out/schema.json")
    let r = funnellab("schema", "-o", file.path)
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.isEmpty)
    #expect(try String(contentsOf: file, encoding: .utf8) == SpecSchema.text)
  }

  @Test func refusesAnArgument() {
    let r = funnellab("schema", "experiments/klick-onboarding.json")
    #expect(r.code == 64, "\(r.err)")
  }
}
