import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// Calibration recovers the probabilities that generated the counts.
@Suite struct CalibrationTests {
  /// The counts a simulated run of `truth` produces, as an analytics export would
  /// give them (views per screen, taps per explicit action, no quit rows).
  func observed(_ truth: Experiment, users: Int, screens: Set<String>? = nil) throws -> ObservedCounts {
    let run = try ExperimentRunner.run(truth, options: RunOptions(users: users, seed: 99, variants: []))
    let arm = try #require(run.control)
    var counts = ObservedCounts()
    for (i, id) in arm.flow.screenIDs.enumerated() where screens?.contains(id) ?? true {
      counts.views[id] = arm.aggregate.views[i]
    }
    for (k, slot) in arm.flow.actions.enumerated() where !slot.implicit && slot.id != "quit" {
      let id = arm.flow.screenIDs[slot.screen]
      guard screens?.contains(id) ?? true else { continue }
      counts.actions[id, default: [:]][slot.id, default: 0] += arm.aggregate.actionCounts[k]
    }
    return counts
  }

  func urbannest() throws -> (Experiment, JSONValue) {
    let path = experimentPath("urbannest-onboarding")
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return (try ExperimentLoader.load(text: text, source: path), try JSONParser.parse(text))
  }

  /// `truth` with slide 1's and registration's probabilities changed.
  func changed(_ e: Experiment) -> Experiment {
    var truth = e
    truth.variants = Array(e.variants.prefix(1))
    truth.expectations = []
    let new: [String: [String: Double]] = [
      "slide1": ["continue": 0.75, "skip": 0.16, "quit": 0.07],
      "registration": ["type": 0.76, "quit": 0.21],
    ]
    for (i, screen) in truth.flow.screens.enumerated() {
      for (j, action) in screen.actions.enumerated() {
        if let p = new[screen.id]?[action.id] { truth.flow.screens[i].actions[j].probability = p }
      }
    }
    return truth
  }

  @Test func withEffectsOffTheFitIsTheMultinomialMLEAndCoversTheTruth() throws {
    var (spec, document) = try urbannest()
    spec.behavior = neutralBehavior()
    let truth = changed(spec)
    let counts = try observed(truth, users: 20_000, screens: ["slide1", "slide2", "slide3"])
    let fit = try Calibration.fit(spec, document: document, observed: counts)
    #expect(fit.actions.count == 16)
    for a in fit.actions {
      // MLE = n / N (to the 4 decimals written).
      #expect(abs(a.fittedProbability - a.observedRate) < 1e-4 + 1e-9, "\(a.screen).\(a.action)")
      let p = try #require(truth.flow.screen(a.screen)?.action(a.action)?.probability)
      #expect(try #require(a.interval).contains(p), "\(a.screen).\(a.action): \(p) not in \(String(describing: a.interval))")
    }
    #expect(
      fit.actions.filter(\.contradicted).map { "\($0.screen).\($0.action)" }.sorted() == ["slide1.continue", "slide1.quit", "slide1.skip"])
  }

  @Test(.longStage) func withEffectsOnTheFitRecoversTheBaseProbabilities() throws {
    let (spec, document) = try urbannest()
    let truth = changed(spec)
    let counts = try observed(truth, users: 20_000)
    let fit = try Calibration.fit(spec, document: document, observed: counts)
    for a in fit.actions {
      let p = try #require(truth.flow.screen(a.screen)?.action(a.action)?.probability)
      // The rate's interval, carried to the probability: within 1.5 interval half-widths.
      let interval = try #require(a.interval)
      let halfWidth = (interval.upper - interval.lower) / 2
      #expect(
        abs(a.fittedProbability - p) <= max(1.5 * halfWidth, 2e-4), "\(a.screen).\(a.action): fitted \(a.fittedProbability), true \(p)")
    }
    #expect(fit.fittedTotal.g < 1e-6)
    #expect(fit.assumedTotal.p < 1e-10)
    // Refitting the truth against its own counts contradicts nothing.
    let again = try Calibration.fit(truth, document: document, observed: counts)
    #expect(again.actions.filter(\.contradicted).isEmpty)
    #expect(again.assumedTotal.p > 0.001)
  }

  @Test func theCalibratedDocumentKeepsItsKeyOrder() throws {
    let (spec, document) = try urbannest()
    let counts = try observed(changed(spec), users: 5_000, screens: ["slide1"])
    let fit = try Calibration.fit(spec, document: document, observed: counts)
    let written = try JSONParser.parse(JSONWriter.write(fit.document))
    guard case .object(let before) = document.kind, case .object(let after) = written.kind else {
      Issue.record("not objects")
      return
    }
    #expect(before.map(\.key) == after.map(\.key))
    let decoded = try SpecDecoder().decode(Experiment.self, from: written)
    let slide1 = try #require(decoded.flow.screen("slide1"))
    #expect(abs(slide1.actions.reduce(0) { $0 + ($1.probability ?? 0) } - 1) < 1e-9)
    #expect(slide1.action("skip")?.probability == fit.calibrated.flow.screen("slide1")?.action("skip")?.probability)
  }

  @Test(arguments: [
    ("screen,action,count\nslide1,continue,12x\n", "2: count '12x' is not a whole number"),
    ("screen,action\nslide1,continue\n", "1: the header lacks count"),
    ("screen,action,count\nslide1,continue\n", "2: expected 3 fields, found 2"),
  ])
  func badLinesAreReportedWithTheirLine(csv: String, message: String) throws {
    #expect(throws: SpecErrors.self) { try ObservedCounts.parse(csv: csv, source: "x.csv") }
    do {
      _ = try ObservedCounts.parse(csv: csv, source: "x.csv")
    } catch {
      let first = try #require(error.errors.first)
      #expect("\(first.line ?? 0): \(first.message)".hasPrefix(message))
    }
  }

  @Test func rowsOfOtherVariantsAreIgnored() throws {
    let csv = "variant,screen,action,count\ncontrol,slide1,,100\ncontrol,slide1,continue,80\nb,slide1,continue,5\n,slide1,skip,10\n"
    let counts = try ObservedCounts.parse(csv: csv, source: "x.csv", variant: "control")
    #expect(counts.views == ["slide1": 100])
    #expect(counts.actions == ["slide1": ["continue": 80, "skip": 10]])
  }

  @Test func anUnknownVariantOfAResultNamesTheClosest() throws {
    let result = try Simulation.run(contentsOf: experimentPath("urbannest-onboarding"), users: 1_000)
    #expect(throws: SpecErrors.self) { try result.variant("twoSlide") }
    do {
      _ = try result.variant("twoSlide")
    } catch {
      #expect(error.errors.first?.hint == "did you mean 'twoSlides'?")
    }
    #expect(try result.control().comparison(.completionRate) == nil)
    #expect(try result.variant("twoSlides").comparison(.completionRate)?.difference != nil)
  }
}
