import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// A point where a task waits until the test opens it.
final class Gate: Sendable {
  private let state = LockedValue((waiting: 0, open: false))

  /// Waits (polling, so a cancelled task still waits, as a transport that ignores cancellation would).
  func wait() async {
    state.update { $0.waiting += 1 }
    while !state.get().open { try? await Task.sleep(for: .milliseconds(1)) }
  }

  func open() { state.update { $0.open = true } }

  var waiting: Int { state.get().waiting }
}

/// Storing and removing write at once, never waiting for a refresh; a refresh compares the record
/// right before each write of its result and writes nothing if it was removed or replaced meanwhile:
/// a sign-out is never undone and a new sign-in never overwritten by a refresh that started before
/// them, with a lock file or without one.
@Suite(.noSecretLeaks)
struct SignOutDuringRefreshTests {
  static let key = AccountSessionTests.key

  /// A session whose refresher waits at `gate`, then answers `at-1`/`rt-1`, and whose revocations are
  /// recorded.
  static func session(storage: any TokenStorageAdapter, gate: Gate, revoked: Recorder<String>) -> AccountSession {
    AccountSession(
      records: AccountSessionTests.records(storage), lock: nil, lockTimeout: .seconds(5), expiryLeeway: 60,
      logger: DiscardingLogger(), clock: StandingClock(now: AccountSessionTests.start),
      refresher: ClosureRefresher(revoking: { await revoked.record($0) }) { _ in
        await gate.wait()
        return RefreshedTokens(accessToken: "at-1", tokenType: "Bearer", expiresIn: 3600, refreshToken: "rt-1")
      })
  }

  // MARK: - In one process, at the session

  @Test func aSignOutDuringARefreshIsNotUndoneByIt() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let gate = Gate(), revoked = Recorder<String>()
    let session = Self.session(storage: storage, gate: gate, revoked: revoked)
    let refresh = Task { try await session.validRecord(force: false) }
    try await BackgroundActivityTests.eventually { gate.waiting == 1 }

