// swift-tools-version: 6.1
import PackageDescription

// FunnelLab's benchmarks: a package of its own so that nothing a benchmark needs
// (package-benchmark and its dependencies) ever reaches a user of the library. The
// root package stays dependency-free.
let package = Package(
  name: "FunnelLabBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "FunnelLab", path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    // MARK: - Implementation
    // The seed flows, the explicit-probability flow, the exported chain and the bare walk.
    .target(
      name: "BenchmarkFlows",
      dependencies: [
        .product(name: "FunnelLab", package: "FunnelLab"),
        .product(name: "FunnelStats", package: "FunnelLab"),
      ]),
    // Exports Klick control's chain for the numpy baseline and times FunnelLab on it.
    .executableTarget(
      name: "funnel-baseline",
      dependencies: ["BenchmarkFlows", .product(name: "FunnelLab", package: "FunnelLab")]),

    // A user of the library, outside its package: compiles only with FunnelLab's and FunnelReport's
    // public API (no SPI), so CI's build of this package checks that the documented use still works.
    .target(
      name: "LibraryUse",
      dependencies: [
        .product(name: "FunnelLab", package: "FunnelLab"),
        .product(name: "FunnelReport", package: "FunnelLab"),
      ]),

    // MARK: - Benchmarks
    .executableTarget(
      name: "FunnelBenchmarks",
      dependencies: [
        "BenchmarkFlows",
        .product(name: "FunnelLab", package: "FunnelLab"),
        .product(name: "FunnelStats", package: "FunnelLab"),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/FunnelBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
  ]
)
