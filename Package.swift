// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The linker flags of a Linux release binary with the Swift runtime and Foundation inside it,
/// at a fixed address (`-no-pie`): a position-independent binary makes the loader apply 80,000
/// relocations to the runtime's and Foundation's metadata at every start (issue 42).
let staticRuntime: [String] =
  ["-static-stdlib", "-Xclang-linker", "-no-pie", "-Xlinker", "--start-group"]
  + [
    "Foundation", "CoreFoundation", "_FoundationICU", "_FoundationCShims", "_FoundationCollections", "FoundationEssentials",
    "FoundationInternationalization",
  ].flatMap { ["-Xlinker", "-l\($0)"] } + ["-Xlinker", "--end-group"]

let package = Package(
  name: "FunnelLab",
  // macOS 15 and iOS 18: the Synchronization module (Mutex, Atomic) of the parallel engine.
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    // MARK: - Public API
    .library(name: "FunnelStats", targets: ["FunnelStats"]),
    .library(name: "FunnelLab", targets: ["FunnelLab"]),
    .library(name: "FunnelReport", targets: ["FunnelReport"]),
    .executable(name: "funnellab", targets: ["funnellab"]),
  ],
  targets: [
    // MARK: - Implementation
    // Statistics: knows nothing of flows.
    .target(name: "FunnelStats", swiftSettings: strict),
    // Model, spec, random streams, engines, experiments.
    .target(name: "FunnelLab", dependencies: ["FunnelStats"], swiftSettings: strict),
    // Renderers only: no computation.
    .target(name: "FunnelReport", dependencies: ["FunnelLab", "FunnelStats"], swiftSettings: strict),
    // The command line, as a library so that tests can drive it in-process.
    .target(name: "FunnelLabCLI", dependencies: ["FunnelLab", "FunnelReport", "FunnelStats"], swiftSettings: strict),
    // Release builds on Linux link the Swift runtime and Foundation into the binary: a command
    // then starts in 3 ms of CPU instead of 9 ms of loading and binding their shared libraries
    // (issue 42: a third of an exact BetFree solve). `-static-stdlib` links the runtime;
    // Foundation's archives are named in a group, because that flag does not add the ones
    // Foundation needs. macOS ships the runtime in the system.
    .executableTarget(
      name: "funnellab", dependencies: ["FunnelLabCLI"], swiftSettings: strict,
      linkerSettings: [.unsafeFlags(staticRuntime, .when(platforms: [.linux], configuration: .release))]),

    // MARK: - Tests
    // The fuzz case generator (not a product): used in-process by the tests and by
    // funnellab-fuzz, which runs the cases as subprocesses of the built binary.
    .target(name: "FunnelFuzz", dependencies: ["FunnelLab"], swiftSettings: strict),
    .executableTarget(name: "funnellab-fuzz", dependencies: ["FunnelFuzz"], swiftSettings: strict),
    // Helpers the test targets share (statistical bands set for the number of checks, repository paths); not a product.
    .target(name: "FunnelTestSupport", dependencies: ["FunnelStats"], path: "Tests/Support", swiftSettings: strict),
    .testTarget(name: "FunnelStatsTests", dependencies: ["FunnelStats", "FunnelTestSupport"], exclude: ["Fixtures"]),
    .testTarget(name: "FunnelLabTests", dependencies: ["FunnelLab", "FunnelTestSupport"]),
    // Direct unit tests of the renderers' building blocks (numbers, CSV, HTML, tables, SVG charts).
    .testTarget(
      name: "FunnelReportTests", dependencies: ["FunnelReport", "FunnelLab", "FunnelStats", "FunnelFuzz", "FunnelTestSupport"]),
    .testTarget(
      name: "FunnelLabCLITests", dependencies: ["FunnelLabCLI", "FunnelLab", "FunnelReport", "FunnelFuzz", "FunnelTestSupport"],
      exclude: ["Fixtures"]),
  ]
)
