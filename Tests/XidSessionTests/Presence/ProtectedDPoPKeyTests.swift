import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// The stricter mode, "every API call needs the user" (``PresenceOptions/protectsDPoPKey``): the DPoP
/// key itself needs the user, through the fake user, the fake Secure Enclave key store and its
/// contexts.
@Suite(.noSecretLeaks)
struct ProtectedDPoPKeyTests {
  static let strict = PresenceOptions(refreshTokenProtection: .biometryCurrentSet, protectsDPoPKey: true)

  static func strictHarness(reuse: Duration = .zero) throws -> PresenceHarness {
    var options = strict
    options.authenticationReuse = reuse
    return try PresenceHarness(usesDPoP: true, options: options)
  }

  static func resource(_ harness: PresenceHarness) -> HTTPRequest {
    HTTPRequest(url: harness.provider.url(for: .resource))
  }

  /// The stored DPoP key entry of the session, as JSON.
  static func storedKey(_ harness: PresenceHarness) throws -> [String: JSONValue]? {
    guard let thumbprint = try harness.storedRecord()?["dpop_jkt"]?.stringValue,
      let text = try harness.storage.load(key: DPoPKeyStore.storageKey(thumbprint: thumbprint))
    else { return nil }
    return try JSONValue(parsing: Array(text.utf8)).objectValue
  }

  // MARK: - Configuration

  @Test func theStricterModeNeedsDPoPAndTakesTheRefreshTokensRequirement() throws {
    let provider = try TestProvider()
    var configuration = SessionHarness.configuration(provider, logger: DiscardingLogger())
    configuration.presence = PresenceOptions(refreshTokenProtection: .deviceOwner, protectsDPoPKey: true)
    let withoutDPoP = expectXidError(.invalidConfiguration) { try configuration.validate() }
    #expect(withoutDPoP?.reason.contains("usesDPoP") == true)

    configuration.usesDPoP = true
    configuration.presence = PresenceOptions(protectsDPoPKey: true)
    let withoutRequirement = expectXidError(.invalidConfiguration) { try configuration.validate() }
    #expect(withoutRequirement?.reason.contains("refreshTokenProtection") == true)
    let engine = expectXidError(.invalidConfiguration) {
      try SessionEngine(configuration: configuration.storing(in: InMemoryTokenStorage()))
    }
    #expect(engine != nil)

    configuration.presence = PresenceOptions(refreshTokenProtection: .deviceOwner, protectsDPoPKey: true)
    try configuration.validate()
  }

  @Test func aKeyStoreThatMakesNoSigningKeysIsNamedAtSignIn() async throws {
    struct SealingOnly: PresenceSealingKeyStore {
      let base: SoftwarePresenceKeyStore
      func makeContext() -> any PresenceContext { base.makeContext() }
      func publicKey(tag: String) throws -> [UInt8]? { try base.publicKey(tag: tag) }
      func createKey(tag: String, requirement: PresenceRequirement) throws -> [UInt8] {
        try base.createKey(tag: tag, requirement: requirement)
      }
      func deleteKey(tag: String) throws { try base.deleteKey(tag: tag) }
      func encrypt(_ plaintext: [UInt8], to publicKey: [UInt8]) throws -> [UInt8] {
        try base.encrypt(plaintext, to: publicKey)
      }
      func authenticate(_ context: any PresenceContext, forKey tag: String, localizedReason: String) async throws {
        try await base.authenticate(context, forKey: tag, localizedReason: localizedReason)
      }
      func decrypt(_ ciphertext: [UInt8], withKey tag: String, context: any PresenceContext) async throws -> [UInt8] {
        try await base.decrypt(ciphertext, withKey: tag, context: context)
      }
    }
    let storage = InMemoryTokenStorage()
    let user = FakePresenceAuthorizer()
    var options = Self.strict
    options.keyStore = SealingOnly(base: SoftwarePresenceKeyStore(storage: storage, authorizer: user))
    let harness = try PresenceHarness(storage: storage, user: user, usesDPoP: true, options: options)
    let error = await expectXidError(.invalidConfiguration) { try await harness.xid.signIn() }
    #expect(error?.reason.contains("SealingOnly") == true)
    #expect(try harness.storedRecord() == nil)
  }

  // MARK: - Every call asks

