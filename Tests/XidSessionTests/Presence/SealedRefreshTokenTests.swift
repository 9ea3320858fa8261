import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

@Suite(.noSecretLeaks)
struct SealedRefreshTokenTests {
  static let protection = PresenceOptions(refreshTokenProtection: .biometryCurrentSet)

  /// The refresh token the provider issued last, found as the one secret the record does not show.
  func issuedRefreshTokens(_ harness: PresenceHarness) async throws -> [String] {
    let record = try #require(try harness.storedRecord())
    let shown = Set(["access_token", "id_token"].compactMap { record[$0]?.stringValue })
    return await harness.provider.issuedSecrets.filter { !shown.contains($0) }
  }

  @Test func theRecordHoldsTheRefreshTokenOnlySealed() async throws {
    let harness = try PresenceHarness(options: Self.protection)
    try await harness.xid.signIn()
    let record = try #require(try harness.storedRecord())
    #expect(record["refresh_token"] == nil)
    let sealed = try #require(record["sealed_refresh_token"]?.stringValue)
    #expect(sealed.hasPrefix("1."))
    #expect(record["format"] == .int(2), "the same record format, one more optional member")
    for secret in try await issuedRefreshTokens(harness) where secret.count >= 8 {
      #expect(!sealed.contains(secret) && !sealed.contains(Base64URL.encode(Array(secret.utf8))))
    }
    #expect(try harness.keyStore.publicKey(tag: harness.keyTag) != nil)
    #expect(harness.user.prompts.isEmpty, "sealing uses the public key: signing in asks nothing more")
  }

  @Test func accessTokensNeedNoPromptUntilTheyExpire() async throws {
    let harness = try PresenceHarness(options: Self.protection)
    try await harness.xid.signIn()
    for _ in 0..<3 { _ = try await harness.xid.getAccessToken() }
    _ = try await harness.xid.send(HTTPRequest(url: harness.provider.url(for: .resource)))
    #expect(harness.user.prompts.isEmpty)
    #expect(harness.keyStore.counts.contexts == 0)
  }

  @Test func aRefreshAsksTheUserOnceWithOneEvaluatedContext() async throws {
    let harness = try PresenceHarness(options: Self.protection)
    try await harness.xid.signIn()
    let before = try #require(try harness.storedRecord()?["sealed_refresh_token"]?.stringValue)
    harness.expireAccessToken()

    _ = try await harness.xid.getAccessToken()
    #expect(harness.user.prompts == [PresenceOptions.defaultRefreshReason])
    let counts = harness.keyStore.counts
    #expect(counts.contexts == 1 && counts.authentications == 1 && counts.decryptions == 1)
    #expect(harness.keyStore.invalidatedContexts == 1, "without reuse the context is invalidated at once")
    #expect(await harness.provider.counters.refreshes == 1)
    let after = try #require(try harness.storedRecord())
    #expect(after["refresh_token"] == nil)
    #expect(after["sealed_refresh_token"]?.stringValue != before, "the rotated refresh token is sealed again")
    #expect(counts.created == 1, "the same key seals the next refresh token")
  }

  @Test func aCancelledPromptChangesNothing() async throws {
    let harness = try PresenceHarness(options: Self.protection)
    try await harness.xid.signIn()
    let record = try harness.storedRecord()
    harness.expireAccessToken()

    harness.user.cancel()
    await expectXidError(.authenticationCancelled) { try await harness.xid.getAccessToken() }
    harness.user.lockOut()
    await expectXidError(.biometryLockout) { try await harness.xid.getAccessToken() }
    #expect(try harness.storedRecord() == record)
    #expect(await harness.provider.counters.refreshes == 0)
    #expect(harness.keyStore.invalidatedContexts == harness.keyStore.counts.contexts)

    harness.user.approve()
    _ = try await harness.xid.getAccessToken()
    #expect(await harness.provider.counters.refreshes == 1)
  }

