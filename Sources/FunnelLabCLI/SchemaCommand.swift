import FunnelLab

/// `funnellab schema`: the JSON Schema of an experiment spec, built from the model.
enum SchemaCommand: Command {
  static let spec = CommandSpec(
    name: "schema",
    abstract: "Print the JSON Schema of an experiment spec (experiments/schema.json), built from the model.",
    discussion: """
      Writes the JSON Schema (draft 2020-12) that editors use to check and complete a
      spec: every key the decoder reads, the action kinds each screen kind allows, the
      behavior parameters with their ranges, defaults and units, and the bounds the
      validator puts on each value. It is generated from the same Swift declarations
      the decoder and 'funnellab validate' use, so it cannot drift from them;
      experiments/schema.json is its output, and a test fails when the two differ.
      Cross-field rules (probabilities summing to 1, targets naming screens,
      reachability) are checked by 'funnellab validate' only.
      """,
    positionals: [],
    options: [OutputDestination.option],
    examples: [
      "funnellab schema -o experiments/schema.json",
      "funnellab schema | cmp - experiments/schema.json",
    ])

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    try OutputDestination(path: try arguments[OutputDestination.option]).write(SpecSchema.text, console: console)
    return .success
  }
}
