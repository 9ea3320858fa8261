import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

struct DeviceCredentialTests {
  let user = FakePresenceAuthorizer()
  let storage = InMemoryTokenStorage()
  var store: SoftwareDeviceCredentialStore { SoftwareDeviceCredentialStore(storage: storage, authorizer: user) }

  @Test func enrollingGivesAnES256JWKForTheBackendWithoutAPrompt() async throws {
    let credential = try await DeviceCredential.enroll(
      identifier: "payments", requirement: .biometryCurrentSet, store: store)
    let jwk = credential.publicJWK
    #expect(jwk.keyType == .ec && jwk.members["crv"] == "P-256")
    #expect(jwk.algorithm == "ES256" && jwk.use == "sig")
    #expect(jwk.keyID == jwk.thumbprint)
    #expect(jwk.members["d"] == nil)
    #expect(user.prompts.isEmpty)
    let again = try #require(try await DeviceCredential.existing(identifier: "payments", store: store))
    #expect(again.publicJWK == jwk)
    #expect(try await DeviceCredential.existing(identifier: "other", store: store) == nil)
  }

  @Test func signingAsksTheUserEveryTimeAndGivesRawRAndS() async throws {
    let credential = try await DeviceCredential.enroll(identifier: "payments", store: store)
    let challenge = Array("challenge-123".utf8)
    let signature = try await credential.sign(challenge: challenge, localizedReason: "Confirm the payment")
    #expect(signature.count == 64)
    _ = try await credential.sign(challenge: challenge, localizedReason: "Confirm again")
    #expect(user.prompts == ["Confirm the payment", "Confirm again"])
    #expect(user.deauthorizations == 2 && !user.isAuthorized)
    let key = try JWSVerificationKey(jwk: credential.publicJWK)
    #expect(key.isValidSignature(signature, for: challenge, algorithm: .es256))
  }

