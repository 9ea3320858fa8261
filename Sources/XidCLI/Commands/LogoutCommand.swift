import Foundation
import Xid
import XidLoopback

/// `xid logout`: forgets the session (first, whatever the network does), revokes the refresh token,
/// and with `--end-session` opens the provider's end-session page.
enum LogoutCommand {
  static func run(
    endSession: Bool, browser: String?, profile name: ProfileName, verbose: Bool, context: CLIContext
  ) async throws -> ExitCode {
    let profile = try context.resolvedProfile(name)
    let command = SystemCommands.browserCommand(browser, environment: context.environment)
    let console = context.console
    let agent = LoopbackUserAgent(
      browser: BrowserLauncher { url in
        // The address carries the ID token as id_token_hint: it is opened, never shown.
        console.err("Opening the provider's sign-out page: \(Redaction.describe(url))")
        try await SystemCommands.open(url, with: command)
      })
    let xid = try context.xid(for: profile, named: name, verbose: verbose, userAgent: agent)
    let session = try await xid.getSession()
    try await xid.signOut(callEndSession: endSession && session != nil)
    if let session {
      console.out(
        "✓ Signed out \(TerminalText.field(session.subject)) from \(profile.issuer) (profile \"\(name.value)\").")
    } else {
      console.out("Nobody was signed in for the profile \"\(name.value)\"; nothing to do.")
    }
    return .success
  }
}
