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

  /// The Swift the docs name (README's prerequisites, every CI example's `swift:X.Y` image) is the
  /// manifest's tools version: a reader who follows them can build the package.
  @Test func theDocsNameTheSwiftTheManifestNeeds() throws {
    func read(_ path: String) throws -> String { try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8) }
    let manifest = try read("Package.swift")
    let tools = try #require(manifest.firstMatch(of: /swift-tools-version: *(\d+\.\d+)/)).1
    let readme = try read("README.md")
    #expect(readme.contains("You need Swift \(tools) or later"), "README's prerequisites")
    var images = 0
    for path in ["README.md", "docs/guide-ci-checks.md", "docs/sharding/github-actions.yml", "docs/sharding/kubernetes-indexed-job.yaml"] {
      for match in try read(path).matches(of: /swift:(\d+\.\d+)/) {
        images += 1
        #expect(match.1 == tools, "\(path): swift:\(match.1), the manifest needs \(tools)")
      }
    }
    #expect(images >= 2, "the CI examples name their Swift image")
  }
}