  @Test func signingInMakesAKeyThatNeedsTheUserAndAsksOnceForTheCodesProof() async throws {
    let harness = try Self.strictHarness()
    let session = try await harness.xid.signIn()
    let binding = try #require(session.dpopBinding)
    let key = try #require(try Self.storedKey(harness))
    #expect(key["kind"] == "presence")
    #expect(key["requirement"] == "biometryCurrentSet")
    #expect(key["jkt"]?.stringValue == binding.keyThumbprint)
    #expect(harness.keyStore.counts.signingKeys == 1)
    #expect(harness.user.prompts == [PresenceOptions.defaultRefreshReason], "the code exchange's proof")
    #expect(harness.keyStore.invalidatedContexts == harness.keyStore.counts.contexts)
    #expect(await harness.provider.counters.dpopProofsRefused == 0)
    #expect(try harness.storedRecord()?["token_type"] == "DPoP")
  }

  @Test func everyCallAsksTheUserOnceAndAValidAccessTokenAloneDoesNot() async throws {
    let harness = try Self.strictHarness()
    try await harness.xid.signIn()
    let afterSignIn = harness.user.prompts.count

    _ = try await harness.xid.getAccessToken()
    #expect(harness.user.prompts.count == afterSignIn, "no proof, no prompt")
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(harness.user.prompts.count == afterSignIn + 2)
    let headers = try await harness.xid.authorizationHeaders(method: "GET", url: harness.provider.url(for: .resource))
    #expect(headers["DPoP"] != nil)
    #expect(harness.user.prompts.count == afterSignIn + 3)
    #expect(try await harness.xid.userInfo().subject == "alice")
    #expect(harness.user.prompts.count == afterSignIn + 4)

    let counts = harness.keyStore.counts
    #expect(counts.contexts == counts.authentications)
    #expect(harness.keyStore.invalidatedContexts == counts.contexts, "each call's context ends with it")
    #expect(await harness.provider.counters.dpopProofsRefused == 0)
    let thumbprint = try #require(try harness.storedRecord()?["dpop_jkt"]?.stringValue)
    for proof in await harness.provider.receivedDPoPProofs {
      let jwk = try #require(try CompactJWS(parsing: proof).header.members["jwk"])
      #expect(try JWK(json: jwk).thumbprint == thumbprint)
    }
  }

  @Test func oneCallThatRefreshesAsksOnceForTheRefreshTokenAndEveryProof() async throws {
    let harness = try Self.strictHarness()
    try await harness.xid.signIn()
    let before = harness.keyStore.counts
    let sealed = try #require(try harness.storedRecord()?["sealed_refresh_token"]?.stringValue)
    harness.expireAccessToken()

    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    let counts = harness.keyStore.counts
    #expect(harness.user.prompts.count == 2, "the sign-in's, then one for this call")
    #expect(counts.contexts - before.contexts == 1 && counts.authentications - before.authentications == 1)
    #expect(counts.decryptions == 1)
    #expect(counts.signatures - before.signatures == 2, "the refresh's proof and the request's")
    let used = Set(counts.signContexts.dropFirst(before.signatures) + counts.decryptContexts)
    #expect(used.count == 1, "one evaluated context opened the refresh token and signed both proofs")
    #expect(harness.keyStore.invalidatedContexts == counts.contexts)
    #expect(await harness.provider.counters.refreshes == 1)
    #expect(await harness.provider.counters.dpopProofsRefused == 0)
    #expect(try harness.storedRecord()?["sealed_refresh_token"]?.stringValue != sealed, "resealed after rotation")

    // A refresh alone (getAccessToken) is one call too.
    harness.expireAccessToken()
    _ = try await harness.xid.getAccessToken()
    #expect(harness.user.prompts.count == 3)
    #expect(await harness.provider.counters.refreshes == 2)
  }

  @Test func aConfirmationIsReusedWithinTheWindowThenInvalidated() async throws {
    let harness = try Self.strictHarness(reuse: .seconds(60))
    try await harness.xid.signIn()
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    harness.provider.clock.advance(by: .seconds(30))
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(harness.user.prompts.count == 1, "the sign-in's confirmation covers the calls within 60 s")
    #expect(harness.keyStore.invalidatedContexts == 0)

    harness.provider.clock.advance(by: .seconds(31))
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(harness.user.prompts.count == 2)
    #expect(harness.keyStore.invalidatedContexts == 1, "the expired context was invalidated")
    #expect(Set(harness.keyStore.counts.signContexts).count == 2)

    await harness.xid.lock()
    #expect(harness.keyStore.invalidatedContexts == 2, "locking ends a reused confirmation")
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(harness.user.prompts.count == 3)
  }

  @Test func aReusedConfirmationTheSystemEndedIsReplacedInTheSameCall() async throws {
    let harness = try Self.strictHarness(reuse: .seconds(600))
    try await harness.xid.signIn()
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    let prompts = harness.user.prompts.count
    harness.keyStore.systemEndsEveryContext()

    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(
      harness.user.prompts.count == prompts + 1, "the stale confirmation was dropped and the user asked once more")
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(harness.user.prompts.count == prompts + 1, "the new confirmation is reused")
  }

