import Foundation

/// One account's tokens as Xid stores them: a single JSON document, written whole, so a reader in any
/// process sees either the previous record or the next one, never a mix.
struct TokenRecord: Sendable, Hashable, CustomStringConvertible {
  /// The format this version of Xid writes. Format 2 added the access tokens of other resources
  /// (``resourceTokens``, RFC 8707) and the granted `authorization_details` (RFC 9396): a reader of
  /// format 1 that rewrote such a record would drop them, so it must not read it. Records of
  /// ``readableFormats`` are read; one of another format was written by another version of Xid (a
  /// newer app sharing the storage with an older extension): it is reported as
  /// ``XidError/Code/unsupportedRecordFormat`` and left alone. Members added within a format are
  /// optional, so that its released readers still read it.
  static let currentFormat: Int64 = 2
  /// The formats this version of Xid reads: format 1 is format 2 without resource tokens or
  /// authorization details.
  static let readableFormats: ClosedRange<Int64> = 1...2

  /// Counts the saves of this account's record; a process that sees a higher version than the one it
  /// holds knows another process refreshed.
  var version: Int64
  var accessToken: String
  var tokenType: String
  var expiresAt: Date?
  var refreshToken: String?
  /// The refresh token sealed with a key that needs the user (``PresenceOptions/refreshTokenProtection``),
  /// instead of ``refreshToken``; an optional member, so the format stays the same.
  var sealedRefreshToken: String? = nil
  /// A hash of the enrolled biometry's state when the key of ``sealedRefreshToken`` was made, for a
  /// ``PresenceRequirement/biometryCurrentSet`` key: tells a key that an enrollment change invalidated
  /// from a user who was not recognised. An optional member, so the format stays the same.
  var sealedBiometryState: String? = nil
  var idToken: String?
  var scopes: [String]
  var issuer: String
  var clientId: String
  var account: String
  /// Random, made at sign-in: tells this sign-in's record from another one's, even when both have the
  /// same version. Optional: records of earlier versions have none.
  var signInID: String?
  /// The `iss` of the first ID token the session saw (at sign-in, or at the first refresh of a session
  /// that had none): refresh-time ID tokens must have it even when ``idToken`` cannot be read.
  var pinnedIssuer: String?
  /// The `sub` of the first ID token the session saw, pinned with ``pinnedIssuer``.
  var pinnedSubject: String?

  /// The configuration the record belongs to.
  var owner: RecordOwner { RecordOwner(issuer: issuer, clientId: clientId, account: account) }
  /// The RFC 7638 thumbprint of the DPoP key the tokens are bound to (`dpop_jkt`), for a DPoP-bound
  /// session; the key itself is stored under its own key (see `DPoPKeyStore`).
  var dpopKeyThumbprint: String?
  /// The storage key of the app family's record this session belongs to (``ClientIdentity/family``),
  /// or `nil`; optional members, so the format stays the same.
  var familyKey: String? = nil
  /// The family sign-in ID of that family record: a family record that is gone, or holds another
  /// ID, means the family signed out, and this session ends.
  var familySignInID: String? = nil
  /// Whether this session was made from the family's by a token exchange (a sibling app's sign-in).
  var fromFamilyExchange = false
  /// The `authorization_details` the provider granted with ``accessToken`` (RFC 9396 §7), or `nil`
  /// when it stated none; kept across refreshes that state none.
  var authorizationDetails: [AuthorizationDetail]? = nil
  /// The access tokens of the configured resources (RFC 8707), by resource identifier, each issued
  /// from ``refreshToken`` for that resource alone.
  var resourceTokens: [String: ResourceAccessToken] = [:]

  /// The storage key of an account's record: derived from issuer, client and account, and safe as a
  /// file name.
  ///
  /// The key only tells apart accounts the app itself configures, so a 64-bit FNV-1a hash serves, and
  /// reading a stored token never has to start the crypto library (a process's cold start matters on
  /// this path).
  ///
  /// Two configurations can meet in one key, so every load compares the record's issuer, client and
  /// account with the configuration's (see ``AccountRecordStore``).
  static func storageKey(issuer: String, clientId: String, account: String) -> String {
    "xid.tokens." + hex(fnv1a("\(issuer)\n\(clientId)\n\(account)"))
  }

