#if canImport(CryptoKit) && canImport(Security)
  import CryptoKit
  import Foundation
  import Security
  import XidCore

  /// DPoP keys in the Secure Enclave (`SecureEnclave.P256.Signing`): the private key never leaves the
  /// chip, so a copy of the keychain is useless on another device. The default of the `Xid` module on
  /// Apple platforms when ``XidConfiguration/usesDPoP`` is on; where the device has no Secure Enclave
  /// (the simulator, some Macs), Xid makes software keys instead.
  ///
  /// What is stored is the key's `dataRepresentation`: an opaque blob that only this device's Secure
  /// Enclave can use. Xid keeps it in the session's token storage, so with a ``KeychainTokenStorage``
  /// it is a keychain item of the token record's access group, accessible after first unlock on this
  /// device only, and the app's extensions sign with the same key.
  public struct SecureEnclaveDPoPKeyFactory: DPoPKeyFactory {
    /// `"secureEnclave"`.
    public static let kind = "secureEnclave"

    /// Creates the factory.
    public init() {}

    /// `"secureEnclave"`.
    public var kind: String { Self.kind }

    /// Whether this device has a Secure Enclave.
    public var isAvailable: Bool { SecureEnclave.isAvailable }

    /// Makes a key in the Secure Enclave, usable after the first unlock on this device only, without
    /// user presence (requests in the background and in extensions must sign without a prompt).
    ///
    /// - Throws: ``XidError`` with ``XidError/Code/cryptoFailure`` when the Secure Enclave refuses.
    public func makeKey() throws -> (key: any DPoPKey, storedForm: String) {
      guard
        let access = SecAccessControlCreateWithFlags(
          nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, .privateKeyUsage, nil)
      else {
        throw XidError(.cryptoFailure, "the Security framework could not create an access control for a DPoP key")
      }
      let privateKey: SecureEnclave.P256.Signing.PrivateKey
      do {
        privateKey = try SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
      } catch {
        throw XidError(.cryptoFailure, "the Secure Enclave could not make a DPoP key (\(type(of: error)))")
      }
      let key = try SecureEnclaveDPoPKey(privateKey)
      return (key, privateKey.dataRepresentation.base64EncodedString())
    }

    /// Restores a key from its `dataRepresentation`.
    ///
    /// - Throws: ``XidError`` with ``XidError/Code/dpopKeyUnavailable`` when this device's Secure
    ///   Enclave cannot use it (the keychain was restored to another device, or the key was deleted).
    public func restoreKey(from storedForm: String) throws -> any DPoPKey {
      guard let data = Data(base64Encoded: storedForm),
        let privateKey = try? SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data)
      else {
        throw XidError(
          .dpopKeyUnavailable,
          "this device's Secure Enclave cannot use the session's DPoP key (restored from another device?); sign the user in again"
        )
      }
      return try SecureEnclaveDPoPKey(privateKey)
    }
  }

  /// A P-256 key in the Secure Enclave. CryptoKit's key is an immutable value that is safe to share,
  /// but the SDK does not mark it `Sendable`; hence `@unchecked`.
  struct SecureEnclaveDPoPKey: DPoPKey, CustomReflectable, @unchecked Sendable {
    let privateKey: SecureEnclave.P256.Signing.PrivateKey
    let publicJWK: JWK
    let thumbprint: String
    var isHardwareBacked: Bool { true }

    init(_ privateKey: SecureEnclave.P256.Signing.PrivateKey) throws {
      self.privateKey = privateKey
      let point = Array(privateKey.publicKey.rawRepresentation)  // x ‖ y
      guard point.count == 64 else {
        throw XidError(.cryptoFailure, "the Secure Enclave returned a malformed public key")
      }
      publicJWK = try JWK(json: [
        "kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(point[..<32])),
        "y": .string(Base64URL.encode(point[32...])),
      ])
      thumbprint = publicJWK.thumbprint
    }

    /// The thumbprint only: `dump` shows no handle of the key.
    var customMirror: Mirror { Mirror(self, children: ["thumbprint": thumbprint, "isHardwareBacked": true]) }

    func sign(_ message: [UInt8]) throws -> [UInt8] {
      do {
        return Array(try privateKey.signature(for: message).rawRepresentation)
      } catch {
        throw XidError(.cryptoFailure, "the Secure Enclave could not sign a DPoP proof (\(type(of: error)))")
      }
    }
  }
#endif
