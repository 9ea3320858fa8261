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
      redirectPort: saved?.redirectPort ?? 0, dpop: saved?.dpop, deviceSSO: saved?.deviceSSO, family: saved?.family,
      resources: saved?.resources)
  }

  /// An ``Xid`` for `profile`, storing tokens in the state directory under the profile's account.
  ///
  /// - Parameter resource: a resource for this command (`--resource URL`) beside the profile's, with
  ///   the URLs that carry its token.
  func xid(
    for profile: Profile, named name: ProfileName, verbose: Bool, userAgent: (any AuthorizationUserAgent)? = nil,
    resource: ProtectedResource? = nil
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
    var resources = (profile.resources ?? []).compactMap { URL(string: $0).map { ProtectedResource($0) } }
    if let resource {
      resources.removeAll { $0.parameter == resource.parameter }
      resources.append(resource)
    }
    configuration.identity.resources = resources
    // A profile that keeps a family session (--device-sso) and those signed in from it (--sso-from)
    // are one app family, named after the first; its records sit in the state directory beside the
    // profiles' tokens, under the family's lock.
    if let root = profile.family ?? (profile.usesDeviceSSO ? name.value : nil) {
      configuration.identity.family = AppFamily(name: Self.familyName(of: root))
    }
    configuration.parts.storage = try FileTokenStorage(directory: stateDirectory)
    return try Xid(configuration: configuration)
  }

  /// The app family of the profile `root` (the one signed in with `--device-sso`).
  static func familyName(of root: String) -> String { "xid-cli." + root }

  /// The saved profiles that were signed in from `root`'s family session (`--sso-from root`).
  func profilesSignedIn(from root: ProfileName) throws -> [(ProfileName, Profile)] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: profiles.directory.path)) ?? []
    return try names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().compactMap { file in
      let name = ProfileName(String(file.dropLast(".json".count)))
      guard let profile = try profiles.load(name), profile.family == root.value else { return nil }
      return (name, profile)
    }
  }
}