  /// What an account's storage key holds after `xid.tokens.`: the account's other records (its pending
  /// sign-ins, its DPoP nonces) are named with it.
  ///
  /// Not with `replacingOccurrences(of:with:)`: on Linux that goes through NSString, whose first use
  /// costs a process that only reads its token about 0.9 MB of memory (docs/performance.md, "Cold
  /// start"). Both give the same text for every key ``storageKey(issuer:clientId:account:)`` and
  /// ``overflowStorageKey(issuer:clientId:account:)`` make.
  static func accountPart(ofStorageKey key: String) -> String {
    // On the UTF-8 bytes: `hasPrefix` and `String + Substring` work on Characters, and their first
    // use loads Unicode tables (about 0.15 ms of a cold start).
    let prefix = "xid.tokens.".utf8
    guard key.utf8.starts(with: prefix) else { return key }
    return String(decoding: key.utf8.dropFirst(prefix.count), as: UTF8.self)
  }

  /// The second key of an account, used when another configuration's record holds the first: the
  /// first key followed by a second, independent 64-bit FNV-1a hash.
  static func overflowStorageKey(issuer: String, clientId: String, account: String) -> String {
    storageKey(issuer: issuer, clientId: clientId, account: account) + "."
      + hex(fnv1a("xid.overflow\n\(issuer)\n\(clientId)\n\(account)"))
  }

  private static func fnv1a(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    return hash
  }

