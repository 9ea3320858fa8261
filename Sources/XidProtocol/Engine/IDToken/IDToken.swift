import Foundation

/// An ID token that passed validation: its compact form, for `id_token_hint` and storage, and its
/// claims.
///
/// It is `Codable` as its compact string. Decoding does not verify the signature again; store ID
/// tokens only where the app's own data lives, as it does tokens. Its `description` shows no token.
public struct IDToken: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
  /// The token as received (compact JWS).
  public let compact: String
  /// The claims.
  public let claims: JWTClaims
  /// The algorithm its signature was verified with.
  public let algorithm: JWSAlgorithm

  /// `iss`.
  public var issuer: String { claims.issuer ?? "" }
  /// `sub`: the user's identifier at the provider, stable for this client.
  public var subject: String { claims.subject ?? "" }

  /// Creates a token from its parts once they have been validated.
  init(compact: String, claims: JWTClaims, algorithm: JWSAlgorithm) {
    self.compact = compact
    self.claims = claims
    self.algorithm = algorithm
  }

  /// Restores an ID token that was validated before and stored as its compact string.
  ///
  /// The signature and claims are not checked again: use this only for tokens the app itself stored
  /// after ``OpenIDClient`` returned them.
  ///
  /// - Throws: ``XidError`` when the text is not a JWS with claims, an algorithm Xid supports, `iss`
  ///   and `sub`.
  public init(restoring compact: String) throws {
    let jws = try CompactJWS(parsing: compact)
    guard let algorithm = JWSAlgorithm(rawValue: jws.header.algorithm) else {
      throw XidError(.invalidIDToken, "the stored ID token's algorithm is not one Xid supports")
    }
    let claims = try JWTClaims(payload: jws.payload)
    guard claims.issuer != nil, claims.subject != nil else {
      throw XidError(.invalidIDToken, "the stored ID token lacks iss or sub")
    }
    self.init(compact: compact, claims: claims, algorithm: algorithm)
  }

  /// Decodes the compact string written by ``encode(to:)``; see ``init(restoring:)``.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let compact = try container.decode(String.self)
    do {
      try self.init(restoring: compact)
    } catch let error as XidError {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: error.reason)
    }
  }

  /// Encodes the compact string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(compact)
  }

  /// Tokens are equal when their compact forms are.
  public static func == (lhs: IDToken, rhs: IDToken) -> Bool { lhs.compact == rhs.compact }

  /// Hashes the compact form.
  public func hash(into hasher: inout Hasher) { hasher.combine(compact) }

  /// `IDToken(iss: …, alg: …, exp: …)`; never the token or personal claims.
  public var description: String {
    "IDToken(iss: \(issuer), alg: \(algorithm), exp: \(claims.expiresAt.map { "\($0)" } ?? "none"))"
  }

  /// The fields that are not secret, so that `dump` does not show the token.
  public var customMirror: Mirror {
    Mirror(self, children: ["issuer": issuer, "algorithm": algorithm, "expiresAt": claims.expiresAt as Any])
  }
}
