import Foundation

/// Device credentials in software, for Linux programs and for tests: each is a P-256 key pair kept in
/// a ``TokenStorageAdapter`` (with ``FileTokenStorage``, a file of mode 0600) that signs once a
/// ``PresenceAuthorizer`` has verified the user.
///
/// The key is only as safe as the storage: anyone who can read the file can sign. Use it where no
/// `LARightStore` exists.
public struct SoftwareDeviceCredentialStore: DeviceCredentialStore {
  private let storage: any TokenStorageAdapter
  private let authorizer: any PresenceAuthorizer

  /// Keeps credentials in `storage` and asks `authorizer` before each signature.
  public init(storage: any TokenStorageAdapter, authorizer: any PresenceAuthorizer) {
    self.storage = storage
    self.authorizer = authorizer
  }

  public func create(identifier: String, requirement: PresenceRequirement) async throws -> DeviceCredentialKey {
    let key = try P256KeyAgreementKey.generate()
    var members = key.publicJWKMembers
    members["d"] = .string(Base64URL.encode(key.scalar))
    members["requirement"] = .string(requirement.rawValue)
    try storage.save(key: Self.storageKey(identifier), value: JSONValue.object(members).serialized())
    return DeviceCredentialKey(publicKey: key.publicKey, canSignES256: true)
  }

  public func key(identifier: String) async throws -> DeviceCredentialKey? {
    guard let (_, publicKey) = try load(identifier) else { return nil }
    return DeviceCredentialKey(publicKey: publicKey, canSignES256: true)
  }

  public func sign(_ message: [UInt8], identifier: String, localizedReason: String) async throws -> [UInt8] {
    guard try load(identifier) != nil else { throw Self.missing }
    try await authorizer.checkCanAuthorize()
    try await authorizer.authorize(localizedReason: localizedReason)
    // Each signature asks the user again, as an LAPersistedRight deauthorized after use does.
    let signature = Result { () throws -> [UInt8] in
      guard let (signingKey, _) = try load(identifier) else { throw Self.missing }
      return try signingKey.signature(for: message)
    }
    await authorizer.deauthorize()
    return ECDSASignatureDER.derP256(fromRaw: try signature.get())
  }

  public func remove(identifier: String) async throws {
    try storage.delete(key: Self.storageKey(identifier))
  }

  static func storageKey(_ identifier: String) -> String { "xid.device-credential." + identifier }

  private func load(_ identifier: String) throws -> (JWSSigningKey, [UInt8])? {
    guard let text = try storage.load(key: Self.storageKey(identifier)) else { return nil }
    do {
      var members = try JSONValue(parsing: Array(text.utf8)).objectValue ?? [:]
      members["requirement"] = nil
      let key = try JWSSigningKey(privateJWK: .object(members))
      let x = try Base64URL.decode(members["x"]?.stringValue ?? "")
      let y = try Base64URL.decode(members["y"]?.stringValue ?? "")
      return (key, [0x04] + x + y)
    } catch {
      throw XidError(.presenceKeyInvalidated, "the stored device credential is damaged; enroll again")
    }
  }

  private static let missing = XidError(
    .presenceKeyInvalidated, "no device credential is saved under this identifier; enroll again")
}