  @Test func inTheBackgroundNoPromptIsShownAndTheUserMustBePresent() async throws {
    let harness = try PresenceHarness(options: Self.protection)
    try await harness.xid.signIn()
    let record = try harness.storedRecord()
    harness.xid.setScenePhase(.background)
    _ = try await harness.xid.getAccessToken()  // still valid: no refresh, no prompt
    harness.expireAccessToken()

    let error = await expectXidError(.userPresenceRequired) { try await harness.xid.getAccessToken() }
    #expect(error?.reason.contains("background") == true)
    #expect(harness.user.prompts.isEmpty)
    #expect(try harness.storedRecord() == record)

    harness.xid.setScenePhase(.active)
    _ = try await harness.xid.getAccessToken()
    #expect(harness.user.prompts.count == 1)
  }

  @Test func theKeychainRefusingInteractionIsNotALockedStorage() async throws {
    let harness = try PresenceHarness(options: Self.protection)
    try await harness.xid.signIn()
    harness.expireAccessToken()
    harness.keyStore.decryptFailure.set(
      PresenceFailure.keychain(status: PresenceFailure.KeychainStatus.interactionNotAllowed, operation: "open").error)
    await expectXidError(.userPresenceRequired) { try await harness.xid.getAccessToken() }
    #expect(try harness.storedRecord() != nil)
  }

  @Test func aChangedBiometrySetAsksToSignInAgainAndKeepsTheRecordUntilSignOut() async throws {
    let harness = try PresenceHarness(options: Self.protection)
    try await harness.xid.signIn()
    let record = try harness.storedRecord()
    harness.expireAccessToken()

    harness.user.invalidate()
    let error = await expectXidError(.presenceKeyInvalidated) { try await harness.xid.getAccessToken() }
    #expect(error?.reason.contains("sign") == true)
    #expect(try harness.storedRecord() == record, "the record is not deleted")
    #expect(try await harness.xid.getSession() != nil)

    try await harness.xid.signOut()
    #expect(try harness.storedRecord() == nil)
    #expect(try harness.keyStore.publicKey(tag: harness.keyTag) == nil, "sign-out deletes the key")
  }

  @Test func aDeletedKeyAsksToSignInAgainAndANewSignInMakesANewOne() async throws {
    let harness = try PresenceHarness(options: Self.protection)
    try await harness.xid.signIn()
    try harness.keyStore.deleteKey(tag: harness.keyTag)
    harness.expireAccessToken()
    await expectXidError(.presenceKeyInvalidated) { try await harness.xid.getAccessToken() }
    #expect(harness.user.prompts.isEmpty, "no prompt for a key that is gone")

    try await harness.xid.signIn()
    harness.expireAccessToken()
    _ = try await harness.xid.getAccessToken()
    #expect(harness.keyStore.counts.created == 2)
  }

