#if canImport(CryptoKit) && canImport(Security)
  import CryptoKit
  import Foundation

  /// A private key that makes JWS signatures with CryptoKit (P-256, Ed25519) and the Security
  /// framework (RSA).
  final class PlatformPrivateKey: Sendable {
    let algorithm: JWSAlgorithm
    private let kind: Kind

    /// CryptoKit keys are immutable values, safe to share between threads, but the iOS 17 SDK does not
    /// mark them `Sendable`; hence `@unchecked`.
    private enum Kind: @unchecked Sendable {
      case p256(P256.Signing.PrivateKey)
      case rsa(AppleRSAKey)
      case ed25519(Curve25519.Signing.PrivateKey)
    }

    private init(algorithm: JWSAlgorithm, kind: Kind) {
      self.algorithm = algorithm
      self.kind = kind
    }

    /// Generates a new key for `algorithm` (P-256, RSA-2048 or Ed25519).
    static func generate(for algorithm: JWSAlgorithm) throws -> PlatformPrivateKey {
      switch algorithm {
      case .es256:
        return PlatformPrivateKey(algorithm: algorithm, kind: .p256(P256.Signing.PrivateKey()))
      case .edDSA:
        return PlatformPrivateKey(algorithm: algorithm, kind: .ed25519(Curve25519.Signing.PrivateKey()))
      case .rs256, .ps256:
        guard let key = AppleRSAKey.generate(bits: 2048) else {
          throw XidError(.cryptoFailure, "the Security framework could not generate a \(algorithm) key")
        }
        return PlatformPrivateKey(algorithm: algorithm, kind: .rsa(key))
      }
    }

    /// A P-256 key pair from its private scalar and public point.
    static func p256(d: [UInt8], x: [UInt8], y: [UInt8]) throws -> PlatformPrivateKey {
      guard let key = try? P256.Signing.PrivateKey(rawRepresentation: d) else {
        throw XidError(.invalidKey, "CryptoKit rejected the P-256 private JWK")
      }
      guard key.publicKey.rawRepresentation.elementsEqual(x + y) else {
        throw XidError(.invalidKey, "the P-256 private JWK's x and y do not match its d")
      }
      return PlatformPrivateKey(algorithm: .es256, kind: .p256(key))
    }

    /// An Ed25519 key pair from its 32-byte seed and public key.
    static func ed25519(seed: [UInt8], x: [UInt8]) throws -> PlatformPrivateKey {
      guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else {
        throw XidError(.invalidKey, "CryptoKit rejected the Ed25519 private JWK")
      }
      guard key.publicKey.rawRepresentation.elementsEqual(x) else {
        throw XidError(.invalidKey, "the Ed25519 private JWK's x does not match its d")
      }
      return PlatformPrivateKey(algorithm: .edDSA, kind: .ed25519(key))
    }

    /// The public half, as JWK members (`kty` and the public parameters).
    func publicJWKMembers() throws -> [String: JSONValue] {
      switch kind {
      case .p256(let key):
        let point = Array(key.publicKey.rawRepresentation)  // x ‖ y
        guard point.count == 64 else { break }
        return [
          "kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(point[..<32])),
          "y": .string(Base64URL.encode(point[32...])),
        ]
      case .rsa(let key):
        guard let (n, e) = key.publicComponents() else { break }
        return ["kty": "RSA", "n": .string(Base64URL.encode(n)), "e": .string(Base64URL.encode(e))]
      case .ed25519(let key):
        return ["kty": "OKP", "crv": "Ed25519", "x": .string(Base64URL.encode(key.publicKey.rawRepresentation))]
      }
      throw XidError(.cryptoFailure, "the platform could not export the public key")
    }

    /// The private scalar of a P-256 key, 32 big-endian bytes; `nil` for other keys.
    func privateScalar() -> [UInt8]? {
      guard case .p256(let key) = kind else { return nil }
      return Array(key.rawRepresentation)
    }

    /// Signs `message`, returning the JWS signature bytes (r ‖ s for ES256).
    func signature(for message: UnsafeRawBufferPointer) throws -> [UInt8] {
      let result: [UInt8]?
      switch kind {
      case .p256(let key): result = try? Array(key.signature(for: message).rawRepresentation)
      case .rsa(let key): result = key.signature(for: message, algorithm: algorithm)
      case .ed25519(let key): result = try? Array(key.signature(for: message))
      }
      guard let result else {
        throw XidError(.cryptoFailure, "the platform could not make a \(algorithm) signature")
      }
      return result
    }
  }
#endif
