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

  @Test func xidErrorsMapToTheDocumentedExitCodes() {
    #expect(ExitCode(for: XidError(.signInRequired, "")) == .signInRequired)
    #expect(ExitCode(for: XidError(.sessionExpired, "")) == .signInRequired)
    #expect(ExitCode(for: XidError(.networkFailure, "")) == .network)
    #expect(ExitCode(for: XidError(.tokenRequestFailed, "", httpStatus: 503)) == .network)
    #expect(ExitCode(for: XidError(.tokenRequestFailed, "", httpStatus: 400, oauthError: "invalid_client")) == .failure)
    #expect(ExitCode(for: XidError(.timedOut, "")) == .failure)
  }
}
