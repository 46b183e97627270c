import FunnelLab

extension FuzzGenerator {
  /// A command line whose output is one of its inputs by another name (a symbolic link either way,
  /// standard input redirected from it, `./` spellings), two outputs on one file, or an output that
  /// cannot be written (`/dev/full`) after another output: each must be refused or fail with every
  /// input and earlier output as it was (the judge compares their bytes).
  func collidingFiles(_ rng: inout FuzzRandom) -> FuzzCase {
    let small = smallSpec
    var c = FuzzCase(index: 0, kind: .collision, rawArguments: [])
    c.files["spec.json"] = Array(small.text.utf8)
    let spec = "\(Self.token)/spec.json"
    let other = "\(Self.token)/./spec.json"
    let before: [UInt8]? = rng.chance(50) ? Array("before\n".utf8) : nil
    switch rng.below(6) {
    case 0:
      // The input named through a link, the output by its own name (or the reverse).
      c.links["current.json"] = "spec.json"
      c.rawArguments =
        rng.chance(50)
        ? [rng.pick(["exact", "run"]), "\(Self.token)/current.json", "-o", rng.pick([spec, other])]
        : ["exact", spec, "-o", "\(Self.token)/current.json"]
    case 1:
      // Standard input redirected from the file written.
      c.standardInputFile = "spec.json"
      c.rawArguments = [rng.pick(["exact", "validate", "run"]), "-"] + (rng.chance(80) ? ["-o", rng.pick([spec, other])] : [])
      if c.rawArguments[0] == "validate" { c.rawArguments = ["exact", "-", "-o", spec] }
    case 2:
      // Two outputs of check on one file, by the same or another spelling.
      c.outputs["b.json"] = .some(before)
      let pair = [rng.pick(["-o", "--junit", "--update-baseline"]), rng.pick(["-o", "--junit", "--update-baseline"])]
      c.rawArguments = [
        "check", spec, pair[0], "\(Self.token)/b.json", pair[1], rng.pick(["\(Self.token)/b.json", "\(Self.token)/./b.json"]),
      ]
    case 3:
      // A failing last output after an earlier file.
      c.outputs["j.xml"] = .some(Array("before\n".utf8))
      c.rawArguments = ["check", spec, "--junit", "\(Self.token)/j.xml", "-o", "/dev/full"]
    case 4:
      // A link to a device as the output: written in place, the link kept.
      c.links["null"] = "/dev/null"
      c.rawArguments = ["exact", spec, "-o", "\(Self.token)/null"]
    default:
      // Writing the spec it calibrates, or its report on the spec.
      c.files["observed.csv"] = Array(seeds.observed.csv.utf8)
      c.files["spec.json"] = Array(seeds.observed.spec.utf8)
      c.rawArguments = [
        "calibrate", spec, "\(Self.token)/observed.csv", rng.pick(["--write-spec", "-o"]), rng.pick([spec, other, "/dev/full"]),
      ]
    }
    if let file = c.standardInputFile { c.standardInput = c.files[file] ?? [] }
    return c
  }
}
