import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// A storage whose next saves fail, as a disk that is full for a moment or a keychain that refuses,
/// and whose next loads can fail as a keychain item does while the device is locked.
final class FlakyStorage: TokenStorageAdapter, @unchecked Sendable {
  let inner = InMemoryTokenStorage()
  private let failures = LockedValue(0)
  private let failed = LockedValue(0)
  private let loadFailures = LockedValue(0)
  private let saved = LockedValue<[String]>([])

  func failNextSaves(_ count: Int) { failures.set(count) }

  /// Makes the next `count` loads fail with `storageLocked` (an item whose accessibility needs an
  /// unlocked device, read while it is locked).
  func failNextLoads(_ count: Int) { loadFailures.set(count) }

  /// Makes every load of a key with `prefix` fail with `storageLocked`, from now on.
  func failLoads(ofKeysWithPrefix prefix: String) { lockedPrefix.set(prefix) }
  private let lockedPrefix = LockedValue<String?>(nil)

  /// Every value saved so far.
  var savedValues: [String] { saved.get() }

  /// How many saves failed so far.
  var failedSaves: Int { failed.get() }

  func save(key: String, value: String) throws {
    let fail = failures.update { count -> Bool in
      guard count > 0 else { return false }
      count -= 1
      return true
    }
    if fail {
      failed.update { $0 += 1 }
      throw XidError(.storageFailure, "the test storage refused the write")
    }
    try inner.save(key: key, value: value)
    saved.update { $0.append(value) }
  }

  func load(key: String) throws -> String? {
    let fail = loadFailures.update { count -> Bool in
      guard count > 0 else { return false }
      count -= 1
      return true
    }
    if fail || lockedPrefix.get().map(key.hasPrefix) == true {
      throw XidError(.storageLocked, "the test storage is locked")
    }
    return try inner.load(key: key)
  }
  func delete(key: String) throws { try inner.delete(key: key) }
}

/// A refresh whose save fails has already spent the old refresh token at the provider: the new tokens
/// are never lost, and the spent token is never sent again.
struct SaveFailureTests {
  static let key = AccountSessionTests.key

