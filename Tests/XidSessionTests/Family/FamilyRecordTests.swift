import Foundation
import Testing
import Xid
import XidTestSupport

@testable import XidProtocol
@testable import XidSession

struct FamilyRecordTests {
  static let deviceSecret = "DS-family-device-secret-0123456789"
  static let signedInAt = Date(timeIntervalSince1970: 1_800_000_000)

  static func idToken(_ claims: [String: JSONValue] = [:]) throws -> IDToken {
    var all: [String: JSONValue] = [
      "iss": "https://op.example", "sub": "alice", "aud": "app-1", "sid": "sid-1", "name": "Alice Example",
      "email": "alice@example.com", "picture": "https://op.example/alice.png",
    ]
    all.merge(claims) { $1 }
    return try IDToken(restoring: JWSSigningKey.generate(for: .es256).sign(claims: all))
  }

  static func record(_ claims: [String: JSONValue] = [:]) throws -> FamilyRecord {
    try FamilyRecord(
      family: AppFamily(name: "com.example.apps"), clientId: "app-1", idToken: idToken(claims),
      deviceSecret: deviceSecret, signedInAt: signedInAt)
  }

  @Test func aFamilySignInKeepsTheUserTheSessionAndTheDisplayClaimsOfItsIDToken() throws {
    let record = try Self.record()
    #expect(record.issuer == "https://op.example")
    #expect(record.subject == "alice")
    #expect(record.sessionID == "sid-1")
    #expect(record.deviceSecret == Self.deviceSecret)
    #expect(record.clientId == "app-1")
    let account = record.account
    #expect(account.displayName == "Alice Example")
    #expect(account.email == "alice@example.com")
    #expect(account.picture == URL(string: "https://op.example/alice.png"))
    #expect(account.id == record.storageKey)
    // Each family sign-in is told apart from the next one of the same user.
    #expect(try Self.record().familySignInID != record.familySignInID)
  }

  @Test func aRecordReadsBackAsItWasWritten() throws {
    let record = try Self.record()
    #expect(try FamilyRecord(decoding: record.encoded()) == record)
    var bare = try Self.record(["name": .null, "email": .null, "picture": .null])
    bare.sessionID = nil
    #expect(try FamilyRecord(decoding: bare.encoded()) == bare)
  }

  @Test func aNewDeviceSecretReplacesTheSecretAndTheIDTokenTogether() throws {
    let record = try Self.record()
    let renewed = try Self.idToken(["sid": "sid-2"])
    let next = record.rotated(deviceSecret: "DS-rotated-device-secret-9876543210", idToken: renewed)
    #expect(next.deviceSecret == "DS-rotated-device-secret-9876543210")
    #expect(next.idToken == renewed.compact)
    #expect(next.sessionID == "sid-2")
    #expect(next.version == record.version + 1)
    #expect(next.familySignInID == record.familySignInID)
  }

  @Test func aRecordOfAnotherFormatIsReportedAndNotTakenForCorrupt() throws {
    var members = try #require(try JSONValue(parsing: Self.record().encoded()).objectValue)
    members["format"] = .int(2)
    let error = try #require(throws: XidError.self) {
      try FamilyRecord(decoding: JSONValue.object(members).serialized())
    }
    #expect(error.code == .unsupportedRecordFormat)
    #expect(!error.reason.contains(Self.deviceSecret))
  }

  @Test func aRecordThatLacksAMemberOrIsNotJSONIsCorrupt() throws {
    let complete = try #require(try JSONValue(parsing: Self.record().encoded()).objectValue)
    for name in ["version", "family", "issuer", "sub", "id_token", "device_secret", "family_sign_in_id", "client_id"] {
      var members = complete
      members[name] = nil
      let error = try #require(throws: XidError.self) {
        try FamilyRecord(decoding: JSONValue.object(members).serialized())
      }
      #expect(error.code == .corruptRecord, "without \(name)")
    }
    var wrongType = complete
    wrongType["email"] = .int(1)
    #expect(throws: XidError.self) { try FamilyRecord(decoding: JSONValue.object(wrongType).serialized()) }
    #expect(throws: XidError.self) { try FamilyRecord(decoding: "<html>gateway</html>") }
  }

  @Test func keysTellFamiliesIssuersAndUsersApartAndAreSafeFileNames() {
    let keys = [
      FamilyRecord.storageKey(family: "com.example.apps", issuer: "https://op.example", subject: "alice"),
      FamilyRecord.storageKey(family: "com.example.apps", issuer: "https://op.example", subject: "bob"),
      FamilyRecord.storageKey(family: "com.example.apps", issuer: "https://other.example", subject: "alice"),
      FamilyRecord.storageKey(family: "com.example.other", issuer: "https://op.example", subject: "alice"),
    ]
    #expect(Set(keys).count == keys.count)
    for key in keys {
      #expect(key.hasPrefix(FamilyRecord.keyPrefix))
      #expect(
        key.utf8.allSatisfy { $0 == UInt8(ascii: ".") || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) })
    }
  }

  @Test func neitherTheRecordNorItsAccountShowsTheDeviceSecretOrTheIDToken() throws {
    let record = try Self.record()
    let token = try #require(record.idToken.split(separator: ".").last.map(String.init))
    for shown in [
      record.description, "\(record)", String(reflecting: record), dumped(record), record.account.description,
      dumped(record.account),
    ] {
      #expect(!shown.contains(Self.deviceSecret))
      #expect(!shown.contains(token))
    }
  }

  @Test func aFamilyNameMustBeUsableInStorageKeysAndLockFileNames() throws {
    try AppFamily(name: "com.example.apps").validate()
    try AppFamily(name: "Team_1-apps").validate()
    for name in ["", "com example", "../etc", "com/example", String(repeating: "a", count: 129), "famille.été"] {
      let error = try #require(throws: XidError.self) { try AppFamily(name: name).validate() }
      #expect(error.code == .invalidConfiguration)
    }
    var identity = ClientIdentity(
      issuer: URL(string: "https://op.example")!, clientId: "app-1", redirectUri: URL(string: "com.example.app:/cb")!)
    identity.family = AppFamily(name: "bad name")
    #expect(throws: XidError.self) { try identity.validate() }
  }

  private func dumped(_ value: some Any) -> String {
    var text = ""
    dump(value, to: &text)
    return text
  }
}