  private static func hex(_ value: UInt64) -> String {
    let hex = String(value, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// The issuer, client and account a record that cannot be decoded names, when it names them as this
  /// format does: so that another configuration's record of a newer format is still told apart.
  static func owner(ofUndecodable text: String) -> RecordOwner? {
    guard let members = try? JSONValue(parsing: text).objectValue,
      let issuer = members["issuer"]?.stringValue, let clientId = members["client_id"]?.stringValue,
      let account = members["account"]?.stringValue
    else { return nil }
    return RecordOwner(issuer: issuer, clientId: clientId, account: account)
  }

  /// Whether the access token can still be used at `now`, treating it as expired `leeway` early.
  func hasUsableAccessToken(at now: Date, leeway: TimeInterval) -> Bool {
    guard let expiresAt else { return true }
    return expiresAt.timeIntervalSince(now) > leeway
  }

  func encoded() -> String {
    var members: [String: JSONValue] = [
      "format": .int(Self.currentFormat), "version": .int(version), "access_token": .string(accessToken),
      "token_type": .string(tokenType), "scope": .array(scopes.map(JSONValue.string)), "issuer": .string(issuer),
      "client_id": .string(clientId), "account": .string(account),
    ]
    if let expiresAt { members["expires_at"] = .double(expiresAt.timeIntervalSince1970) }
    if let refreshToken { members["refresh_token"] = .string(refreshToken) }
    if let sealedRefreshToken { members["sealed_refresh_token"] = .string(sealedRefreshToken) }
    if let sealedBiometryState { members["sealed_biometry"] = .string(sealedBiometryState) }
    if let idToken { members["id_token"] = .string(idToken) }
    if let signInID { members["sign_in_id"] = .string(signInID) }
    if let pinnedIssuer { members["pinned_iss"] = .string(pinnedIssuer) }
    if let pinnedSubject { members["pinned_sub"] = .string(pinnedSubject) }
    if let dpopKeyThumbprint { members["dpop_jkt"] = .string(dpopKeyThumbprint) }
    if let familyKey { members["family_key"] = .string(familyKey) }
    if let familySignInID { members["family_sign_in_id"] = .string(familySignInID) }
    if fromFamilyExchange { members["from_family_exchange"] = .bool(true) }
    if let authorizationDetails { members["authorization_details"] = AuthorizationDetail.json(authorizationDetails) }
    if !resourceTokens.isEmpty { members["resources"] = .object(resourceTokens.mapValues(\.encoded)) }
    return JSONValue.object(members).serialized()
  }

  /// Reads a stored record.
  ///
  /// - Throws: ``XidError/Code/unsupportedRecordFormat`` for a record of another format, and
  ///   ``XidError/Code/corruptRecord`` when the text is not a record at all.
  init(decoding text: String) throws {
    let record = try StoredRecordMembers(
      decoding: text, kind: "token record", formats: Self.readableFormats,
      writers: "another version of the app or of an extension sharing the storage")
    let members = record.members
    version = try record.int64("version")
    accessToken = try record.string("access_token")
    tokenType = try record.string("token_type")
    issuer = try record.string("issuer")
    clientId = try record.string("client_id")
    account = try record.string("account")
    expiresAt = members["expires_at"]?.doubleValue.map(Date.init(timeIntervalSince1970:))
    refreshToken = members["refresh_token"]?.stringValue
    sealedRefreshToken = members["sealed_refresh_token"]?.stringValue
    sealedBiometryState = members["sealed_biometry"]?.stringValue
    idToken = members["id_token"]?.stringValue
    scopes = members["scope"]?.arrayValue?.compactMap(\.stringValue) ?? []
    signInID = members["sign_in_id"]?.stringValue
    pinnedIssuer = members["pinned_iss"]?.stringValue
    pinnedSubject = members["pinned_sub"]?.stringValue
    dpopKeyThumbprint = members["dpop_jkt"]?.stringValue
    familyKey = members["family_key"]?.stringValue
    familySignInID = members["family_sign_in_id"]?.stringValue
    fromFamilyExchange = members["from_family_exchange"]?.boolValue ?? false
    authorizationDetails = try members["authorization_details"].map {
      try AuthorizationDetail.array($0, of: "stored authorization details", code: .corruptRecord)
    }
    if let resources = members["resources"] {
      guard let resources = resources.objectValue else {
        throw XidError(.corruptRecord, "the stored token record's \"resources\" is not an object")
      }
      resourceTokens = try resources.mapValues { try ResourceAccessToken(decoding: $0) }
    }
  }

  init(
    version: Int64, accessToken: String, tokenType: String, expiresAt: Date?, refreshToken: String?,
    idToken: String?, scopes: [String], issuer: String, clientId: String, account: String, signInID: String? = nil,
    pinnedIssuer: String? = nil, pinnedSubject: String? = nil,
    dpopKeyThumbprint: String? = nil
  ) {
    self.version = version
    self.accessToken = accessToken
    self.tokenType = tokenType
    self.expiresAt = expiresAt
    self.refreshToken = refreshToken
    self.idToken = idToken
    self.scopes = scopes
    self.issuer = issuer
    self.clientId = clientId
    self.account = account
    self.signInID = signInID
    self.pinnedIssuer = pinnedIssuer
    self.pinnedSubject = pinnedSubject
    self.dpopKeyThumbprint = dpopKeyThumbprint
  }

  /// A new random ``signInID``.
  static func newSignInID() throws -> String { Base64URL.encode(try XidCrypto.randomBytes(count: 16)) }

  /// Never shows a token.
  var description: String {
    "TokenRecord(version: \(version), issuer: \(issuer), client: \(clientId), expiresAt: \(expiresAt.map { "\($0)" } ?? "none"), refreshToken: \(refreshToken != nil ? "yes" : sealedRefreshToken != nil ? "sealed" : "no"), dpop: \(dpopKeyThumbprint ?? "no"), resources: \(resourceTokens.keys.sorted()))"
  }
}

extension DPoPNonceCache {
  /// The storage key of an account's nonce cache, next to its token record's.
  static func storageKey(accountKey: String) -> String {
    "xid.dpop-nonces." + TokenRecord.accountPart(ofStorageKey: accountKey)
  }
}
