import FunnelLab

/// The options of `trace` and `ingest` that read or write events: the map of event
/// names and the property naming the variant.
enum EventOptions {
  /// `--events-map`: the team's event names (FunnelLab name → theirs); none keeps every name.
  static func names(_ arguments: ParsedArguments, console: any Console) throws -> EventNameMap {
    guard let path = arguments.value("events-map") else { return EventNameMap() }
    let text = try InputFile.read(path, console: console)
    do {
      return try EventNameMap(parsing: text, source: InputFile.displayName(path))
    } catch {
      throw CommandFailure.invalid(error)
    }
  }

  /// `--variant-property`: the property naming the variant; an empty name is refused.
  static func variantProperty(_ arguments: ParsedArguments) throws(UsageError) -> String? {
    let name = arguments.value("variant-property")
    if name?.isEmpty == true {
      throw UsageError(message: "--variant-property: the property's name is empty", hint: "e.g. --variant-property variant")
    }
    return name
  }
}
