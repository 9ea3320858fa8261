import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// A storage that counts the calls made to it.
final class CountingStorage: TokenStorageAdapter, @unchecked Sendable {
  let inner = InMemoryTokenStorage()
  private let lock = NSLock()
  private var count = 0

  var calls: Int { lock.withLock { count } }

  private func counted<R>(_ body: () throws -> R) rethrows -> R {
    lock.withLock { count += 1 }
    return try body()
  }

  func save(key: String, value: String) throws { try counted { try inner.save(key: key, value: value) } }
  func load(key: String) throws -> String? { try counted { try inner.load(key: key) } }
  func delete(key: String) throws { try counted { try inner.delete(key: key) } }
}

/// A storage that refuses to remove or rewrite the record of pending sign-ins while told to: a
/// finished sign-in's entry then stays behind (its removal is only logged).
final class PendingRecordStickingStorage: TokenStorageAdapter, @unchecked Sendable {
  let inner = InMemoryTokenStorage()
  private let lock = NSLock()
  private var refusing = false

  var refusesPendingChanges: Bool {
    get { lock.withLock { refusing } }
    set { lock.withLock { refusing = newValue } }
  }

  private func check(_ key: String) throws {
    if key.hasPrefix("xid.pending."), refusesPendingChanges {
      throw XidError(.storageFailure, "the test storage refused to change the pending sign-ins")
    }
  }

  func save(key: String, value: String) throws {
    try check(key)
    try inner.save(key: key, value: value)
  }
  func load(key: String) throws -> String? { try inner.load(key: key) }
  func delete(key: String) throws {
    try check(key)
    try inner.delete(key: key)
  }
}

/// Pending sign-ins hold a PKCE verifier and a nonce: they leave storage once they can no longer
/// finish, at the latest when the next sign-in starts.
@Suite(.noSecretLeaks)
struct PendingSignInTests {
  /// The stored pending sign-ins, as text.
  static func pendingText(_ storage: CountingStorage) throws -> String? {
    guard let key = try storage.inner.keys(withPrefix: "xid.pending.").first else { return nil }
    return try storage.inner.load(key: key)
  }

  @Test func configuringDoesNoStorageIO() throws {
    let provider = try TestProvider()
    let storage = CountingStorage()
    let xid = Xid()
    xid.setTokenStorage(storage)
    xid.configure(options: SessionHarness.configuration(provider, logger: RecordingLogger()))
    _ = try Xid(configuration: SessionHarness.configuration(provider, logger: RecordingLogger()).storing(in: storage))
    #expect(storage.calls == 0)
  }

  @Test func anAbandonedSignInsVerifierAndNonceAreGoneOnceTheNextSignInStarts() async throws {
    let provider = try TestProvider()
    let storage = CountingStorage()
    let xid = try Xid(
      configuration: SessionHarness.configuration(provider, logger: RecordingLogger()).storing(in: storage))
    let abandoned = try await xid.authorizationURL()
    let first = try #require(try Self.pendingText(storage))
    let entries = try #require(try JSONValue(parsing: first).arrayValue)
    let verifier = try #require(entries.first?["codeVerifier"]?.stringValue)
    let nonce = try #require(entries.first?["nonce"]?.stringValue)
    #expect(abandoned.absoluteString.contains(nonce))

    // The user never came back; much later, a new sign-in starts (the app was relaunched meanwhile).
    provider.clock.advance(by: .seconds(16 * 60))
    let relaunched = try Xid(
      configuration: SessionHarness.configuration(provider, logger: RecordingLogger()).storing(in: storage))
    _ = try await relaunched.authorizationURL()
    let second = try #require(try Self.pendingText(storage))
    #expect(!second.contains(verifier))
    #expect(!second.contains(nonce))
    #expect(try JSONValue(parsing: second).arrayValue?.count == 1)
  }

  @Test func aSignInStillWithinItsLifetimeIsKeptWhenAnotherStarts() async throws {
    let provider = try TestProvider()
    let storage = CountingStorage()
    let xid = try Xid(
      configuration: SessionHarness.configuration(provider, logger: RecordingLogger()).storing(in: storage))
    let first = try await xid.authorizationURL()
    provider.clock.advance(by: .seconds(60))
    _ = try await xid.authorizationURL()
    #expect(try JSONValue(parsing: try #require(try Self.pendingText(storage))).arrayValue?.count == 2)
    let session = try await xid.handleRedirect(url: try await provider.browser.redirect(from: first))
    #expect(session.subject == TestUser.alice.subject)
  }

  /// A finished sign-in whose pending entry could not be removed leaves it behind; when a later
  /// sign-in start purges it as expired, the key it names is the live session's, and stays.
  @Test func purgingAnExpiredEntryNeverDeletesTheDPoPKeyOfTheStoredSession() async throws {
    let storage = PendingRecordStickingStorage()
    let harness = try SessionHarness.dpop(storage: storage)
    let url = try await harness.xid.authorizationURL()
    storage.refusesPendingChanges = true
    let session = try await harness.xid.handleRedirect(url: try await harness.provider.browser.redirect(from: url))
    storage.refusesPendingChanges = false
    #expect(try harness.pendingCount() == 1, "the finished sign-in's entry stayed behind")
    let thumbprint = try #require(session.dpopBinding?.keyThumbprint)

    harness.provider.clock.advance(by: .seconds(16 * 60))
    _ = try await harness.xid.authorizationURL()
    #expect(try harness.pendingCount() == 1, "the expired entry was purged, the new one kept")
    #expect(try harness.storedKey(thumbprint) != nil, "the session's key is still stored")
    // The access token expired meanwhile: the refresh's proof needs the session's key.
    _ = try await harness.xid.getAccessToken()
    #expect(await harness.provider.counters.refreshes == 1)
  }
}
