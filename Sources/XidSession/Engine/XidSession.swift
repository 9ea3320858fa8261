import Foundation

/// The signed-in user, as the app sees it: who, with which scopes, until when. Never a token: ask
/// ``Xid/getAccessToken(forceRefresh:)`` for one when you call an API.
public struct XidSession: Sendable, Hashable, CustomStringConvertible {
  /// The user's subject identifier at the provider (`sub`).
  public let subject: String
  /// The claims of the ID token the provider issued at sign-in (or at the last refresh).
  public let claims: JWTClaims
  /// The scopes the provider granted.
  public let scopes: [String]
  /// When the current access token expires, if the provider said.
  public let accessTokenExpiresAt: Date?
  /// The provider's issuer identifier.
  public let issuer: String
  /// The account name from the configuration.
  public let account: String
  /// Whether the session lock is closed: then the user is signed in, but only ``issuer`` and
  /// ``account`` are filled in. Unlock to see the rest (``SessionEngine/unlock(localizedReason:)``).
  public internal(set) var isLocked = false
  /// How the tokens are bound to this device's key (DPoP, RFC 9449): the key's thumbprint, and
  /// whether it is hardware-backed. `nil` for Bearer tokens.
  public let dpopBinding: DPoPBinding?
  /// The ``FamilyAccount/id`` of the app family's record this session belongs to; `nil` for a
  /// session outside an app family.
  public let familyAccountID: String?
  /// Whether this session was made from the family's session by a token exchange
  /// (``SessionEngine/signIn(from:scopes:)``), not by the user signing in to this app.
  public let signedInFromFamily: Bool
  /// The `authorization_details` the provider granted with the session's access token (RFC 9396),
  /// when it stated any: kept across refreshes that state none.
  public let authorizationDetails: [AuthorizationDetail]?
  /// The configured resources (RFC 8707) the session holds an access token for, by identifier, with
  /// the `authorization_details` granted with each (`nil` when none were stated).
  public let resourceGrants: [String: [AuthorizationDetail]?]

  init(record: TokenRecord, dpopBinding: DPoPBinding? = nil) throws {
    let claims: JWTClaims
    if let idToken = record.idToken {
      claims = try IDToken(restoring: idToken).claims
    } else {
      claims = try JWTClaims(raw: [:])
    }
    self.subject = claims.subject ?? record.pinnedSubject ?? ""
    self.claims = claims
    self.scopes = record.scopes
    self.accessTokenExpiresAt = record.expiresAt
    self.issuer = record.issuer
    self.account = record.account
    self.familyAccountID = record.familyKey
    self.signedInFromFamily = record.fromFamilyExchange
    self.authorizationDetails = record.authorizationDetails
    self.resourceGrants = record.resourceTokens.mapValues(\.authorizationDetails)
    self.dpopBinding =
      dpopBinding ?? record.dpopKeyThumbprint.map { DPoPBinding(keyThumbprint: $0, isHardwareBacked: false) }
  }

  /// Subject, issuer, scopes and expiry; never a token.
  public var description: String {
    if isLocked { return "XidSession(locked, issuer: \(issuer), account: \(account))" }
    let expiry = accessTokenExpiresAt.map { "\($0)" } ?? "unknown"
    return
      "XidSession(subject: \(subject), issuer: \(issuer), scopes: \(scopes.joined(separator: " ")), accessTokenExpiresAt: \(expiry)\(dpopBinding.map { ", dpop: \($0)" } ?? "")\(authorizationDetails.map { ", authorizationDetails: \(AuthorizationDetail.types(of: $0).joined(separator: " "))" } ?? ""))"
  }
}
