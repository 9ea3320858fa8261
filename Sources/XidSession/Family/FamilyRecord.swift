import Foundation

/// One signed-in user of an app family (OpenID Connect Native SSO for Mobile Apps 1.0): what another
/// app of the family needs to sign in as that user without a browser, and what it shows before.
///
/// Stored as one JSON document per user (key ``storageKey(family:issuer:subject:)``), in the
/// family's storage, written whole: a reader sees the previous record or the next one. It holds the
/// device secret and the ID token issued with it as a pair (`ds_hash` binds them), the token's `sid`,
/// the user's display claims, the app whose sign-in made it and a random family sign-in ID. An app's
/// own record that came from the family names that ID: when the family record is gone, or holds
/// another ID, the family signed out (or signed in again) and the app's session ends.
struct FamilyRecord: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// The format this version of Xid writes and reads; a record of another one is reported as
  /// ``XidError/Code/unsupportedRecordFormat`` and left alone, as for token records.
  static let currentFormat: Int64 = 1
  /// The prefix of every family record's storage key.
  static let keyPrefix = "xid.family."

  /// Counts the saves of this record (a device secret rotated, an ID token renewed).
  var version: Int64
  /// The family's name (``AppFamily/name``).
  var family: String
  /// The issuer of ``idToken``.
  var issuer: String
  /// The user: ``idToken``'s `sub`.
  var subject: String
  /// ``idToken``'s `sid`: the provider's session of the device.
  var sessionID: String?
  /// The ID token the device secret was issued with (compact), the `subject_token` of a sibling's
  /// exchange.
  var idToken: String
  /// The device secret, the exchange's `actor_token`.
  var deviceSecret: String
  /// Random, made when the family signed the user in: a sibling's record names it.
  var familySignInID: String
  /// The client identifier of the app whose sign-in made the record.
  var clientId: String
  /// When the family signed the user in.
  var signedInAt: Date
  /// Display claims of ``idToken``, for "Continue as …".
  var name: String?
  var email: String?
  var picture: String?

  /// The storage key of `subject`'s record at `issuer` in `family`: an FNV-1a hash, safe as a file
  /// name, like a token record's (two users meeting in one key are told apart by the record's own
  /// issuer and subject, which every read compares).
  static func storageKey(family: String, issuer: String, subject: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in "\(family)\n\(issuer)\n\(subject)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    let hex = String(hash, radix: 16)
    return keyPrefix + String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// The storage key of `family`'s index, which lists its records' keys (a storage cannot list
  /// its keys). Not under ``keyPrefix``, so no index is ever read as a record.
  static func indexKey(family: String) -> String { "xid.family-index." + family }

  /// This record's storage key.
  var storageKey: String { Self.storageKey(family: family, issuer: issuer, subject: subject) }

  /// What an app shows of the record: the user's display claims, never a secret.
  var account: FamilyAccount {
    FamilyAccount(
      id: storageKey, issuer: issuer, subject: subject, name: name, email: email,
      picture: picture.flatMap { URL(string: $0) }, clientId: clientId, signedInAt: signedInAt)
  }

  init(
    version: Int64 = 1, family: String, issuer: String, subject: String, sessionID: String?, idToken: String,
    deviceSecret: String, familySignInID: String, clientId: String, signedInAt: Date, name: String? = nil,
    email: String? = nil, picture: String? = nil
  ) {
    self.version = version
    self.family = family
    self.issuer = issuer
    self.subject = subject
    self.sessionID = sessionID
    self.idToken = idToken
    self.deviceSecret = deviceSecret
    self.familySignInID = familySignInID
    self.clientId = clientId
    self.signedInAt = signedInAt
    self.name = name
    self.email = email
    self.picture = picture
  }

  /// The record of a family sign-in: `idToken` (validated, with the `sid` and `ds_hash` the caller
  /// checked) and the `deviceSecret` issued with it, by the app `clientId`.
  init(family: AppFamily, clientId: String, idToken: IDToken, deviceSecret: String, signedInAt: Date) throws {
    let claims = idToken.claims.raw
    self.init(
      family: family.name, issuer: idToken.issuer, subject: idToken.subject, sessionID: idToken.sessionID,
      idToken: idToken.compact, deviceSecret: deviceSecret, familySignInID: try TokenRecord.newSignInID(),
      clientId: clientId, signedInAt: signedInAt, name: claims["name"]?.stringValue,
      email: claims["email"]?.stringValue, picture: claims["picture"]?.stringValue)
  }

  /// The same record with a new device secret and the ID token issued with it, as a pair, saved
  /// once more.
  func rotated(deviceSecret: String, idToken: IDToken) -> FamilyRecord {
    var next = self
    next.version = version &+ 1
    next.deviceSecret = deviceSecret
    next.idToken = idToken.compact
    next.sessionID = idToken.sessionID ?? sessionID
    return next
  }

  func encoded() -> String {
    var members: [String: JSONValue] = [
      "format": .int(Self.currentFormat), "version": .int(version), "family": .string(family),
      "issuer": .string(issuer), "sub": .string(subject), "id_token": .string(idToken),
      "device_secret": .string(deviceSecret), "family_sign_in_id": .string(familySignInID),
      "client_id": .string(clientId), "signed_in_at": .double(signedInAt.timeIntervalSince1970),
    ]
    if let sessionID { members["sid"] = .string(sessionID) }
    if let name { members["name"] = .string(name) }
    if let email { members["email"] = .string(email) }
    if let picture { members["picture"] = .string(picture) }
    return JSONValue.object(members).serialized()
  }

  /// Reads a stored family record.
  ///
  /// - Throws: ``XidError/Code/unsupportedRecordFormat`` for a record of another format (left as it
  ///   is), and ``XidError/Code/corruptRecord`` when the text is not a family record.
  init(decoding text: String) throws {
    let record = try StoredRecordMembers(
      decoding: text, kind: "family record", format: Self.currentFormat,
      writers: "another app of the family, of another version of Xid,")
    func string(_ name: String) throws -> String {
      let value = try record.string(name)
      guard !value.isEmpty else { throw XidError(.corruptRecord, "the stored family record's \"\(name)\" is empty") }
      return value
    }
    func optional(_ name: String) throws -> String? {
      guard let value = record.members[name], value != .null else { return nil }
      guard let string = value.stringValue else {
        throw XidError(.corruptRecord, "the stored family record's \"\(name)\" is not a string")
      }
      return string
    }
    guard let signedInAt = record.members["signed_in_at"]?.doubleValue, signedInAt.isFinite else {
      throw XidError(.corruptRecord, "the stored family record lacks \"signed_in_at\"")
    }
    self.init(
      version: try record.int64("version"), family: try string("family"), issuer: try string("issuer"),
      subject: try string("sub"), sessionID: try optional("sid"), idToken: try string("id_token"),
      deviceSecret: try string("device_secret"), familySignInID: try string("family_sign_in_id"),
      clientId: try string("client_id"), signedInAt: Date(timeIntervalSince1970: signedInAt),
      name: try optional("name"), email: try optional("email"), picture: try optional("picture"))
  }

  /// Never shows the device secret or the ID token.
  var description: String {
    "FamilyRecord(version: \(version), family: \(family), issuer: \(issuer), client: \(clientId), sid: \(sessionID != nil ? "yes" : "no"))"
  }

  /// The description's members only.
  var customMirror: Mirror {
    Mirror(
      self,
      children: ["version": version, "family": family, "issuer": issuer, "client": clientId],
      displayStyle: .struct)
  }
}
