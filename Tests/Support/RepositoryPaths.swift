package import Foundation

/// The repository's root folder: tests read committed files (experiments, docs, fixtures) from it.
package let repositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The path of the committed experiment `experiments/<name>.json`.
package func experimentPath(_ name: String) -> String {
  repositoryRoot.appendingPathComponent("experiments/\(name).json").path
}

/// The four seed experiments of `experiments/`, the ones every engine test runs.
package let seedExperiments = ["klick-onboarding", "betfree-onboarding", "urbannest-onboarding", "ncdb-first-launch"]

/// The path of the committed edge-case flow `Tests/Fixtures/decisions/<name>.json` (an A/A
/// copy, a change no buyer reaches, an effect inside the margin, six arms, only a control).
package func decisionFlowPath(_ name: String) -> String {
  repositoryRoot.appendingPathComponent("Tests/Fixtures/decisions/\(name).json").path
}
