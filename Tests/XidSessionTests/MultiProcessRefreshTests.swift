import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// Eight processes, each with 200 concurrent tasks, share one account's FileTokenStorage and refresh
/// against the test provider over loopback, with rotating refresh tokens and short-lived access
/// tokens: exactly one refresh per expiry, no sign-out, and every caller gets a valid token.
@Suite(.serialized, .workerProcessesOneAtATime, .timeLimit(.minutes(3)))
struct MultiProcessRefreshTests {
  static let processes = 8
  static let tasksPerProcess = 200

  /// The worker executable, built next to the test bundle.
  static var workerURL: URL { builtExecutable(named: "XidRefreshWorker") }

  struct RoundReport {
    var distinctTokens = 0
    var errors: [String] = []
    var resourceStatuses: [Int64] = []
  }

  /// Where the processes keep the session.
  enum Storage {
    /// A ``FileTokenStorage`` directory.
    case files
    /// ``KeychainTokenStorage`` on a ``FileKeychainBackend`` (its items in files, shared by the
    /// processes as a keychain access group is), with the refresh lock in a temporary directory
    /// standing in for the App Group container, as `KeychainTokenStorage(appGroup:)` sets it up.
    case keychain
  }

  /// The storage of the keychain case: items in `state`, the App Group container in `container`.
  static func keychainStorage(state: URL, container: URL) throws -> KeychainTokenStorage {
    KeychainTokenStorage(
      accessGroup: "TEAMID.com.example.shared",
      refreshLockDirectory: KeychainTokenStorage.refreshLockDirectory(inAppGroupContainer: container),
      backend: try FileKeychainBackend(directory: state))
  }

