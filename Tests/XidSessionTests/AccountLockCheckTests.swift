import Foundation
import Testing
import Xid
import XidTestSupport

/// `checkAccountLock(holding:)`, the diagnostic an extension runs to show that it takes the lock it
/// shares with the app: the lock of a storage with a lock directory is a file every process takes,
/// one holder makes another wait until it lets go, and a storage without one shares nothing.
@Suite(.timeLimit(.minutes(1)))
struct AccountLockCheckTests {
  /// An `Xid` over `storage` with its own engine, as another process sharing the storage would have.
  static func xid(_ storage: any TokenStorageAdapter, lockTimeout: Duration = .seconds(10)) throws -> Xid {
    try Xid(
      configuration: XidConfiguration(
        identity: ClientIdentity(
          issuer: URL(string: "https://issuer.example")!, clientId: "app",
          redirectUri: URL(string: "com.example.app:/callback")!),
        policy: SessionPolicy(refreshLockTimeout: lockTimeout),
        parts: SessionParts(storage: storage, clock: StandingClock(now: Date()), logger: DiscardingLogger())))
  }

  @Test func aStorageWithALockDirectoryTakesASharedLockAndLetsGoOfIt() async throws {
    let storage = try FileTokenStorage(directory: temporaryDirectory())
    let xid = try Self.xid(storage)
    let first = try await xid.checkAccountLock()
    #expect(first.isShared)
    #expect(first.waited < .seconds(5))
    // Released: a second check, and another process's, take it at once.
    #expect(try await xid.checkAccountLock().isShared)
    #expect(try await Self.xid(storage, lockTimeout: .milliseconds(500)).checkAccountLock().isShared)
    #expect(try storage.keys(withPrefix: "").isEmpty, "the check stores nothing")
  }

  @Test func aHolderMakesAnotherProcessWaitUntilItLetsGo() async throws {
    let storage = try FileTokenStorage(directory: temporaryDirectory())
    let app = try Self.xid(storage)
    let appExtension = try Self.xid(storage, lockTimeout: .milliseconds(100))
    let holding = Task { try await app.checkAccountLock(holding: .seconds(30)) }
    defer { holding.cancel() }
    // Once the app holds it, the extension's check times out.
    var refused: XidError?
    for _ in 0..<500 where refused == nil {
      do {
        _ = try await appExtension.checkAccountLock()
        try await Task.sleep(for: .milliseconds(10))
      } catch let error as XidError {
        refused = error
      }
    }
    #expect(refused?.code == .lockTimeout)
    // Waiting longer than the holder keeps it, the extension gets it once the holder lets go.
    let patient = try Self.xid(storage, lockTimeout: .seconds(20))
    let waiting = Task { try await patient.checkAccountLock() }
    try await Task.sleep(for: .milliseconds(300))
    holding.cancel()
    await #expect(throws: CancellationError.self) { try await holding.value }
    let check = try await waiting.value
    #expect(check.isShared)
    #expect(check.waited >= .milliseconds(200))
  }

  @Test func aStoragePrivateToTheProcessSharesNoLock() async throws {
    let check = try await Self.xid(InMemoryTokenStorage()).checkAccountLock(holding: .milliseconds(10))
    #expect(!check.isShared)
  }
}
