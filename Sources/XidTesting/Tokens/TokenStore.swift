import Foundation

/// Every code, token and pending request the provider has issued, and their state.
struct TokenStore {
  var codes: [String: AuthorizationCodeRecord] = [:]
  var grants: [Int: Grant] = [:]
  var accessTokens: [String: AccessTokenRecord] = [:]
  var refreshTokens: [String: RefreshTokenRecord] = [:]
  var deviceCodes: [String: DeviceAuthorizationRecord] = [:]
  var pushedRequests: [String: PushedRequest] = [:]
  /// Every ID token issued, for ``TestProvider/issuedSecrets``.
  var issuedIDTokens: [String] = []
  /// Every PKCE verifier received, for ``TestProvider/issuedSecrets``.
  var receivedVerifiers: Set<String> = []
  /// The `jti`s of the client assertions accepted (`private_key_jwt`), each usable once.
  var assertionIDs: Set<String> = []
  /// Every refresh token issued, oldest first, with its grant.
  var issuedRefreshTokens: [(token: String, grantID: Int)] = []
  /// The tokens the revocation endpoint revoked, oldest first.
  var revokedTokens: [String] = []
  /// The device sessions of Native SSO, by `sid`.
  var deviceSessions: [String: DeviceSessionRecord] = [:]
  /// The device secrets, valid or not.
  var deviceSecrets: [String: DeviceSecretRecord] = [:]
  /// Every device secret issued, oldest first.
  var issuedDeviceSecrets: [String] = []
  private var lastGrantID = 0

  /// Starts a refresh-token family for `authorization`.
  mutating func newGrant(_ authorization: Authorization) -> Int {
    lastGrantID += 1
    grants[lastGrantID] = Grant(id: lastGrantID, authorization: authorization)
    return lastGrantID
  }

  /// Revokes a grant: every access and refresh token issued from it stops working.
  mutating func revokeGrant(_ id: Int) { grants[id]?.revoked = true }

  /// Whether `secret` is a device secret that may be used now: known, not retired, not expired, and
  /// of a device session that has not ended.
  func isValid(deviceSecret secret: String, now: Date) -> Bool {
    guard let record = deviceSecrets[secret], !record.retired else { return false }
    if let expiresAt = record.expiresAt, now >= expiresAt { return false }
    return deviceSessions[record.sessionID].map { !$0.ended } ?? false
  }

  /// Ends the device session `sessionID`: its device secrets stop working and, when
  /// `endingGrants`, so does every grant of the session (every app's refresh tokens).
  mutating func endDeviceSession(_ sessionID: String, endingGrants: Bool) {
    guard deviceSessions[sessionID] != nil else { return }
    deviceSessions[sessionID]?.ended = true
    for (secret, record) in deviceSecrets where record.sessionID == sessionID { deviceSecrets[secret]?.retired = true }
    guard endingGrants else { return }
    for (id, grant) in grants where grant.authorization.session.id == sessionID { grants[id]?.revoked = true }
  }

  /// Whether the grant exists and is not revoked.
  func isActive(grant id: Int) -> Bool { grants[id].map { !$0.revoked } ?? false }

  /// The grant behind a valid access token, or why it is not valid.
  func validate(accessToken token: String, now: Date) -> Result<(AccessTokenRecord, Grant), OAuthFailure> {
    guard let record = accessTokens[token], let grant = grants[record.grantID] else {
      return .failure(Self.invalidToken("the access token is unknown"))
    }
    if record.revoked || grant.revoked { return .failure(Self.invalidToken("the access token was revoked")) }
    if now >= record.expiresAt { return .failure(Self.invalidToken("the access token expired")) }
    return .success((record, grant))
  }

  /// The device authorization with `userCode`, compared case-insensitively and without separators.
  func deviceCode(forUserCode userCode: String) -> String? {
    let wanted = Randomness.normalizedUserCode(userCode)
    return deviceCodes.first { Randomness.normalizedUserCode($0.value.userCode) == wanted }?.key
  }

  /// RFC 6750 §3.1 `invalid_token`, with its `WWW-Authenticate` challenge.
  static func invalidToken(_ description: String) -> OAuthFailure {
    OAuthFailure(
      "invalid_token", description, status: 401,
      headers: ["WWW-Authenticate": "Bearer error=\"invalid_token\", error_description=\"\(description)\""])
  }
}
