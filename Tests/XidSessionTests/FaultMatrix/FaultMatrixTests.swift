import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// The reliability matrix (docs/reliability.md, written from this suite's results by
/// scripts/reliability-report.sh): each fault, in one process and across eight, on a provider whose
/// refresh tokens rotate with reuse detection and on the keychain path (items shared by every process,
/// the refresh lock in an App Group folder). Time is the test's: no case sleeps to let a token expire.
///
/// Every case, whatever the fault, must show: no record lost or corrupt; no sign-out except on a
/// proven dead grant; at most one refresh request per expiry (retries after a transient failure
/// aside); no session back after a sign-out; no token in a log line or an error.
@Suite(.serialized, .noSecretLeaks, .workerProcessesOneAtATime, .timeLimit(.minutes(3)))
struct FaultMatrixTests {
  /// Concurrent callers in one process.
  static let tasks = 40
  /// Worker processes, and the concurrent callers in each.
  static let processes = 8
  static let tasksPerProcess = 20

  /// Asks for an access token from `count` tasks at once.
  static func ask(_ xid: Xid, count: Int) async -> (errors: [String], descriptions: [String], tokens: Int) {
    let outcomes = await withTaskGroup(of: Result<String, XidError>.self) { group in
      for _ in 0..<count {
        group.addTask {
          do { return .success(try await xid.getAccessToken()) } catch let error as XidError {
            return .failure(error)
          } catch {
            return .failure(XidError(.networkFailure, "\(type(of: error))"))
          }
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    var errors: [String] = [], descriptions: [String] = [], tokens: Set<String> = []
    for outcome in outcomes {
      switch outcome {
      case .success(let token): tokens.insert(token)
      case .failure(let error):
        errors.append(error.code.rawValue)
        descriptions.append("\(error)")
      }
    }
    return (errors, descriptions, tokens.count)
  }

  // MARK: - One process

  @Test(arguments: MatrixFault.allCases)
  func inOneProcess(fault: MatrixFault) async throws {
    let started = ContinuousClock.now
    let world = try await MatrixWorld.make()
    let side = WorkerFleet(world: world)
    defer { side.stop() }
    let xid = try world.makeXid(for: fault)
    try await xid.signIn()
    let pending = fault.isNewSignIn ? try await xid.authorizationURL() : nil
    var texts: [String] = []

    // The round of the fault.
    try world.nextExpiry(round: 1)
    let before = await world.provider.counters
    try await prepare(fault, mode: .oneProcess, world: world, side: side, round: 1)
    let asking = Task { await Self.ask(xid, count: Self.tasks) }
    switch fault {
    case .signOutSameProcess, .signOutDuringSlowRefresh:
      try await world.waitForRefresh(after: before.refreshes)
      try await xid.signOut()
    case .signOutOtherProcess:
      try await world.waitForRefresh(after: before.refreshes)
      try side.act("signOut", round: 1, by: "other")
      try side.go(1, only: "other")
      texts += try await side.reports(1, from: ["other"]).flatMap(\.errorDescriptions)
    case .newSignIn, .newSignInDuringSlowRefresh:
      try await world.waitForRefresh(after: before.refreshes)
      try await signInAnotherUser(xid, pending: pending, world: world)
    case .signOutDuringSaveRetry:
      try await world.waitForFailedWrite(of: MatrixFault.writesFailingBeyondRetry)
      try await xid.signOut()
    case .unreadableAfterAnswer:
      try await world.waitForRefresh(after: before.refreshes)
      try world.backend.failNextReads(1)
    default:
      break
    }
    let first = await asking.value
    let afterFirst = await world.provider.counters
    try await recover(fault, world: world)

    // The next expiry.
    try world.nextExpiry(round: 2)
    let second = await Self.ask(xid, count: Self.tasks)
    let afterSecond = await world.provider.counters

    texts += first.descriptions + second.descriptions + world.logger.messages + world.workerLogLines()
    let result = MatrixResult(
      fault: fault, mode: .oneProcess,
      rounds: [
        RoundObservation(before: before, after: afterFirst, errors: first.errors, tokens: first.tokens),
        RoundObservation(before: afterFirst, after: afterSecond, errors: second.errors, tokens: second.tokens),
      ],
      stored: world.stored(), leaks: await secretLeaks(in: texts, provider: world.provider),
      droppedTokenRevoked: await world.newestFirstUserRefreshTokenRevoked(), started: started)
    await Self.results.record(result)
    await world.stop()
  }

  // MARK: - Eight processes

  @Test func acrossEightProcesses() async throws {
    let world = try await MatrixWorld.make()
    let fleet = WorkerFleet(world: world)
    defer { fleet.stop() }
    let workers = (0..<Self.processes).map(String.init)
    let faults = MatrixFault.allCases
    for index in workers {
      try fleet.spawn(index, tasks: Self.tasksPerProcess, lastRound: 2 * faults.count)
    }
    try await fleet.waitUntilReady(workers)
    let xid = try world.makeXid()
    var results: [MatrixResult] = []
    for (number, fault) in faults.enumerated() {
      let started = ContinuousClock.now
      let faultRound = 2 * number + 1, nextRound = 2 * number + 2
      // A fresh session of the first user, whatever the previous case left.
      await world.provider.behave()
      await world.provider.clearFaults()
      await world.provider.endUserSession()
      await world.provider.setUser(.alice)
      try await xid.signIn()
      // The test process signs out or in with its own Xid where the fault names its setup.
      let acting =
        fault.refreshLockTimeout != SessionPolicy().refreshLockTimeout || !fault.testProcessHasALockDirectory
        ? try world.makeXid(for: fault) : xid
      let pending = fault.isNewSignIn ? try await acting.authorizationURL() : nil
      var texts: [String] = []

      try world.nextExpiry(round: faultRound)
      let before = await world.provider.counters
      try await prepare(fault, mode: .eightProcesses, world: world, side: fleet, round: faultRound)
      if fault == .signOutSameProcess { try fleet.act("signOut", round: faultRound, by: "3") }
      try fleet.go(faultRound)
      switch fault {
      case .timeout:
        // The provider holds a worker's refresh and moved its clock; the workers' time moves as
        // much, so the holder's request timeout fires, and so do the waits of the workers queued for
        // the lock (lockTimeout), as they would after a minute without an answer.
        try await BackgroundActivityTests.eventually {
          await world.provider.counters.faultsApplied > before.faultsApplied
        }
        try world.moveWorkerClocks(by: MatrixFault.timeoutAfter, round: faultRound)
      case .signOutOtherProcess, .signOutDuringSlowRefresh:
        try await world.waitForRefresh(after: before.refreshes)
        try await acting.signOut()
      case .newSignIn, .newSignInDuringSlowRefresh:
        try await world.waitForRefresh(after: before.refreshes)
        try await signInAnotherUser(acting, pending: pending, world: world)
      case .signOutDuringSaveRetry:
        try await world.waitForFailedWrite(of: MatrixFault.writesFailingBeyondRetry)
        try await acting.signOut()
      case .unreadableAfterAnswer:
        try await world.waitForRefresh(after: before.refreshes)
        try world.backend.failNextReads(1)
      default:
        break
      }
      let first = try await fleet.reports(faultRound, from: workers)
      let afterFirst = await world.provider.counters
      try await recover(fault, world: world)

      try world.nextExpiry(round: nextRound)
      try fleet.go(nextRound)
      let second = try await fleet.reports(nextRound, from: workers)
      let afterSecond = await world.provider.counters

      texts += (first + second).flatMap(\.errorDescriptions) + world.logger.messages + world.workerLogLines()
      results.append(
        MatrixResult(
          fault: fault, mode: .eightProcesses,
          rounds: [
            RoundObservation(
              before: before, after: afterFirst, errors: first.flatMap(\.errors),
              tokens: first.map(\.distinctTokens).reduce(0, +)),
            RoundObservation(
              before: afterFirst, after: afterSecond, errors: second.flatMap(\.errors),
              tokens: second.map(\.distinctTokens).reduce(0, +)),
          ],
          stored: world.stored(), leaks: await secretLeaks(in: texts, provider: world.provider),
          droppedTokenRevoked: await world.newestFirstUserRefreshTokenRevoked(),
          started: started))
    }
    // The workers logged everything (the secrets check read their lines).
    #expect(world.workerLogLines().count > faults.count)
    try MatrixResult.write(results, mode: .eightProcesses)
    await world.stop()
  }

  // MARK: - Steps shared by both modes

  /// Sets up `fault` before round `round` starts: the provider's fault, the storage's, or a process
  /// that holds the lock and is killed.
  func prepare(_ fault: MatrixFault, mode: MatrixMode, world: MatrixWorld, side: WorkerFleet, round: Int) async throws {
    switch fault {
    case .killedLockHolder:
      // A process starts a refresh, which the provider holds: it holds the lock, and is killed.
      let holder = "holder-\(round)"
      try side.spawn(holder, tasks: 1, firstRound: round, lastRound: round)
      try await side.waitUntilReady([holder])
      let before = await world.provider.counters.refreshes
      await world.provider.injectFault(try #require(fault.tokenEndpointFault), at: .token)
      try side.go(round, only: holder)
      try await world.waitForRefresh(after: before)
      try await side.kill(holder)
    case .signOutOtherProcess where mode == .oneProcess:
      // The other process, ready to sign out once this one's refresh is under way.
      try side.spawn("other", tasks: 0, firstRound: round, lastRound: round)
      try await side.waitUntilReady(["other"])
      await world.provider.injectFault(try #require(fault.tokenEndpointFault), at: .token)
    case .storageWriteFails:
      try world.backend.failNextWrites(1)
    case .storageWritesFailBeyondRetry, .signOutDuringSaveRetry:
      // The refreshing process's save, its first retry and two more fail: the rotated tokens exist
      // only in that process's memory while storage holds the refresh token the provider spent (and,
      // for the sign-out, the test signs out during the pause after the first failure).
      try world.backend.failNextWrites(MatrixFault.writesFailingBeyondRetry)
    case .lockedStorage:
      try world.backend.lock()
    default:
      if let injected = fault.tokenEndpointFault { await world.provider.injectFault(injected, at: .token) }
    }
  }

  /// Ends `fault` after its round: the storage unlocks, the provider behaves.
  func recover(_ fault: MatrixFault, world: MatrixWorld) async throws {
    // The storage's fault happened: the writes and reads that were to fail did (after the sign-out
    // during the save's retries, the refresh writes nothing more).
    if fault == .signOutDuringSaveRetry {
      #expect(world.backend.pendingWriteFailures < MatrixFault.writesFailingBeyondRetry)
      try world.backend.failNextWrites(0)
    }
    #expect(world.backend.pendingWriteFailures == 0)
    #expect(world.backend.pendingReadFailures == 0)
    try world.backend.unlock()
    await world.provider.clearFaults()
  }

  /// Completes, in this process, a sign-in of another user that started before the round.
  func signInAnotherUser(_ xid: Xid, pending: URL?, world: MatrixWorld) async throws {
    await world.provider.endUserSession()
    await world.provider.setUser(TestUser(subject: "bob"))
    let callback = try await world.provider.browser.redirect(from: try #require(pending))
    let session = try await xid.handleRedirect(url: callback)
    #expect(session.subject == "bob")
  }

  /// The one-process results, written once every case has run.
  static let results = ResultCollector()
}

/// Collects the one-process cases, which run in parallel, and writes them when the last one is in.
actor ResultCollector {
  private var results: [MatrixResult] = []

  func record(_ result: MatrixResult) {
    results.append(result)
    if results.count == MatrixFault.allCases.count { try? MatrixResult.write(results, mode: .oneProcess) }
  }
}
