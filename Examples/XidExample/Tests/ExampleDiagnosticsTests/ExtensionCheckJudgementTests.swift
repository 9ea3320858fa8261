import ExampleDiagnostics
import Foundation
import Testing

/// How checks 4 and 5 judge what the App Intent and the widget stored, against the app's request
/// and its holds of the lock; and the folder of the App Group where they meet.
@Suite struct ExtensionCheckJudgementTests {
  static let now = Date(timeIntervalSince1970: 1_796_299_200)
  static let request = ExtensionRequest(id: "request-2", madeAt: now)

  static func record(
    _ process: DiagnosticsProcess, request: String? = "request-2", probe: ProbeReading = .matches,
    lock: LockAttempt? = LockAttempt(startedAt: now.addingTimeInterval(5), isShared: true, waitedMilliseconds: 3)
  ) -> ExtensionRecord {
    ExtensionRecord(process: process, requestID: request, ranAt: now.addingTimeInterval(5), probe: probe, lock: lock)
  }

  static func results(
    request: ExtensionRequest? = request, holds: [AppLockHold] = [], _ records: [ExtensionRecord]
  ) -> (keychain: DiagnosticsResult, lock: DiagnosticsResult) {
    let results = ExtensionObservation(request: request, holds: holds, records: records).results()
    #expect(results.map(\.check) == [.extensionReadsKeychainItem, .extensionTakesAppGroupLock])
    return (results[0], results[1])
  }

