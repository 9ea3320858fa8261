import Foundation
import Xid

/// `xid whoami`: the ID token's claims and the provider's UserInfo.
enum WhoamiCommand {
  static func run(json: Bool, profile name: ProfileName, verbose: Bool, context: CLIContext) async throws -> ExitCode {
    let xid = try context.xid(for: context.resolvedProfile(name), named: name, verbose: verbose)
    guard let session = try await xid.getSession() else {
      throw XidError(.signInRequired, "no user is signed in for the profile \"\(name.value)\"")
    }
    let info = try await xid.userInfo()
    let console = context.console
    if json {
      let document = JSONValue.object([
        "id_token_claims": .object(session.claims.raw), "userinfo": .object(info.claims),
      ])
      console.out(JSONText.pretty(document))
      return .success
    }
    console.out("ID token claims")
    ClaimTable.write(session.claims.raw, to: console)
    console.out()
    console.out("UserInfo")
    ClaimTable.write(info.claims, to: console)
    return .success
  }
}

/// Claims as an aligned table, times with their date.
enum ClaimTable {
  /// The claims that are times in seconds since 1970.
  static let timeClaims: Set<String> = ["exp", "iat", "nbf", "auth_time", "updated_at"]

  static func write(
    _ claims: [String: JSONValue], to console: Console, indent: String = "  ",
    replacing replaced: [String: String] = [:]
  ) {
    let width = claims.keys.map { TerminalText.field($0).count }.max() ?? 0
    for name in claims.keys.sorted() {
      var value = replaced[name] ?? JSONText.inline(claims[name]!)
      if replaced[name] == nil, timeClaims.contains(name), let seconds = claims[name]?.doubleValue {
        value += "  (\(TimeText.timestamp(Date(timeIntervalSince1970: seconds))))"
      }
      console.out("\(indent)\(TerminalText.field(name).padded(to: width))  \(TerminalText.field(value))")
    }
  }
}
