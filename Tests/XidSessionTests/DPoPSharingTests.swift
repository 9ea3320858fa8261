import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// An app and its extensions share one DPoP-bound session: the key and the servers' nonces live in
/// the shared storage, as the token record does. Each `Xid` below stands for a process: it shares
/// nothing with the others but the storage.
@Suite(.noSecretLeaks)
struct DPoPSharingTests {
  static func provider(requiringNonces: Bool = true) throws -> TestProvider {
    var configuration = TestProvider.Configuration()
    configuration.dpop.requiresNonce = requiringNonces
    return try TestProvider(configuration: configuration)
  }

  @Test func anExtensionSignsWithTheAppsKeyAndStartsWithTheNonceTheAppLastSaw() async throws {
    let provider = try Self.provider()
    let storage = try FileTokenStorage(directory: temporaryDirectory())
    let app = try SessionHarness.dpop(provider: provider, storage: storage)
    let thumbprint = try #require(try await app.xid.signIn().dpopBinding?.keyThumbprint)
    #expect(try await app.xid.send(DPoPSessionTests.resource(app)).status == 200)
    #expect(await provider.counters.dpopNonceChallenges == 1)

    let appExtension = try SessionHarness.dpop(provider: provider, storage: storage)
    #expect(try await appExtension.xid.getSession()?.dpopBinding?.keyThumbprint == thumbprint)
    #expect(try await appExtension.xid.send(DPoPSessionTests.resource(appExtension)).status == 200)
    #expect(await provider.counters.dpopNonceChallenges == 1)
    let last = try #require(await provider.receivedDPoPProofs.last)
    #expect(try JWK(json: #require(CompactJWS(parsing: last).header.members["jwk"])).thumbprint == thumbprint)
  }

  @Test func theKeyAndTheNonceCacheAreFilesOfMode0600() async throws {
    let directory = temporaryDirectory()
    let storage = try FileTokenStorage(directory: directory)
    let app = try SessionHarness.dpop(provider: try Self.provider(), storage: storage)
    let thumbprint = try #require(try await app.xid.signIn().dpopBinding?.keyThumbprint)
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }
    let keyFile = try #require(names.first { $0.hasPrefix(DPoPKeyStore.keyPrefix) })
    #expect(keyFile.hasSuffix(thumbprint))
    #expect(permissions(directory.appendingPathComponent(keyFile).path) == 0o600)
    let nonceFile = try #require(names.first { $0.hasPrefix("xid.dpop-nonces.") })
    #expect(permissions(directory.appendingPathComponent(nonceFile).path) == 0o600)
  }

  @Test func twoProcessesRefreshABoundSessionOnceWithTheSameKey() async throws {
    let provider = try Self.provider(requiringNonces: false)
    let storage = try FileTokenStorage(directory: temporaryDirectory())
    let app = try SessionHarness.dpop(provider: provider, storage: storage)
    try await app.xid.signIn()
    let appExtension = try SessionHarness.dpop(provider: provider, storage: storage)
    #expect(try await appExtension.xid.getSession() != nil)
    provider.clock.advance(by: .seconds(301))
    async let first = app.xid.getAccessToken()
    async let second = appExtension.xid.getAccessToken()
    let tokens = try await [first, second]
    #expect(tokens[0] == tokens[1])
    #expect(await provider.counters.refreshes == 1)
    #expect(await provider.counters.dpopProofsRefused == 0)
    #expect(try await app.xid.send(DPoPSessionTests.resource(app)).status == 200)
    #expect(try await appExtension.xid.send(DPoPSessionTests.resource(appExtension)).status == 200)
  }

  @Test func inTheKeychainTheKeyIsAnItemOfTheTokensAccessGroupReadableAfterFirstUnlock() async throws {
    let keychain = FakeKeychain()
    let group = "TEAM.com.example.shared"
    let provider = try Self.provider()
    let app = try SessionHarness.dpop(
      provider: provider, storage: KeychainTokenStorage(accessGroup: group, backend: keychain))
    let thumbprint = try #require(try await app.xid.signIn().dpopBinding?.keyThumbprint)
    let keyItem = DPoPKeyStore.storageKey(thumbprint: thumbprint)
    #expect(
      keychain.accessibility(service: "dev.xid.tokens", group: group, account: keyItem)
        == .afterFirstUnlockThisDeviceOnly)
    #expect(keychain.accessibility(service: "dev.xid.tokens", group: group, account: app.recordKey) != nil)
    #expect(keychain.accessibility(service: "dev.xid.tokens", group: group, account: app.nonceCacheKey) != nil)

    let appExtension = try SessionHarness.dpop(
      provider: provider, storage: KeychainTokenStorage(accessGroup: group, backend: keychain))
    #expect(try await appExtension.xid.send(DPoPSessionTests.resource(appExtension)).status == 200)
    #expect(await provider.counters.dpopNonceChallenges == 1)

    // A locked device is not a missing key: the session is kept, and the error says to try later.
    let later = try SessionHarness.dpop(
      provider: provider, storage: KeychainTokenStorage(accessGroup: group, backend: keychain))
    keychain.forcedStatus = KeychainTokenStorage.Status.interactionNotAllowed
    await expectXidError(.storageLocked) { try await later.xid.send(DPoPSessionTests.resource(later)) }
    keychain.forcedStatus = nil
    #expect(try await later.xid.send(DPoPSessionTests.resource(later)).status == 200)
  }
}

