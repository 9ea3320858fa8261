#if canImport(CryptoKit) && canImport(Security)
  import CryptoKit
  import Foundation

  /// A public key prepared for signature verification with CryptoKit (P-256, Ed25519) and the Security
  /// framework (RSA).
  ///
  /// Built once from JWK parameters: CryptoKit checks that a P-256 point lies on the curve, and an RSA
  /// key becomes a `SecKey` from PKCS#1 DER; each verification then only runs the check itself.
  final class PlatformPublicKey: Sendable {
    private let kind: Kind

    /// CryptoKit keys are immutable values, safe to share between threads, but the iOS 17 SDK does not
    /// mark them `Sendable`; hence `@unchecked`.
    private enum Kind: @unchecked Sendable {
      case p256(P256.Signing.PublicKey)
      case rsa(AppleRSAKey)
      case ed25519(Curve25519.Signing.PublicKey)
    }

    private init(_ kind: Kind) { self.kind = kind }

    /// A P-256 key from its affine coordinates (32 bytes each).
    static func p256(x: [UInt8], y: [UInt8]) throws -> PlatformPublicKey {
      guard let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else {
        throw XidError(.invalidKey, "P-256 JWK coordinates are not a valid point on the curve")
      }
      return PlatformPublicKey(.p256(key))
    }

    /// An RSA key from its big-endian modulus and public exponent.
    static func rsa(modulus: [UInt8], exponent: [UInt8]) throws -> PlatformPublicKey {
      guard let key = AppleRSAKey.publicKey(modulus: modulus, exponent: exponent) else {
        throw XidError(.invalidKey, "the Security framework rejected the RSA JWK parameters")
      }
      return PlatformPublicKey(.rsa(key))
    }

    /// An Ed25519 key from its 32-byte encoding.
    static func ed25519(x: [UInt8]) throws -> PlatformPublicKey {
      guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
        throw XidError(.invalidKey, "CryptoKit rejected the Ed25519 JWK public key")
      }
      return PlatformPublicKey(.ed25519(key))
    }

    /// Whether `signature` is a valid JWS signature of `algorithm` over `message` with this key.
    /// The caller has already checked that the algorithm fits the key's type.
    func isValidSignature(
      _ signature: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm
    ) -> Bool {
      switch (kind, algorithm) {
      case (.p256(let key), .es256):
        // JWS ES256 signatures are r ‖ s, exactly 64 bytes (RFC 7518 §3.4).
        guard signature.count == 64, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
          return false
        }
        return key.isValidSignature(ecdsa, for: message)
      case (.rsa(let key), .rs256), (.rsa(let key), .ps256):
        return key.isValidSignature(signature, for: message, algorithm: algorithm)
      case (.ed25519(let key), .edDSA):
        return signature.count == 64 && key.isValidSignature(signature, for: message)
      default:
        return false
      }
    }
  }
#endif
