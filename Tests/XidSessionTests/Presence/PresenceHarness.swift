import Foundation
import Testing
import Xid
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// An ``Xid`` on an in-memory test provider with presence options, and the fake user who answers its
/// prompts.
struct PresenceHarness {
  let provider: TestProvider
  let storage: any TokenStorageAdapter
  let user: FakePresenceAuthorizer
  let keyStore: RecordingKeyStore
  let logger = RecordingLogger()
  let xid: Xid

  init(
    provider: TestProvider? = nil, storage: any TokenStorageAdapter = InMemoryTokenStorage(),
    user: FakePresenceAuthorizer = FakePresenceAuthorizer(), usesDPoP: Bool = false, options: PresenceOptions
  ) throws {
    let provider = try provider ?? TestProvider()
    self.provider = provider
    self.storage = storage
    self.user = user
    keyStore = RecordingKeyStore(SoftwarePresenceKeyStore(storage: storage, authorizer: user))
    var options = options
    if options.authorizer == nil { options.authorizer = user }
    if options.keyStore == nil, options.refreshTokenProtection != nil { options.keyStore = keyStore }
    var configuration = SessionHarness.configuration(provider, logger: logger)
    configuration.usesDPoP = usesDPoP
    configuration.presence = options
    xid = try Xid(configuration: configuration.storing(in: storage))
    LeakRegistry.current?.register(provider: provider, logger: logger)
  }

  /// Another process on the same storage and provider, configured with `options`.
  func anotherProcess(options: PresenceOptions, usesDPoP: Bool = false) throws -> Xid {
    var configuration = SessionHarness.configuration(provider, logger: logger)
    configuration.usesDPoP = usesDPoP
    configuration.presence = options
    return try Xid(configuration: configuration.storing(in: storage))
  }

  /// The storage key of the account's token record.
  var recordKey: String {
    TokenRecord.storageKey(issuer: provider.issuer.absoluteString, clientId: TestClient.example.id, account: "default")
  }

  /// The stored record's JSON members.
  func storedRecord() throws -> [String: JSONValue]? {
    guard let text = try storage.load(key: recordKey) else { return nil }
    return try JSONValue(parsing: text).objectValue
  }

  /// The name of the account's presence key.
  var keyTag: String { "xid.presence." + recordKey }

  /// Lets the access token expire, so that the next request refreshes.
  func expireAccessToken() { provider.clock.advance(by: .seconds(301)) }
}

/// A key store that counts what it is asked and can be made to fail, around a software one: the fake
/// of the Secure Enclave key, its `LAContext` and its access control.
final class RecordingKeyStore: PresenceSealingKeyStore, PresenceSigningKeyStore, @unchecked Sendable {
  struct Counts: Sendable {
    var contexts = 0
    var authentications = 0
    var decryptions = 0
    var created = 0
    var deleted = 0
    var decryptContexts: [ObjectIdentifier] = []
    var signingKeys = 0
    var signatures = 0
    var signContexts: [ObjectIdentifier] = []
  }

  private let base: SoftwarePresenceKeyStore
  private let state = LockedValue(Counts())
  private let contexts = LockedValue<[RecordedContext]>([])
  /// When set, `decrypt` fails with it.
  let decryptFailure = LockedValue<XidError?>(nil)
  /// When set, `createKey` fails with it, after running (as a device whose state changed meanwhile).
  let createFailure = LockedValue<(@Sendable () -> XidError)?>(nil)

  init(_ base: SoftwarePresenceKeyStore) { self.base = base }

  var counts: Counts { state.get() }
  /// How many of the contexts made so far were invalidated.
  var invalidatedContexts: Int { contexts.get().filter(\.isInvalidated).count }

  /// Ends every context made so far as the system does (when the device locks, for example): they no
  /// longer allow any key, and Xid is not told.
  func systemEndsEveryContext() {
    for context in contexts.get() { context.base.invalidate() }
  }

  final class RecordedContext: PresenceContext, @unchecked Sendable {
    let base: any PresenceContext
    private let invalidated = LockedValue(false)
    init(_ base: any PresenceContext) { self.base = base }
    var isInvalidated: Bool { invalidated.get() }
    func invalidate() {
      invalidated.set(true)
      base.invalidate()
    }
  }

  func makeContext() -> any PresenceContext {
    state.update { $0.contexts += 1 }
    let context = RecordedContext(base.makeContext())
    contexts.update { $0.append(context) }
    return context
  }

  func publicKey(tag: String) throws -> [UInt8]? { try base.publicKey(tag: tag) }

  func createKey(tag: String, requirement: PresenceRequirement) throws -> [UInt8] {
    state.update { $0.created += 1 }
    if let failure = createFailure.get() { throw failure() }
    return try base.createKey(tag: tag, requirement: requirement)
  }

  func checkCanAuthorize(requirement: PresenceRequirement) async throws {
    try await base.checkCanAuthorize(requirement: requirement)
  }

  func biometryDomainState() -> [UInt8]? { base.biometryDomainState() }

  func deleteKey(tag: String) throws {
    state.update { $0.deleted += 1 }
    try base.deleteKey(tag: tag)
  }

  func encrypt(_ plaintext: [UInt8], to publicKey: [UInt8]) throws -> [UInt8] {
    try base.encrypt(plaintext, to: publicKey)
  }

  func authenticate(_ context: any PresenceContext, forKey tag: String, localizedReason: String) async throws {
    state.update { $0.authentications += 1 }
    try await base.authenticate((context as! RecordedContext).base, forKey: tag, localizedReason: localizedReason)
  }

  func decrypt(_ ciphertext: [UInt8], withKey tag: String, context: any PresenceContext) async throws -> [UInt8] {
    state.update {
      $0.decryptions += 1
      $0.decryptContexts.append(ObjectIdentifier(context))
    }
    if let failure = decryptFailure.get() { throw failure }
    return try await base.decrypt(ciphertext, withKey: tag, context: (context as! RecordedContext).base)
  }

  func createSigningKey(requirement: PresenceRequirement) throws -> (
    publicKey: [UInt8], storedForm: String, isHardwareBacked: Bool
  ) {
    state.update { $0.signingKeys += 1 }
    return try base.createSigningKey(requirement: requirement)
  }

  func authenticate(_ context: any PresenceContext, forSigningKey storedForm: String, localizedReason: String)
    async throws
  {
    state.update { $0.authentications += 1 }
    try await base.authenticate(
      (context as! RecordedContext).base, forSigningKey: storedForm, localizedReason: localizedReason)
  }

  func sign(_ message: [UInt8], withSigningKey storedForm: String, context: any PresenceContext) throws -> [UInt8] {
    state.update {
      $0.signatures += 1
      $0.signContexts.append(ObjectIdentifier(context))
    }
    return try base.sign(message, withSigningKey: storedForm, context: (context as! RecordedContext).base)
  }
}
