/// A goal question then a paywall of two plans (yearly pre-selected), with two past
/// tests: `defaultMonthly` pre-selects monthly (it identifies `defaultPlanBias`) and
/// `goalOptional` makes the goal optional (it identifies `requiredInputFriction` and
/// `optionalSkipShare`). Small enough for an exact solve in a debug build to be quick:
/// four trait bins, saturation after two screens.
public func pastTestSpec(defaultPlanBias bias: Double = 0.8) -> String {
  """
  {
    "name": "two-screen", "seed": 1, "users": 1000,
    "behavior": { "defaultPlanBias": \(bias), "screensSeenCap": 2 },
    "store": { "cancelProbability": 0, "failureProbability": 0, "pendingProbability": 0, "latencySeconds": 0 },
    "population": { "segments": [ { "id": "all", "weight": 1, "intent": { "mean": 0, "sd": 1 } } ] },
    "simulation": { "traitBins": 4 },
    "flow": { "screens": [
      { "id": "goal", "kind": "choice", "required": true, "options": [ { "id": "a", "weight": 1 } ],
        "actions": { "select": 0.85, "quit": 0.15 } },
      { "id": "paywall", "kind": "paywall", "defaultPlan": "yearly",
        "plans": [ { "id": "monthly", "price": 9.99, "period": "month" }, { "id": "yearly", "price": 59.99, "period": "year" } ],
        "actions": { "purchase": { "to": "completed", "probability": 0.08 }, "dismiss": { "to": "completed", "probability": 0.92 } } }
    ] },
    "variants": [
      { "id": "control" },
      { "id": "defaultMonthly", "patches": [ { "op": "setDefaultPlan", "screen": "paywall", "plan": "monthly" } ] },
      { "id": "goalOptional", "patches": [ { "op": "setRequired", "screen": "goal", "required": false } ] }
    ]
  }
  """
}

/// Observed counts of ``pastTestSpec(defaultPlanBias:)``'s `control` (70 purchases of 850 paywall
/// views) and `defaultMonthly` (95): a CSV of `screen,action,count,variant` rows for `calibrate --variants`.
public func pastTestCountsCSV() -> String {
  var csv = "screen,action,count,variant\n"
  for (variant, purchases) in [("control", 70), ("defaultMonthly", 95)] {
    csv += "goal,,1000,\(variant)\ngoal,select,850,\(variant)\npaywall,,850,\(variant)\n"
    csv += "paywall,purchase,\(purchases),\(variant)\npaywall,dismiss,\(850 - purchases),\(variant)\n"
  }
  return csv
}
