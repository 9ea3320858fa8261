import Foundation
import Xid
import XidLoopback

/// `xid logout`: forgets the session (first, whatever the network does), revokes the refresh token
/// and says what became of it (revoked, not revocable, or failed), and with `--end-session` opens the
/// provider's end-session page.
enum LogoutCommand {
  static func run(
    endSession: Bool, browser: String?, family: Bool = false, profile name: ProfileName, verbose: Bool,
    context: CLIContext
  ) async throws -> ExitCode {
    let profile = try context.resolvedProfile(name)
    if family {
      guard profile.usesDeviceSSO || profile.family != nil else {
        throw CommandFailure(
          .usage,
          "the profile \"\(name.value)\" has no family session (it was not signed in with --device-sso or --sso-from); use xid logout\(name.flag)"
        )
      }
    }
    let command = SystemCommands.browserCommand(browser, environment: context.environment)
    let console = context.console
    let agent = LoopbackUserAgent(
      browser: BrowserLauncher { url in
        // The address carries the ID token as id_token_hint: it is opened, never shown.
        console.err("Opening the provider's sign-out page: \(Redaction.describe(url))")
        try await SystemCommands.open(url, with: command)
      })
    let xid = try context.xid(for: profile, named: name, verbose: verbose, userAgent: agent)
    // A session the family already ended is no session to sign out; the family's record still goes.
    let session = try? await xid.getSession()
    let result = try await xid.signOut(callEndSession: endSession && session != nil, scope: family ? .family : .thisApp)
    if let session {
      console.out(
        "✓ Signed out \(TerminalText.field(session.subject)) from \(profile.issuer) (profile \"\(name.value)\").")
      if let revocation = result.revocation { console.out(describe(revocation, endSession: endSession)) }
    } else {
      console.out("Nobody was signed in for the profile \"\(name.value)\"; nothing to do.")
    }
    if family {
      if let revocation = result.deviceSecretRevocation {
        console.out(
          "Family session: ended; device secret \(revocation == .revoked ? "revoked by the provider" : "not revoked (\(revocation))")."
        )
      }
      try await signOutSiblings(of: profile, named: name, verbose: verbose, context: context)
    }
    return .success
  }

  /// Signs out, each alone, the other profiles of `profile`'s family (the root signed in with
  /// `--device-sso` and every profile signed in from it), so that each revokes its own refresh token.
  private static func signOutSiblings(
    of profile: Profile, named name: ProfileName, verbose: Bool, context: CLIContext
  ) async throws {
    let root = ProfileName(profile.family ?? name.value)
    var members = try context.profilesSignedIn(from: root)
    if root != name, let rootProfile = try context.profiles.load(root) { members.append((root, rootProfile)) }
    for (member, memberProfile) in members where member != name {
      let xid = try context.xid(for: memberProfile, named: member, verbose: verbose)
      let result = try await xid.signOut(callEndSession: false, scope: .thisApp)
      if result.signedSomeoneOut { context.console.out("✓ Signed out the profile \"\(member.value)\" of the family.") }
    }
  }

  /// The line that says what became of the refresh token at the provider.
  static func describe(_ revocation: RevocationOutcome, endSession: Bool) -> String {
    let stillValid =
      "It may stay valid at the provider until it expires"
      + (endSession ? "." : "; `xid logout --end-session` also ends the session at the provider.")
    switch revocation {
    case .revoked:
      return "Refresh token: revoked by the provider."
    case .notRevocable(let reason) where reason == .dpopKeyNeedsTheUser || reason == .refreshTokenNeedsTheUser:
      return "Refresh token: not revocable: \(reason)."
    case .notRevocable(let reason):
      return "Refresh token: not revocable: \(reason). \(stillValid)"
    case .failed(let error):
      var how = [error.code.rawValue]
      if let status = error.httpStatus { how.append("HTTP \(status)") }
      return
        "Refresh token: revocation failed: \(how.joined(separator: ", ")): \(TerminalText.field(error.reason)). \(stillValid)"
    }
  }
}
