/// Klick-like flows of any size, generated for the cost-growth tables: how the cost of
/// a user (Monte Carlo) and of a solve (exact engine) grows with screens and segments.
///
/// A flow of `screens` screens has `screens − 2` info slides (continue, skip to the
/// paywall, back, quit, each with a dwell time), the Pro paywall of Klick (three plans,
/// yearly pre-selected) and a required goal question that personalizes and completes the
/// flow. `segments` segments of equal weight spread their mean intent evenly over
/// [−1, 1]. Behavior parameters are Klick's, so every behavior the engine models is on.
public enum GeneratedFlow {
  /// The spec (JSON text) of the flow with `screens` screens (3…63) and `segments` segments.
  public static func spec(screens: Int, segments: Int) -> String {
    let slides = max(screens, 3) - 2
    var screenTexts: [String] = []
    for i in 0..<slides {
      let back = i == 0 ? "" : #", "back": 0.03"#
      screenTexts.append(
        #"{"id": "slide\#(i)", "kind": "info", "title": "Slide \#(i)", "dwell": {"medianSeconds": 5}, "actions": {"continue": 0.87, "skip": {"to": "proUpsell", "probability": 0.05}\#(back), "quit": \#(i == 0 ? 0.08 : 0.05)}}"#
      )
    }
    screenTexts.append(
      #"""
      {"id": "proUpsell", "kind": "paywall", "title": "Upgrade to Pro", "dwell": {"medianSeconds": 9}, "features": 4,
       "plans": [{"id": "monthly", "price": 4.99, "period": "month"}, {"id": "yearly", "price": 29.99, "period": "year", "trialDays": 7},
                 {"id": "lifetime", "price": 79.99, "period": "lifetime"}],
       "defaultPlan": "yearly", "actions": {"purchase": 0.008, "dismiss": 0.902, "back": 0.03, "quit": 0.06}}
      """#)
    screenTexts.append(
      #"""
      {"id": "goal", "kind": "choice", "title": "Your goal", "dwell": {"medianSeconds": 7}, "required": true, "personalizes": true,
       "options": [{"id": "a", "weight": 0.4}, {"id": "b", "weight": 0.3}, {"id": "c", "weight": 0.3}],
       "actions": {"select": 0.92, "back": 0.03, "quit": 0.05}}
      """#)
    let segmentTexts = (0..<max(segments, 1)).map { s in
      let mean = segments > 1 ? -1 + 2 * Double(s) / Double(segments - 1) : 0
      return #"{"id": "s\#(s)", "weight": 1, "intent": {"mean": \#(mean), "sd": 1}}"#
    }
    return #"""
      {"name": "generated-\#(screens)x\#(segments)", "seed": 7, "users": 100000,
       "behavior": {"fatiguePerScreen": 0.04, "requiredInputFriction": 0.4, "investmentPerScreen": 0.05, "personalizationBoost": 0.3,
                    "defaultPlanBias": 0.8, "priceSensitivity": 1.0, "referenceMonthlyPrice": 4.99, "featureUtility": 0.08},
       "population": {"segments": [\#(segmentTexts.joined(separator: ", "))]},
       "flow": {"screens": [\#(screenTexts.joined(separator: ",\n"))]},
       "variants": [{"id": "control"}],
       "metrics": {"primary": "purchaseConversion"}}
      """#
  }
}
