extension FunnelAggregate {
  /// Every field as JSON, for shard files. Integers only (the sum of squares as a
  /// decimal string), so reading it back gives the same aggregate exactly.
  package var json: JSONValue {
    func ints(_ xs: [UInt64]) -> JSONValue { .array(xs.map { .integer($0) }) }
    func pairs(_ d: RevenueDistribution) -> JSONValue {
      .array(d.counts.sorted { $0.key < $1.key }.map { .array([.integer($0.key), .integer($0.value)]) })
    }
    let histogram = completionTime.histogram.enumerated().filter { $0.element > 0 }.map {
      JSONValue.array([.integer($0.offset), .integer($0.element)])
    }
    let scalars =
      FunnelCounter.allCases.map { ($0.name, self[$0]) } + [
        ("completionCount", completionTime.count), ("completionMillis", completionTime.sumMillis),
      ]
    var members: [(String, JSONValue)] = scalars.map { ($0.0, .integer($0.1)) }
    members += [
      ("completionSquaredMillis", .string(String(completionTime.sumSquaredMillis))),
      ("completionHistogram", .array(histogram)),
    ]
    members += Self.indexedCounters.map { ($0.name, ints(self[keyPath: $0.field])) }
    members += [("revenue", pairs(revenue)), ("realizedRevenue", pairs(realizedRevenue))]
    members.append(("lifecycles", .array(lifecycles.sorted { $0.key < $1.key }.map { Self.json($0.key, count: $0.value) })))
    return .object(members)
  }

  /// One lifecycle and its purchasers, as a shard file holds it.
  static func json(_ l: PurchaseLifecycle, count: UInt64) -> JSONValue {
    .object([
      ("plan", .integer(UInt64(max(l.plan, 0)))), ("delayDays", .number(l.delayDays)), ("trial", .bool(l.isTrial)),
      ("converted", .bool(l.convertedFromTrial)), ("payments", .integer(UInt64(max(l.payments, 0)))),
      ("refunded", .bool(l.refunded)), ("count", .integer(count)),
    ])
  }

  /// Reads an aggregate written by ``json`` for `flow`, checking every field's shape.
  /// - Throws: ``SpecError`` at the offending path.
  package init(json value: JSONValue, for flow: CompiledFlow, at path: SpecPath) throws(SpecError) {
    self.init(for: flow)
    func field(_ key: String) throws(SpecError) -> JSONValue {
      guard let v = value[key] else { throw SpecError(path: path.key(key), message: "missing", hint: "the shard file is damaged") }
      return v
    }
    func integer(_ v: JSONValue, _ p: SpecPath) throws(SpecError) -> UInt64 {
      guard case .number(_, let literal) = v.kind, let x = UInt64(literal) else {
        throw SpecError(path: p, message: "expected a whole number ≥ 0", hint: "the shard file is damaged")
      }
      return x
    }
    func signed(_ v: JSONValue, _ p: SpecPath) throws(SpecError) -> Int64 {
      guard case .number(_, let literal) = v.kind, let x = Int64(literal) else {
        throw SpecError(path: p, message: "expected a whole number", hint: "the shard file is damaged")
      }
      return x
    }
    func scalar(_ key: String) throws(SpecError) -> UInt64 { try integer(field(key), path.key(key)) }
    func array(_ key: String, count: Int) throws(SpecError) -> [UInt64] {
      guard case .array(let xs) = try field(key).kind, xs.count == count else {
        throw SpecError(path: path.key(key), message: "expected an array of \(count) counts", hint: "the shard belongs to another flow")
      }
      var out: [UInt64] = []
      for (i, x) in xs.enumerated() { out.append(try integer(x, path.key(key).index(i))) }
      return out
    }
    func pairs(_ key: String) throws(SpecError) -> [(JSONValue, JSONValue, SpecPath)] {
      guard case .array(let xs) = try field(key).kind else {
        throw SpecError(path: path.key(key), message: "expected an array of [value, count] pairs", hint: nil)
      }
      var out: [(JSONValue, JSONValue, SpecPath)] = []
      for (i, x) in xs.enumerated() {
        guard case .array(let pair) = x.kind, pair.count == 2 else {
          throw SpecError(path: path.key(key).index(i), message: "expected [value, count]", hint: nil)
        }
        out.append((pair[0], pair[1], path.key(key).index(i)))
      }
      return out
    }
    for counter in FunnelCounter.allCases { self[counter] = try scalar(counter.name) }
    completionTime.count = try scalar("completionCount")
    completionTime.sumMillis = try scalar("completionMillis")
    guard case .string(let squares) = try field("completionSquaredMillis").kind, let s = UInt128(squares) else {
      throw SpecError(path: path.key("completionSquaredMillis"), message: "expected a whole number in a string", hint: nil)
    }
    completionTime.sumSquaredMillis = s
    for (second, count, p) in try pairs("completionHistogram") {
      let i = try integer(second, p.index(0))
      guard i < UInt64(completionTime.histogram.count) else { throw SpecError(path: p, message: "second out of range", hint: nil) }
      completionTime.histogram[Int(i)] = try integer(count, p.index(1))
    }
    for counter in Self.indexedCounters {
      self[keyPath: counter.field] = try array(counter.name, count: self[keyPath: counter.field].count)
    }
    for (cents, count, p) in try pairs("revenue") { revenue.counts[try signed(cents, p.index(0))] = try integer(count, p.index(1)) }
    for (cents, count, p) in try pairs("realizedRevenue") {
      realizedRevenue.counts[try signed(cents, p.index(0))] = try integer(count, p.index(1))
    }
    guard case .array(let items) = try field("lifecycles").kind else {
      throw SpecError(path: path.key("lifecycles"), message: "expected an array of lifecycles", hint: "the shard file is damaged")
    }
    for (i, item) in items.enumerated() {
      let (lifecycle, count) = try Self.lifecycle(item, for: flow, at: path.key("lifecycles").index(i))
      guard lifecycles[lifecycle] == nil else {
        throw SpecError(path: path.key("lifecycles").index(i), message: "repeats an earlier lifecycle", hint: "the shard file is damaged")
      }
      lifecycles[lifecycle] = count
    }
    try checkLifecyclesReproduceRevenue(flow, at: path)
  }

