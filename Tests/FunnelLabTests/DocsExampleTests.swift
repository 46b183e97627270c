import Foundation
import FunnelTestSupport
import Testing

/// The example in docs/TestingYourAssumptions.md is exactly the compiled example test.
@Suite struct DocsExampleTests {
  @Test func theArticleShowsTheCompiledExample() throws {
    let article = try String(
      contentsOf: repositoryRoot.appendingPathComponent("docs/TestingYourAssumptions.md"), encoding: .utf8)
    let test = try String(
      contentsOf: repositoryRoot.appendingPathComponent("Tests/FunnelLabTests/TestingYourAssumptionsExample.swift"), encoding: .utf8)
    let start = try #require(article.range(of: "```swift\n"))
    let end = try #require(article.range(of: "```\n", range: start.upperBound..<article.endIndex))
    let code = String(article[start.upperBound..<end.lowerBound])
    #expect(!code.isEmpty)
    #expect(test.hasSuffix(code), "update docs/TestingYourAssumptions.md from the example test")
  }
}
