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

/// Storing and removing take the account's lock, as refreshes do; a refresh re-reads the record after
/// the network call and saves nothing if it was removed or replaced meanwhile: a sign-out is never
/// undone and a new sign-in never overwritten by a refresh that started before them.
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
    harness.provider.clock.advance(by: .seconds(301))
    await harness.provider.injectFault(.delay(.milliseconds(300)), at: .token, times: 1)
    let xid = harness.xid
    let refresh = Task { try await xid.getAccessToken() }
    try await BackgroundActivityTests.eventually { await harness.provider.counters.refreshes == 1 }
    return refresh
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
}
