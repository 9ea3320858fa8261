import Foundation

/// Presence keys in software, for Linux programs and for tests: each key is a P-256 key pair kept in a
/// ``TokenStorageAdapter`` (with ``FileTokenStorage``, a file of mode 0600), and its private use is
/// allowed once a ``PresenceAuthorizer`` has verified the user for a context.
///
/// It follows the Secure Enclave's rules (an evaluated context allows the keys of its requirement until
/// it is invalidated, a missing key is ``XidError/Code/presenceKeyInvalidated``, a key's requirement
/// is checked with the authorizer's ``PresenceAuthorizer/checkCanAuthorize(requirement:)``, a
/// ``PresenceRequirement/biometryCurrentSet`` key for sealing refuses the user once the authorizer's
/// ``PresenceAuthorizer/biometryDomainState()`` changed), but the private key is only as safe as the
/// storage: anyone who can read the file can open what it sealed and sign with its signing keys (the
/// stricter mode's DPoP keys, kept with the tokens). Use it where no hardware key exists.
public struct SoftwarePresenceKeyStore: PresenceSealingKeyStore, PresenceSigningKeyStore {
  private let storage: any TokenStorageAdapter
  private let authorizer: any PresenceAuthorizer

  /// Keeps keys in `storage` and asks `authorizer` before a private key is used.
  public init(storage: any TokenStorageAdapter, authorizer: any PresenceAuthorizer) {
    self.storage = storage
    self.authorizer = authorizer
  }

  /// A context that a successful authentication marks evaluated for one requirement, until it is
  /// invalidated: it then allows every key of that requirement, as an evaluated `LAContext` does.
  final class Context: PresenceContext, Sendable {
    private let state = LockedValue<(requirement: PresenceRequirement?, invalidated: Bool)>((nil, false))

    func invalidate() { state.update { $0.invalidated = true } }

    fileprivate func markEvaluated(for requirement: PresenceRequirement) {
      state.update { $0.requirement = requirement }
    }

    fileprivate func allows(_ requirement: PresenceRequirement) -> Bool {
      let (evaluated, invalidated) = state.get()
      return !invalidated && evaluated == requirement
    }
  }

  public func makeContext() -> any PresenceContext { Context() }

  public func publicKey(tag: String) throws -> [UInt8]? {
    try load(tag)?.key.publicKey
  }

  public func createKey(tag: String, requirement: PresenceRequirement) throws -> [UInt8] {
    let key = try P256KeyAgreementKey.generate()
    var members = key.publicJWKMembers
    members["d"] = .string(Base64URL.encode(key.scalar))
    members["requirement"] = .string(requirement.rawValue)
    if requirement == .biometryCurrentSet, let state = authorizer.biometryDomainState() {
      // As the Secure Enclave binds a `.biometryCurrentSet` key to the enrollments of its making.
      members["biometry"] = .string(Base64URL.encode(state))
    }
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
    let context = try Self.own(context)
    guard let key = try load(tag) else { throw Self.missing(tag) }
    try await evaluate(context, for: key.requirement, localizedReason: localizedReason)
  }

  /// Returns when `authorizer` can verify the user by `requirement`.
  public func checkCanAuthorize(requirement: PresenceRequirement) async throws {
    try await authorizer.checkCanAuthorize(requirement: requirement)
  }

  /// The authorizer's state of the enrolled biometry.
  public func biometryDomainState() -> [UInt8]? { authorizer.biometryDomainState() }

  public func decrypt(_ ciphertext: [UInt8], withKey tag: String, context: any PresenceContext) async throws
    -> [UInt8]
  {
    guard let key = try load(tag) else { throw Self.missing(tag) }
    try Self.require(context, allows: key.requirement)
    if let biometry = key.biometry, authorizer.biometryDomainState() != biometry {
      // What the Secure Enclave answers for a `.biometryCurrentSet` key after an enrollment change.
      throw XidError(
        .authenticationFailed,
        "the key does not accept the user (as errSecAuthFailed): it was made for other enrolled faces or fingers")
    }
    return try ECIESP256.open(ciphertext, with: key.key)
  }

  // MARK: - Signing keys

  /// Makes a P-256 signing key; its stored form holds its private JWK and its requirement.
  public func createSigningKey(requirement: PresenceRequirement) throws -> (
    publicKey: [UInt8], storedForm: String, isHardwareBacked: Bool
  ) {
    let key = try JWSSigningKey.generate(for: .es256)
    let stored: JSONValue = ["requirement": .string(requirement.rawValue), "jwk": try key.exportPrivateJWK()]
    return (try Self.publicKey(of: key), stored.serialized(sortedKeys: true), false)
  }