/// Which factory makes a session's key and which restores it.
struct DPoPKeyStoreTests {
  @Test func aNewKeyComesFromTheFirstAvailableFactoryAndSoftwareIsTheFallback() {
    let available = DPoPKeyStore.factories(preferring: FakeHardwareKeyFactory(isAvailable: true))
    #expect(available.map(\.kind) == ["fakeEnclave", "software"])
    #expect(DPoPKeyStore.factoryForNewKey(among: available).kind == "fakeEnclave")
    let unavailable = DPoPKeyStore.factories(preferring: FakeHardwareKeyFactory(isAvailable: false))
    #expect(DPoPKeyStore.factoryForNewKey(among: unavailable).kind == "software")
    #expect(DPoPKeyStore.factories(preferring: nil).map(\.kind) == ["software"])
    #expect(DPoPKeyStore.factories(preferring: SoftwareDPoPKeyFactory()).map(\.kind) == ["software"])
  }

  @Test func keysAreRestoredByTheFactoryOfTheirKindAndCheckedAgainstTheirName() throws {
    let storage = InMemoryTokenStorage()
    let hardware = DPoPKeyStore(
      storage: storage, factory: FakeHardwareKeyFactory(isAvailable: true), logger: DiscardingLogger())
    let made = try hardware.makeKey()
    #expect(made.key.isHardwareBacked)
    // Another process restores it from storage.
    let other = DPoPKeyStore(
      storage: storage, factory: FakeHardwareKeyFactory(isAvailable: true), logger: DiscardingLogger())
    #expect(try other.key(thumbprint: made.thumbprint).key.isHardwareBacked)
    #expect(other.binding(thumbprint: made.thumbprint).isHardwareBacked)
    // One without that factory cannot, and says so.
    let softwareOnly = DPoPKeyStore(storage: storage, factory: nil, logger: DiscardingLogger())
    expectXidError(.dpopKeyUnavailable) { try softwareOnly.key(thumbprint: made.thumbprint) }
    // A software key is restored whatever factory is configured.
    let software = try softwareOnly.makeKey()
    #expect(try other.key(thumbprint: software.thumbprint).thumbprint == software.thumbprint)
    // Deleted means gone, for every process.
    other.delete(thumbprint: software.thumbprint)
    let fresh = DPoPKeyStore(storage: storage, factory: nil, logger: DiscardingLogger())
    expectXidError(.dpopKeyUnavailable) { try fresh.key(thumbprint: software.thumbprint) }
    try storage.save(key: DPoPKeyStore.storageKey(thumbprint: "x"), value: "not json")
    expectXidError(.dpopKeyUnavailable) { try fresh.key(thumbprint: "x") }
  }
}

/// The nonce cache: per origin, in storage under its own key.
struct DPoPNonceCacheTests {
  @Test func noncesAreKeptPerOriginAndSharedThroughStorage() {
    let storage = InMemoryTokenStorage()
    let cache = DPoPNonceCache(storage: storage, key: "xid.dpop-nonces.1", logger: DiscardingLogger())
    let op = URL(string: "https://op.example/token")!
    let api = URL(string: "https://api.example:8443/v1")!
    #expect(cache.record(HTTPResponse(status: 400, headers: ["DPoP-Nonce": "op-1"]), from: op))
    cache.setNonce("api-1", for: api)
    #expect(cache.nonce(for: URL(string: "https://OP.example:443/userinfo")!) == "op-1")
    #expect(cache.nonce(for: URL(string: "https://api.example:8443/other?q=1")!) == "api-1")
    #expect(cache.nonce(for: URL(string: "https://api.example/v1")!) == nil)
    let other = DPoPNonceCache(storage: storage, key: "xid.dpop-nonces.1", logger: DiscardingLogger())
    #expect(other.nonce(for: op) == "op-1")
    #expect(other.nonce(for: api) == "api-1")
  }

  @Test(arguments: [
    ("https://OP.example/token?x=1", "https://op.example:443"),
    ("https://op.example:443", "https://op.example:443"),
    ("http://user:pw@127.0.0.1:8080/a#b", "http://127.0.0.1:8080"),
    ("http://[::1]:4000/x", "http://[::1]:4000"),
    ("http://[::1]/x", "http://[::1]:80"),
    ("https://api.example:8443?q", "https://api.example:8443"),
  ])
  func theOriginIsSchemeHostAndPort(url: String, origin: String) {
    #expect(DPoPNonceCache.origin(of: URL(string: url)!) == origin)
  }

  @Test func aMalformedNonceIsIgnored() {
    let cache = DPoPNonceCache()
    let url = URL(string: "https://op.example/token")!
    #expect(!cache.setNonce("with space", for: url))
    #expect(!cache.setNonce("quote\"", for: url))
    #expect(!cache.setNonce(String(repeating: "a", count: 2000), for: url))
    #expect(!cache.record(HTTPResponse(status: 200), from: url))
    #expect(cache.nonce(for: url) == nil)
  }
}
