import Foundation
import Testing
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// Two apps of one family (two client IDs, two engines over one storage, as two processes with a
/// shared keychain access group are): app 1 signs in with the browser, app 2 signs in from the
/// family with no browser, and a family sign-out ends both.
struct AppFamilyTests {
  static let familyApp = TestClient(
    id: "family-app", redirectURIs: [URL(string: "com.example.family:/callback")!], allowsTokenExchange: true)
  static let siblingApp = TestClient(
    id: "sibling-app", redirectURIs: [URL(string: "com.example.sibling:/callback")!], allowsTokenExchange: true)
  static let family = AppFamily(name: "com.example.apps")

  /// The provider of both apps, and one storage for the family.
  struct World {
    let provider: TestProvider
    let storage: any TokenStorageAdapter
    let signal = FakeChangeSignal()

    init(
      storage: any TokenStorageAdapter = InMemoryTokenStorage(),
      configure: (inout TestProvider.Configuration) -> Void = { _ in }
    ) throws {
      var configuration = TestProvider.Configuration()
      configuration.clients = [AppFamilyTests.familyApp, AppFamilyTests.siblingApp]
      configure(&configuration)
      provider = try TestProvider(configuration: configuration)
      self.storage = storage
    }

    /// The engine of `app`, a member of the family unless `family` is `nil`.
    func engine(
      _ app: TestClient, family: AppFamily? = AppFamilyTests.family, storage: (any TokenStorageAdapter)? = nil,
      familyStorage: (any TokenStorageAdapter)? = nil, quirks: ProviderQuirks = []
    ) throws -> SessionEngine {
      var identity = ClientIdentity(
        issuer: provider.issuer, clientId: app.id, redirectUri: app.redirectURIs[0], scopes: ["profile", "email"])
      identity.family = family
      var parts = SessionParts(
        transport: provider.transport, storage: storage ?? self.storage, clock: provider.clock,
        userAgent: provider.userAgent, logger: DiscardingLogger())
      parts.changeSignal = signal
      parts.familyStorage = familyStorage
      return try SessionEngine(
        configuration: XidConfiguration(
          identity: identity, policy: SessionPolicy(providerQuirks: quirks, deviceSecretHashRule: .atHashRule),
          parts: parts))
    }

    /// App 1 signed in with the browser, and app 2's engine.
    func signedInFamily() async throws -> (first: SessionEngine, second: SessionEngine) {
      let first = try engine(AppFamilyTests.familyApp)
      _ = try await first.signIn(options: SignInOptions(), userAgent: provider.userAgent)
      return (first, try engine(AppFamilyTests.siblingApp))
    }

    func familyRecords() throws -> [FamilyRecord] {
      try FamilyStore(
        storage: storage, family: AppFamilyTests.family, lockTimeout: .seconds(5), clock: SystemClock(),
        logger: DiscardingLogger()
      ).all()
    }
  }

  @Test func aFamilyMembersSignInAsksForDeviceSSOAndKeepsTheFamilysRecordWithDisplayClaimsOnly() async throws {
    // A provider that puts the profile and email claims in the ID token, where the family reads them.
    let world = try World { $0.includesScopeClaimsInIDToken = true }
    let first = try world.engine(Self.familyApp)
    let session = try await first.signIn(options: SignInOptions(), userAgent: world.provider.userAgent)
    #expect(session.familyAccountID != nil)
    #expect(!session.signedInFromFamily)
    let records = try world.familyRecords()
    #expect(records.count == 1)
    let record = try #require(records.first)
    #expect(record.clientId == Self.familyApp.id)
    #expect(await world.provider.issuedDeviceSecrets == [record.deviceSecret])
    let accounts = try first.familyAccounts()
    #expect(accounts.map(\.id) == [record.storageKey])
    #expect(accounts.first?.subject == TestUser.alice.subject)
    #expect(accounts.first?.name == "Alice Example")
    // What an app shows of the account holds no token and no device secret.
    let shown =
      "\(accounts) \(String(reflecting: accounts)) \(Mirror(reflecting: accounts[0]).children.map { "\($0.value)" })"
    for secret in await world.provider.issuedSecrets where secret.count >= 8 { #expect(!shown.contains(secret)) }
  }

  @Test func aSiblingSignsInFromTheFamilyWithNoBrowserAsItsOwnClient() async throws {
    let world = try World()
    let (_, second) = try await world.signedInFamily()
    let authorizationsBefore = await world.provider.counters.authorizationRequests
    let account = try #require(try second.familyAccounts().first)
    let session = try await second.signIn(from: account)
    #expect(session.signedInFromFamily)
    #expect(session.familyAccountID == account.id)
    #expect(session.subject == account.subject)
    #expect(await world.provider.counters.authorizationRequests == authorizationsBefore)
    #expect(await world.provider.counters.tokenExchanges == 1)
    // Its own tokens, for its own client: the ID token's audience is the sibling.
    let record = try #require(try await second.account.record())
    #expect(record.clientId == Self.siblingApp.id)
    #expect(try IDToken(restoring: #require(record.idToken)).claims.audience == [Self.siblingApp.id])
    // From then on it refreshes as any session does.
    #expect(try await second.accessToken(forceRefresh: true) != record.accessToken)
  }

  /// Each app keeps its tokens in its own storage; the family's record is in the storage they share.
  @Test func appsWithTheirOwnStorageShareTheFamilyThroughTheFamilyStorage() async throws {
    let world = try World()
    let own1 = InMemoryTokenStorage(), own2 = InMemoryTokenStorage()
    let first = try world.engine(Self.familyApp, storage: own1, familyStorage: world.storage)
    _ = try await first.signIn(options: SignInOptions(), userAgent: world.provider.userAgent)
    #expect(try world.familyRecords().count == 1)
    let second = try world.engine(Self.siblingApp, storage: own2, familyStorage: world.storage)
    #expect(try await second.signIn(from: try #require(try second.familyAccounts().first)).signedInFromFamily)
    #expect(
      try world.storage.load(
        key: TokenRecord.storageKey(
          issuer: world.provider.issuer.absoluteString, clientId: Self.siblingApp.id, account: "default")) == nil)
    _ = try await first.signOut(callEndSession: false, userAgent: nil, scope: .family)
    await expectXidError(.sessionExpired) { try await second.accessToken(forceRefresh: true) }
  }

