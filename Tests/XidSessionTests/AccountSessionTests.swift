import Foundation
import Testing
import Xid
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// A refresher that counts calls and answers from a script.
final class ScriptedRefresher: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  var behaviour: @Sendable (TokenRecord, Int) throws -> RefreshedTokens = { _, n in
    RefreshedTokens(accessToken: "at-\(n)", tokenType: "Bearer", expiresIn: 3600, refreshToken: "rt-\(n)")
  }
  var delay: Duration = .zero

  var calls: Int { lock.withLock { count } }

  func refresh(_ record: TokenRecord) async throws -> RefreshedTokens {
    let n = lock.withLock {
      count += 1
      return count
    }
    if delay > .zero { try await Task.sleep(for: delay) }
    return try behaviour(record, n)
  }
}

extension RefreshedTokens {
  init(accessToken: String, tokenType: String, expiresIn: TimeInterval?, refreshToken: String?) {
    self.init(
      accessToken: accessToken, tokenType: tokenType, expiresIn: expiresIn, refreshToken: refreshToken, idToken: nil,
      scopes: nil)
  }
}

struct AccountSessionTests {
  /// The storage key of the test account's record.
  static let key = TokenRecord.storageKey(issuer: "https://op.example", clientId: "c", account: "default")
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  static func record(version: Int64 = 1, expiresIn: TimeInterval = -1, refreshToken: String? = "rt-0") -> TokenRecord {
    TokenRecord(
      version: version, accessToken: "at-0", tokenType: "Bearer", expiresAt: start.addingTimeInterval(expiresIn),
      refreshToken: refreshToken, idToken: nil, scopes: ["openid"], issuer: "https://op.example", clientId: "c",
      account: "default")
  }

  static func session(
    storage: any TokenStorageAdapter, refresher: ScriptedRefresher, lockDirectory: URL? = nil
  ) -> AccountSession {
    AccountSession(
      records: records(storage),
      lock: lockDirectory.map { FileLock(directory: $0, name: "." + Self.key + ".lock") }, lockTimeout: .seconds(5),
      expiryLeeway: 60, logger: DiscardingLogger(), clock: StandingClock(now: start),
      refresher: ClosureRefresher { try await refresher.refresh($0) })
  }

  /// The records of the test account (issuer `https://op.example`, client `c`), under the key
  /// ``key``.
  static func records(_ storage: any TokenStorageAdapter) -> AccountRecordStore {
    AccountRecordStore(
      storage: storage, owner: RecordOwner(issuer: "https://op.example", clientId: "c", account: "default"),
      logger: DiscardingLogger())
  }

