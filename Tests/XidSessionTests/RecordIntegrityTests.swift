import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// What becomes of stored records that this configuration or this version of Xid did not write.
@Suite(.noSecretLeaks)
struct RecordIntegrityTests {
  @Test func aRecordOfAnUnknownFormatIsReportedByTheFacadeAndRemovedOnlyBySignOut() async throws {
    let harness = try SessionHarness()
    let text = #"{"format":3,"version":3,"sealed":"x"}"#
    try harness.storage.save(key: harness.recordKey, value: text)
    await expectXidError(.unsupportedRecordFormat) { try await harness.xid.getSession() }
    await expectXidError(.unsupportedRecordFormat) { try await harness.xid.getAccessToken() }
    #expect(try harness.storage.load(key: harness.recordKey) == text)
    try await harness.xid.signOut()
    #expect(try harness.storage.load(key: harness.recordKey) == nil)
  }

  /// A record of another issuer, client or account, as a configuration whose key collides with this
  /// one's (the key is a 64-bit FNV-1a hash) would store it.
  static func foreignRecord(
    issuer: String = "https://other.example", clientId: String = "other-client",
    account: String = "default"
  ) -> String {
    TokenRecord(
      version: 4, accessToken: "foreign-access-token", tokenType: "Bearer", expiresAt: Date().addingTimeInterval(3600),
      refreshToken: "foreign-refresh-token", idToken: nil, scopes: ["openid"], issuer: issuer, clientId: clientId,
      account: account
    ).encoded()
  }

  /// Which of issuer, client and account the other configuration differs in.
  @Test(arguments: ["issuer", "client", "account"])
  func anotherConfigurationsRecordUnderTheKeyReadsAsAbsentAndIsNeverDeleted(differing: String) async throws {
    let harness = try SessionHarness()
    let issuer = harness.provider.issuer.absoluteString, client = TestClient.example.id
    let foreign =
      switch differing {
      case "issuer": Self.foreignRecord(clientId: client)
      case "client": Self.foreignRecord(issuer: issuer)
      default: Self.foreignRecord(issuer: issuer, clientId: client, account: "work")
      }
    try harness.storage.save(key: harness.recordKey, value: foreign)
    #expect(try await harness.xid.getSession() == nil)
    await expectXidError(.signInRequired) { try await harness.xid.getAccessToken() }
    #expect(try harness.storage.load(key: harness.recordKey) == foreign)

    // Signing in stores this configuration's session without losing the other one's.
    let session = try await harness.xid.signIn()
    #expect(session.subject == TestUser.alice.subject)
    #expect(try harness.storage.load(key: harness.recordKey) == foreign)
    let relaunched = try Xid(
      configuration: SessionHarness.configuration(harness.provider, logger: harness.logger).storing(in: harness.storage)
    )
    #expect(try await relaunched.getSession()?.subject == TestUser.alice.subject)
    harness.provider.clock.advance(by: .seconds(301))
    _ = try await relaunched.getAccessToken()
    #expect(try harness.storage.load(key: harness.recordKey) == foreign)

    try await relaunched.signOut()
    #expect(try await relaunched.getSession() == nil)
    #expect(try harness.storage.load(key: harness.recordKey) == foreign)
  }

  @Test func aSessionStoredUnderTheKeyOfEarlierVersionsIsStillRead() async throws {
    // The key derivation is unchanged: 64-bit FNV-1a of issuer, client and account.
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in "\(harness.provider.issuer.absoluteString)\n\(TestClient.example.id)\ndefault".utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    let earlierKey = "xid.tokens." + String(repeating: "0", count: 16 - hex.count) + hex
    #expect(try harness.storage.load(key: earlierKey) != nil)
  }

  @Test func aNewerFormatRecordOfAnotherConfigurationIsToldApartByTheMembersItNames() async throws {
    let harness = try SessionHarness()
    let text = #"{"format":3,"issuer":"https://other.example","client_id":"c","account":"default"}"#
    try harness.storage.save(key: harness.recordKey, value: text)
    #expect(try await harness.xid.getSession() == nil)
    try await harness.xid.signIn()
    try await harness.xid.signOut()
    #expect(try harness.storage.load(key: harness.recordKey) == text)
  }

  @Test func aProcessThatSawNobodySignedInFindsTheSessionAnotherOneSignedIn() async throws {
    // An extension asked while the user was signed out; then the app signed the user in.
    let harness = try SessionHarness()
    let extensionProcess = try Xid(
      configuration: SessionHarness.configuration(harness.provider, logger: harness.logger).storing(in: harness.storage)
    )
    #expect(try await extensionProcess.getSession() == nil)
    await expectXidError(.signInRequired) { try await extensionProcess.getAccessToken() }
    try await harness.xid.signIn()
    #expect(try await extensionProcess.getSession()?.subject == TestUser.alice.subject)
    #expect(try await extensionProcess.getAccessToken().isEmpty == false)
  }
}
