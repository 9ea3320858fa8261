import Foundation

/// Proof Key for Code Exchange (RFC 7636) with the `S256` method, the only one Xid uses.
///
/// The verifier is 32 random bytes in base64url (43 characters, 256 bits of entropy); the challenge
/// is the base64url SHA-256 of the verifier's ASCII. The verifier never appears in `description`.
public struct PKCE: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// The code verifier, sent to the token endpoint with the code.
  public let verifier: String
  /// The code challenge, sent in the authorization request.
  public let challenge: String
  /// The challenge method: always `S256`.
  public var method: String { "S256" }

  /// Creates a pair from a fresh verifier of 32 random bytes.
  ///
  /// - Throws: ``XidError/Code/cryptoFailure`` if the random generator fails.
  public init() throws {
    self.init(verifierBytes: try XidCrypto.randomBytes(count: 32))
  }

  /// Creates a pair from the bytes of a verifier (for tests with known values).
  public init(verifierBytes: [UInt8]) {
    verifier = Base64URL.encode(verifierBytes)
    challenge = Self.challenge(for: verifier)
  }

  /// The `S256` challenge for `verifier`: `BASE64URL(SHA256(ASCII(verifier)))` (RFC 7636 §4.2).
  public static func challenge(for verifier: String) -> String {
    Base64URL.encode(XidCrypto.sha256(Array(verifier.utf8)))
  }

  /// `PKCE(S256, challenge: …)`; never the verifier.
  public var description: String { "PKCE(S256, challenge: \(challenge))" }

  /// The method and challenge only, so that `dump` does not show the verifier.
  public var customMirror: Mirror { Mirror(self, children: ["method": method, "challenge": challenge]) }
}
