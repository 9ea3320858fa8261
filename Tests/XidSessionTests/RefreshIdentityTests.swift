import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// A refresh-time ID token is about the session's user (OpenID Connect Core §12.2) even when the
/// stored ID token cannot be read, or the session never had one: the issuer and subject of the first
/// ID token seen are pinned in the record.
@Suite(.noSecretLeaks)
struct RefreshIdentityTests {
  /// Changes members of the stored record, as a damaged record, or one of an earlier version, has them.
  static func rewrite(_ harness: SessionHarness, _ change: (inout [String: JSONValue]) -> Void) throws {
    var members = try #require(try harness.storedRecord())
    change(&members)
    try harness.storage.save(key: harness.recordKey, value: JSONValue.object(members).serialized())
  }

  /// The `sub` of the stored ID token, when there is one that can be read.
  static func storedSubject(_ harness: SessionHarness) throws -> String? {
    guard let idToken = try harness.storedRecord()?["id_token"]?.stringValue else { return nil }
    return (try? IDToken(restoring: idToken))?.subject
  }

  /// Refreshes once with the provider issuing an ID token about another user; it must not be taken.
  static func refreshWithAnotherUsersIDToken(_ harness: SessionHarness) async throws {
    try await harness.provider.misbehave(.otherSubjectOnRefresh, .once)
    let relaunched = try Xid(
      configuration: SessionHarness.configuration(harness.provider, logger: harness.logger).storing(in: harness.storage)
    )
    do {
      _ = try await relaunched.getAccessToken(forceRefresh: true)
    } catch let error as XidError {
      ObservedErrors.recorder?(error)
    }
    #expect(try Self.storedSubject(harness) != TestProvider.Misbehavior.foreignSubject)
    #expect(try harness.storedRecord()?["pinned_sub"]?.stringValue != TestProvider.Misbehavior.foreignSubject)
  }

  @Test func withAnUnreadableStoredIDTokenAnotherUsersIDTokenIsRefused() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    try Self.rewrite(harness) { $0["id_token"] = "eyJhbGciOiJub25lIn0.bm90LWpzb24.x" }
    try await Self.refreshWithAnotherUsersIDToken(harness)
  }

  @Test func aRecordOfAnEarlierVersionWithAnUnreadableIDTokenTakesNoOtherUsersIDToken() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    try Self.rewrite(harness) {
      $0["id_token"] = "eyJhbGciOiJub25lIn0.bm90LWpzb24.x"
      $0["pinned_iss"] = nil
      $0["pinned_sub"] = nil
    }
    try await Self.refreshWithAnotherUsersIDToken(harness)
  }

  @Test func aSessionThatNeverHadAnIDTokenPinsTheFirstOne() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    try Self.rewrite(harness) {
      $0["id_token"] = nil
      $0["pinned_iss"] = nil
      $0["pinned_sub"] = nil
    }
    let relaunched = try Xid(
      configuration: SessionHarness.configuration(harness.provider, logger: harness.logger).storing(in: harness.storage)
    )
    _ = try await relaunched.getAccessToken(forceRefresh: true)
    #expect(try harness.storedRecord()?["pinned_sub"]?.stringValue == TestUser.alice.subject)
    #expect(try harness.storedRecord()?["pinned_iss"]?.stringValue == harness.provider.issuer.absoluteString)
    // Later the stored ID token is lost: the pin still refuses another user.
    try Self.rewrite(harness) { $0["id_token"] = nil }
    try await Self.refreshWithAnotherUsersIDToken(harness)
  }

  @Test func aRecordOfAnEarlierVersionGetsThePinsOfItsIDToken() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    try Self.rewrite(harness) {
      $0["pinned_iss"] = nil
      $0["pinned_sub"] = nil
    }
    let relaunched = try Xid(
      configuration: SessionHarness.configuration(harness.provider, logger: harness.logger).storing(in: harness.storage)
    )
    _ = try await relaunched.getAccessToken(forceRefresh: true)
    #expect(try harness.storedRecord()?["pinned_sub"]?.stringValue == TestUser.alice.subject)
  }

  @Test func signInPinsTheIDTokensIssuerAndSubject() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    #expect(try harness.storedRecord()?["pinned_sub"]?.stringValue == TestUser.alice.subject)
    #expect(try harness.storedRecord()?["pinned_iss"]?.stringValue == harness.provider.issuer.absoluteString)
  }
}