  // MARK: - Failures keep the session

  @Test func inTheBackgroundACallNeedsTheUserAndKeepsTheSession() async throws {
    let harness = try Self.strictHarness()
    try await harness.xid.signIn()
    let record = try harness.storedRecord()
    let prompts = harness.user.prompts.count
    harness.xid.setScenePhase(.background)

    let error = await expectXidError(.userPresenceRequired) { try await harness.xid.send(Self.resource(harness)) }
    #expect(error?.reason.contains("background") == true)
    harness.expireAccessToken()
    await expectXidError(.userPresenceRequired) { try await harness.xid.getAccessToken() }
    #expect(harness.user.prompts.count == prompts)
    #expect(try harness.storedRecord() == record)
    #expect(await harness.provider.counters.resourceRequests == 0)
    #expect(await harness.provider.counters.refreshes == 0)

    harness.xid.setScenePhase(.active)
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(harness.user.prompts.count == prompts + 1)
  }

  @Test func aPromptThatFailsIsTypedAndKeepsTheSession() async throws {
    let harness = try Self.strictHarness()
    try await harness.xid.signIn()
    let record = try harness.storedRecord()

    harness.user.cancel()
    await expectXidError(.authenticationCancelled) { try await harness.xid.send(Self.resource(harness)) }
    harness.user.deny()
    await expectXidError(.authenticationFailed) { try await harness.xid.userInfo() }
    harness.user.lockOut()
    await expectXidError(.biometryLockout) {
      try await harness.xid.authorizationHeaders(method: "GET", url: harness.provider.url(for: .resource))
    }
    harness.user.refuseInteraction()
    await expectXidError(.userPresenceRequired) { try await harness.xid.send(Self.resource(harness)) }
    harness.expireAccessToken()
    harness.user.cancel()
    await expectXidError(.authenticationCancelled) { try await harness.xid.getAccessToken() }

    #expect(try harness.storedRecord() == record)
    #expect(try await harness.xid.getSession() != nil)
    #expect(await harness.provider.counters.resourceRequests == 0)
    #expect(await harness.provider.counters.userInfoRequests == 0)
    #expect(await harness.provider.counters.refreshes == 0)
    #expect(harness.keyStore.invalidatedContexts == harness.keyStore.counts.contexts)

    harness.user.approve()
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(await harness.provider.counters.refreshes == 1)
  }

  @Test func aChangedBiometrySetAsksToSignInAgainAndKeepsTheRecordUntilSignOut() async throws {
    let harness = try Self.strictHarness()
    try await harness.xid.signIn()
    let record = try harness.storedRecord()
    harness.user.invalidate()
    let error = await expectXidError(.presenceKeyInvalidated) { try await harness.xid.send(Self.resource(harness)) }
    #expect(error?.reason.contains("DPoP key") == true && error?.reason.contains("Sign the user in again") == true)
    #expect(try harness.storedRecord() == record)

    try await harness.xid.signOut()
    #expect(try harness.storedRecord() == nil)
    #expect(try Self.storedKey(harness) == nil)
  }

  @Test func signOutNeverAsksAndDeletesTheKey() async throws {
    let harness = try Self.strictHarness()
    try await harness.xid.signIn()
    let thumbprint = try #require(try harness.storedRecord()?["dpop_jkt"]?.stringValue)
    let prompts = harness.user.prompts.count
    try await harness.xid.signOut()
    #expect(harness.user.prompts.count == prompts)
    #expect(try harness.storage.load(key: DPoPKeyStore.storageKey(thumbprint: thumbprint)) == nil)
    #expect(try harness.keyStore.publicKey(tag: harness.keyTag) == nil)
    #expect(await harness.provider.counters.revocations == 0, "its proof would need the user")
  }

  // MARK: - Changing the option

  @Test func aKeyMadeWithoutTheUserIsNotUsedOnceTheModeIsOn() async throws {
    let harness = try PresenceHarness(
      usesDPoP: true, options: PresenceOptions(refreshTokenProtection: .biometryCurrentSet))
    try await harness.xid.signIn()
    let record = try harness.storedRecord()
    let strict = try harness.anotherProcess(options: Self.strict.with(harness), usesDPoP: true)

    let error = await expectXidError(.dpopKeyUnavailable) { try await strict.send(Self.resource(harness)) }
    #expect(error?.reason.contains("protectsDPoPKey") == true)
    #expect(error?.reason.contains("sign the user in again") == true)
    await expectXidError(.dpopKeyUnavailable) { try await strict.userInfo() }
    #expect(harness.user.prompts.isEmpty)
    #expect(await harness.provider.counters.resourceRequests == 0)
    #expect(try harness.storedRecord() == record, "the session is kept")

    try await strict.signIn()
    #expect(try Self.storedKey(harness)?["kind"] == "presence")
    #expect(try await strict.send(Self.resource(harness)).status == 200)
  }

