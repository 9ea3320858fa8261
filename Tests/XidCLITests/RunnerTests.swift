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
  }
}