  /// Asks the authorizer to verify the user by the signing key's requirement, showing
  /// `localizedReason`, and marks `context` evaluated for it.
  public func authenticate(_ context: any PresenceContext, forSigningKey storedForm: String, localizedReason: String)
    async throws
  {
    let context = try Self.own(context)
    let (_, requirement) = try Self.signingKey(storedForm)
    try await evaluate(context, for: requirement, localizedReason: localizedReason)
  }

  /// `context` as one this store made.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` for another store's context.
  private static func own(_ context: any PresenceContext) throws -> Context {
    guard let context = context as? Context else {
      throw XidError(.invalidConfiguration, "SoftwarePresenceKeyStore was given a context it did not make")
    }
    return context
  }

  /// Asks the authorizer to verify the user by `requirement`, then marks `context` evaluated for it.
  private func evaluate(_ context: Context, for requirement: PresenceRequirement, localizedReason: String) async throws
  {
    try await authorizer.checkCanAuthorize(requirement: requirement)
    try await authorizer.authorize(localizedReason: localizedReason)
    context.markEvaluated(for: requirement)
  }

  /// Signs `message` (ES256, r ‖ s) with the key `storedForm`, once `context` was evaluated for its
  /// requirement; never asks.
  public func sign(_ message: [UInt8], withSigningKey storedForm: String, context: any PresenceContext) throws
    -> [UInt8]
  {
    let (key, requirement) = try Self.signingKey(storedForm)
    try Self.require(context, allows: requirement)
    return try key.signature(for: message)
  }

  private static func signingKey(_ storedForm: String) throws -> (JWSSigningKey, PresenceRequirement) {
    guard let stored = try? JSONValue(parsing: Array(storedForm.utf8)),
      let requirement = stored["requirement"]?.stringValue.flatMap(PresenceRequirement.init(rawValue:)),
      let jwk = stored["jwk"], let key = try? JWSSigningKey(privateJWK: jwk), key.algorithm == .es256
    else {
      throw XidError(
        .presenceKeyInvalidated, "the stored signing key is damaged and cannot be used; sign the user in again")
    }
    return (key, requirement)
  }

  private static func publicKey(of key: JWSSigningKey) throws -> [UInt8] {
    let members = key.publicJWK.members
    guard let x = members["x"]?.stringValue, let y = members["y"]?.stringValue else {
      throw XidError(.cryptoFailure, "a new P-256 key has no public point")
    }
    return try [0x04] + Base64URL.decode(x) + Base64URL.decode(y)
  }

  private static func require(_ context: any PresenceContext, allows requirement: PresenceRequirement) throws {
    guard let context = context as? Context, context.allows(requirement) else {
      throw XidError(
        .authenticationInterrupted,
        "the context was invalidated or never evaluated for this key (as LAError.invalidContext); ask the user again")
    }
  }

  // MARK: - Storage

  static func storageKey(_ tag: String) -> String { "xid.presence-key." + tag }

  /// A key, the requirement it was made with, and the biometry state it is bound to, if any.
  private func load(_ tag: String) throws -> (
    key: P256KeyAgreementKey, requirement: PresenceRequirement, biometry: [UInt8]?
  )? {
    guard let text = try storage.load(key: Self.storageKey(tag)) else { return nil }
    do {
      let members = try JSONValue(parsing: Array(text.utf8)).objectValue ?? [:]
      func bytes(_ name: String) throws -> [UInt8] { try Base64URL.decode(members[name]?.stringValue ?? "") }
      guard let requirement = members["requirement"]?.stringValue.flatMap(PresenceRequirement.init(rawValue:)) else {
        throw XidError(.invalidKey, "no requirement")
      }
      let biometry = try members["biometry"]?.stringValue.map { try Base64URL.decode($0) }
      return (
        try P256KeyAgreementKey(scalar: bytes("d"), publicKey: [0x04] + bytes("x") + bytes("y")), requirement, biometry
      )
    } catch {
      throw XidError(
        .presenceKeyInvalidated, "the stored presence key is damaged and cannot be used; sign the user in again")
    }
  }

  private static func missing(_ tag: String) -> XidError {
    XidError(.presenceKeyInvalidated, "the presence key no longer exists (it was deleted); sign the user in again")
  }
}