  /// A forced refresh of a resource's token (its server refused it) that waits for a refresh of
  /// another token still refreshes its own: the other refresh left it as it was.
  @Test func aForcedResourceRefreshWaitingForAnotherTokensRefreshStillRefreshes() async throws {
    let resource = ProtectedResource(URL(string: "https://api.example/")!)
    var record = Self.record()
    record.resourceTokens[resource.parameter] = ResourceAccessToken(
      accessToken: "at-api-refused", tokenType: "Bearer", expiresAt: Self.start.addingTimeInterval(3600), scopes: nil,
      authorizationDetails: nil)
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: record.encoded())
    let asked = Recorder<String>()
    let session = AccountSession(
      records: Self.records(storage), lock: nil, lockTimeout: .seconds(5), expiryLeeway: 60,
      logger: DiscardingLogger(), clock: StandingClock(now: Self.start),
      refresher: ClosureRefresher(forResources: { _, resource in
        await asked.record(resource?.parameter ?? "own")
        if resource == nil { try await Task.sleep(for: .milliseconds(200)) }
        let name = resource == nil ? "at-own" : "at-api-new"
        return RefreshedTokens(accessToken: name, tokenType: "Bearer", expiresIn: 3600, refreshToken: nil)
      }))
    async let own = session.validRecord(force: false)
    try await Task.sleep(for: .milliseconds(50))
    let forced = try await session.validRecord(force: true, resource: resource)
    #expect(forced.resourceTokens[resource.parameter]?.accessToken == "at-api-new")
    #expect(try await own.accessToken == "at-own")
    #expect(await asked.values == ["own", resource.parameter])
  }

  @Test func concurrentCallersShareOneRefresh() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: Self.record().encoded())
    let refresher = ScriptedRefresher()
    refresher.delay = .milliseconds(20)
    let session = Self.session(storage: storage, refresher: refresher)
    let tokens = try await withThrowingTaskGroup(of: String.self) { group in
      for _ in 0..<100 { group.addTask { try await session.validRecord(force: false).accessToken } }
      return try await group.reduce(into: Set<String>()) { $0.insert($1) }
    }
    #expect(refresher.calls == 1)
    #expect(tokens == ["at-1"])
    let stored = try TokenRecord(decoding: try #require(try storage.load(key: Self.key)))
    #expect(stored.version == 2)
    #expect(stored.refreshToken == "rt-1")
  }

  @Test func aValidTokenNeedsNoRefreshAndIsServedFromMemory() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: Self.record(expiresIn: 3600).encoded())
    let refresher = ScriptedRefresher()
    let session = Self.session(storage: storage, refresher: refresher)
    #expect(session.usableRecordFromMemory()?.accessToken == nil)
    #expect(try await session.validRecord(force: false).accessToken == "at-0")
    #expect(session.usableRecordFromMemory()?.accessToken == "at-0")
    #expect(refresher.calls == 0)
  }

  @Test func aProcesssFirstTokenIsReadFromStorageWithoutTheActorAndKeptInMemory() throws {
    let storage = CountingStorage()
    try storage.inner.save(key: Self.key, value: Self.record(expiresIn: 3600).encoded())
    let session = Self.session(storage: storage, refresher: ScriptedRefresher())
    #expect(session.usableRecordFromStorage()?.accessToken == "at-0")
    let reads = storage.calls
    #expect(session.usableRecordFromMemory()?.accessToken == "at-0")
    // Once in memory, the storage path leaves it to the memory path (and the actor).
    #expect(session.usableRecordFromStorage()?.accessToken == nil)
    #expect(storage.calls == reads)
  }

  @Test func aStoredTokenNoLongerUsableIsLeftToTheActorWhichRefreshesItOnce() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: Self.record(expiresIn: 59).encoded())
    let refresher = ScriptedRefresher()
    let session = Self.session(storage: storage, refresher: refresher)
    #expect(session.usableRecordFromStorage()?.accessToken == nil)
    #expect(refresher.calls == 0)
    #expect(try await session.validRecord(force: false).accessToken == "at-1")
    #expect(refresher.calls == 1)
  }

  @Test func aStorageReadOutsideTheActorNeverUndoesASignOutThatFinishedMeanwhile() async throws {
    let storage = HookedStorage()
    try storage.inner.save(key: Self.key, value: Self.record(expiresIn: 3600).encoded())
    let session = Self.session(storage: storage, refresher: ScriptedRefresher())
    // The sign-out finishes while the fast path is reading the record it is about to delete.
    storage.onLoad = { _ in
      storage.onLoad = nil
      try? storage.inner.delete(key: Self.key)
      session.cached.set(nil)
    }
    _ = session.usableRecordFromStorage()?.accessToken
    #expect(session.usableRecordFromMemory()?.accessToken == nil)
    await expectXidError(.signInRequired) { try await session.validRecord(force: false) }
  }

  @Test func theTokenFastPathHandsOutATokenOnlyWhileItIsUsableBeyondTheLeeway() {
    let session = Self.session(storage: InMemoryTokenStorage(), refresher: ScriptedRefresher())
    #expect(session.usableAccessTokenFromMemory(requiringDPoP: false) == nil)
    session.cached.set(Self.record(expiresIn: 61))
    #expect(session.usableAccessTokenFromMemory(requiringDPoP: false) == "at-0")
    session.cached.set(Self.record(expiresIn: 60))
    #expect(session.usableAccessTokenFromMemory(requiringDPoP: false) == nil)
    var forever = Self.record()
    forever.expiresAt = nil
    session.cached.set(forever)
    #expect(session.usableAccessTokenFromMemory(requiringDPoP: false) == "at-0")
    session.cached.set(nil)
    #expect(session.usableAccessTokenFromMemory(requiringDPoP: false) == nil)
  }

  @Test func theTokenFastPathLeavesABearerRecordOfADPoPConfigurationAndUnsavedTokensToTheActor() {
    let session = Self.session(storage: InMemoryTokenStorage(), refresher: ScriptedRefresher())
    var record = Self.record(expiresIn: 3600)
    session.cached.set(record)
    #expect(session.usableAccessTokenFromMemory(requiringDPoP: true) == nil)
    record.dpopKeyThumbprint = "jkt"
    session.cached.set(record)
    #expect(session.usableAccessTokenFromMemory(requiringDPoP: true) == "at-0")
    session.cached.setSavePending(true)
    #expect(session.usableAccessTokenFromMemory(requiringDPoP: true) == nil)
    session.cached.setSavePending(false)
    #expect(session.usableAccessTokenFromMemory(requiringDPoP: false) == "at-0")
  }

  @Test func aTokenWithinTheLeewayOfExpiryCountsAsExpired() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: Self.record(expiresIn: 59).encoded())
    let refresher = ScriptedRefresher()
    #expect(
      try await Self.session(storage: storage, refresher: refresher).validRecord(force: false).accessToken == "at-1")
  }

  @Test func forceRefreshRefreshesAValidToken() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: Self.record(expiresIn: 3600).encoded())
    let refresher = ScriptedRefresher()
    #expect(
      try await Self.session(storage: storage, refresher: refresher).validRecord(force: true).accessToken == "at-1")
    #expect(refresher.calls == 1)
  }

  @Test func usesTokensAnotherProcessRefreshedInsteadOfRefreshingAgain() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: Self.record().encoded())
    let refresher = ScriptedRefresher()
    let session = Self.session(storage: storage, refresher: refresher)
    _ = try await session.record()
    var newer = Self.record(version: 2, expiresIn: 3600, refreshToken: "rt-other")
    newer.accessToken = "at-other"
    try storage.save(key: Self.key, value: newer.encoded())
    #expect(try await session.validRecord(force: false).accessToken == "at-other")
    #expect(refresher.calls == 0)
  }

  @Test func aRefusedRefreshEndsTheSessionOnlyWhenTheStoredTokenIsTheRefusedOne() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: Self.record().encoded())
    let refresher = ScriptedRefresher()
    refresher.behaviour = { _, _ in
      throw XidError(.refreshRefused, "invalid_grant", httpStatus: 400, oauthError: "invalid_grant")
    }
    let session = Self.session(storage: storage, refresher: refresher)
    let error = await expectXidError(.sessionExpired) { try await session.validRecord(force: false) }
    #expect(error?.oauthError == "invalid_grant")
    #expect(try storage.load(key: Self.key) == nil)
    #expect(session.usableRecordFromMemory()?.accessToken == nil)
  }

  @Test func aRefusedRefreshKeepsTheSessionWhenAnotherProcessRotatedTheToken() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: Self.record().encoded())
    let refresher = ScriptedRefresher()
    refresher.behaviour = { _, _ in
      // Meanwhile another process rotated the refresh token and saved its tokens.
      var rotated = AccountSessionTests.record(version: 2, expiresIn: 3600, refreshToken: "rt-rotated")
      rotated.accessToken = "at-rotated"
      try storage.save(key: AccountSessionTests.key, value: rotated.encoded())
      throw XidError(.refreshRefused, "invalid_grant", httpStatus: 400, oauthError: "invalid_grant")
    }
    let session = Self.session(storage: storage, refresher: refresher)
    #expect(try await session.validRecord(force: false).accessToken == "at-rotated")
    #expect(try storage.load(key: Self.key) != nil)
  }

  @Test func networkFailuresKeepTheSession() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: Self.record().encoded())
    let refresher = ScriptedRefresher()
    refresher.behaviour = { _, _ in throw XidError(.networkFailure, "offline") }
    let session = Self.session(storage: storage, refresher: refresher)
    await expectXidError(.networkFailure) { try await session.validRecord(force: false) }
    refresher.behaviour = { _, _ in throw XidError(.tokenRequestFailed, "503", httpStatus: 503) }
    await expectXidError(.tokenRequestFailed) { try await session.validRecord(force: false) }
    #expect(try storage.load(key: Self.key) != nil)
    #expect(try await session.record() != nil)
  }

  @Test func anUnreadableRecordIsRemovedAndMeansSignedOut() async throws {
    for text in ["{not json", #"{"format":1}"#, #"{"version":1}"#] {
      let storage = InMemoryTokenStorage()
      try storage.save(key: Self.key, value: text)
      let session = Self.session(storage: storage, refresher: ScriptedRefresher())
      #expect(try await session.record() == nil)
      #expect(try storage.load(key: Self.key) == nil)
      await expectXidError(.signInRequired) { try await session.validRecord(force: false) }
    }
  }

  @Test func aRecordOfAnUnknownFormatIsReportedAndLeftAlone() async throws {
    // As a newer version of the app, sharing the keychain with this older extension, would write it.
    let text = #"{"format":3,"version":7,"access_token":"at-new","sealed":"x"}"#
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: text)
    let refresher = ScriptedRefresher()
    let session = Self.session(storage: storage, refresher: refresher)
    let error = await expectXidError(.unsupportedRecordFormat) { try await session.record() }
    #expect(error?.reason.contains("format 3") == true)
    await expectXidError(.unsupportedRecordFormat) { try await session.validRecord(force: false) }
    await expectXidError(.unsupportedRecordFormat) { try await session.validRecord(force: true) }
    #expect(try storage.load(key: Self.key) == text)
    #expect(refresher.calls == 0)
  }

  @Test func withoutARefreshTokenAnExpiredSessionNeedsSignIn() async throws {
    let storage = InMemoryTokenStorage()
    try storage.save(key: Self.key, value: Self.record(refreshToken: nil).encoded())
    await expectXidError(.signInRequired) {
      try await Self.session(storage: storage, refresher: ScriptedRefresher()).validRecord(force: false)
    }
    #expect(try storage.load(key: Self.key) != nil)
  }

  @Test func storageKeysSeparateIssuersClientsAndAccountsAndAreSafeFileNames() {
    let keys = [
      TokenRecord.storageKey(issuer: "https://op.example", clientId: "c", account: "default"),
      TokenRecord.storageKey(issuer: "https://op.example", clientId: "c", account: "work"),
      TokenRecord.storageKey(issuer: "https://op.example", clientId: "d", account: "default"),
      TokenRecord.storageKey(issuer: "https://op.example/", clientId: "c", account: "default"),
    ]
    #expect(Set(keys).count == keys.count)
    #expect(keys[0] == TokenRecord.storageKey(issuer: "https://op.example", clientId: "c", account: "default"))
    for key in keys {
      #expect(key.hasPrefix("xid.tokens.") && key.count == 27)
      #expect(key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." })
    }
  }

  @Test func theRecordRoundTripsAndItsDescriptionShowsNoToken() throws {
    var record = Self.record(expiresIn: 10)
    record.idToken = "header.payload.sig"
    let decoded = try TokenRecord(decoding: record.encoded())
    #expect(decoded == record)
    #expect(!record.description.contains("at-0") && !record.description.contains("rt-0"))
  }
}

/// A storage that runs a hook when a load has read its value and before it returns it, as if
/// another task changed storage at that moment.
final class HookedStorage: TokenStorageAdapter, @unchecked Sendable {
  let inner = InMemoryTokenStorage()
  private let lock = NSLock()
  private var hook: (@Sendable (String) -> Void)?

  var onLoad: (@Sendable (String) -> Void)? {
    get { lock.withLock { hook } }
    set { lock.withLock { hook = newValue } }
  }

  func save(key: String, value: String) throws { try inner.save(key: key, value: value) }
  func load(key: String) throws -> String? {
    let value = try inner.load(key: key)
    onLoad?(key)
    return value
  }
  func delete(key: String) throws { try inner.delete(key: key) }
}