  @Test func aKeyThatNeedsTheUserKeepsAskingWhenTheModeIsOffAndExtensionsCannotUseIt() async throws {
    let harness = try Self.strictHarness()
    try await harness.xid.signIn()
    let record = try harness.storedRecord()
    let prompts = harness.user.prompts.count

    let relaxed = try harness.anotherProcess(
      options: PresenceOptions(refreshTokenProtection: .biometryCurrentSet).with(harness), usesDPoP: true)
    #expect(try await relaxed.send(Self.resource(harness)).status == 200)
    #expect(harness.user.prompts.count == prompts + 1, "the key's own access control still asks")

    let widget = try harness.anotherProcess(options: PresenceOptions(), usesDPoP: true)
    _ = try await widget.getAccessToken()
    let error = await expectXidError(.userPresenceRequired) { try await widget.send(Self.resource(harness)) }
    #expect(error?.reason.contains("extension") == true)
    #expect(harness.user.prompts.count == prompts + 1)
    #expect(try harness.storedRecord() == record)
  }

  /// A prepared key knows once whether it needs the user, and the engine's check of every request
  /// goes by that: a protected key is still confirmed, a plain one is still refused in the stricter
  /// mode.
  @Test func aPreparedKeyKnowsWhetherItNeedsTheUser() async throws {
    let user = FakePresenceAuthorizer()
    let store = SoftwarePresenceKeyStore(storage: InMemoryTokenStorage(), authorizer: user)
    let made = try store.createSigningKey(requirement: .deviceOwner)
    let protected = PreparedDPoPKey(
      try PresenceDPoPKey(
        publicKey: made.publicKey, storedForm: made.storedForm, isHardwareBacked: made.isHardwareBacked,
        keyStore: store))
    let plain = PreparedDPoPKey(try SoftwareDPoPKeyFactory().makeKey().key)
    #expect(protected.needsUser)
    #expect(!plain.needsUser)
    var options = PresenceOptions(refreshTokenProtection: .deviceOwner, protectsDPoPKey: true)
    options.keyStore = store
    let strict = try PresenceCoordinator(options: options, accountKey: "a", clock: SystemClock())
    await expectXidError(.dpopKeyUnavailable) { try await strict.prepareToSign(with: plain) }
    try await strict.prepareToSign(with: nil as PreparedDPoPKey?)
  }

  @Test func aProtectedKeySignsOnlyInsideACallThatConfirmedTheUser() throws {
    let user = FakePresenceAuthorizer()
    let store = SoftwarePresenceKeyStore(storage: InMemoryTokenStorage(), authorizer: user)
    let made = try store.createSigningKey(requirement: .deviceOwner)
    let key = try PresenceDPoPKey(
      publicKey: made.publicKey, storedForm: made.storedForm, isHardwareBacked: made.isHardwareBacked,
      keyStore: store)
    let error = expectXidError(.userPresenceRequired) {
      try DPoPProof.make(key: key, method: "GET", url: URL(string: "https://api.example.com/")!)
    }
    #expect(error != nil)
    #expect(user.prompts.isEmpty)
    var dumped = ""
    dump(key, to: &dumped)
    #expect(!dumped.contains(made.storedForm) && !key.description.contains(made.storedForm))
  }

  @Test func aSoftwareContextAllowsTheKeysOfItsRequirementUntilInvalidated() async throws {
    let user = FakePresenceAuthorizer()
    let store = SoftwarePresenceKeyStore(storage: InMemoryTokenStorage(), authorizer: user)
    let sealing = try store.createKey(tag: "sealing", requirement: .deviceOwner)
    let signing = try store.createSigningKey(requirement: .deviceOwner)
    let other = try store.createSigningKey(requirement: .biometryCurrentSet)
    let context = store.makeContext()
    try await store.authenticate(context, forKey: "sealing", localizedReason: "Open")
    let sealed = try store.encrypt(Array("secret".utf8), to: sealing)
    #expect(try await store.decrypt(sealed, withKey: "sealing", context: context) == Array("secret".utf8))
    let signature = try store.sign([1, 2, 3], withSigningKey: signing.storedForm, context: context)
    #expect(signature.count == 64)
    expectXidError(.authenticationInterrupted) {
      try store.sign([1, 2, 3], withSigningKey: other.storedForm, context: context)
    }
    context.invalidate()
    expectXidError(.authenticationInterrupted) {
      try store.sign([1, 2, 3], withSigningKey: signing.storedForm, context: context)
    }
    #expect(user.prompts == ["Open"])
  }
}
