import Foundation

/// The `at_hash` and `c_hash` values of OpenID Connect Core 1.0 §3.1.3.6 and §3.3.2.11: the base64url
/// of the left half of a hash of the token's ASCII, the hash being the one of the ID token's
/// signature algorithm.
package enum TokenHash {
  /// The hash claim value of `value` (an access token or authorization code) for an ID token signed
  /// with `algorithm`: SHA-256 for ES256, RS256 and PS256, and SHA-512 for EdDSA with Ed25519 (the
  /// OpenID Connect working group's resolution of connect issue #1125).
  package static func value(for value: String, algorithm: JWSAlgorithm) -> String {
    let digest: [UInt8]
    switch algorithm {
    case .es256, .rs256, .ps256: digest = XidCrypto.sha256(Array(value.utf8))
    case .edDSA: digest = XidCrypto.sha512(Array(value.utf8))
    }
    return Base64URL.encode(digest.prefix(digest.count / 2))
  }
}