  @Test func bothExtensionsReadingTheItemAndTakingTheLockIsAsExpected() {
    let (keychain, lock) = Self.results([Self.record(.widget), Self.record(.intent)])
    #expect(keychain.verdict == .asExpected)
    #expect(lock.verdict == .asExpected)
    #expect(keychain.ranIn == [.intent, .widget])
    #expect(
      keychain.observed == [
        "intent: read the item, the value the app wrote", "widget: read the item, the value the app wrote",
      ])
    #expect(
      lock.observed.first
        == "intent: took it after 3 ms, shared (a file in the App Group); the app did not hold it meanwhile")
    #expect(lock.next?.contains("Hold the Lock") == true, "says how to see the lock exclude")
  }

  @Test func beforePrepareOrBeforeAnExtensionAnsweredTheChecksHaveNotRun() {
    let (keychain, lock) = Self.results(request: nil, [Self.record(.intent)])
    #expect(keychain.verdict == .notRun && lock.verdict == .notRun)
    let stale = Self.results([Self.record(.widget, request: "request-1")])
    #expect(stale.keychain.verdict == .notRun)
    #expect(stale.keychain.observed == ["widget: ran at 2026-12-03T12:00:05Z for an earlier preparation"])
  }

  @Test(arguments: [
    ProbeReading.missing, .differs, .failed(.xid("missingEntitlement", "add the group")),
    .failed(.xid("storageLocked", "while the device is locked")),
  ])
  func anExtensionThatDoesNotReadTheAppsValueIsUnexpected(probe: ProbeReading) {
    let (keychain, _) = Self.results([Self.record(.intent), Self.record(.widget, probe: probe)])
    #expect(keychain.verdict == .unexpected)
  }

  @Test func aLockThatIsNotSharedOrCannotBeTakenIsUnexpected() {
    let private_ = LockAttempt(startedAt: Self.now, isShared: false, waitedMilliseconds: 0)
    #expect(Self.results([Self.record(.intent, lock: private_)]).lock.verdict == .unexpected)
    let failed = LockAttempt(startedAt: Self.now, error: .xid("storageFailure", "cannot create the folder"))
    #expect(Self.results([Self.record(.intent, lock: failed)]).lock.verdict == .unexpected)
    // A timeout with no hold of the app's to explain it: something else held the lock.
    let timedOut = LockAttempt(startedAt: Self.now, error: .xid("lockTimeout", "another process held the lock"))
    #expect(Self.results([Self.record(.intent, lock: timedOut)]).lock.verdict == .unexpected)
  }

  static let hold = AppLockHold(from: now, until: now.addingTimeInterval(8))

  @Test func anAttemptDuringTheAppsHoldThatWaitedForItIsAsExpected() {
    let waited = LockAttempt(startedAt: Self.now.addingTimeInterval(1), isShared: true, waitedMilliseconds: 6_950)
    let result = Self.results(holds: [Self.hold], [Self.record(.widget, lock: waited)]).lock
    #expect(result.verdict == .asExpected)
    #expect(result.observed == ["widget: took it after 6950 ms, shared (a file in the App Group), once the app let go"])
    #expect(result.next == "The extensions take the App Group lock, and wait while the app holds it.")
    let timedOut = LockAttempt(startedAt: Self.now.addingTimeInterval(1), error: .xid("lockTimeout", "…"))
    #expect(Self.results(holds: [Self.hold], [Self.record(.widget, lock: timedOut)]).lock.verdict == .asExpected)
  }

  @Test func anAttemptThatGotTheLockWhileTheAppHeldItIsUnexpected() {
    let early = LockAttempt(startedAt: Self.now.addingTimeInterval(1), isShared: true, waitedMilliseconds: 20)
    let result = Self.results(holds: [Self.hold], [Self.record(.widget, lock: early)]).lock
    #expect(result.verdict == .unexpected)
    #expect(
      result.observed == ["widget: took it after 20 ms, shared (a file in the App Group), 7.0 s before the app let go"])
  }

  @Test func theIntentsDialogSaysWhatItSawWithoutTheValue() {
    let summary = Self.record(.intent).summary
    #expect(
      summary
        == "The intent read the app's keychain item and took the App Group lock after 3 ms. Open the app's Diagnostics to see and export the results."
    )
    #expect(!summary.contains("request-2"))
  }

  @Test func theExportCarriesNoKeychainValue() throws {
    let folder = DiagnosticsFolder(url: Self.temporaryDirectory())
    try folder.write(Self.request, to: .extensionRequest)
    try folder.write(Self.record(.intent), to: .extensionRecord(.intent))
    let report = DiagnosticsReport(
      environment: DiagnosticsReportTests.environment, madeAt: Self.now, results: try folder.results())
    #expect(report.result(for: .extensionReadsKeychainItem).verdict == .asExpected)
    #expect(!report.text.contains(Self.request.id))
  }

  // MARK: - The folder

  static func temporaryDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("xid-diagnostics-\(UUID().uuidString)")
  }

  @Test func theFolderKeepsEachProcesssLatestOutcome() throws {
    let container = Self.temporaryDirectory()
    let folder = DiagnosticsFolder(appGroupContainer: container)
    #expect(folder.url.lastPathComponent == "XidDiagnostics")
    #expect(try folder.results().map(\.verdict) == [.notRun, .notRun], "nothing yet: checks 4 and 5 not run")
    try folder.save(DiagnosticsResult(check: .rightStoreMissingRight, verdict: .unexpected))
    try folder.save(DiagnosticsResult(check: .rightStoreMissingRight, verdict: .asExpected, ranAt: Self.now))
    try folder.save(DiagnosticsResult(check: .biometryEnrollmentChange, verdict: .waiting))
    #expect(try folder.appResults().map(\.verdict) == [.asExpected, .waiting])
    #expect(try folder.appResults().first?.ranAt == Self.now)
    for index in 0..<7 {
      try folder.save(AppLockHold(from: Self.now.addingTimeInterval(Double(index)), until: Self.now))
    }
    try folder.write(Self.request, to: .extensionRequest)
    try folder.write(Self.record(.widget), to: .extensionRecord(.widget))
    let observation = try folder.extensionObservation()
    #expect(observation.holds.count == 5 && observation.holds.first?.from == Self.now.addingTimeInterval(2))
    #expect(observation.records == [Self.record(.widget)])
    #expect(observation.request == Self.request)
    try folder.remove(.extensionRequest)
    try folder.remove(.extensionRequest)
    #expect(try folder.read(ExtensionRequest.self, from: .extensionRequest) == nil)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    #expect(names == ["app-results.json", "extension-widget.json", "lock-holds.json"])
  }
}
