// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The statistics and the engines are compiled with `-O` in debug builds too: the test suite
/// simulates and solves flows thousands of times, and unoptimised generic code runs them ~20×
/// slower (`swift test` took 16 min instead of under 5). Results are bit-identical in both modes
/// (the release-mode CI stage checks the same goldens). To step through them in a debugger,
/// build with `FUNNELLAB_UNOPTIMIZED=1 swift build` (the optimised build has no debug info, which
/// would only slow it down). Tools version 6.2: from SwiftPM 6.2 on, a package with unsafe flags
/// can be a dependency of another package.
let optimizedInDebug: [SwiftSetting] =
  Context.environment["FUNNELLAB_UNOPTIMIZED"] == nil ? [.unsafeFlags(["-O", "-gnone"], .when(configuration: .debug))] : []

/// The linker flags of a Linux release binary with the Swift runtime and Foundation inside it,
/// at a fixed address (`-no-pie`): a position-independent binary makes the loader apply 80,000
/// relocations to the runtime's and Foundation's metadata at every start (issue 42).
let staticRuntime: [String] =
  ["-static-stdlib", "-Xclang-linker", "-no-pie", "-Xlinker", "--start-group"]
  + [
    "Foundation", "CoreFoundation", "_FoundationICU", "_FoundationCShims", "_FoundationCollections", "FoundationEssentials",
    "FoundationInternationalization",
  ].flatMap { ["-Xlinker", "-l\($0)"] } + ["-Xlinker", "--end-group"]

/// Release code asks for a concrete type's metadata through an accessor function, not by its
/// mangled name: the name is resolved by the runtime on first use, which checks the generic
/// requirements of `Set<ActionKind>` and the like by scanning every protocol conformance in
/// the binary (6,000 of them once Foundation is linked in): 6 % of an exact solve of BetFree
/// (issue 42). The accessors pass the conformances they already know.
let metadataAccessors: [SwiftSetting] = [
  .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"], .when(configuration: .release))
]

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
    .target(name: "FunnelStats", swiftSettings: strict + optimizedInDebug + metadataAccessors),
    // Model, spec, random streams, engines, experiments.
    .target(name: "FunnelLab", dependencies: ["FunnelStats"], swiftSettings: strict + optimizedInDebug + metadataAccessors),
    // Renderers only: no computation.
    .target(name: "FunnelReport", dependencies: ["FunnelLab", "FunnelStats"], swiftSettings: strict + metadataAccessors),
    // The command line, as a library so that tests can drive it in-process.
    .target(name: "FunnelLabCLI", dependencies: ["FunnelLab", "FunnelReport", "FunnelStats"], swiftSettings: strict + metadataAccessors),
    // Release builds on Linux link the Swift runtime and Foundation into the binary: a command
    // then starts in 3 ms of CPU instead of 9 ms of loading and binding their shared libraries
    // (issue 42: a third of an exact BetFree solve). `-static-stdlib` links the runtime;
    // Foundation's archives are named in a group, because that flag does not add the ones
    // Foundation needs. macOS ships the runtime in the system.
    .executableTarget(
      name: "funnellab", dependencies: ["FunnelLabCLI"], swiftSettings: strict + metadataAccessors,
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
