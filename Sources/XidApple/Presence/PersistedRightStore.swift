#if canImport(LocalAuthentication) && canImport(Security) && canImport(CryptoKit) && !os(watchOS) && !os(tvOS)
  import CryptoKit
  import Foundation
  @preconcurrency import LocalAuthentication
  import Security
  import XidCore

  /// Device credentials in `LARightStore.shared` (iOS 16, macOS 13): each an `LAPersistedRight`
  /// backed by its own Secure Enclave key, whose private key signs only while the right is
  /// authorized. ``DeviceCredential`` uses it on Apple platforms.
  ///
  /// - ``create(identifier:requirement:)`` saves an `LARight` of the requirement and reads its public
  ///   key (`LAPublicKey.bytes`, X9.63) and whether it signs ES256
  ///   (`canSign(using: .ecdsaSignatureMessageX962SHA256)`).
  /// - ``sign(_:identifier:localizedReason:)`` authorizes the right (the prompt), signs with
  ///   `LAPrivateKey.sign(_:algorithm:)` (DER), and deauthorizes it again, so each signature asks.
  /// - ``remove(identifier:)`` removes the right and its key.
  public struct PersistedRightStore: DeviceCredentialStore {
    /// The store of the app (`LARightStore.shared`).
    public init() {}

    static let algorithm = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256

    public func create(identifier: String, requirement: PresenceRequirement) async throws -> DeviceCredentialKey {
      try await remove(identifier: identifier)
      let right = LARight(requirement: requirement.authenticationRequirement)
      do {
        let persisted = try await LARightStore.shared.saveRight(right, identifier: identifier)
        return try await Self.describe(persisted)
      } catch let error as XidError {
        throw error
      } catch {
        throw PresenceFailure(error, operation: "save the device credential").error
      }
    }

    public func key(identifier: String) async throws -> DeviceCredentialKey? {
      let persisted: LAPersistedRight
      do {
        persisted = try await LARightStore.shared.right(forIdentifier: identifier)
      } catch {
        if Self.meansMissing(error) { return nil }
        throw PresenceFailure(error, operation: "find the device credential").error
      }
      return try await Self.describe(persisted)
    }

    public func sign(_ message: [UInt8], identifier: String, localizedReason: String) async throws -> [UInt8] {
      let persisted: LAPersistedRight
      do {
        persisted = try await LARightStore.shared.right(forIdentifier: identifier)
      } catch {
        if Self.meansMissing(error) {
          throw XidError(
            .presenceKeyInvalidated, "no device credential is saved under this identifier; enroll again")
        }
        throw PresenceFailure(error, operation: "find the device credential").error
      }
      do {
        try await persisted.authorize(localizedReason: localizedReason)
      } catch {
        throw PresenceFailure(error, operation: "authorize the device credential").error
      }
      let signature: Data
      do {
        signature = try await persisted.key.sign(Data(message), algorithm: Self.algorithm)
      } catch {
        await persisted.deauthorize()
        throw PresenceFailure(error, operation: "sign with the device credential").error
      }
      await persisted.deauthorize()
      return Array(signature)
    }

    public func remove(identifier: String) async throws {
      do {
        try await LARightStore.shared.removeRight(forIdentifier: identifier)
      } catch {
        // Removing a right that is not there is not an error.
        if Self.meansMissing(error) { return }
        throw PresenceFailure(error, operation: "remove the device credential").error
      }
    }

    /// Whether `LARightStore`'s error means that no right is saved under the identifier; any other
    /// error (the user cancelled, no passcode, …) is reported with its own code.
    private static func meansMissing(_ error: any Error) -> Bool {
      let error = error as NSError
      return PresenceFailure.meansMissingRight(domain: PresenceFailure.domain(of: error), code: error.code)
    }

    /// The right's public key, checked with CryptoKit to be a P-256 point.
    private static func describe(_ persisted: LAPersistedRight) async throws -> DeviceCredentialKey {
      let bytes: Data
      do {
        bytes = try await persisted.key.publicKey.bytes
      } catch {
        throw PresenceFailure(error, operation: "read the device credential's public key").error
      }
      do {
        _ = try P256.Signing.PublicKey(x963Representation: bytes)
      } catch {
        throw XidError(
          .unsupportedKey,
          "the device credential's key is not a P-256 key (\(PresenceFailure(error, operation: "read the key").error.reason))"
        )
      }
      return DeviceCredentialKey(publicKey: Array(bytes), canSignES256: persisted.key.canSign(using: algorithm))
    }
  }
#endif
