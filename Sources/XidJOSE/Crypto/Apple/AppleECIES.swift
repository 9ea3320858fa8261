#if canImport(CryptoKit) && canImport(Security)
  import CryptoKit
  import Foundation

  /// ECIES's primitives from CryptoKit: P-256 keys, ECDH with the X9.63 KDF, and AES-GCM.
  enum PlatformECIES {
    /// A new P-256 key pair: its 32-byte scalar and 65-byte X9.63 public key.
    static func generateP256() throws -> (scalar: [UInt8], publicKey: [UInt8]) {
      let key = P256.KeyAgreement.PrivateKey()
      return (Array(key.rawRepresentation), Array(key.publicKey.x963Representation))
    }

    /// Checks that `scalar` and `publicKey` form a P-256 key pair.
    static func checkPair(scalar: [UInt8], publicKey: [UInt8]) throws {
      guard let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: scalar) else {
        throw XidError(.invalidKey, "CryptoKit rejected the P-256 private scalar")
      }
      guard Array(key.publicKey.x963Representation) == publicKey else {
        throw XidError(.invalidKey, "the P-256 private scalar does not belong to the public key")
      }
    }

    /// ECDH of `key` with `peer`, stretched by the X9.63 KDF with SHA-256 and `sharedInfo` to `count`
    /// bytes.
    static func sharedKey(of key: P256KeyAgreementKey, peer: [UInt8], sharedInfo: [UInt8], count: Int) throws
      -> [UInt8]
    {
      guard let peerKey = try? P256.KeyAgreement.PublicKey(x963Representation: peer) else {
        throw XidError(.invalidKey, "the peer's key is not a P-256 point")
      }
      do {
        let own = try P256.KeyAgreement.PrivateKey(rawRepresentation: key.scalar)
        let secret = try own.sharedSecretFromKeyAgreement(with: peerKey)
        let derived = secret.x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: sharedInfo, outputByteCount: count)
        return derived.withUnsafeBytes { Array($0) }
      } catch {
        throw XidError(.cryptoFailure, "CryptoKit could not agree on a P-256 key (\(Self.name(of: error)))")
      }
    }

    /// AES-GCM encryption with a 16- or 32-byte key and an IV of at least 12 bytes, no additional data;
    /// a 16-byte tag.
    static func aesGCMSeal(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> (
      ciphertext: [UInt8], tag: [UInt8]
    ) {
      do {
        let box = try AES.GCM.seal(plaintext, using: SymmetricKey(data: key), nonce: AES.GCM.Nonce(data: iv))
        return (Array(box.ciphertext), Array(box.tag))
      } catch {
        throw XidError(.cryptoFailure, "CryptoKit could not encrypt with AES-GCM (\(Self.name(of: error)))")
      }
    }

    /// AES-GCM decryption; see ``aesGCMSeal(_:key:iv:)``.
    static func aesGCMOpen(_ ciphertext: [UInt8], tag: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
      let box: AES.GCM.SealedBox
      do {
        box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: iv), ciphertext: ciphertext, tag: tag)
      } catch {
        throw XidError(.cryptoFailure, "CryptoKit could not read the AES-GCM parameters (\(Self.name(of: error)))")
      }
      do {
        return Array(try AES.GCM.open(box, using: SymmetricKey(data: key)))
      } catch CryptoKitError.authenticationFailure {
        throw XidError(.decryptionFailed, "the sealed data does not open with this key (the AES-GCM tag is wrong)")
      } catch {
        throw XidError(.cryptoFailure, "CryptoKit could not decrypt with AES-GCM (\(Self.name(of: error)))")
      }
    }

    /// The name of a CryptoKit error's case, for a reason; never data.
    static func name(of error: any Error) -> String {
      guard let error = error as? CryptoKitError else { return "\(type(of: error))" }
      switch error {
      case .incorrectKeySize: return "CryptoKitError.incorrectKeySize"
      case .incorrectParameterSize: return "CryptoKitError.incorrectParameterSize"
      case .authenticationFailure: return "CryptoKitError.authenticationFailure"
      case .underlyingCoreCryptoError(let code): return "CryptoKitError.underlyingCoreCryptoError(\(code))"
      case .wrapFailure: return "CryptoKitError.wrapFailure"
      case .unwrapFailure: return "CryptoKitError.unwrapFailure"
      case .invalidParameter: return "CryptoKitError.invalidParameter"
      @unknown default: return "CryptoKitError"
      }
    }
  }
#endif
