import Foundation
import Xid

/// What a command runs with: the environment, the terminal, and where state lives.
struct CLIContext: Sendable {
  /// The process environment (or a test's).
  let environment: [String: String]
  /// Standard output and error.
  let console: Console
  /// The directory relative paths are resolved against.
  let currentDirectory: URL

  /// The running process's environment, terminal and working directory.
  static func live() -> CLIContext {
    CLIContext(
      environment: ProcessInfo.processInfo.environment, console: .standard(),
      currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
  }

  /// Where tokens and profiles live: `$XID_STATE_DIR`, else ``FileTokenStorage``'s default
  /// (`$XDG_STATE_HOME/xid` or `~/.local/state/xid`).
  var stateDirectory: URL {
    if let directory = environment["XID_STATE_DIR"], !directory.isEmpty {
      return URL(fileURLWithPath: directory, isDirectory: true, relativeTo: currentDirectory).standardizedFileURL
    }
    return FileTokenStorage.defaultDirectory(environment: environment)
  }

  /// The saved profiles.
  var profiles: ProfileStore { ProfileStore(stateDirectory: stateDirectory) }

  /// The profile to use: `--profile`, else `$XID_PROFILE`, else `default`.
  ///
  /// - Throws: ``UsageError`` for a `$XID_PROFILE` that is not a valid name.
  func profileName(for invocation: Invocation) throws -> ProfileName {
    if let name = invocation.profile { return ProfileName(name) }
    if let name = environment["XID_PROFILE"], !name.isEmpty {
      do {
        try ArgumentParser.validateProfileName(name, command: nil)
      } catch let error as UsageError {
        throw UsageError("XID_PROFILE: \(error.message)")
      }
      return ProfileName(name)
    }
    return .default
  }

  /// The profile as saved, with `$XID_ISSUER` and `$XID_CLIENT_ID` taking precedence.
  ///
  /// - Throws: ``CommandFailure`` with ``ExitCode/signInRequired`` when there is neither a saved
  ///   profile nor an issuer and client in the environment.
  func resolvedProfile(_ name: ProfileName) throws -> Profile {
    let saved = try profiles.load(name)
    let issuer = try environment["XID_ISSUER"].flatMap { $0.isEmpty ? nil : $0 }.map {
      try ArgumentParser.issuerURL($0, command: nil).absoluteString
    }
    let clientId = environment["XID_CLIENT_ID"].flatMap { $0.isEmpty ? nil : $0 }
    guard let issuer = issuer ?? saved?.issuer, let clientId = clientId ?? saved?.clientId else {
      throw CommandFailure(
        .signInRequired,
        "not signed in: there is no profile \"\(name.value)\" yet. Sign in first with:\n  xid login\(name.flag) --issuer URL --client-id ID"
      )
    }
    return Profile(
      issuer: issuer, clientId: clientId, scopes: saved?.scopes ?? Profile.defaultScopes,
      redirectPort: saved?.redirectPort ?? 0, dpop: saved?.dpop, deviceSSO: saved?.deviceSSO, family: saved?.family)
  }

  /// An ``Xid`` for `profile`, storing tokens in the state directory under the profile's account.
  func xid(
    for profile: Profile, named name: ProfileName, verbose: Bool, userAgent: (any AuthorizationUserAgent)? = nil
  ) throws -> Xid {
    guard let issuer = URL(string: profile.issuer) else {
      throw CommandFailure(.failure, "the profile's issuer \"\(profile.issuer)\" is not a URL")
    }
    var configuration = XidConfiguration(
      identity: ClientIdentity(
        issuer: issuer, clientId: profile.clientId, redirectUri: profile.redirectUri, scopes: profile.scopes,
        account: name.value),
      parts: SessionParts(
        transport: URLSessionTransport(), userAgent: userAgent,
        logger: ConsoleLogger(console: console, minimumLevel: verbose ? .debug : .error)))
    configuration.usesDPoP = profile.usesDPoP
    configuration.parts.storage = try FileTokenStorage(directory: stateDirectory)
    return try Xid(configuration: configuration)
  }
}
