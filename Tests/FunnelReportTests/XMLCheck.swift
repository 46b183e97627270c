import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Parses markup as XML and collects what the tests look at: whether it is well-formed,
/// every element's name and attributes, and the text content.
final class XMLCheck: NSObject, XMLParserDelegate {
  /// Whether the parser read the whole document without an error.
  private(set) var wellFormed = false
  /// Every element in document order, with its attributes.
  private(set) var elements: [(name: String, attributes: [String: String])] = []
  /// The character data, concatenated.
  private(set) var text = ""
  /// Every `<text>` element in document order: its attributes and its characters.
  private(set) var texts: [(attributes: [String: String], content: String)] = []
  private var inText = false
  /// For every element of ``elements``, the names of the elements it lies inside, outermost first.
  private(set) var ancestry: [[String]] = []
  private var open: [String] = []

  /// Parses `markup`.
  init(_ markup: String) {
    super.init()
    let parser = XMLParser(data: Data(markup.utf8))
    parser.delegate = self
    wellFormed = parser.parse()
  }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
  ) {
    elements.append((name, attributes))
    ancestry.append(open)
    open.append(name)
    if name == "text" {
      texts.append((attributes, ""))
      inText = true
    }
  }

  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
    if name == "text" { inText = false }
    open.removeLast()
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    text += string
    if inText, !texts.isEmpty { texts[texts.count - 1].content += string }
  }

  /// The geometric attributes whose value is not a finite number (or, for `points`, `d` and
  /// `viewBox`, that contain something other than finite numbers and path letters).
  var nonFiniteGeometry: [String] {
    let numeric: Set = ["x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height"]
    var bad: [String] = []
    for e in elements {
      for (key, value) in e.attributes {
        if numeric.contains(key), !(Double(value)?.isFinite ?? false), !(e.name == "pattern" || e.name == "rect" && value.hasSuffix("%")) {
          bad.append("\(e.name) \(key)=\"\(value)\"")
        }
        if ["points", "d", "viewBox"].contains(key) {
          let numbers = value.split(whereSeparator: { " ,MLHVZ".contains($0) })
          if numbers.contains(where: { !(Double($0)?.isFinite ?? false) }) { bad.append("\(e.name) \(key)=\"\(value)\"") }
        }
      }
    }
    return bad
  }
}
