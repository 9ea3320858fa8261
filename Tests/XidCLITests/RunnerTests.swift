import Foundation
import Testing
import Xid

@testable import XidCLI

/// The runner in process, with a captured console: help, usage errors and exit codes.
struct RunnerTests {
  final class Capture: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    var stdout: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    var stderr: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

    var console: Console {
      Console(
        stdout: { data in self.lock.withLock { self.out.append(data) } },
        stderr: { data in self.lock.withLock { self.err.append(data) } }, stderrIsTerminal: false)
    }
  }

  private func run(_ arguments: [String], environment: [String: String] = [:]) async -> (ExitCode, Capture) {
    let capture = Capture()
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("xid-runner-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    let context = CLIContext(
      environment: environment.merging(["XID_STATE_DIR": state.path]) { a, _ in a }, console: capture.console,
      currentDirectory: state)
    return (await XidCommandLine.run(arguments, context: context), capture)
  }

  /// Runs `arguments` in a state directory where `profiles` are saved first; `marker` is the file a
  /// browser would create (`$BROWSER` is `touch MARKER`).
  private func run(
    _ arguments: [String], profiles: [String: Profile]
  ) async throws -> (ExitCode, Capture, browserOpened: Bool) {
    let capture = Capture()
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("xid-runner-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    let marker = state.appendingPathComponent("browser-opened")
    let context = CLIContext(
      environment: ["XID_STATE_DIR": state.path, "BROWSER": "touch \(marker.path)"], console: capture.console,
      currentDirectory: state)
    for (name, profile) in profiles { try context.profiles.save(profile, as: ProfileName(name)) }
    let code = await XidCommandLine.run(arguments, context: context)
    return (code, capture, FileManager.default.fileExists(atPath: marker.path))
  }

  private static let work = Profile(
    issuer: "http://127.0.0.1:9/", clientId: "work-app", scopes: ["openid"], redirectPort: 0)

  @Test func signingInFromAProfileWithoutAFamilySessionExitsThreeAndOpensNoBrowser() async throws {
    for profiles in [[:], ["work": Self.work]] {
      let (code, capture, browserOpened) = try await run(
        ["login", "--sso-from", "work", "--client-id", "notes-app", "--profile", "notes"], profiles: profiles)
      #expect(code == .signInRequired, "\(capture.stderr)")
      #expect(capture.stderr.contains("\"work\" has no family session"))
      #expect(capture.stderr.contains("xid login --profile work --device-sso"))
      #expect(!browserOpened)
    }
  }

  @Test func signingInFromItselfIsAUsageError() async throws {
    var work = Self.work
    work.deviceSSO = true
    let (code, capture, browserOpened) = try await run(
      ["login", "--sso-from", "work", "--client-id", "other", "--profile", "work"], profiles: ["work": work])
    #expect(code == .usage)
    #expect(capture.stderr.contains("give another with --profile NAME"))
    #expect(!browserOpened)
  }

  @Test func statusShowsTheProfileAProfileWasSignedInFrom() async throws {
    var notes = Self.work
    notes.clientId = "notes-app"
    notes.family = "work"
    let (code, capture, _) = try await run(["status", "--profile", "notes"], profiles: ["notes": notes])
    #expect(code == .signInRequired)
    #expect(capture.stdout.contains(/Family +work\n/), "\(capture.stdout)")
    let (_, plain, _) = try await run(["status", "--profile", "work"], profiles: ["work": Self.work])
    #expect(!plain.stdout.contains("Family"))
  }

  @Test func logoutFamilyOfAProfileWithoutAFamilySessionIsAUsageErrorThatSignsNothingOut() async throws {
    let (code, capture, _) = try await run(["logout", "--family", "--profile", "work"], profiles: ["work": Self.work])
    #expect(code == .usage)
    #expect(capture.stderr.contains("has no family session"))
  }

  @Test func aFamilyProfileSurvivesASaveAndLoad() throws {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("xid-profile-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    let store = ProfileStore(stateDirectory: state)
    var notes = Self.work
    notes.family = "work"
    notes.deviceSSO = true
    try store.save(notes, as: ProfileName("notes"))
    #expect(try store.load(ProfileName("notes")) == notes)
    let text = try String(contentsOf: store.file(for: ProfileName("notes")), encoding: .utf8)
    #expect(text.contains("\"device_sso\"") && text.contains("\"family\""))
  }

  @Test func helpGoesToStandardOutputAndExitsZero() async {
    for command in CommandCatalog.commands {
      let (code, capture) = await run([command.name, "--help"])
      #expect(code == .success)
      #expect(capture.stdout.contains("Usage: xid \(command.name)"))
      #expect(capture.stderr.isEmpty)
    }
  }

  @Test func noArgumentsShowsTheOverviewAsAUsageError() async {
    let (code, capture) = await run([])
    #expect(code == .usage)
    #expect(capture.stderr.contains("Commands:"))
    #expect(capture.stdout.isEmpty)
  }

  @Test func commandsWithoutAProfileAskForASignIn() async {
    let (code, capture) = await run(["token", "--profile", "work"])
    #expect(code == .signInRequired)
    #expect(capture.stdout.isEmpty)
    #expect(capture.stderr.contains("xid login --profile work --issuer URL --client-id ID"))
  }

  @Test func aBadProfileInTheEnvironmentIsAUsageError() async {
    let (code, capture) = await run(["status"], environment: ["XID_PROFILE": "a/b"])
    #expect(code == .usage)
    #expect(capture.stderr.contains("XID_PROFILE"))
  }

  @Test func theServedProviderNamesTheAppsRedirectURIsAndStopsWhenCancelled() async throws {
    let capture = Capture()
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("xid-runner-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    let context = CLIContext(
      environment: ["XID_STATE_DIR": state.path], console: capture.console, currentDirectory: state)
    let serving = Task { await XidCommandLine.run(["demo", "--serve"], context: context) }
    // Until the banner is out; a generous bound, not a timing assertion.
    for _ in 0..<600 where !capture.stdout.contains("signed-out") {
      try await Task.sleep(for: .milliseconds(50))
    }
    let issuer = try #require(capture.stdout.firstMatch(of: /serving at (http:\/\/127\.0\.0\.1:\d+)/)).1
    // What an iOS app in the Simulator configures: the issuer, the client and its app redirect URIs.
    #expect(capture.stdout.contains("Examples/XidExample"))
    #expect(capture.stdout.contains("com.example.app:/callback"))
    #expect(capture.stdout.contains("com.example.app:/signed-out"))

    serving.cancel()
    #expect(await serving.value == .success)
    #expect(capture.stderr.isEmpty, "\(capture.stderr)")
    // The port is closed: nothing answers at the issuer any more.
    let discovery = HTTPRequest(url: URL(string: "\(issuer)/.well-known/openid-configuration")!)
    await #expect(throws: XidError.self) { try await URLSessionTransport().send(discovery) }
  }

  @Test func xidErrorsMapToTheDocumentedExitCodes() {
    #expect(ExitCode(for: XidError(.signInRequired, "")) == .signInRequired)
    #expect(ExitCode(for: XidError(.sessionExpired, "")) == .signInRequired)
    #expect(ExitCode(for: XidError(.networkFailure, "")) == .network)
    #expect(ExitCode(for: XidError(.tokenRequestFailed, "", httpStatus: 503)) == .network)
    #expect(ExitCode(for: XidError(.tokenRequestFailed, "", httpStatus: 400, oauthError: "invalid_client")) == .failure)
    #expect(ExitCode(for: XidError(.timedOut, "")) == .failure)
    #expect(ExitCode(for: XidError(.stepUpRequired, "", stepUp: StepUpRequirement(maxAge: .zero))) == .stepUpRequired)
    #expect(ExitCode.stepUpRequired.rawValue == 5)
  }
}
