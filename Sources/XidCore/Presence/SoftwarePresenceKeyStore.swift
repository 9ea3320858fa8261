import Foundation

/// Presence keys in software, for Linux programs and for tests: each key is a P-256 key pair kept in a
/// ``TokenStorageAdapter`` (with ``FileTokenStorage``, a file of mode 0600), and its private use is
/// allowed once a ``PresenceAuthorizer`` has verified the user for a context.
///
/// It follows the Secure Enclave's rules (one evaluated context per use, invalidation, a missing key
/// is ``XidError/Code/presenceKeyInvalidated``), but the private key is only as safe as the storage:
/// anyone who can read the file can open what it sealed. Use it where no hardware key exists.
public struct SoftwarePresenceKeyStore: PresenceKeyStore {
  private let storage: any TokenStorageAdapter
  private let authorizer: any PresenceAuthorizer

  /// Keeps keys in `storage` and asks `authorizer` before a private key is used.
  public init(storage: any TokenStorageAdapter, authorizer: any PresenceAuthorizer) {
    self.storage = storage
    self.authorizer = authorizer
  }

  /// A context that a successful ``authenticate(_:forKey:localizedReason:)`` marks evaluated for one
  /// key, until it is invalidated.
  final class Context: PresenceContext, Sendable {
    private let state = LockedValue<(key: String?, invalidated: Bool)>((nil, false))

    func invalidate() { state.update { $0.invalidated = true } }

    fileprivate func markEvaluated(for tag: String) { state.update { $0.key = tag } }

    fileprivate func allows(_ tag: String) -> Bool {
      let (key, invalidated) = state.get()
      return !invalidated && key == tag
    }
  }

  public func makeContext() -> any PresenceContext { Context() }

  public func publicKey(tag: String) throws -> [UInt8]? {
    try load(tag)?.publicKey
  }

  public func createKey(tag: String, requirement: PresenceRequirement) throws -> [UInt8] {
    let key = try P256KeyAgreementKey.generate()
    var members = key.publicJWKMembers
    members["d"] = .string(Base64URL.encode(key.scalar))
    members["requirement"] = .string(requirement.rawValue)
    try storage.save(key: Self.storageKey(tag), value: JSONValue.object(members).serialized())
    return key.publicKey
  }

  public func deleteKey(tag: String) throws {
    try storage.delete(key: Self.storageKey(tag))
  }

  public func encrypt(_ plaintext: [UInt8], to publicKey: [UInt8]) throws -> [UInt8] {
    try ECIESP256.seal(plaintext, to: publicKey)
  }

  public func authenticate(_ context: any PresenceContext, forKey tag: String, localizedReason: String) async throws {
    guard let context = context as? Context else {
      throw XidError(.invalidConfiguration, "SoftwarePresenceKeyStore was given a context it did not make")
    }
    guard try load(tag) != nil else { throw Self.missing(tag) }
    try await authorizer.checkCanAuthorize()
    try await authorizer.authorize(localizedReason: localizedReason)
    context.markEvaluated(for: tag)
  }

  public func decrypt(_ ciphertext: [UInt8], withKey tag: String, context: any PresenceContext) async throws
    -> [UInt8]
  {
    guard let context = context as? Context, context.allows(tag) else {
      throw XidError(
        .authenticationInterrupted,
        "the context was invalidated or never evaluated for this key (as LAError.invalidContext); ask the user again")
    }
    guard let key = try load(tag) else { throw Self.missing(tag) }
    return try ECIESP256.open(ciphertext, with: key)
  }

  // MARK: - Storage

  static func storageKey(_ tag: String) -> String { "xid.presence-key." + tag }

  private func load(_ tag: String) throws -> P256KeyAgreementKey? {
    guard let text = try storage.load(key: Self.storageKey(tag)) else { return nil }
    do {
      let members = try JSONValue(parsing: Array(text.utf8)).objectValue ?? [:]
      func bytes(_ name: String) throws -> [UInt8] { try Base64URL.decode(members[name]?.stringValue ?? "") }
      return try P256KeyAgreementKey(scalar: bytes("d"), publicKey: [0x04] + bytes("x") + bytes("y"))
    } catch {
      throw XidError(
        .presenceKeyInvalidated, "the stored presence key is damaged and cannot be used; sign the user in again")
    }
  }

  private static func missing(_ tag: String) -> XidError {
    XidError(.presenceKeyInvalidated, "the presence key no longer exists (it was deleted); sign the user in again")
  }
}