  /// Reads one lifecycle written by ``json(_:count:)``: a plan of `flow`, a finite delay of
  /// 0 to 10⁶ days, at most the payments the plan can make within the horizon, a
  /// conversion only after a trial and a refund only of a payment.
  static func lifecycle(_ value: JSONValue, for flow: CompiledFlow, at path: SpecPath) throws(SpecError) -> (PurchaseLifecycle, UInt64) {
    func damaged(_ key: String, _ message: String) -> SpecError {
      SpecError(path: path.key(key), message: message, hint: "the shard file is damaged")
    }
    func whole(_ key: String) throws(SpecError) -> UInt64 {
      guard case .number(_, let literal)? = value[key]?.kind, let x = UInt64(literal) else {
        throw damaged(key, "expected a whole number ≥ 0")
      }
      return x
    }
    func flag(_ key: String) throws(SpecError) -> Bool {
      guard case .bool(let b)? = value[key]?.kind else { throw damaged(key, "expected true or false") }
      return b
    }
    let slot = try whole("plan")
    guard slot < UInt64(flow.plans.count) else { throw damaged("plan", "plan slot \(slot), but the flow has \(flow.plans.count) plans") }
    guard case .number(let delay, _)? = value["delayDays"]?.kind, delay.isFinite, delay >= 0, delay <= 1_000_000 else {
      throw damaged("delayDays", "expected a number of days from 0 to 1000000")
    }
    let isTrial = try flag("trial")
    let converted = try flag("converted")
    let refunded = try flag("refunded")
    let payments = try whole("payments")
    var l = PurchaseLifecycle(
      plan: Int(slot), delayDays: delay, isTrial: isTrial, convertedFromTrial: converted, payments: 0, refunded: refunded)
    let possible = SubscriptionLifecycle(settings: flow.revenue).possiblePayments(l, plan: flow.plans[Int(slot)].plan)
    guard payments <= UInt64(possible) else {
      throw damaged("payments", "\(payments) payments, but the plan makes at most \(possible) in the horizon")
    }
    l.payments = Int(payments)
    guard !converted || isTrial else { throw damaged("converted", "a conversion without a trial") }
    guard !refunded || payments >= 1 else { throw damaged("refunded", "a refund without a payment") }
    guard !isTrial || converted || payments == 0 else { throw damaged("payments", "payments after a trial that did not convert") }
    return (l, try whole("count"))
  }

  /// Checks that the lifecycles earn exactly the revenue distributions stored beside them
  /// (by the horizon and before the analysis day), as every run's do.
  func checkLifecyclesReproduceRevenue(_ flow: CompiledFlow, at path: SpecPath) throws(SpecError) {
    let horizon = flow.revenue.horizonMonths * SubscriptionLifecycle.daysPerMonth
    for (field, stored, day) in [("revenue", revenue, horizon), ("realizedRevenue", realizedRevenue, flow.revenue.analysisDay)]
    where revenue(before: day, in: flow) != stored {
      throw SpecError(
        path: path.key("lifecycles"), message: "the lifecycles do not earn the \(field) stored beside them",
        hint: "the shard file was edited or damaged")
    }
  }
}