  @Test func aTokenSealedForAReplacedKeyIsNotOpened() async throws {
    let harness = try PresenceHarness(options: Self.protection)
    try await harness.xid.signIn()
    let first = try harness.storedRecord()
    try await harness.xid.signIn()  // a new sign-in makes a new key
    try harness.storage.save(key: harness.recordKey, value: JSONValue.object(try #require(first)).serialized())
    let other = try harness.anotherProcess(options: Self.protection.with(harness))
    harness.expireAccessToken()
    let error = await expectXidError(.presenceKeyInvalidated) { try await other.getAccessToken() }
    #expect(error?.reason.contains("replaced") == true)
  }

  /// A sign-in's record that cannot be stored leaves the previous session as it was: its record, and
  /// the key that opens its sealed refresh token. The new tokens are revoked and their key deleted.
  @Test func aSignInWhoseRecordCannotBeStoredKeepsThePreviousSessionUsableAndRevokesItsTokens() async throws {
    let storage = RecordRefusingStorage()
    let harness = try PresenceHarness(storage: storage, options: Self.protection)
    try await harness.xid.signIn()
    let previous = try harness.storedRecord()
    storage.refusedKey = harness.recordKey
    await expectXidError(.storageFailure) { try await harness.xid.signIn() }
    storage.refusedKey = nil

    #expect(try harness.storedRecord() == previous)
    let issued = await harness.provider.refreshTokens(issuedTo: TestUser.alice.subject)
    let revoked = await harness.provider.revokedTokens
    #expect(issued.count == 2 && revoked.contains(issued[1]), "the refresh token that was not stored is revoked")
    #expect(!revoked.contains(issued[0]), "the previous session's is not")
    #expect(try storage.inner.keys(withPrefix: "xid.presence-key.").count == 1, "the new key is deleted")
    harness.expireAccessToken()
    _ = try await harness.xid.getAccessToken()
    #expect(await harness.provider.counters.refreshes == 1, "the previous sealed refresh token still opens")
  }

  /// Once the new record is stored, the previous session's key goes; sign-out deletes every key.
  @Test func aNewSignInDeletesThePreviousKeyOnceItsRecordIsStored() async throws {
    let storage = InMemoryTokenStorage()
    let harness = try PresenceHarness(storage: storage, options: Self.protection)
    for _ in 0..<3 {
      try await harness.xid.signIn()
      #expect(try storage.keys(withPrefix: "xid.presence-key.").count == 1)
      harness.expireAccessToken()
      _ = try await harness.xid.getAccessToken()
    }
    #expect(await harness.provider.counters.refreshes == 3)
    try await harness.xid.signOut()
    #expect(try storage.keys(withPrefix: "xid.presence-key.").isEmpty)
  }

  /// A sign-in interrupted after it made its key and before its record was stored leaves that key
  /// under the account's other name: the stored session still opens, the next sign-in replaces the
  /// left key, and sign-out deletes every key.
  @Test func aKeyAnInterruptedSignInLeftOpensNothingAndGoes() async throws {
    let storage = InMemoryTokenStorage()
    let harness = try PresenceHarness(storage: storage, options: Self.protection)
    try await harness.xid.signIn()
    _ = try harness.keyStore.createKey(tag: harness.keyTag + ".2", requirement: .biometryCurrentSet)
    harness.expireAccessToken()
    _ = try await harness.xid.getAccessToken()
    try await harness.xid.signIn()
    #expect(try storage.keys(withPrefix: "xid.presence-key.").count == 1)
    _ = try harness.keyStore.createKey(tag: harness.keyTag, requirement: .biometryCurrentSet)
    try await harness.xid.signOut()
    #expect(try storage.keys(withPrefix: "xid.presence-key.").isEmpty)
  }

  @Test func aDamagedKeyDoesNotStopTheNextSignIn() async throws {
    let storage = InMemoryTokenStorage()
    let harness = try PresenceHarness(storage: storage, options: Self.protection)
    try await harness.xid.signIn()
    try storage.save(key: SoftwarePresenceKeyStore.storageKey(harness.keyTag), value: "{}")
    try await harness.xid.signIn()
    harness.expireAccessToken()
    _ = try await harness.xid.getAccessToken()
    #expect(try storage.keys(withPrefix: "xid.presence-key.").count == 1, "the damaged key went too")
  }

  /// The replaced session's key stays until the new record is stored, so a confirmation the user
  /// gave (kept for reuse) still opens its refresh token, which is then revoked.
  @Test func aNewSignInRevokesTheReplacedSealedTokenWhenAConfirmationAllowsIt() async throws {
    var options = Self.protection
    options.authenticationReuse = .seconds(600)
    let harness = try PresenceHarness(options: options)
    try await harness.xid.signIn()
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    let replaced = try #require(await harness.provider.refreshTokens(issuedTo: TestUser.alice.subject).last)
    try await harness.xid.signIn()
    #expect(await harness.provider.revokedTokens == [replaced])
    #expect(harness.user.prompts.count == 1, "the sign-in asks nothing")
  }

  @Test func aConfirmationIsReusedForTheConfiguredTimeThenInvalidated() async throws {
    var options = Self.protection
    options.authenticationReuse = .seconds(60)
    let harness = try PresenceHarness(options: options)
    try await harness.xid.signIn()
    harness.expireAccessToken()
    _ = try await harness.xid.getAccessToken()
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    #expect(harness.user.prompts.count == 1)
    #expect(harness.keyStore.counts.contexts == 1 && harness.keyStore.counts.decryptions == 2)
    #expect(Set(harness.keyStore.counts.decryptContexts).count == 1, "one evaluated context for both")
    #expect(harness.keyStore.invalidatedContexts == 0)

    harness.provider.clock.advance(by: .seconds(61))
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    #expect(harness.user.prompts.count == 2)
    #expect(harness.keyStore.invalidatedContexts == 1, "the expired context was invalidated")
    #expect(await harness.provider.counters.refreshes == 3)
  }

  @Test func lockingOrLeavingEndsAReusedConfirmation() async throws {
    var options = Self.protection
    options.authenticationReuse = .seconds(600)
    let harness = try PresenceHarness(options: options)
    try await harness.xid.signIn()
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    await harness.xid.lock()
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    #expect(harness.user.prompts.count == 2)

    harness.xid.setScenePhase(.background)
    await expectEventually { harness.keyStore.invalidatedContexts == 2 }
    harness.xid.setScenePhase(.active)
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    #expect(harness.user.prompts.count == 3)
  }

  @Test func anInvalidatedReusedContextIsReplacedOnce() async throws {
    var options = Self.protection
    options.authenticationReuse = .seconds(600)
    let harness = try PresenceHarness(options: options)
    try await harness.xid.signIn()
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    harness.keyStore.decryptFailure.set(PresenceFailure.invalidContext.error)
    await expectXidError(.authenticationInterrupted) { try await harness.xid.getAccessToken(forceRefresh: true) }
    #expect(harness.user.prompts.count == 2, "the stale context was dropped and the user asked once more")
    harness.keyStore.decryptFailure.set(nil)
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
  }

  @Test func aProcessWithoutProtectionLeavesTheRefreshToTheApp() async throws {
    let harness = try PresenceHarness(options: Self.protection)
    try await harness.xid.signIn()
    let record = try harness.storedRecord()
    let widget = try harness.anotherProcess(options: PresenceOptions())
    _ = try await widget.getAccessToken()
    harness.expireAccessToken()
    let error = await expectXidError(.userPresenceRequired) { try await widget.getAccessToken() }
    #expect(error?.reason.contains("refreshTokenProtection") == true)
    #expect(try harness.storedRecord() == record)
  }

  @Test func aRefusedSealedRefreshTokenEndsTheSessionAsAPlainOneWould() async throws {
    let harness = try PresenceHarness(options: Self.protection)
    try await harness.xid.signIn()
    await harness.provider.injectFault(.oauthError("invalid_grant"), at: .token)
    harness.expireAccessToken()
    await expectXidError(.sessionExpired) { try await harness.xid.getAccessToken() }
    #expect(try harness.storedRecord() == nil)
  }

  @Test func signOutRevokesTheSealedTokenWhenAConfirmationAllowsIt() async throws {
    var options = Self.protection
    options.authenticationReuse = .seconds(600)
    let harness = try PresenceHarness(options: options)
    try await harness.xid.signIn()
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    try await harness.xid.signOut()
    #expect(await harness.provider.counters.revocations == 1)
    #expect(harness.user.prompts.count == 1, "sign-out never asks")

    let strict = try PresenceHarness(options: Self.protection)
    try await strict.xid.signIn()
    try await strict.xid.signOut()
    #expect(await strict.provider.counters.revocations == 0, "not without asking; the key is deleted instead")
    #expect(try strict.keyStore.publicKey(tag: strict.keyTag) == nil)
  }

  @Test func softwareKeysAreFilesOnlyTheOwnerCanRead() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xid-presence-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let storage = try FileTokenStorage(directory: directory)
    let harness = try PresenceHarness(storage: storage, options: Self.protection)
    try await harness.xid.signIn()
    let file = directory.appendingPathComponent(SoftwarePresenceKeyStore.storageKey(harness.keyTag)).path
    let attributes = try FileManager.default.attributesOfItem(atPath: file)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    harness.expireAccessToken()
    _ = try await harness.xid.getAccessToken()
  }

  #if os(Linux)
    @Test func hereTheDefaultKeyStoreIsSoftwareInTheTokenStorageGuardedByTheAuthorizer() async throws {
      let provider = try TestProvider()
      let storage = InMemoryTokenStorage()
      let user = FakePresenceAuthorizer()
      var configuration = SessionHarness.configuration(provider, logger: DiscardingLogger())
      configuration.presence = PresenceOptions(refreshTokenProtection: .deviceOwner, authorizer: user)
      let xid = try Xid(configuration: configuration.storing(in: storage))
      try await xid.signIn()
      #expect(try storage.keys(withPrefix: "xid.presence-key.").count == 1)
      provider.clock.advance(by: .seconds(301))
      _ = try await xid.getAccessToken()
      #expect(user.prompts == [PresenceOptions.defaultRefreshReason])

      configuration.presence.authorizer = nil
      let unguarded = try Xid(configuration: configuration.storing(in: storage))
      let error = await expectXidError(.invalidConfiguration) { try await unguarded.getAccessToken() }
      #expect(error?.reason.contains("PresenceOptions.keyStore") == true)
    }
  #endif

  @Test func dumpOfAProtectedAndLockedXidShowsNoTokenAndNoKey() async throws {
    let provider = try TestProvider()
    let storage = InMemoryTokenStorage()
    let user = FakePresenceAuthorizer()
    var configuration = SessionHarness.configuration(
      provider, logger: DiscardingLogger(), transport: XidFacadeTests.OpaqueTransport(wrapped: provider.transport))
    configuration.parts.userAgent = XidFacadeTests.OpaqueUserAgent(wrapped: provider.userAgent)
    configuration.presence = PresenceOptions(
      sessionLock: .deviceOwner, refreshTokenProtection: .biometryCurrentSet, authenticationReuse: .seconds(600),
      authorizer: user, keyStore: SoftwarePresenceKeyStore(storage: storage, authorizer: user))
    let xid = try Xid(configuration: configuration.storing(in: storage))
    try await xid.signIn()
    provider.clock.advance(by: .seconds(301))
    _ = try await xid.getAccessToken()
    let keyName = try #require(try storage.keys(withPrefix: "xid.presence-key.").first)
    let keyText = try #require(try storage.load(key: keyName))
    let scalar = try #require(try JSONValue(parsing: keyText)["d"]?.stringValue)
    var dumped = ""
    dump(xid, to: &dumped)
    for secret in await provider.issuedSecrets + [scalar] where secret.count >= 8 && dumped.contains(secret) {
      Issue.record("a secret is in the dump: \(dumped.replacingOccurrences(of: secret, with: "[secret]").prefix(400))")
    }
  }

  @Test func aKeyPairsDumpShowsNoScalar() throws {
    let key = try P256KeyAgreementKey.generate()
    var dumped = ""
    dump(key, to: &dumped)
    #expect(!dumped.contains("\(key.scalar)") && !dumped.contains("scalar"))
  }

  @Test func aSealedRecordRoundTripsAndItsDescriptionShowsNoToken() throws {
    var record = AccountSessionTests.record()
    record.refreshToken = nil
    record.sealedRefreshToken = "1.abc.def"
    let decoded = try TokenRecord(decoding: record.encoded())
    #expect(decoded == record)
    #expect(decoded.description.contains("refreshToken: sealed"))
    #expect(!decoded.description.contains("1.abc.def"))
  }
}

extension PresenceOptions {
  /// These options with the harness's fake user and key store.
  func with(_ harness: PresenceHarness) -> PresenceOptions {
    var options = self
    options.authorizer = harness.user
    options.keyStore = harness.keyStore
    return options
  }
}

/// A storage that refuses to save one key while told to, as a keychain or a disk that refuses the
/// sign-in's record.
final class RecordRefusingStorage: TokenStorageAdapter, @unchecked Sendable {
  let inner = InMemoryTokenStorage()
  private let refused = LockedValue<String?>(nil)

  /// The key whose saves fail; `nil` for none.
  var refusedKey: String? {
    get { refused.get() }
    set { refused.set(newValue) }
  }

  func save(key: String, value: String) throws {
    if key == refusedKey { throw XidError(.storageFailure, "the test storage refused to save the record") }
    try inner.save(key: key, value: value)
  }
  func load(key: String) throws -> String? { try inner.load(key: key) }
  func delete(key: String) throws { try inner.delete(key: key) }
}