  @Test func aSecondSignInFromTheSameFamilySessionMakesNoSecondExchange() async throws {
    let world = try World()
    let (_, second) = try await world.signedInFamily()
    let account = try #require(try second.familyAccounts().first)
    _ = try await second.signIn(from: account)
    let token = try #require(try await second.account.record()?.accessToken)
    // Another process of app 2 finds the session under the family lock.
    let another = try world.engine(Self.siblingApp)
    #expect(try await another.signIn(from: account).signedInFromFamily)
    #expect(await world.provider.counters.tokenExchanges == 1)
    #expect(try await another.accessToken() == token)
  }

  @Test func aFamilySignOutEndsTheSiblingsSessionAtItsNextRefreshAndRevokesTheDeviceSecret() async throws {
    // The provider leaves the sibling's refresh token alive, so only the client's check ends it.
    let world = try World { $0.nativeSSO.endsGrantsWithDeviceSession = false }
    let (first, second) = try await world.signedInFamily()
    _ = try await second.signIn(from: try #require(try second.familyAccounts().first))
    let deviceSecret = try #require(try world.familyRecords().first?.deviceSecret)
    let result = try await first.signOut(callEndSession: false, userAgent: nil, scope: .family)
    #expect(result.deviceSecretRevocation == .revoked)
    #expect(result.revocation == .revoked)
    #expect(try world.familyRecords().isEmpty)
    #expect(try first.familyAccounts().isEmpty)
    // The device secret is dead at the provider: no app can exchange it again.
    #expect(await world.provider.revokedTokens.contains(deviceSecret))
    await expectXidError(.sessionExpired) { try await second.accessToken(forceRefresh: true) }
    #expect(try await second.account.record() == nil)
    #expect(try await second.session() == nil)
  }

  @Test func aSiblingThatWasNotRunningEndsItsSessionAtLaunch() async throws {
    let world = try World()
    let (first, second) = try await world.signedInFamily()
    _ = try await second.signIn(from: try #require(try second.familyAccounts().first))
    _ = try await first.signOut(callEndSession: false, userAgent: nil, scope: .family)
    // A new process of app 2 reads its session for the first time.
    let relaunched = try world.engine(Self.siblingApp)
    await expectXidError(.sessionExpired) { try await relaunched.session() }
    #expect(try await relaunched.session() == nil)
  }

  @Test func aFamilySignOutReachesASiblingsSubscriberAsSignedOut() async throws {
    let world = try World()
    let (first, second) = try await world.signedInFamily()
    _ = try await second.signIn(from: try #require(try second.familyAccounts().first))
    let events = EventCollector(second.events())
    defer { events.cancel() }
    _ = try await first.signOut(callEndSession: false, userAgent: nil, scope: .family)
    world.signal.post()
    #expect(await events.wait { $0.contains(.signedOut) }.contains(.signedOut))
    #expect(try await second.account.record() == nil)
  }

  @Test func signingOutThisAppAloneLeavesTheFamilyAndTheSiblings() async throws {
    let world = try World()
    let (first, second) = try await world.signedInFamily()
    _ = try await second.signIn(from: try #require(try second.familyAccounts().first))
    let result = try await second.signOut(callEndSession: false, userAgent: nil, scope: .thisApp)
    #expect(result.deviceSecretRevocation == nil)
    #expect(try world.familyRecords().count == 1)
    _ = try await first.accessToken(forceRefresh: true)
    // And it can sign in from the family again.
    #expect(try await second.signIn(from: try #require(try second.familyAccounts().first)).signedInFromFamily)
  }

  @Test func aFamilyRecordThatCannotBeReadEndsNoSession() async throws {
    let storage = FlakyStorage()
    let world = try World(storage: storage)
    let (_, second) = try await world.signedInFamily()
    _ = try await second.signIn(from: try #require(try second.familyAccounts().first))
    // The account's record first, then the family's: the family's read fails as a locked keychain's.
    storage.failLoads(ofKeysWithPrefix: FamilyRecord.keyPrefix)
    _ = try await second.accessToken(forceRefresh: true)
    #expect(try await second.session() != nil)
  }

  @Test func aDeviceSecretTheProviderEndedIsASessionExpiredAndDeletesTheFamilysRecord() async throws {
    let world = try World()
    let (_, second) = try await world.signedInFamily()
    let record = try #require(try world.familyRecords().first)
    await world.provider.endDeviceSession(try #require(record.sessionID))
    let error = await expectXidError(.sessionExpired) {
      try await second.signIn(from: try #require(try second.familyAccounts().first))
    }
    #expect(try world.familyRecords().isEmpty)
    #expect(try await second.account.record() == nil)
    await Self.expectNoSecret(in: error, from: world.provider)
  }

  @Test(arguments: [TestProvider.Misbehavior.wrongDeviceSecretHash, .missingDeviceSecretHash])
  func aFamilySignInWhoseDeviceSecretTheIDTokenDoesNotBindKeepsNothing(misbehavior: TestProvider.Misbehavior)
    async throws
  {
    let world = try World()
    try await world.provider.misbehave(misbehavior)
    let first = try world.engine(Self.familyApp)
    let error = await expectXidError(.deviceSecretMismatch) {
      try await first.signIn(options: SignInOptions(), userAgent: world.provider.userAgent)
    }
    #expect(try world.familyRecords().isEmpty)
    #expect(try await first.account.record() == nil)
    await Self.expectNoSecret(in: error, from: world.provider)
  }

  @Test(arguments: [TestProvider.Misbehavior.otherSubjectOnExchange, .familyAudienceOnExchange])
  func aMisbehavingExchangeIsRefusedAndTheFamilyIsKept(misbehavior: TestProvider.Misbehavior) async throws {
    let world = try World()
    let (first, second) = try await world.signedInFamily()
    let before = try world.familyRecords()
    try await world.provider.misbehave(misbehavior)
    let error = await #expect(throws: XidError.self) {
      try await second.signIn(from: try #require(try second.familyAccounts().first))
    }
    #expect(error?.code == .foreignTokenResponse || error?.code == .invalidIDToken)
    #expect(try world.familyRecords() == before)
    #expect(try await second.account.record() == nil)
    _ = try await first.accessToken(forceRefresh: true)
    await Self.expectNoSecret(in: error, from: world.provider)
  }

  @Test func aRotatedDeviceSecretReplacesTheFamilysSecretAndIDTokenTogether() async throws {
    let world = try World { $0.nativeSSO.rotatesDeviceSecretOnExchange = true }
    let (_, second) = try await world.signedInFamily()
    let before = try #require(try world.familyRecords().first)
    _ = try await second.signIn(from: try #require(try second.familyAccounts().first))
    let after = try #require(try world.familyRecords().first)
    #expect(after.deviceSecret != before.deviceSecret)
    #expect(after.idToken != before.idToken)
    #expect(after.familySignInID == before.familySignInID)
    let idToken = try IDToken(restoring: after.idToken)
    try idToken.checkDeviceSecret(after.deviceSecret, rule: .atHashRule)
    // A third app of the family signs in with the new pair.
    let third = try world.engine(Self.siblingApp, storage: nil)
    _ = try await third.signOut(callEndSession: false, userAgent: nil)
    #expect(try await third.signIn(from: try #require(try third.familyAccounts().first)).signedInFromFamily)
  }

  /// A provider of the older drafts (Okta) takes the device secret only with its own token type:
  /// the quirk sends that one.
  @Test func theLegacyDeviceSecretTokenTypeIsSentWithItsQuirk() async throws {
    let world = try World { $0.nativeSSO.deviceSecretTypes = [.legacyDeviceSecret] }
    let (_, second) = try await world.signedInFamily()
    let account = try #require(try second.familyAccounts().first)
    await expectXidError(.tokenRequestFailed) { try await second.signIn(from: account) }
    // Refused for the token type, not for a dead secret: the family is kept.
    #expect(try world.familyRecords().count == 1)
    let legacy = try world.engine(Self.siblingApp, quirks: .legacyDeviceSecretTokenType)
    #expect(try await legacy.signIn(from: account).signedInFromFamily)
  }

  @Test func familyCallsOutsideAFamilyAreAConfigurationError() async throws {
    let world = try World()
    let alone = try world.engine(Self.familyApp, family: nil)
    expectXidError(.invalidConfiguration) { try alone.familyAccounts() }
    let session = try await alone.signIn(options: SignInOptions(), userAgent: world.provider.userAgent)
    #expect(session.familyAccountID == nil)
    #expect(await world.provider.issuedDeviceSecrets.isEmpty)
  }

  /// Fails when a token, code or device secret the provider issued appears in `error`.
  static func expectNoSecret(in error: XidError?, from provider: TestProvider) async {
    guard let error else { return }
    for secret in await provider.issuedSecrets where secret.count >= 8 {
      #expect(!"\(error)".contains(secret) && !error.reason.contains(secret), "an error shows a secret: \(error.code)")
    }
  }
}
