import Foundation
import Xid

/// `xid status`: the stored session, from storage alone; never the network, never a token.
enum StatusCommand {
  static func run(profile name: ProfileName, context: CLIContext) async throws -> ExitCode {
    let console = context.console
    let profile = try context.resolvedProfile(name)
    let xid = try context.xid(for: profile, named: name, verbose: false)
    var rows: [(String, String)] = [
      ("Profile", name.value), ("Issuer", profile.issuer), ("Client", profile.clientId),
    ]
    if let family = profile.family {
      rows.append(("Family", family))
    } else if profile.usesDeviceSSO {
      rows.append(("Family", "\(name.value) (keeps the family session, --device-sso)"))
    }
    guard let session = try await xid.getSession() else {
      rows.append(("Signed in", "no"))
      print(rows, console)
      console.err("Sign in with: xid login\(name.flag)")
      return .signInRequired
    }
    let display = session.claims["name"]?.stringValue.map { " (\($0))" } ?? ""
    rows.append(("Signed in", "yes, as \(session.subject)\(display)"))
    rows.append(("Scopes", session.scopes.joined(separator: " ")))
    if let binding = session.dpopBinding {
      rows.append(
        ("DPoP", "bound to a \(binding.isHardwareBacked ? "hardware" : "software") key (\(binding.keyThumbprint))"))
    }
    if let expiry = session.accessTokenExpiresAt {
      let now = Date()
      let state = expiry > now ? "expires" : "expired (refreshed on next use)"
      rows.append(("Access token", "\(state) \(TimeText.timestamp(expiry)), \(TimeText.relative(expiry, now: now))"))
    } else {
      rows.append(("Access token", "no expiry given by the provider"))
    }
    if let authTime = session.claims.authTime {
      rows.append(("Signed in at", "\(TimeText.timestamp(authTime)), \(TimeText.relative(authTime)) (auth_time)"))
    }
    if let acr = session.claims.authenticationContextClass { rows.append(("Authentication", "acr \(acr)")) }
    // Types only: the details themselves may describe a payment.
    if let details = session.authorizationDetails {
      rows.append(("Authorized", "authorization details of type " + Self.types(of: details)))
    }
    for (resource, details) in session.resourceGrants.sorted(by: { $0.key < $1.key }) {
      rows.append(("Resource", resource + (details.map { " (authorization details: \(Self.types(of: $0)))" } ?? "")))
    }
    rows.append(("State", context.stateDirectory.path))
    print(rows, console)
    return .success
  }

  /// The distinct types of `details`, in order, separated by commas.
  private static func types(of details: [AuthorizationDetail]) -> String {
    AuthorizationDetail.types(of: details).joined(separator: ", ")
  }

  private static func print(_ rows: [(String, String)], _ console: Console) {
    let width = rows.map(\.0.count).max() ?? 0
    for (label, value) in rows { console.out("\(label.padded(to: width))  \(TerminalText.field(value))") }
  }
}