  @Test func theCompactJWSOfAChallengeVerifiesWithTheEnrolledKey() async throws {
    let credential = try await DeviceCredential.enroll(identifier: "payments", store: store)
    let challenge = Array("nonce-from-the-backend".utf8)
    let jws = try await credential.signedJWS(
      challenge: challenge, localizedReason: "Confirm", header: ["typ": "xid-step-up+jwt"])
    let parsed = try CompactJWS(parsing: jws)
    #expect(
      try parsed.verify(with: JWSVerificationKey(jwk: credential.publicJWK), allowedAlgorithms: [.es256]) == .es256)
    #expect(parsed.payload == challenge)
    #expect(parsed.header.keyID == credential.publicJWK.keyID)
    #expect(parsed.header.type == "xid-step-up+jwt")
  }

  @Test func aFailedPromptSignsNothing() async throws {
    let credential = try await DeviceCredential.enroll(identifier: "payments", store: store)
    user.deny()
    await expectXidError(.authenticationFailed) {
      try await credential.sign(challenge: [1], localizedReason: "Confirm")
    }
    user.cancel()
    await expectXidError(.authenticationCancelled) {
      try await credential.sign(challenge: [1], localizedReason: "Confirm")
    }
    user.lockOut()
    await expectXidError(.biometryLockout) { try await credential.sign(challenge: [1], localizedReason: "Confirm") }
    user.invalidate()
    await expectXidError(.presenceKeyInvalidated) {
      try await credential.sign(challenge: [1], localizedReason: "Confirm")
    }
  }

  @Test func aRemovedCredentialIsGone() async throws {
    let credential = try await DeviceCredential.enroll(identifier: "payments", store: store)
    try await credential.remove()
    try await credential.remove()
    #expect(try await DeviceCredential.existing(identifier: "payments", store: store) == nil)
    await expectXidError(.presenceKeyInvalidated) {
      try await credential.sign(challenge: [1], localizedReason: "Confirm")
    }
    #expect(user.prompts.isEmpty)
  }

  @Test func aReEnrolledCredentialDoesNotSignForTheOldKey() async throws {
    let old = try await DeviceCredential.enroll(identifier: "payments", store: store)
    _ = try await DeviceCredential.enroll(identifier: "payments", store: store)
    let error = await expectXidError(.presenceKeyInvalidated) {
      try await old.sign(challenge: [1], localizedReason: "Confirm")
    }
    #expect(error?.reason.contains("enroll again") == true)
  }

  @Test func aPlatformKeyThatIsNotP256OrCannotSignES256IsRefusedAndRemoved() async throws {
    let good = try P256KeyAgreementKey.generate().publicKey
    for key in [
      DeviceCredentialKey(publicKey: good, canSignES256: false),
      DeviceCredentialKey(publicKey: [0x02] + good[1..<33], canSignES256: true),
      DeviceCredentialKey(publicKey: [0x04] + [UInt8](repeating: 7, count: 64), canSignES256: true),
    ] {
      let store = ScriptedCredentialStore(key: key)
      await expectXidError(.unsupportedKey) { try await DeviceCredential.enroll(identifier: "x", store: store) }
      #expect(store.removed)
    }
  }

  @Test func thePlatformsDERSignatureBecomesRawRAndS() async throws {
    let signer = try P256KeyAgreementKey.generate()
    let signingKey = try JWSSigningKey(
      privateJWK: .object(signer.publicJWKMembers.merging(["d": .string(Base64URL.encode(signer.scalar))]) { $1 }))
    let store = ScriptedCredentialStore(key: DeviceCredentialKey(publicKey: signer.publicKey, canSignES256: true)) {
      ECDSASignatureDER.derP256(fromRaw: try signingKey.signature(for: $0))
    }
    let credential = try await DeviceCredential.enroll(identifier: "x", store: store)
    for _ in 0..<20 {  // r or s with a high bit set, or short, is common in 20 tries
      let raw = try await credential.sign(challenge: [1, 2, 3], localizedReason: "Confirm")
      #expect(raw.count == 64)
    }
    store.sign = { _ in [0x30, 0x00] }
    await expectXidError(.cryptoFailure) { try await credential.sign(challenge: [1], localizedReason: "Confirm") }
  }

  @Test func softwareCredentialFilesAreOwnerOnly() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xid-credential-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = SoftwareDeviceCredentialStore(storage: try FileTokenStorage(directory: directory), authorizer: user)
    let credential = try await DeviceCredential.enroll(identifier: "payments", store: store)
    let file = directory.appendingPathComponent(SoftwareDeviceCredentialStore.storageKey("payments")).path
    #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    _ = try await credential.sign(challenge: [1], localizedReason: "Confirm")
  }
}

/// A store that returns a given key, and signs with a given function: the fake of `LARightStore`.
final class ScriptedCredentialStore: DeviceCredentialStore, @unchecked Sendable {
  let key: DeviceCredentialKey
  private let state = LockedValue<(removed: Bool, sign: @Sendable ([UInt8]) throws -> [UInt8])>((false, { _ in [] }))

  init(key: DeviceCredentialKey, sign: @escaping @Sendable ([UInt8]) throws -> [UInt8] = { _ in [] }) {
    self.key = key
    state.update { $0.sign = sign }
  }

  var removed: Bool { state.get().removed }
  var sign: @Sendable ([UInt8]) throws -> [UInt8] {
    get { state.get().sign }
    set { state.update { $0.sign = newValue } }
  }

  func create(identifier: String, requirement: PresenceRequirement) async throws -> DeviceCredentialKey { key }
  func key(identifier: String) async throws -> DeviceCredentialKey? { key }
  func sign(_ message: [UInt8], identifier: String, localizedReason: String) async throws -> [UInt8] {
    try state.get().sign(message)
  }
  func remove(identifier: String) async throws { state.update { $0.removed = true } }
}
