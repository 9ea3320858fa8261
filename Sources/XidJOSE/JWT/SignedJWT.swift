import Foundation

/// A JWT whose signature has been verified, with its claims.
///
/// ```swift
/// let jwt = try SignedJWT(verifying: idToken, using: jwks, allowedAlgorithms: [.es256, .rs256])
/// try jwt.claims.validateTimes(now: Date(), leeway: .seconds(60))
/// ```
///
/// Its `description` and mirror show the algorithm, key and a few claims, never the token itself.
public struct SignedJWT: Sendable, CustomStringConvertible, CustomReflectable {
  /// The JWS the token was.
  public let jws: CompactJWS
  /// The claims, from a payload whose signature verified.
  public let claims: JWTClaims
  /// The key that verified the signature.
  public let key: JWSVerificationKey

  /// Parses `token`, verifies its signature with the fitting key of `keySet`, and reads its claims.
  ///
  /// - Throws: ``XidError``: see ``CompactJWS/init(parsing:)``, ``CompactJWS/verify(using:allowedAlgorithms:)``
  ///   and ``JWTClaims/init(payload:)``.
  public init(verifying token: String, using keySet: JWKSet, allowedAlgorithms: Set<JWSAlgorithm>) throws {
    let jws = try CompactJWS(parsing: token)
    let key = try jws.verify(using: keySet, allowedAlgorithms: allowedAlgorithms)
    // Built in one step from finished parts: assigning the stored properties one by one between
    // throwing calls made the compiler copy the whole value out at the end, which retained and
    // released every string of the token's header and claims once more.
    self.init(jws: jws, claims: try JWTClaims(payload: jws.payload), key: key)
  }

  private init(jws: consuming CompactJWS, claims: consuming JWTClaims, key: JWSVerificationKey) {
    self.jws = jws
    self.claims = claims
    self.key = key
  }

  /// `SignedJWT(alg: …, kid: …, iss: …, exp: …)`; never the token or its other claims.
  public var description: String {
    "SignedJWT(alg: \(jws.header.algorithm.prefix(16)), kid: \(key.keyID.map { "\"\($0.prefix(64))\"" } ?? "none"), iss: \(claims.issuer.map { String($0.prefix(200)) } ?? "none"), exp: \(claims.expiresAt.map { "\($0)" } ?? "none"))"
  }

  /// The JWS's mirror, the key and the claims that are not secret, so that `dump` does not show the
  /// token or its other claims.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "jws": jws, "key": key, "issuer": claims.issuer as Any, "expiresAt": claims.expiresAt as Any,
      ])
  }
}

extension JWTClaims {
  /// Checks `exp`, `nbf` and `iat` against `now`, allowing `leeway` of clock skew.
  ///
  /// - Parameters:
  ///   - requireExpiration: whether a token without `exp` fails.
  ///   - requireIssuedAt: whether a token without `iat` fails.
  /// - Throws: ``XidError/Code/invalidClaims`` for an expired token, one not yet valid, or one issued in
  ///   the future beyond the leeway.
  public func validateTimes(
    now: Date, leeway: Duration, requireExpiration: Bool = true, requireIssuedAt: Bool = false
  ) throws {
    let skew = leeway.timeInterval
    if let expiresAt {
      guard now.timeIntervalSince(expiresAt) < skew else {
        throw XidError(
          .invalidClaims, "the token expired at \(expiresAt) (now \(now), leeway \(leeway.components.seconds) s)")
      }
    } else if requireExpiration {
      throw XidError(.invalidClaims, "the token has no \"exp\" claim")
    }
    if let notBefore, notBefore.timeIntervalSince(now) > skew {
      throw XidError(
        .invalidClaims, "the token is not valid before \(notBefore) (now \(now), leeway \(leeway.components.seconds) s)"
      )
    }
    if let issuedAt {
      guard issuedAt.timeIntervalSince(now) <= skew else {
        throw XidError(
          .invalidClaims,
          "the token was issued in the future, at \(issuedAt) (now \(now), leeway \(leeway.components.seconds) s); check the clock"
        )
      }
    } else if requireIssuedAt {
      throw XidError(.invalidClaims, "the token has no \"iat\" claim")
    }
  }
}
