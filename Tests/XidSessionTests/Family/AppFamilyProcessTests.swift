import Foundation
import Testing
import XidTestSupport
import XidTesting

@testable import XidProtocol
@testable import XidSession

#if os(Linux)
  /// The apps of one family as separate processes (the refresh worker, each with its own client ID)
  /// over one shared store: the fake SecItem backend with files and the App Group's lock folder, as
  /// the fault matrix uses, or a ``FileTokenStorage`` folder for the change events.
  @Suite(.workerProcessesOneAtATime) struct AppFamilyProcessTests {
    static let family = "com.example.apps"
    static let familyApp = TestClient(
      id: "family-app", redirectURIs: TestClient.example.redirectURIs, allowsTokenExchange: true)
    static let notesApp = TestClient(
      id: "notes-app", redirectURIs: TestClient.example.redirectURIs, allowsTokenExchange: true)
    static let photosApp = TestClient(
      id: "photos-app", redirectURIs: TestClient.example.redirectURIs, allowsTokenExchange: true)

    /// A provider on loopback that the worker processes reach, with the three apps.
    static func provider() async throws -> TestProvider {
      var configuration = TestProvider.Configuration()
      configuration.clients = [familyApp, notesApp, photosApp]
      return try await TestProvider.startLoopback(configuration: configuration)
    }

    /// The folders the processes share.
    struct Folders {
      let root = temporaryDirectory()
      var state: URL { root.appendingPathComponent("state") }
      var control: URL { root.appendingPathComponent("control") }
      var container: URL { root.appendingPathComponent("group") }

      init() throws {
        for folder in [control, container] {
          try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
      }
    }

    /// A worker process, whose standard error goes to a file of the control folder.
    struct Worker {
      let process: Process
      let name: String
      let standardError: URL

      /// Waits for the worker's end and returns its exit status (3: the family's session is gone).
      /// Any other failure is recorded with what the worker wrote to standard error, so that a run
      /// on a loaded machine says why it failed.
      func exited() async throws -> Int32 {
        let status = try await process.exited()
        if status != 0 && status != 3 {
          let written = (try? String(contentsOf: standardError, encoding: .utf8)) ?? ""
          Issue.record("\(name) exited with \(status): \(written)")
        }
        return status
      }
    }

    /// Starts the worker as `app` doing `once`, on the keychain backend (`keychain: true`) or on
    /// files.
    static func start(
      _ app: TestClient, _ once: String, provider: TestProvider, folders: Folders, index: Int = 0,
      keychain: Bool = true
    ) throws -> Worker {
      let process = Process()
      process.executableURL = builtExecutable(named: "XidRefreshWorker")
      process.arguments = [
        provider.issuer.absoluteString, app.id, app.redirectURIs[0].absoluteString, folders.state.path,
        folders.control.path, String(index), "1", "0",
      ]
      var environment = ["XID_WORKER_ONCE": once, "XID_WORKER_FAMILY": family]
      if keychain { environment["XID_WORKER_STORAGE"] = "keychain:" + folders.container.path }
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
      let name = "\(app.id) \(once) #\(index)"
      let standardError = folders.control.appendingPathComponent("stderr-\(UUID().uuidString)")
      FileManager.default.createFile(atPath: standardError.path, contents: nil)
      process.standardError = try FileHandle(forWritingTo: standardError)
      try process.run()
      return Worker(process: process, name: name, standardError: standardError)
    }

    /// Runs the worker to its end; its exit status (3: the family's session is gone).
    static func run(
      _ app: TestClient, _ once: String, provider: TestProvider, folders: Folders, keychain: Bool = true
    ) async throws -> Int32 {
      try await start(app, once, provider: provider, folders: folders, keychain: keychain).exited()
    }

    @Test func appTwoSignsInFromAppOnesFamilyAndEndsAtItsNextRefreshAfterAFamilySignOut() async throws {
      let provider = try await Self.provider()
      defer { Task { await provider.stopLoopback() } }
      let folders = try Folders()
      #expect(try await Self.run(Self.familyApp, "signIn", provider: provider, folders: folders) == 0)
      #expect(try await Self.run(Self.notesApp, "signInFromFamily", provider: provider, folders: folders) == 0)
      #expect(await provider.counters.authorizationRequests == 1)
      #expect(await provider.counters.tokenExchanges == 1)
      #expect(try await Self.run(Self.notesApp, "token", provider: provider, folders: folders) == 0)

      #expect(try await Self.run(Self.familyApp, "familySignOut", provider: provider, folders: folders) == 0)
      // App 2 was not running: its next refresh (a new process) ends its session.
      #expect(try await Self.run(Self.notesApp, "token", provider: provider, folders: folders) == 3)
      #expect(try await Self.run(Self.notesApp, "signInFromFamily", provider: provider, folders: folders) == 3)
      #expect(await provider.counters.tokenExchanges == 1)
    }

    @Test func eightProcessesSigningInFromTheFamilyAtOnceMakeOneExchangePerApp() async throws {
      let provider = try await Self.provider()
      defer { Task { await provider.stopLoopback() } }
      let folders = try Folders()
      #expect(try await Self.run(Self.familyApp, "signIn", provider: provider, folders: folders) == 0)
      let workers = try (0..<8).map { index in
        try Self.start(
          index.isMultiple(of: 2) ? Self.notesApp : Self.photosApp, "signInFromFamily", provider: provider,
          folders: folders, index: index)
      }
      for worker in workers { #expect(try await worker.exited() == 0) }
      #expect(await provider.counters.tokenExchanges == 2)
      // Nothing lost: the family's session and both apps' sessions still work.
      for app in [Self.familyApp, Self.notesApp, Self.photosApp] {
        #expect(try await Self.run(app, "token", provider: provider, folders: folders) == 0, "\(app.id)")
      }
    }

    /// The Linux watch of the storage folder carries a family sign-out in another process to this
    /// one's subscriber, which ends its session and emits `signedOut`.
    @Test func aFamilySignOutInAnotherProcessReachesThisProcessAsAnEvent() async throws {
      let provider = try await Self.provider()
      defer { Task { await provider.stopLoopback() } }
      let folders = try Folders()
      #expect(try await Self.run(Self.familyApp, "signIn", provider: provider, folders: folders, keychain: false) == 0)
      var identity = ClientIdentity(
        issuer: provider.issuer, clientId: Self.notesApp.id, redirectUri: Self.notesApp.redirectURIs[0])
      identity.family = AppFamily(name: Self.family)
      let engine = try SessionEngine(
        configuration: XidConfiguration(
          identity: identity, policy: SessionPolicy(deviceSecretHashRule: .atHashRule),
          parts: SessionParts(
            transport: provider.transport, storage: try FileTokenStorage(directory: folders.state),
            logger: DiscardingLogger())))
      _ = try await engine.signIn(from: try #require(try engine.familyAccounts().first))
      let events = EventCollector(engine.events())
      defer { events.cancel() }
      #expect(
        try await Self.run(Self.familyApp, "familySignOut", provider: provider, folders: folders, keychain: false) == 0)
      #expect(await events.wait { $0.contains(.signedOut) }.contains(.signedOut))
      #expect(try await engine.account.record() == nil)
    }
  }
#endif