  /// Runs the workers for `rounds` expiry rounds; `beforeRound` may change the provider, and
  /// `duringRound` acts, with this process's own `Xid` over the same storage, while the workers run.
  static func run(
    provider: TestProvider, rounds: Int, storage kind: Storage = .files,
    prepare: @Sendable (Xid) async throws -> Void = { _ in }, beforeRound: @Sendable (Int) async -> Void = { _ in },
    duringRound: @Sendable (_ round: Int, _ xid: Xid) async throws -> Void = { _, _ in }
  ) async throws -> (reports: [[RoundReport]], refreshes: [Int], stateDirectory: URL) {
    let root = temporaryDirectory()
    let state = root.appendingPathComponent("state"), control = root.appendingPathComponent("control")
    let container = root.appendingPathComponent("app-group")
    try FileManager.default.createDirectory(at: control, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
    let storage: any TokenStorageAdapter =
      switch kind {
      case .files: try FileTokenStorage(directory: state)
      case .keychain: try keychainStorage(state: state, container: container)
      }
    let redirect = TestClient.example.redirectURIs[0]
    let signIn = try Xid(
      configuration: XidConfiguration(
        identity: ClientIdentity(issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: redirect),
        parts: SessionParts(
          transport: provider.transport, storage: storage, userAgent: provider.userAgent, logger: DiscardingLogger())))
    provider.clock.set(to: Date())
    try await signIn.signIn()
    try await prepare(signIn)

    var workers: [Process] = []
    defer { for worker in workers where worker.isRunning { worker.terminate() } }
    for index in 0..<processes {
      let process = Process()
      process.executableURL = workerURL
      process.arguments = [
        provider.issuer.absoluteString, TestClient.example.id, redirect.absoluteString, state.path, control.path,
        String(index), String(tasksPerProcess), String(rounds),
      ]
      if case .keychain = kind {
        process.environment = ProcessInfo.processInfo.environment.merging([
          "XID_WORKER_STORAGE": "keychain:" + container.path
        ]) { $1 }
      }
      try process.run()
      workers.append(process)
    }
    try await waitForFiles(in: control, prefix: "ready-", count: processes)

    var reports: [[RoundReport]] = []
    var refreshes: [Int] = []
    for round in 1...rounds {
      // Wait for the access token to expire (lifetime 10 s, leeway 1 s), in the provider's time too.
      try await Task.sleep(for: .milliseconds(9_100))
      // During the round the provider's time follows the real time, as the workers' does, so that a
      // new token is usable for 4 s after it is issued however long the round takes (with the time
      // set once at its start, a round slowed by ThreadSanitizer outlived its tokens and a second
      // refresh was right).
      provider.clock.set(to: Date())
      let ticker = Task {
        while !Task.isCancelled {
          try? await Task.sleep(for: .milliseconds(20))
          provider.clock.set(to: Date())
        }
      }
      defer { ticker.cancel() }
      await beforeRound(round)
      let before = await provider.counters.refreshes
      try Data().write(to: control.appendingPathComponent("go-\(round)"))
      try await duringRound(round, signIn)
      try await waitForFiles(in: control, prefix: "done-\(round)-", count: processes)
      refreshes.append(await provider.counters.refreshes - before)
      reports.append(
        try (0..<processes).map { index in
          let json = try JSONValue(
            parsing: Array(try Data(contentsOf: control.appendingPathComponent("done-\(round)-\(index)"))))
          return RoundReport(
            distinctTokens: Int(json["distinctTokens"]?.int64Value ?? -1),
            errors: json["errors"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            resourceStatuses: json["resourceStatuses"]?.arrayValue?.compactMap(\.int64Value) ?? [])
        })
    }
    for worker in workers { #expect(try await worker.exited() == 0) }
    return (reports, refreshes, state)
  }

  static func waitForFiles(in directory: URL, prefix: String, count: Int) async throws {
    let deadline = ContinuousClock.now + .seconds(90)
    while (try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(prefix) }.count)
      < count
    {
      guard ContinuousClock.now < deadline else {
        Issue.record("workers did not report \(prefix) in time")
        throw CancellationError()
      }
      try await Task.sleep(for: .milliseconds(10))
    }
  }

  static func shortLivedProvider(rotating: Bool = true) async throws -> TestProvider {
    var configuration = TestProvider.Configuration()
    // Usable for 9 s after its refresh: a worker slowed by a loaded machine must still find the
    // other's new token usable. With 4 s, full test runs beside the fault matrix, the churn test and
    // three fuzzers saw a second refresh in a round (the new token inside its leeway by the time a
    // starved worker got the lock); with 1 s, a CI run saw a round of 6 refreshes.
    configuration.accessTokenLifetime = .seconds(10)
    configuration.rotatesRefreshTokens = rotating
    return try await TestProvider.startLoopback(configuration: configuration)
  }

  @Test func eightProcessesRefreshExactlyOncePerExpiryAndNeverSignOut() async throws {
    let provider = try await Self.shortLivedProvider()
    defer { Task { await provider.stopLoopback() } }
    let (reports, refreshes, _) = try await Self.run(provider: provider, rounds: 3)
    #expect(refreshes == [1, 1, 1])
    for round in reports {
      for report in round {
        #expect(report.errors.isEmpty, "errors: \(report.errors.prefix(3))")
        #expect(report.distinctTokens == 1)
        #expect(report.resourceStatuses == [200])
      }
    }
  }

  /// The App Group setup: the keychain's whole path, with real locks in a container folder that
  /// nothing has created yet.
  @Test func eightProcessesSharingAKeychainAndAnAppGroupRefreshExactlyOncePerExpiry() async throws {
    let provider = try await Self.shortLivedProvider()
    defer { Task { await provider.stopLoopback() } }
    let (reports, refreshes, state) = try await Self.run(provider: provider, rounds: 2, storage: .keychain)
    #expect(refreshes == [1, 1])
    for round in reports {
      for report in round {
        #expect(report.errors.isEmpty, "errors: \(report.errors.prefix(3))")
        #expect(report.distinctTokens == 1)
        #expect(report.resourceStatuses == [200])
      }
    }
    #expect(
      try FileKeychainBackend(directory: state).storedAccounts().filter { $0.hasPrefix("xid.tokens.") }.count == 1)
  }

  /// Holds the first refresh of round 1 at the provider and, once it arrived, runs `action` in this
  /// process.
  static func whileTheirRefreshIsHeld(
    _ provider: TestProvider, _ action: @escaping @Sendable (Xid) async throws -> Void
  ) -> (beforeRound: @Sendable (Int) async -> Void, duringRound: @Sendable (Int, Xid) async throws -> Void) {
    let before = LockedValue(0)
    return (
      { round in
        guard round == 1 else { return }
        before.set(await provider.counters.refreshes)
        await provider.injectFault(.delay(.milliseconds(300)), at: .token, times: 1)
      },
      { round, xid in
        guard round == 1 else { return }
        try await BackgroundActivityTests.eventually { await provider.counters.refreshes > before.get() }
        try await action(xid)
      }
    )
  }

  @Test func aSignOutInAnotherProcessDuringTheirRefreshIsNeverUndone() async throws {
    let provider = try await Self.shortLivedProvider()
    defer { Task { await provider.stopLoopback() } }
    let hooks = Self.whileTheirRefreshIsHeld(provider) { xid in try await xid.signOut() }
    let (reports, _, state) = try await Self.run(
      provider: provider, rounds: 2, beforeRound: hooks.beforeRound, duringRound: hooks.duringRound)
    #expect(Set(reports[0].flatMap(\.errors)).isSubset(of: ["signInRequired"]))
    // No session comes back: the next expiry finds nobody signed in, in every process.
    #expect(reports[1].allSatisfy { $0.distinctTokens == 0 && Set($0.errors) == ["signInRequired"] })
    #expect(try FileTokenStorage(directory: state).keys(withPrefix: "xid.tokens.").isEmpty)
  }

  @Test func aNewSignInInAnotherProcessDuringTheirRefreshIsNeverOverwritten() async throws {
    let provider = try await Self.shortLivedProvider()
    defer { Task { await provider.stopLoopback() } }
    // The sign-in started before their refresh (its pending record is saved); it completes meanwhile.
    let started = LockedValue<URL?>(nil)
    let hooks = Self.whileTheirRefreshIsHeld(provider) { xid in
      await provider.endUserSession()
      await provider.setUser(TestUser(subject: "bob"))
      let callback = try await provider.browser.redirect(from: try #require(started.get()))
      let session = try await xid.handleRedirect(url: callback)
      #expect(session.subject == "bob")
    }
    let (reports, _, state) = try await Self.run(
      provider: provider, rounds: 2, prepare: { started.set(try await $0.authorizationURL()) },
      beforeRound: hooks.beforeRound, duringRound: hooks.duringRound)
    #expect(reports[1].allSatisfy { $0.errors.isEmpty && $0.resourceStatuses == [200] })
    let relaunched = try Xid(
      configuration: XidConfiguration(
        identity: ClientIdentity(
          issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0]),
        parts: SessionParts(
          transport: provider.transport, storage: try FileTokenStorage(directory: state), logger: DiscardingLogger())))
    #expect(try await relaunched.getSession()?.subject == "bob")
  }

  @Test func aLostRefreshResponseKeepsTheSessionWhereTheProviderAllowsIt() async throws {
    let provider = try await Self.shortLivedProvider(rotating: false)
    defer { Task { await provider.stopLoopback() } }
    let (reports, _, state) = try await Self.run(
      provider: provider, rounds: 3,
      beforeRound: { round in
        if round == 2 { await provider.injectFault(.dropResponse, at: .token, times: 1) }
      })
    // The lost response costs the tasks of the process that sent it a network error, nothing more.
    let errors = reports.flatMap { $0.flatMap(\.errors) }
    #expect(Set(errors).isSubset(of: ["networkFailure"]))
    #expect(reports[2].allSatisfy { $0.errors.isEmpty && $0.resourceStatuses == [200] })
    #expect(try FileTokenStorage(directory: state).keys(withPrefix: "xid.tokens.").count == 1)
  }

  @Test func aLostRotatedRefreshEndsWithSessionExpiredNeverACorruptRecord() async throws {
    let provider = try await Self.shortLivedProvider(rotating: true)
    defer { Task { await provider.stopLoopback() } }
    let (reports, _, state) = try await Self.run(
      provider: provider, rounds: 2,
      beforeRound: { round in
        if round == 2 { await provider.injectFault(.dropResponse, at: .token, times: 1) }
      })
    #expect(reports[0].allSatisfy { $0.errors.isEmpty })
    let errors = Set(reports[1].flatMap(\.errors))
    #expect(errors.contains("sessionExpired"))
    #expect(errors.isSubset(of: ["networkFailure", "sessionExpired", "signInRequired"]))
    // The record is gone, not half-written.
    #expect(try FileTokenStorage(directory: state).keys(withPrefix: "xid.tokens.").isEmpty)
  }
}
