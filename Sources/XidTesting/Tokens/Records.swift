import Foundation
import XidCore

/// The user's sign-in at the provider: when they authenticated, and the session's `sid`.
struct UserSession {
  let authTime: Date
  let id: String
  /// The authentication context class the sign-in satisfied, when the provider issues `acr`.
  var acr: String? = nil
}

/// What a user granted a client: the subject of every token of the grant.
struct Authorization {
  let clientId: String
  let scopes: [String]
  let user: TestUser
  let session: UserSession
  let nonce: String?
  /// The `authorization_details` granted (RFC 9396), as the request asked for them.
  var authorizationDetails: [JSONValue] = []
  /// The resources the grant's tokens may be for (RFC 8707).
  var resources: [String] = []

  var includesOpenID: Bool { scopes.contains("openid") }
}

/// An authorization code, until it is redeemed or expires.
struct AuthorizationCodeRecord {
  let authorization: Authorization
  let redirectUri: String
  let codeChallenge: String
  let expiresAt: Date
  /// The `dpop_jkt` of the authorization request: the code can only be redeemed with that key.
  var dpopJKT: String? = nil
  /// The grant the code was exchanged for; a second exchange revokes it (RFC 6749 §4.1.2).
  var redeemedGrant: Int?
}

/// The tokens issued from one authorization: a refresh-token family.
struct Grant {
  let id: Int
  let authorization: Authorization
  var revoked = false
}

/// An access token.
struct AccessTokenRecord {
  let grantID: Int
  let scopes: [String]
  let expiresAt: Date
  var revoked = false
  /// The thumbprint of the DPoP key the token is bound to (`cnf.jkt`), or `nil` for a Bearer token.
  var jkt: String? = nil
  /// The `audience` and `resource` values of the token exchange that issued it, or the resource of
  /// the refresh that did (RFC 8707).
  var audiences: [String] = []
  /// The types of the `authorization_details` granted with it (RFC 9396).
  var authorizationDetailTypes: [String] = []
}

/// A refresh token; a rotated one may never be used again.
struct RefreshTokenRecord {
  let grantID: Int
  let scopes: [String]
  let expiresAt: Date?
  var rotated = false
  /// The thumbprint of the DPoP key every refresh must prove, or `nil` for an unbound token.
  var jkt: String? = nil
}

/// A pending device authorization (RFC 8628).
struct DeviceAuthorizationRecord {
  enum Status {
    case pending
    case denied
    case approved(Authorization)
    case redeemed
  }

  let clientId: String
  let scopes: [String]
  let userCode: String
  let expiresAt: Date
  var interval: Int
  var lastPolledAt: Date?
  var status = Status.pending
}

/// A pushed authorization request (RFC 9126), until its `request_uri` is used or expires.
struct PushedRequest {
  let clientId: String
  let parameters: FormParameters
  let expiresAt: Date
}

/// The user's sign-in on the device, which the apps of one family share (OpenID Connect Native SSO):
/// the session of its `sid`, alive until a family sign-out ends it.
struct DeviceSessionRecord {
  let user: TestUser
  let session: UserSession
  var ended = false
}

/// A device secret (Native SSO): the session it belongs to, until it is rotated out, expires, or its
/// session ends.
struct DeviceSecretRecord {
  let sessionID: String
  /// The client it was issued to.
  let clientId: String
  let expiresAt: Date?
  /// Whether a newer secret replaced it, or it was revoked.
  var retired = false
}
