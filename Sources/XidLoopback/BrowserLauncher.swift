import Foundation
import XidCore

/// Opens a URL in the user's browser, for sign-in and sign-out from macOS and Linux programs.
///
/// For a sign-in, ``LoopbackUserAgent`` gives it the listener's start link, never the authorization
/// URL: the command a launcher runs is visible to every user of the machine.
public struct BrowserLauncher: Sendable {
  private let launch: @Sendable (URL) async throws -> Void

  /// A launcher that calls `launch` with the URL to open (tests, and apps with their own browser).
  public init(_ launch: @escaping @Sendable (URL) async throws -> Void) { self.launch = launch }

  /// Opens `url`.
  public func open(_ url: URL) async throws { try await launch(url) }

  #if os(macOS) || os(Linux)
    /// Runs `command` with the URL as its last argument: `command` is split on spaces, and its first
    /// word is looked up on `PATH`. Scripts and tests use it to act as the user.
    public static func command(_ command: String) -> BrowserLauncher {
      BrowserLauncher { url in
        var words = command.split(separator: " ").map(String.init)
        guard !words.isEmpty else {
          throw XidError(.invalidConfiguration, "the browser command is empty")
        }
        words.append(url.absoluteString)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = words
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        // swift-corelibs-foundation's Process holds itself (through its run loop source) until
        // `waitUntilExit()` has run; without this, every browser launched leaks its Process. The
        // browser has exited when this runs, so it returns at once.
        process.terminationHandler = { $0.waitUntilExit() }
        do {
          try process.run()
        } catch {
          throw XidError(
            .invalidConfiguration, "the browser command \(words[0]) could not be started: \(error.localizedDescription)"
          )
        }
      }
    }

    /// The system's browser: `$BROWSER` when set, otherwise `open` on macOS and `xdg-open` on Linux.
    public static func system(environment: [String: String] = ProcessInfo.processInfo.environment)
      -> BrowserLauncher
    {
      if let browser = environment["BROWSER"], !browser.isEmpty { return .command(browser) }
      #if os(macOS)
        return .command("open")
      #else
        return .command("xdg-open")
      #endif
    }
  #endif
}
