import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidProtocol
@testable import XidSession

/// The round's one change of the token record's format: format 2 adds the resources' tokens and the
/// granted authorization details, and records of format 1, as the previous version of Xid wrote
/// them, are still read and used.
@Suite(.noSecretLeaks)
struct TokenRecordFormatTests {
  /// A record as Xid 1 wrote it (format 1), with every member that format knew.
  static let formatOne = #"""
    {"format":1,"version":4,"access_token":"at-1","token_type":"Bearer","scope":["openid","profile"],
     "issuer":"https://op.example","client_id":"c","account":"default","expires_at":2000000000,
     "refresh_token":"rt-1","sign_in_id":"s-1","pinned_iss":"https://op.example","pinned_sub":"alice",
     "family_key":"xid.family.f","family_sign_in_id":"fs-1","from_family_exchange":true}
    """#

  @Test func aFormatOneRecordIsReadWithNoResourcesOrDetails() throws {
    let record = try TokenRecord(decoding: Self.formatOne)
    #expect(record.version == 4)
    #expect(record.accessToken == "at-1")
    #expect(record.refreshToken == "rt-1")
    #expect(record.pinnedSubject == "alice")
    #expect(record.familyKey == "xid.family.f")
    #expect(record.fromFamilyExchange)
    #expect(record.resourceTokens.isEmpty)
    #expect(record.authorizationDetails == nil)
    // Written back, it is format 2 and reads the same.
    let rewritten = record.encoded()
    #expect(try JSONValue(parsing: rewritten)["format"] == .int(2))
    #expect(try TokenRecord(decoding: rewritten) == record)
  }

  @Test func resourcesAndDetailsSurviveTheRoundTrip() throws {
    var record = try TokenRecord(decoding: Self.formatOne)
    let detail = try AuthorizationDetail(type: "account_information", actions: ["read"])
    record.authorizationDetails = [detail]
    record.resourceTokens["https://api.example/"] = ResourceAccessToken(
      accessToken: "at-api", tokenType: "DPoP", expiresAt: Date(timeIntervalSince1970: 2_000_000_100),
      scopes: ["read"], authorizationDetails: [detail])
    let decoded = try TokenRecord(decoding: record.encoded())
    #expect(decoded == record)
    #expect(!record.description.contains("at-api"))
    let token = try #require(record.resourceTokens["https://api.example/"])
    #expect(
      !"\(token)".contains("at-api")
        && !String(describing: Mirror(reflecting: token).children.map(\.value)).contains("at-api"))
    #expect(record.description.contains("resources: [\"https://api.example/\"]"))
  }

  @Test(arguments: [
    (#""resources":[]"#, "\"resources\" is not an object"),
    (#""resources":{"https://api.example/":{"token_type":"Bearer"}}"#, "a resource's token"),
    (#""authorization_details":[{"actions":["read"]}]"#, "has no string \"type\""),
  ])
  func aMalformedFormatTwoMemberIsACorruptRecord(member: String, says: String) {
    let text =
      #"{"format":2,"version":1,"access_token":"a","token_type":"Bearer","issuer":"i","client_id":"c","account":"d","#
      + member + "}"
    let error = expectXidError(.corruptRecord) { try TokenRecord(decoding: text) }
    #expect(error?.reason.contains(says) == true, "\(error?.reason ?? "")")
  }

  @Test func aFormatThisVersionDoesNotKnowIsReportedWithTheFormatsItReads() {
    let error = expectXidError(.unsupportedRecordFormat) {
      try TokenRecord(decoding: #"{"format":3,"version":1}"#)
    }
    #expect(error?.reason.contains("format 3") == true)
    #expect(error?.reason.contains("formats 1 to 2") == true)
  }

  @Test func aSessionStoredInFormatOneKeepsWorkingAndIsRewrittenOnRefresh() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    // As the previous version left it: format 1, without the members format 2 added.
    var members = try #require(try harness.storedRecord())
    members["format"] = .int(1)
    try harness.storage.save(key: harness.recordKey, value: JSONValue.object(members).serialized())
    let fresh = try Xid(
      configuration: SessionHarness.configuration(harness.provider, logger: harness.logger)
        .storing(in: harness.storage))

    let token = try await fresh.getAccessToken()
    #expect(token == members["access_token"]?.stringValue)
    #expect(try harness.storedRecord()?["format"] == .int(1), "reading does not rewrite")
    _ = try await fresh.getAccessToken(forceRefresh: true)
    #expect(try harness.storedRecord()?["format"] == .int(2))
  }
}
