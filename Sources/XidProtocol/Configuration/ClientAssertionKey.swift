import Foundation

/// A private key that signs the client's assertions for `private_key_jwt` client authentication
/// (RFC 7523 §2.2, OpenID Connect Core §9): the key whose public half the client registered at the
/// provider.
///
/// ``JWSSigningKey`` is one (a software key of any algorithm Xid signs with); on Apple platforms a
/// Secure Enclave P-256 key is one through ``P256ClientAssertionKey``. The key never leaves it: Xid
/// asks for the signature of each assertion.
public protocol ClientAssertionKey: Sendable {
  /// The algorithm of the assertions' signatures.
  var algorithm: JWSAlgorithm { get }
  /// The `kid` the provider knows the key by, sent in each assertion's header; `nil` for none.
  var assertionKeyID: String? { get }
  /// The JWS signature of `signingInput` (for ES256, the 64 bytes r ‖ s).
  ///
  /// - Throws: ``XidError`` when the key cannot sign.
  func signature(for signingInput: [UInt8]) throws -> [UInt8]
}

extension JWSSigningKey: ClientAssertionKey {
  /// The key's `kid`.
  public var assertionKeyID: String? { keyID.isEmpty ? nil : keyID }
}

/// A P-256 key with an ES256 signature, such as a Secure Enclave key made by a ``DPoPKeyFactory``, as
/// the key of `private_key_jwt` assertions.
public struct P256ClientAssertionKey: ClientAssertionKey, CustomStringConvertible {
  /// The key.
  public let key: any DPoPKey
  /// The `kid` the provider knows the key by; by default its RFC 7638 thumbprint.
  public let assertionKeyID: String?

  /// Uses `key` for assertions, named by `keyID` (the key's thumbprint when `nil`).
  public init(key: any DPoPKey, keyID: String? = nil) {
    self.key = key
    self.assertionKeyID = keyID ?? key.thumbprint
  }

  /// ES256.
  public var algorithm: JWSAlgorithm { .es256 }

  /// The ES256 signature of `signingInput`.
  public func signature(for signingInput: [UInt8]) throws -> [UInt8] { try key.sign(signingInput) }

  /// `P256ClientAssertionKey(kid: …)`; never key material.
  public var description: String { "P256ClientAssertionKey(kid: \(assertionKeyID ?? "none"))" }
}

/// The client assertion of one request (RFC 7523 §3): a JWT the client signs about itself, for the
/// authorization server.
enum ClientAssertion {
  /// RFC 7523 §2.2's `client_assertion_type`.
  static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
  /// How long an assertion is valid.
  static let lifetime: TimeInterval = 60

  /// A new assertion by `clientId` for `audience` (the issuer identifier, as FAPI 2.0 asks), with a
  /// fresh `jti` (32 random bytes), `iat` now and `exp` a minute later.
  static func make(clientId: String, audience: String, key: any ClientAssertionKey, now: Date) throws -> String {
    var header: [String: JSONValue] = ["alg": .string(key.algorithm.rawValue), "typ": "JWT"]
    if let keyID = key.assertionKeyID { header["kid"] = .string(keyID) }
    let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
    let claims: JSONValue = [
      "iss": .string(clientId), "sub": .string(clientId), "aud": .string(audience),
      "jti": .string(Base64URL.encode(try XidCrypto.randomBytes(count: 32))), "iat": .int(issuedAt),
      "exp": .int(issuedAt + Int64(lifetime)),
    ]
    let signingInput =
      Base64URL.encode(JSONValue.object(header).serializedBytes()) + "." + Base64URL.encode(claims.serializedBytes())
    let signature = try key.signature(for: Array(signingInput.utf8))
    return signingInput + "." + Base64URL.encode(signature)
  }
}
