import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// What one matrix run shares: a provider served over loopback (refresh tokens rotate, with reuse
/// detection), a keychain whose items are files (every process shares them, as an app and its
/// extensions share an access group) with the refresh lock in a folder standing in for the App Group
/// container, and the time, which the test moves for the provider, this process and the workers.
final class MatrixWorld: Sendable {
  let provider: TestProvider
  let root: URL
  let keychainDirectory: URL
  let container: URL
  let control: URL
  let backend: FileKeychainBackend
  let storage: KeychainTokenStorage
  let logger = RecordingLogger()
  private let offset = LockedValue<TimeInterval>(0)

  private init(provider: TestProvider) throws {
    self.provider = provider
    root = temporaryDirectory()
    keychainDirectory = root.appendingPathComponent("keychain")
    container = root.appendingPathComponent("app-group")
    control = root.appendingPathComponent("control")
    for directory in [container, control] {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    backend = try FileKeychainBackend(directory: keychainDirectory)
    storage = try MultiProcessRefreshTests.keychainStorage(state: keychainDirectory, container: container)
    LeakRegistry.current?.register(provider: provider, logger: logger)
  }

  static func make() async throws -> MatrixWorld {
    try MatrixWorld(provider: try await TestProvider.startLoopback())
  }

  func stop() async {
    await provider.stopLoopback()
    try? FileManager.default.removeItem(at: root)
  }

  /// This process's Xid: the provider in memory, its clock, its user; for `fault`, with the lock
  /// timeout and the storage it names (``MatrixFault/refreshLockTimeout``,
  /// ``MatrixFault/testProcessHasALockDirectory``).
  func makeXid(for fault: MatrixFault? = nil) throws -> Xid {
    try Xid(
      configuration: XidConfiguration(
        identity: ClientIdentity(
          issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0]),
        policy: SessionPolicy(refreshLockTimeout: fault?.refreshLockTimeout ?? SessionPolicy().refreshLockTimeout),
        parts: SessionParts(
          transport: provider.transport,
          storage: fault?.testProcessHasALockDirectory == false ? storageWithoutALockDirectory : storage,
          clock: provider.clock, userAgent: provider.userAgent, logger: logger)))
  }

  /// The same keychain items without the refresh lock: the iOS default, `KeychainTokenStorage()`.
  var storageWithoutALockDirectory: KeychainTokenStorage {
    KeychainTokenStorage(accessGroup: "TEAMID.com.example.shared", backend: backend)
  }

  /// Waits (generously) until a storage write that ``FileKeychainBackend/failNextWrites(_:)`` asked
  /// to fail (of `count`) has failed.
  func waitForFailedWrite(of count: Int) async throws {
    try await BackgroundActivityTests.eventually { self.backend.pendingWriteFailures < count }
  }

  /// Moves time past the access token's expiry for everyone: the provider and this process at once,
  /// the workers when round `round` starts.
  func nextExpiry(round: Int) throws {
    let value = offset.update { offset -> TimeInterval in
      offset += 600
      return offset
    }
    provider.clock.set(to: Date().addingTimeInterval(value))
    try Data(String(value).utf8).write(to: control.appendingPathComponent("clock-\(round)"))
  }

  /// The provider moved its clock on by `duration` during round `round` (a timeout it holds): the
  /// workers' time moves as much, at once.
  func moveWorkerClocks(by duration: Duration, round: Int) throws {
    let value = offset.update { offset -> TimeInterval in
      offset += duration.timeInterval
      return offset
    }
    try Data(String(value).utf8).write(to: control.appendingPathComponent("clock-\(round)"), options: .atomic)
  }

  /// The storage key of the account's record.
  var recordKey: String {
    TokenRecord.storageKey(issuer: provider.issuer.absoluteString, clientId: TestClient.example.id, account: "default")
  }

  /// The stored record: absent, intact, or corrupt.
  func stored() -> (record: TokenRecord?, corrupt: Bool) {
    guard let text = try? storage.load(key: recordKey) else { return (nil, false) }
    guard let record = try? TokenRecord(decoding: text) else { return (nil, true) }
    return (record, false)
  }

  /// Waits (generously) until the provider has received more refresh requests than `count`.
  func waitForRefresh(after count: Int) async throws {
    try await BackgroundActivityTests.eventually { await self.provider.counters.refreshes > count }
  }

  /// Whether the newest refresh token the provider issued to the first user (alice) is in the
  /// provider's record of revoked tokens: the one the fault round's refresh got, or, when the race's
  /// revocation (a sign-out's, or a sign-in's of the session it replaced) reached the provider before
  /// the refresh did and the refresh got none, the one the race replaced. With rotation the older
  /// ones are spent: the first user has no refresh token left that works.
  func newestFirstUserRefreshTokenRevoked() async -> Bool {
    guard let newest = await provider.refreshTokens(issuedTo: TestUser.alice.subject).last else { return false }
    return await provider.revokedTokens.contains(newest)
  }

  /// Every log line the workers wrote.
  func workerLogLines() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: control.path)) ?? []
    return names.filter { $0.hasPrefix("log-") }.flatMap { name in
      ((try? String(contentsOf: control.appendingPathComponent(name), encoding: .utf8)) ?? "")
        .split(separator: "\n").map(String.init)
    }
  }
}
