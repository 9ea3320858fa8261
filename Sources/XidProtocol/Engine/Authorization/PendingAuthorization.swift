import Foundation

/// An authorization request that was started and awaits its redirect: everything needed to check the
/// response and exchange the code.
///
/// Persist it (it is `Codable`) until the redirect arrives, in storage meant for secrets: it holds the
/// PKCE verifier, the nonce and the state. Its `description` shows none of them.
///
/// Each value is single-use: once a redirect has been handled with it, successfully or not, remove it
/// from storage so that a replayed redirect finds no match. Expire old ones as well; ``createdAt``
/// says when each was made.
public struct PendingAuthorization: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
  /// The `state` sent: 32 random bytes in base64url.
  public let state: String
  /// The `nonce` sent: 32 random bytes in base64url.
  public let nonce: String
  /// The PKCE code verifier.
  public let codeVerifier: String
  /// The redirect URI sent; the redirect must come back to exactly this URI.
  public let redirectUri: URL
  /// The `max_age` sent, when one was.
  public let maxAge: Duration?
  /// The issuer identifier of the provider the request went to.
  public let issuer: String
  /// The client identifier the request was made for.
  public let clientId: String
  /// The scopes requested.
  public let scopes: [String]
  /// When the request was made.
  public let createdAt: Date
  /// The thumbprint of the DPoP key the request's `dpop_jkt` named, for a DPoP-bound sign-in: the
  /// code can only be exchanged with a proof of that key.
  public let dpopKeyThumbprint: String?
  /// For a step-up, the `acr` values the ID token's `acr` must be one of; `nil` otherwise.
  public let requiredACRValues: [String]?
  /// For a step-up, the `sub` the ID token must have (the session's); `nil` otherwise.
  public let requiredSubject: String?
  /// The types of the `authorization_details` the request asked for (RFC 9396), each once; `nil`
  /// when it asked for none. Granted details of another type are refused.
  public let authorizationDetailTypes: [String]?

  /// Creates a pending authorization (the client makes these; tests and storage migrations may too).
  public init(
    state: String, nonce: String, codeVerifier: String, redirectUri: URL, maxAge: Duration?, issuer: String,
    clientId: String, scopes: [String], createdAt: Date, dpopKeyThumbprint: String? = nil,
    requiredACRValues: [String]? = nil, requiredSubject: String? = nil, authorizationDetailTypes: [String]? = nil
  ) {
    self.state = state
    self.nonce = nonce
    self.codeVerifier = codeVerifier
    self.redirectUri = redirectUri
    self.maxAge = maxAge
    self.issuer = issuer
    self.clientId = clientId
    self.scopes = scopes
    self.createdAt = createdAt
    self.dpopKeyThumbprint = dpopKeyThumbprint
    self.requiredACRValues = requiredACRValues
    self.requiredSubject = requiredSubject
    self.authorizationDetailTypes = authorizationDetailTypes
  }

  /// The pending authorization whose `state` equals `state`, among `pending`.
  ///
  /// The caller keeps several pending authorizations (one per sign-in attempt) and must remove the
  /// returned one once the redirect has been handled, so that it cannot be used twice.
  public static func matching(
    state: String, in pending: some Sequence<PendingAuthorization>
  ) -> PendingAuthorization? {
    var found: PendingAuthorization?
    // Every candidate is compared, in constant time, so timing reveals nothing about the states kept.
    for candidate in pending where SafeText.constantTimeEquals(candidate.state, state) && found == nil {
      found = candidate
    }
    return found
  }

  /// The pending authorization that a redirect answers, found by the redirect's `state` parameter.
  ///
  /// Use it to remove the pending authorization a failed redirect used up: whether handling the
  /// redirect succeeded or threw, a pending authorization that matched must not be used again.
  public static func matching(
    callbackURL: URL, in pending: some Sequence<PendingAuthorization>
  ) -> PendingAuthorization? {
    guard let state = callbackURL.queryParameters.first(where: { $0.0 == "state" })?.1, !state.isEmpty else {
      return nil
    }
    return matching(state: state, in: pending)
  }

  /// `PendingAuthorization(issuer: …, clientId: …, redirectUri: …, createdAt: …)`; never the state,
  /// nonce or verifier.
  public var description: String {
    "PendingAuthorization(issuer: \(issuer), clientId: \(clientId), redirectUri: \(redirectUri.absoluteString), maxAge: \(maxAge.map { "\($0)" } ?? "none"), createdAt: \(createdAt))"
  }

  /// The fields that are not secret, so that `dump` does not show the state, nonce or verifier.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "issuer": issuer, "clientId": clientId, "redirectUri": redirectUri, "maxAge": maxAge as Any,
        "scopes": scopes, "createdAt": createdAt,
      ])
  }
}