    try await session.remove()
    gate.open()
    await expectXidError(.signInRequired) { try await refresh.value }
    #expect(try storage.load(key: Self.key) == nil)
    #expect(try await session.record() == nil)
    #expect(session.usableRecordFromMemory()?.accessToken == nil)
    // The refresh token the provider issued, which nobody will ever use, is revoked.
    #expect(await revoked.values == ["rt-1"])
  }

  @Test func aNewSignInDuringARefreshIsNeverOverwrittenByIt() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let gate = Gate(), revoked = Recorder<String>()
    let session = Self.session(storage: storage, gate: gate, revoked: revoked)
    let refresh = Task { try await session.validRecord(force: false) }
    try await BackgroundActivityTests.eventually { gate.waiting == 1 }

    var second = AccountSessionTests.record(expiresIn: 3600, refreshToken: "rt-second")
    second.accessToken = "at-second"
    try await session.store(second)
    gate.open()
    #expect(try await refresh.value.accessToken == "at-second")
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.accessToken == "at-second" && stored.refreshToken == "rt-second")
    #expect(await revoked.values == ["rt-1"])
  }

  @Test func aRecordAnotherWriterReplacedWithTheSameVersionIsNotOverwritten() async throws {
    // Released versions of Xid save a new sign-in as version 1: the version alone cannot tell.
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record(version: 1).encoded())
    let gate = Gate(), revoked = Recorder<String>()
    let session = Self.session(storage: storage, gate: gate, revoked: revoked)
    let refresh = Task { try await session.validRecord(force: false) }
    try await BackgroundActivityTests.eventually { gate.waiting == 1 }

    var other = AccountSessionTests.record(version: 1, expiresIn: 3600, refreshToken: "rt-other")
    other.accessToken = "at-other"
    try storage.save(key: Self.key, value: other.encoded())
    gate.open()
    #expect(try await refresh.value.accessToken == "at-other")
    #expect(try TokenRecord(decoding: try #require(try storage.load(key: Self.key))) == other)
    #expect(await revoked.values == ["rt-1"])
  }

  // MARK: - Where nothing excludes anyone: the compare right before each write

  /// A session without a lock (the stores without a lock directory: `InMemoryTokenStorage`,
  /// `KeychainTokenStorage()`, custom adapters) whose refresh answers `at-1`/`rt-1` at once, whose
  /// pauses between two attempts to save wait at `pause`, and whose revocations are recorded.
  static func sessionWithoutALock(
    storage: any TokenStorageAdapter, pause: Gate, revoked: Recorder<String>, sealer: TestSealer? = nil
  ) -> AccountSession {
    AccountSession(
      records: AccountSessionTests.records(storage), lock: nil, lockTimeout: .seconds(5), expiryLeeway: 60,
      logger: DiscardingLogger(), clock: GatedClock(now: AccountSessionTests.start, gate: pause),
      refresher: ClosureRefresher(revoking: { await revoked.record($0) }) { _ in
        RefreshedTokens(accessToken: "at-1", tokenType: "Bearer", expiresIn: 3600, refreshToken: "rt-1")
      }, sealer: sealer)
  }

  @Test func aSignOutWhileARefreshWaitsToRetryItsSaveIsNotUndoneByIt() async throws {
    let storage = FlakyStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let pause = Gate(), revoked = Recorder<String>()
    let session = Self.sessionWithoutALock(storage: storage, pause: pause, revoked: revoked)
    storage.failNextSaves(1)
    let refresh = Task { try await session.validRecord(force: false) }
    try await BackgroundActivityTests.eventually { pause.waiting == 1 }

    try await session.remove()
    pause.open()
    await expectXidError(.signInRequired) { try await refresh.value }
    #expect(try storage.load(key: Self.key) == nil)
    #expect(try await session.record() == nil)
    #expect(await revoked.values == ["rt-1"])
  }

  @Test func aNewSignInWhileARefreshWaitsToRetryItsSaveIsNeverOverwrittenByIt() async throws {
    let storage = FlakyStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let pause = Gate(), revoked = Recorder<String>()
    let session = Self.sessionWithoutALock(storage: storage, pause: pause, revoked: revoked)
    storage.failNextSaves(1)
    let refresh = Task { try await session.validRecord(force: false) }
    try await BackgroundActivityTests.eventually { pause.waiting == 1 }

    var second = AccountSessionTests.record(expiresIn: 3600, refreshToken: "rt-second")
    second.accessToken = "at-second"
    try await session.store(second)
    pause.open()
    #expect(try await refresh.value.accessToken == "at-second")
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.accessToken == "at-second" && stored.refreshToken == "rt-second")
    #expect(await revoked.values == ["rt-1"])
  }

  @Test func aSignOutWhileARefreshSealsItsNewTokenIsNotUndoneByIt() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let vault = Gate(), revoked = Recorder<String>()
    let session = Self.sessionWithoutALock(
      storage: storage, pause: Gate(), revoked: revoked, sealer: TestSealer(gate: vault))
    let refresh = Task { try await session.validRecord(force: false) }
    try await BackgroundActivityTests.eventually { vault.waiting == 1 }

    try await session.remove()
    vault.open()
    await expectXidError(.signInRequired) { try await refresh.value }
    #expect(try storage.load(key: Self.key) == nil)
    #expect(try await session.record() == nil)
    #expect(await revoked.values == ["rt-1"])
  }

  // MARK: - In one process, through Xid, with and without a lock file

  static func harness(lockFile: Bool) throws -> SessionHarness {
    lockFile
      ? try SessionHarness(storage: try FileTokenStorage(directory: temporaryDirectory()))
      : try SessionHarness()
  }

  /// Starts a refresh whose token response the provider holds back, and waits until it arrived.
  static func refreshHeldAtTheProvider(_ harness: SessionHarness) async throws -> Task<String, any Error> {
    try await refreshHeld(harness, for: .milliseconds(300))
  }

  @Test(arguments: [false, true])
  func aSignOutDuringARefreshStaysSignedOut(lockFile: Bool) async throws {
    let harness = try Self.harness(lockFile: lockFile)
    try await harness.xid.signIn()
    let refresh = try await Self.refreshHeldAtTheProvider(harness)
    try await harness.xid.signOut()
    _ = try? await refresh.value
    #expect(try harness.storedRecord() == nil)
    #expect(try await harness.xid.getSession() == nil)
    harness.provider.clock.advance(by: .seconds(301))
    await expectXidError(.signInRequired) { try await harness.xid.getAccessToken() }
    #expect(try harness.storedRecord() == nil)
  }

  @Test(arguments: [false, true])
  func aNewSignInDuringARefreshIsKept(lockFile: Bool) async throws {
    let harness = try Self.harness(lockFile: lockFile)
    try await harness.xid.signIn()
    let refresh = try await Self.refreshHeldAtTheProvider(harness)
    await harness.provider.endUserSession()
    await harness.provider.setUser(TestUser(subject: "bob"))
    let second = try await harness.xid.signIn()
    #expect(second.subject == "bob")
    _ = try? await refresh.value
    #expect(try await harness.xid.getSession()?.subject == "bob")
    let relaunched = try Xid(
      configuration: SessionHarness.configuration(harness.provider, logger: harness.logger).storing(in: harness.storage)
    )
    #expect(try await relaunched.getSession()?.subject == "bob")
  }

  // MARK: - A refresh that holds the lock longer than the lock timeout

  /// A harness on files (a lock file) whose lock timeout is 1 second, signed in.
  static func harnessWithAShortLockTimeout() async throws -> SessionHarness {
    let provider = try TestProvider()
    let logger = RecordingLogger()
    var configuration = SessionHarness.configuration(provider, logger: logger)
    configuration.policy.refreshLockTimeout = .seconds(1)
    let harness = try SessionHarness(
      provider: provider, storage: try FileTokenStorage(directory: temporaryDirectory()), logger: logger,
      configuration: configuration)
    try await harness.xid.signIn()
    return harness
  }

  /// Starts a refresh whose token response the provider holds back for `delay`, and waits until its
  /// request arrived.
  static func refreshHeld(_ harness: SessionHarness, for delay: Duration) async throws -> Task<String, any Error> {
    harness.provider.clock.advance(by: .seconds(301))
    await harness.provider.injectFault(.delay(delay), at: .token, times: 1)
    let xid = harness.xid
    let refresh = Task { try await xid.getAccessToken() }
    try await BackgroundActivityTests.eventually { await harness.provider.counters.refreshes == 1 }
    return refresh
  }

  @Test func aSignOutDuringARefreshSlowerThanTheLockTimeoutSucceedsAndLeavesNoRecord() async throws {
    let harness = try await Self.harnessWithAShortLockTimeout()
    // The refresh holds the account's lock for 3 seconds.
    let refresh = try await Self.refreshHeld(harness, for: .seconds(3))
    try await harness.xid.signOut()
    #expect(try harness.storedRecord() == nil)
    _ = try? await refresh.value
    #expect(try harness.storedRecord() == nil)
    #expect(try await harness.xid.getSession() == nil)
  }

  @Test func aNewSignInDuringARefreshSlowerThanTheLockTimeoutIsStored() async throws {
    let harness = try await Self.harnessWithAShortLockTimeout()
    // The second sign-in starts before the refresh and completes while the provider holds it.
    let started = try await harness.xid.authorizationURL()
    let refresh = try await Self.refreshHeld(harness, for: .seconds(3))
    await harness.provider.endUserSession()
    await harness.provider.setUser(TestUser(subject: "bob"))
    let callback = try await harness.provider.browser.redirect(from: started)
    #expect(try await harness.xid.handleRedirect(url: callback).subject == "bob")
    _ = try? await refresh.value
    #expect(try await harness.xid.getSession()?.subject == "bob")
    let relaunched = try Xid(
      configuration: SessionHarness.configuration(harness.provider, logger: harness.logger).storing(in: harness.storage)
    )
    #expect(try await relaunched.getSession()?.subject == "bob")
  }

  @Test func aRefreshRefusedAfterASignOutRevokedItsTokenTellsSignedOutNotExpired() async throws {
    // The sign-out no longer waits for the refresh: its revocation may reach the provider first.
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let gate = Gate()
    let session = AccountSession(
      records: AccountSessionTests.records(storage), lock: nil, lockTimeout: .seconds(5), expiryLeeway: 60,
      logger: DiscardingLogger(), clock: StandingClock(now: AccountSessionTests.start),
      refresher: ClosureRefresher { _ in
        await gate.wait()
        throw XidError(.refreshRefused, "invalid_grant: the refresh token was revoked", oauthError: "invalid_grant")
      })
    let refresh = Task { try await session.validRecord(force: false) }
    try await BackgroundActivityTests.eventually { gate.waiting == 1 }
    try await session.remove()
    gate.open()
    await expectXidError(.signInRequired) { try await refresh.value }
    #expect(try storage.load(key: Self.key) == nil)
  }

  @Test func aSignInThatStorageRefusesIsRevoked() async throws {
    let storage = FlakyStorage()
    let harness = try SessionHarness(storage: storage)
    let started = try await harness.xid.authorizationURL()
    let callback = try await harness.provider.browser.redirect(from: started)
    // The keychain refuses the new record (the pending sign-in was saved before).
    storage.failNextSaves(1)
    let error = await expectXidError(.storageFailure) { try await harness.xid.handleRedirect(url: callback) }
    #expect(error?.reason.contains("revoked") == true)
    #expect(try harness.storedRecord() == nil)
    let issued = try #require(await harness.provider.refreshTokens(issuedTo: TestUser.alice.subject).last)
    #expect(await harness.provider.revokedTokens.contains(issued))
  }

  // MARK: - Across processes: written at once, checked again once the lock is free

  /// The lock file of the test account in `directory`, as another process takes it.
  static func otherProcessLock(in directory: URL) async throws -> FileLock.Holder {
    try await FileLock(directory: directory, name: "." + Self.key + ".lock").acquire(timeout: .zero)
  }

  /// The record of a sign-in `id` with access token `accessToken` and refresh token `refreshToken`.
  static func record(version: Int64, id: String, accessToken: String, refreshToken: String) -> TokenRecord {
    var record = AccountSessionTests.record(version: version, expiresIn: 3600, refreshToken: refreshToken)
    record.accessToken = accessToken
    record.signInID = id
    return record
  }

  @Test func aSignOutDeletesAtOnceAndAgainWhatARefreshInAnotherProcessWroteBack() async throws {
    let storage = InMemoryTokenStorage(), directory = temporaryDirectory()
    try storage.save(
      key: Self.key, value: Self.record(version: 1, id: "first", accessToken: "at-0", refreshToken: "rt-0").encoded())
    let session = AccountSessionTests.session(
      storage: storage, refresher: ScriptedRefresher(), lockDirectory: directory)
    // Another process refreshes: it holds the lock, and compared the record just before the sign-out.
    let other = try await Self.otherProcessLock(in: directory)
    let signOut = Task { try await session.remove() }
    try await BackgroundActivityTests.eventually { (try? storage.load(key: Self.key)) == nil }
    // Its write lands right after the deletion, then it lets the lock go.
    let late = Self.record(version: 2, id: "first", accessToken: "at-late", refreshToken: "rt-late")
    try storage.save(key: Self.key, value: late.encoded())
    other.release()
    // The sign-out deleted them again; the refresh token to revoke is the newest of the session.
    #expect(try await signOut.value?.refreshToken == "rt-late")
    #expect(try storage.load(key: Self.key) == nil)
    #expect(try await session.record() == nil)
  }

  @Test func aNewSignInIsStoredAtOnceAndAgainOverWhatARefreshInAnotherProcessWrote() async throws {
    let storage = InMemoryTokenStorage(), directory = temporaryDirectory()
    try storage.save(
      key: Self.key, value: Self.record(version: 1, id: "first", accessToken: "at-0", refreshToken: "rt-0").encoded())
    let session = AccountSessionTests.session(
      storage: storage, refresher: ScriptedRefresher(), lockDirectory: directory)
    let other = try await Self.otherProcessLock(in: directory)
    let second = Self.record(version: 1, id: "second", accessToken: "at-second", refreshToken: "rt-second")
    let signIn = Task { try await session.store(second) }
    try await BackgroundActivityTests.eventually {
      (try? storage.load(key: Self.key)).flatMap { try? TokenRecord(decoding: $0) }?.accessToken == "at-second"
    }
    // The other process's refresh of the first sign-in lands right after the new record.
    let late = Self.record(version: 2, id: "first", accessToken: "at-late", refreshToken: "rt-late")
    try storage.save(key: Self.key, value: late.encoded())
    other.release()
    // The sign-in is written again; what it replaced, to revoke, is the newest of the first session.
    #expect(try await signIn.value?.refreshToken == "rt-late")
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.accessToken == "at-second" && stored.signInID == "second")
    #expect(try await session.record()?.accessToken == "at-second")
  }

}
