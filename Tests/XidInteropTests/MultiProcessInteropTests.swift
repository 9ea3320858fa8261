import Foundation
import Testing
import Xid
import XidTestSupport

extension GlewlwydInterop {
  /// The multi-process refresh test of XidSessionTests once more, against glewlwyd: eight processes
  /// (XidRefreshWorker), each with 200 concurrent tasks, share one account's FileTokenStorage, at the
  /// provider's short-lived plugin instance (access tokens of a few seconds, refresh tokens rotating on
  /// every use, a reused one revoking the chain). Exactly one refresh per expiry, counted by glewlwyd
  /// itself; every process gets the same token, which glewlwyd's UserInfo endpoint accepts; nobody is
  /// signed out.
  @Suite(.interopProvider, .serialized, .workerProcessesOneAtATime, .timeLimit(.minutes(2)))
  struct MultiProcessInteropTests {
    static let processes = 8
    static let tasksPerProcess = 200
    static let rounds = 3
    /// The workers' `expiryLeeway` (Tests/XidRefreshWorker/main.swift).
    static let workerLeeway: Int64 = 1

    /// The worker executable, built next to the test bundle.
    static var workerURL: URL { builtExecutable(named: "XidRefreshWorker") }

    struct Report {
      var errors: [String]
      var distinctTokens: Int
      var fingerprints: [String]
      var resourceStatuses: [Int64]
    }

    @Test func eightProcessesRefreshExactlyOncePerExpiryAtGlewlwydAndNeverSignOut() async throws {
      let environment = try InteropEnvironment.require()
      let fixture = try InteropFixture(issuer: environment.shortIssuer, expiryLeeway: .seconds(Self.workerLeeway))
      let glewlwyd = fixture.glewlwyd
      let cookie = try await glewlwyd.logIn()
      let control = fixture.directory.url.appendingPathComponent("control", isDirectory: true)
      try FileManager.default.createDirectory(at: control, withIntermediateDirectories: true)
      let userInfo = try await glewlwyd.endpoint("userinfo_endpoint", of: fixture.issuer)
      try await fixture.xid.signIn()

      var workers: [Process] = []
      defer { for worker in workers where worker.isRunning { worker.terminate() } }
      for index in 0..<Self.processes {
        let process = Process()
        process.executableURL = Self.workerURL
        process.arguments = [
          fixture.issuer.absoluteString, fixture.clientId, fixture.configuration.identity.redirectUri.absoluteString,
          fixture.storage.directory.path, control.path, String(index), String(Self.tasksPerProcess),
          String(Self.rounds), userInfo.absoluteString,
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["XID_WORKER_QUIRKS": "empty400"]) { $1 }
        try process.run()
        workers.append(process)
      }
      try await Self.waitForFiles(in: control, prefix: "ready-", count: Self.processes)

      var refreshes: [Int] = []
      for round in 1...Self.rounds {
        // Wait until the stored access token counts as expired for the workers (read afresh from storage).
        let expiresAt = try #require(try await fixture.relaunched().getSession()?.accessTokenExpiresAt)
        let wait = expiresAt.timeIntervalSinceNow - TimeInterval(Self.workerLeeway) + 0.2
        if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }

        let before = try await glewlwyd.refreshTokenCount(
          issuer: fixture.issuer, clientId: fixture.clientId, cookie: cookie)
        try Data().write(to: control.appendingPathComponent("go-\(round)"))
        try await Self.waitForFiles(in: control, prefix: "done-\(round)-", count: Self.processes)
        let after = try await glewlwyd.refreshTokenCount(
          issuer: fixture.issuer, clientId: fixture.clientId, cookie: cookie)
        refreshes.append(after - before)

        let reports = try (0..<Self.processes).map { index in
          try Self.report(at: control.appendingPathComponent("done-\(round)-\(index)"))
        }
        for report in reports {
          #expect(report.errors.isEmpty, "round \(round): errors \(Set(report.errors).sorted())")
          #expect(report.distinctTokens == 1, "round \(round)")
          #expect(report.resourceStatuses == [200], "round \(round): glewlwyd's UserInfo answered")
        }
        let tokensThisRound = Set(reports.flatMap(\.fingerprints)).count
        #expect(tokensThisRound == 1, "round \(round): all processes share one access token")
      }
      for worker in workers { #expect(try await worker.exited() == 0) }

      // glewlwyd issued one rotated refresh token per expiry, no more: one refresh per round.
      #expect(refreshes == Array(repeating: 1, count: Self.rounds))
      // Nobody was signed out: the session is still there and still refreshes.
      let relaunched = try fixture.relaunched()
      #expect(try await relaunched.getSession() != nil)
      _ = try await relaunched.getAccessToken(forceRefresh: true)
    }

    static func report(at url: URL) throws -> Report {
      let json = try JSONValue(parsing: Array(try Data(contentsOf: url)))
      return Report(
        errors: json["errors"]?.arrayValue?.compactMap(\.stringValue) ?? ["unreadable report"],
        distinctTokens: Int(json["distinctTokens"]?.int64Value ?? -1),
        fingerprints: json["tokenFingerprints"]?.arrayValue?.compactMap(\.stringValue) ?? [],
        resourceStatuses: json["resourceStatuses"]?.arrayValue?.compactMap(\.int64Value) ?? [])
    }

    static func waitForFiles(in directory: URL, prefix: String, count: Int) async throws {
      let deadline = ContinuousClock.now + .seconds(60)
      while (try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(prefix) }.count)
        < count
      {
        guard ContinuousClock.now < deadline else {
          Issue.record("the workers did not report \(prefix) in time")
          throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(10))
      }
    }
  }
}