  @Test func aSaveThatFailsOnceIsRetried() async throws {
    let storage = FlakyStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let refresher = ScriptedRefresher()
    let session = AccountSessionTests.session(storage: storage, refresher: refresher)
    storage.failNextSaves(1)
    #expect(try await session.validRecord(force: false).accessToken == "at-1")
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.refreshToken == "rt-1")
  }

  @Test func aRefreshKeepsTheLockAndTriesTheSaveAgainWithPausesOnTheClock() async throws {
    let storage = FlakyStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let clock = TestClock(now: AccountSessionTests.start)
    let session = Self.session(storage: storage, refresher: ScriptedRefresher(), clock: clock)
    storage.failNextSaves(4)
    #expect(try await session.validRecord(force: false).accessToken == "at-1")
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.refreshToken == "rt-1")
    #expect(clock.sleeps == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(400)])
    #expect(session.usableRecordFromMemory()?.accessToken == "at-1")
  }

  /// Two sessions on one storage and lock are two processes: while the first cannot save the tokens
  /// it got, the second waits for the lock instead of sending the refresh token the provider spent.
  @Test func anotherProcessWaitsWhileTheRefreshedTokensAreNotSavedYet() async throws {
    let storage = FlakyStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let first = ScriptedRefresher(), second = ScriptedRefresher()
    let refreshing = AccountSessionTests.session(storage: storage, refresher: first, lockDirectory: directory)
    let waiting = AccountSessionTests.session(storage: storage, refresher: second, lockDirectory: directory)
    storage.failNextSaves(1000)
    let refreshed = Task { try await refreshing.validRecord(force: false).accessToken }
    try await BackgroundActivityTests.eventually { storage.failedSaves >= 2 }
    let waited = Task { try await waiting.validRecord(force: false).accessToken }
    try await Task.sleep(for: .milliseconds(100))
    storage.failNextSaves(0)
    #expect(try await refreshed.value == "at-1")
    #expect(try await waited.value == "at-1")
    #expect(second.calls == 0)
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.refreshToken == "rt-1")
  }

  @Test func tokensThatCouldNotBeSavedAreKeptAndSavedBeforeTheNextRefresh() async throws {
    let storage = FlakyStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let sent = Recorder<String>()
    let refresher = ScriptedRefresher()
    let session = AccountSession(
      records: AccountSessionTests.records(storage), lock: nil, lockTimeout: .seconds(5), expiryLeeway: 60,
      logger: DiscardingLogger(), clock: TestClock(now: AccountSessionTests.start),
      refresher: ClosureRefresher { record in
        await sent.record(record.refreshToken ?? "none")
        return try await refresher.refresh(record)
      })
    storage.failNextSaves(100)
    // The refresh worked; its tokens are this process's, although storage refuses them for now.
    #expect(try await session.validRecord(force: false).accessToken == "at-1")
    #expect(storage.failedSaves == AccountSession.saveAttempts)
    // While they are not saved, the memory path leaves each call to the session, which saves them.
    #expect(session.usableRecordFromMemory() == nil)
    storage.failNextSaves(0)
    _ = try await session.validRecord(force: true)
    // The spent rt-0 was never sent again; the kept tokens reached storage first.
    #expect(await sent.values == ["rt-0", "rt-1"])
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.refreshToken == "rt-2")
  }

  @Test func tokensThatCouldNotBeSavedAreSavedAtTheNextUseWithoutARefresh() async throws {
    let storage = FlakyStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let refresher = ScriptedRefresher()
    let session = Self.session(storage: storage, refresher: refresher, clock: TestClock(now: AccountSessionTests.start))
    storage.failNextSaves(100)
    #expect(try await session.validRecord(force: false).accessToken == "at-1")
    storage.failNextSaves(0)
    // The next use gets the kept token at once, and the save happens behind it.
    #expect(try await session.validRecord(force: false).accessToken == "at-1")
    try await BackgroundActivityTests.eventually { session.usableRecordFromMemory() != nil }
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.refreshToken == "rt-1")
    #expect(refresher.calls == 1)
  }

  // MARK: - Failures after the provider answered, other than the save's

  /// A session without a lock whose refresh rotates (for `rt-N` the provider answers `at-N+1` and
  /// `rt-N+1`) and records the refresh token each refresh sends; `answered` runs as the answer
  /// arrives, and the pauses between two attempts to save take no time.
  static func rotatingSession(
    storage: FlakyStorage, sent: Recorder<String>, sealer: TestSealer? = nil,
    answered: @escaping @Sendable (Int) -> Void = { _ in }
  ) -> AccountSession {
    AccountSession(
      records: AccountSessionTests.records(storage), lock: nil, lockTimeout: .seconds(5), expiryLeeway: 60,
      logger: DiscardingLogger(), clock: TestClock(now: AccountSessionTests.start),
      refresher: ClosureRefresher { record in
        let token = record.refreshToken ?? "none"
        await sent.record(token)
        let next = (Int(token.dropFirst("rt-".count)) ?? 0) + 1
        answered(next)
        return RefreshedTokens(
          accessToken: "at-\(next)", tokenType: "Bearer", expiresIn: 3600, refreshToken: "rt-\(next)")
      }, sealer: sealer)
  }

  @Test func aRotatedRefreshTokenIsKeptWhenTheRecordCannotBeReadAfterTheAnswer() async throws {
    let storage = FlakyStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record(refreshToken: "rt-1").encoded())
    let sent = Recorder<String>()
    // The device locks while the request is out: the next read of the record is refused once.
    let session = Self.rotatingSession(storage: storage, sent: sent) { _ in storage.failNextLoads(1) }
    _ = try? await session.validRecord(force: true)
    _ = try? await session.validRecord(force: true)
    // The provider spent rt-1 at the first refresh: the second sends rt-2.
    #expect(await sent.values == ["rt-1", "rt-2"])
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.refreshToken == "rt-3")
  }

  @Test func aRotatedRefreshTokenIsKeptInMemoryWhileTheRecordStaysUnreadable() async throws {
    let storage = FlakyStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record(refreshToken: "rt-1").encoded())
    let sent = Recorder<String>()
    // Locked from the first answer until the test unlocks it: longer than the save's retries.
    let session = Self.rotatingSession(storage: storage, sent: sent) { next in
      if next == 2 { storage.failNextLoads(1000) }
    }
    #expect(try await session.validRecord(force: true).accessToken == "at-2")
    #expect(session.usableRecordFromMemory() == nil, "the kept tokens wait to be saved")
    storage.failNextLoads(0)
    _ = try await session.validRecord(force: true)
    #expect(await sent.values == ["rt-1", "rt-2"])
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.refreshToken == "rt-3")
  }

  @Test func aRotatedRefreshTokenIsKeptWhenARecordOfANewerFormatWasWrittenMeanwhile() async throws {
    let storage = FlakyStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record(refreshToken: "rt-1").encoded())
    let newer = #"{"format":3,"issuer":"https://op.example","client_id":"c","account":"default"}"#
    let sent = Recorder<String>()
    // Another version of the app, sharing the storage, writes its own format while the request is out.
    let session = Self.rotatingSession(storage: storage, sent: sent) { _ in
      try? storage.inner.save(key: Self.key, value: newer)
    }
    #expect(try await session.validRecord(force: true).accessToken == "at-2")
    #expect(try storage.load(key: Self.key) == newer, "a record this version cannot read is left as it is")
    await expectXidError(.unsupportedRecordFormat) { try await session.validRecord(force: true) }
    #expect(await sent.values == ["rt-1"])
  }

  @Test func aRotatedRefreshTokenIsKeptWhenSealingItFailsAfterTheAnswer() async throws {
    let storage = FlakyStorage()
    var sealed = AccountSessionTests.record(refreshToken: nil)
    sealed.sealedRefreshToken = TestSealer.sealed("rt-1")
    try storage.save(key: Self.key, value: sealed.encoded())
    let sent = Recorder<String>(), sealer = TestSealer()
    // The presence key is looked up after the device locked: sealing the new token fails once.
    let session = Self.rotatingSession(storage: storage, sent: sent, sealer: sealer) { next in
      if next == 2 { sealer.failNextSeals(1) }
    }
    _ = try? await session.validRecord(force: true)
    _ = try? await session.validRecord(force: true)
    #expect(await sent.values == ["rt-1", "rt-2"])
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.sealedRefreshToken.map(TestSealer.opened) == "rt-3")
    // Storage never held a refresh token unsealed.
    #expect(storage.savedValues.allSatisfy { !$0.contains("\"refresh_token\"") })
  }

  /// A session on `storage` without a lock, whose pauses run on `clock`.
  static func session(storage: FlakyStorage, refresher: ScriptedRefresher, clock: TestClock) -> AccountSession {
    AccountSession(
      records: AccountSessionTests.records(storage), lock: nil, lockTimeout: .seconds(5), expiryLeeway: 60,
      logger: DiscardingLogger(), clock: clock,
      refresher: ClosureRefresher { try await refresher.refresh($0) })
  }
}
