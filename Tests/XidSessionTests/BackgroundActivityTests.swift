import Foundation
import Testing
import Xid
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// A background activity the test ends by hand, as the system would when the time runs out.
final class FakeActivity: BackgroundActivity, @unchecked Sendable {
  private let state = LockedValue<(begun: [String], ended: Int, expire: (@Sendable () -> Void)?)>(([], 0, nil))

  func begin(name: String, onExpiry: @escaping @Sendable () -> Void) async -> BackgroundActivityLease {
    state.update {
      $0.begun.append(name)
      $0.expire = onExpiry
    }
    return BackgroundActivityLease { self.state.update { $0.ended += 1 } }
  }

  /// The system takes the time back.
  func expire() { state.get().expire?() }

  var begun: [String] { state.get().begun }
  var ended: Int { state.get().ended }
  var isActive: Bool { state.get().begun.count > state.get().ended }
}

/// A refresh, and the lock it holds, live inside a background activity and end with it: iOS kills a
/// process suspended while it holds a file lock in a shared container.
struct BackgroundActivityTests {
  static let key = AccountSessionTests.key

  static func session(
    storage: any TokenStorageAdapter, lockDirectory: URL, activity: FakeActivity,
    refresher: @escaping @Sendable (TokenRecord) async throws -> RefreshedTokens
  ) -> AccountSession {
    AccountSession(
      records: AccountSessionTests.records(storage), lock: FileLock(directory: lockDirectory, name: ".test.lock"),
      lockTimeout: .seconds(5), activity: activity, expiryLeeway: 60, logger: DiscardingLogger(),
      clock: StandingClock(now: AccountSessionTests.start), refresher: ClosureRefresher(refresher))
  }

  /// Waits (generously, counted in polls: see ``pollUntil(every:atMost:_:)``) until `condition`
  /// holds, and records an issue when it never does.
  static func eventually(
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async -> Bool
  ) async throws {
    if try await !pollUntil(condition) { Issue.record("the condition never held", sourceLocation: sourceLocation) }
  }

  @Test func aRefreshTakesItsLockInAFolderThatDoesNotExistYet() async throws {
    // The App Group container exists; its Xid folder does not until the first refresh.
    let container = temporaryDirectory()
    try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
    let lockDirectory = KeychainTokenStorage.refreshLockDirectory(inAppGroupContainer: container)
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let refresher = ScriptedRefresher()
    let session = Self.session(
      storage: storage, lockDirectory: lockDirectory, activity: FakeActivity(), refresher: refresher.refresh)
    #expect(try await session.validRecord(force: false).accessToken == "at-1")
    #expect(permissions(lockDirectory.path) == 0o700)
  }

  @Test func aRefreshRunsInsideABackgroundActivityThatEndsWithIt() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let activity = FakeActivity()
    let activeDuringRefresh = LockedValue(false)
    let session = Self.session(storage: storage, lockDirectory: temporaryDirectory(), activity: activity) { _ in
      activeDuringRefresh.set(activity.isActive)
      return RefreshedTokens(accessToken: "at-1", tokenType: "Bearer", expiresIn: 3600, refreshToken: "rt-1")
    }
    _ = try await session.validRecord(force: false)
    #expect(activeDuringRefresh.get())
    #expect(activity.begun.count == 1)
    #expect(activity.ended == 1)
  }

  @Test func whenTheTimeRunsOutTheRefreshIsCancelledAndTheLockReleasedAtOnce() async throws {
    let storage = InMemoryTokenStorage()
    let stored = AccountSessionTests.record().encoded()
    try storage.save(key: Self.key, value: stored)
    let lockDirectory = temporaryDirectory()
    let activity = FakeActivity()
    let refresher = ScriptedRefresher()
    refresher.delay = .seconds(60)
    let session = Self.session(
      storage: storage, lockDirectory: lockDirectory, activity: activity, refresher: refresher.refresh)
    let refresh = Task { try await session.validRecord(force: false) }
    try await Self.eventually { refresher.calls == 1 }

    activity.expire()
    // Released before `expire` returned: another process takes the lock at once.
    let other = try await FileLock(directory: lockDirectory, name: ".test.lock").acquire(timeout: .zero)
    other.release()
    let error = await expectXidError(.cancelled) { try await refresh.value }
    #expect(error?.reason.contains("background") == true)
    #expect(try storage.load(key: Self.key) == stored)
    #expect(activity.ended == 1)
  }

  @Test func aRefreshAnswerArrivingAfterTheTimeRanOutIsKeptInMemoryAndSavedAtTheNextUse() async throws {
    let storage = InMemoryTokenStorage()
    let stored = AccountSessionTests.record().encoded()
    try storage.save(key: Self.key, value: stored)
    let lockDirectory = temporaryDirectory()
    let activity = FakeActivity()
    let started = LockedValue(false), answer = LockedValue(false)
    // A transport that ignores cancellation: the answer arrives after the lock was given up.
    let session = Self.session(storage: storage, lockDirectory: lockDirectory, activity: activity) { _ in
      started.set(true)
      while !answer.get() { try? await Task.sleep(for: .milliseconds(1)) }
      return RefreshedTokens(accessToken: "at-late", tokenType: "Bearer", expiresIn: 3600, refreshToken: "rt-late")
    }
    let refresh = Task { try await session.validRecord(force: false) }
    try await Self.eventually { started.get() }
    activity.expire()
    answer.set(true)
    // Nothing is written without the lock; the answer (the provider spent rt-0) stays in this
    // process, to be saved at its next use, before any refresh.
    #expect(try await refresh.value.accessToken == "at-late")
    #expect(try storage.load(key: Self.key) == stored)
    // While it is not saved, the memory path leaves each call to the session, which serves the kept
    // token and saves it under the lock, in a new activity.
    #expect(session.usableRecordFromMemory() == nil)
    #expect(try await session.validRecord(force: false).accessToken == "at-late")
    try await Self.eventually { session.usableRecordFromMemory()?.accessToken == "at-late" }
    #expect(try TokenRecord(decoding: try #require(try storage.load(key: Self.key))).refreshToken == "rt-late")
  }

  @Test func timeThatRanOutBeforeTheLockWasTakenStartsNoRefresh() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let refresher = ScriptedRefresher()
    let session = AccountSession(
      records: AccountSessionTests.records(storage), lock: FileLock(directory: temporaryDirectory(), name: ".l"),
      lockTimeout: .seconds(5), activity: NoTimeActivity(), expiryLeeway: 60, logger: DiscardingLogger(),
      clock: StandingClock(now: AccountSessionTests.start), refresher: ClosureRefresher(refresher.refresh))
    await expectXidError(.cancelled) { try await session.validRecord(force: false) }
    #expect(refresher.calls == 0)
  }
}

/// An activity the system refuses: it expires as it begins.
struct NoTimeActivity: BackgroundActivity {
  func begin(name: String, onExpiry: @escaping @Sendable () -> Void) async -> BackgroundActivityLease {
    onExpiry()
    return .none
  }
}
