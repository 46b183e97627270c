/// A flow drawn as a graph: its screens top to bottom, the end of the flow below them.
extension SVGCharts {
  /// One edge: from screen `from` to screen `to` (`nodes.count`: completed), with the share
  /// of users who took it.
  package struct FlowEdge: Sendable, Hashable {
    /// The screen it leaves.
    package var from: Int
    /// The screen it enters, or the node count for completion.
    package var to: Int
    /// Transitions per user.
    package var share: Double

    /// An edge.
    package init(from: Int, to: Int, share: Double) {
      self.from = from
      self.to = to
      self.share = share
    }
  }

  /// The graph in a `width`-wide view box: each screen a box with its name and reach, the
  /// edge to the next screen straight down between the boxes, edges that skip ahead as arcs
  /// on the right and edges back as arcs on the left, each as thick as its share and labelled
  /// with it when at least 1 % of users took it. Quits are in each box's text, not drawn.
  package static func flowGraph(nodes: [(id: String, text: String)], edges: [FlowEdge], width: Double) -> (height: Double, content: String)
  {
    let boxWidth = min(width * 0.44, 240)
    let left = (width - boxWidth) / 2
    let boxHeight = 36.0
    let gap = 34.0
    func top(_ i: Int) -> Double { 8 + Double(i) * (boxHeight + gap) }
    var out = ""
    let all = nodes + [(id: "completed", text: "the end of the flow")]
    for (i, node) in all.enumerated() {
      out += rect(left, top(i), boxWidth, boxHeight, cssClass: i == nodes.count ? "graph-end" : "graph-node", fill: "#f4f7fb")
      out += text(left + boxWidth / 2, top(i) + 15, node.id, anchor: "middle", cssClass: "graph-name")
      out += text(left + boxWidth / 2, top(i) + 31, node.text, anchor: "middle", cssClass: "graph-note")
    }
    let reach = (width - boxWidth) / 2 - 14
    for edge in edges.sorted(by: { ($0.from, $0.to) < ($1.from, $1.to) }) where edge.share > 0 {
      let stroke = n(1 + 5 * min(edge.share, 1))
      let label = edge.share >= 0.01 ? NumberText.percent(edge.share) : nil
      if edge.to == edge.from + 1 {
        let x = left + boxWidth / 2
        let y1 = top(edge.from) + boxHeight
        let y2 = top(edge.to)
        out += "<path d=\"M\(n(x)) \(n(y1)) L\(n(x)) \(n(y2))\" class=\"graph-edge\" stroke-width=\"\(stroke)\"/>\n"
        if let label { out += text(x + 6, (y1 + y2) / 2 + 4, label, cssClass: "graph-share") }
        continue
      }
      let forward = edge.to > edge.from
      let span = Double(abs(edge.to - edge.from))
      let bulge = min(16 + 12 * span, reach)
      let x = forward ? left + boxWidth : left
      let out1 = forward ? x + bulge : x - bulge
      let y1 = top(edge.from) + boxHeight / 2 + (forward ? 4 : -4)
      let y2 = top(edge.to) + boxHeight / 2 + (forward ? -4 : 4)
      out += "<path d=\"M\(n(x)) \(n(y1)) C\(n(out1)) \(n(y1)) \(n(out1)) \(n(y2)) \(n(x)) \(n(y2))\" class=\"graph-edge\""
      out += " stroke-width=\"\(stroke)\" fill=\"none\"/>\n"
      if let label {
        let lx = forward ? x + bulge * 0.75 + 2 : x - bulge * 0.75 - 2
        out += text(lx, (y1 + y2) / 2 + 4, label, anchor: forward ? "start" : "end", cssClass: "graph-share")
      }
    }
    return (top(all.count) + 4, out)
  }
}
