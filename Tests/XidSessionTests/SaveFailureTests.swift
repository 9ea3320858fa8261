import Foundation
import Testing
import Xid
import XidTestSupport

@testable import XidCore

/// A storage whose next saves fail, as a disk that is full for a moment or a keychain that refuses.
final class FlakyStorage: TokenStorageAdapter, @unchecked Sendable {
  let inner = InMemoryTokenStorage()
  private let failures = LockedValue(0)

  func failNextSaves(_ count: Int) { failures.set(count) }

  func save(key: String, value: String) throws {
    let fail = failures.update { count -> Bool in
      guard count > 0 else { return false }
      count -= 1
      return true
    }
    if fail { throw XidError(.storageFailure, "the test storage refused the write") }
    try inner.save(key: key, value: value)
  }

  func load(key: String) throws -> String? { try inner.load(key: key) }
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

  @Test func tokensThatCouldNotBeSavedAreKeptAndSavedBeforeTheNextRefresh() async throws {
    let storage = FlakyStorage()
    try storage.save(key: Self.key, value: AccountSessionTests.record().encoded())
    let sent = Recorder<String>()
    let refresher = ScriptedRefresher()
    let session = AccountSession(
      records: AccountSessionTests.records(storage), lock: nil, lockTimeout: .seconds(5), expiryLeeway: 60,
      logger: DiscardingLogger(), now: { AccountSessionTests.start },
      refresher: { record in
        await sent.record(record.refreshToken ?? "none")
        return try await refresher.refresh(record)
      })
    storage.failNextSaves(100)
    // The refresh worked; its tokens are this process's, although storage refuses them for now.
    #expect(try await session.validRecord(force: false).accessToken == "at-1")
    #expect(session.usableRecordFromMemory()?.accessToken == "at-1")
    storage.failNextSaves(0)
    _ = try await session.validRecord(force: true)
    // The spent rt-0 was never sent again; the kept tokens reached storage first.
    #expect(await sent.values == ["rt-0", "rt-1"])
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.refreshToken == "rt-2")
  }
}
