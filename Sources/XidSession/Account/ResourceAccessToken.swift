import Foundation

/// An access token for one resource (RFC 8707), issued from the session's refresh token and kept in
/// its ``TokenRecord`` beside the session's own access token. Its `description` and mirror never show
/// the token.
struct ResourceAccessToken: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  var accessToken: String
  var tokenType: String
  var expiresAt: Date?
  /// The scopes the provider granted this token, when it said.
  var scopes: [String]?
  /// The `authorization_details` granted with this token (RFC 9396 §7), when the provider stated any.
  var authorizationDetails: [AuthorizationDetail]?

  /// `ResourceAccessToken(type: …, expiresAt: …)`; never the token.
  var description: String {
    "ResourceAccessToken(type: \(tokenType), expiresAt: \(expiresAt.map { "\($0)" } ?? "none"))"
  }

  /// The fields that are not secret, so that `dump` does not show the token.
  var customMirror: Mirror {
    Mirror(self, children: ["tokenType": tokenType, "expiresAt": expiresAt as Any, "scopes": scopes as Any])
  }

  /// Whether the token can still be used at `now`, treating it as expired `leeway` early.
  func isUsable(at now: Date, leeway: TimeInterval) -> Bool {
    guard let expiresAt else { return true }
    return expiresAt.timeIntervalSince(now) > leeway
  }

  /// The member of the record's `resources` object.
  var encoded: JSONValue {
    var members: [String: JSONValue] = ["access_token": .string(accessToken), "token_type": .string(tokenType)]
    if let expiresAt { members["expires_at"] = .double(expiresAt.timeIntervalSince1970) }
    if let scopes { members["scope"] = .array(scopes.map(JSONValue.string)) }
    if let authorizationDetails { members["authorization_details"] = AuthorizationDetail.json(authorizationDetails) }
    return .object(members)
  }

  /// Reads a member of the record's `resources` object.
  ///
  /// - Throws: ``XidError/Code/corruptRecord`` for one that is not a resource's token.
  init(decoding value: JSONValue) throws {
    guard let members = value.objectValue, let accessToken = members["access_token"]?.stringValue,
      let tokenType = members["token_type"]?.stringValue
    else { throw XidError(.corruptRecord, "a resource's token in the stored token record is malformed") }
    self.accessToken = accessToken
    self.tokenType = tokenType
    expiresAt = members["expires_at"]?.doubleValue.map(Date.init(timeIntervalSince1970:))
    scopes = members["scope"]?.arrayValue?.compactMap(\.stringValue)
    authorizationDetails = try members["authorization_details"].map {
      try AuthorizationDetail.array($0, of: "stored authorization details", code: .corruptRecord)
    }
  }

  init(
    accessToken: String, tokenType: String, expiresAt: Date?, scopes: [String]?,
    authorizationDetails: [AuthorizationDetail]?
  ) {
    self.accessToken = accessToken
    self.tokenType = tokenType
    self.expiresAt = expiresAt
    self.scopes = scopes
    self.authorizationDetails = authorizationDetails
  }
}

extension TokenRecord {
  /// Whether the access token for `resource` (the session's own for `nil`) can still be used at
  /// `now`, treating it as expired `leeway` early; `false` when there is none yet.
  func hasUsableAccessToken(for resource: String?, at now: Date, leeway: TimeInterval) -> Bool {
    guard let resource else { return hasUsableAccessToken(at: now, leeway: leeway) }
    return resourceTokens[resource]?.isUsable(at: now, leeway: leeway) ?? false
  }
}
