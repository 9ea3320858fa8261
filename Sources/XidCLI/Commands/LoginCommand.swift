import Foundation
import Xid
import XidLoopback

/// `xid login`: signs in through the browser and the loopback redirect, or with a device code, then
/// saves the profile.
struct LoginCommand {
  let options: LoginOptions
  let profile: ProfileName
  let verbose: Bool
  let context: CLIContext

  private var console: Console { context.console }

  func run() async throws -> ExitCode {
    if let source = options.ssoFrom { return try await signInFromFamily(of: ProfileName(source)) }
    let settings = try resolvedSettings()
    let session: XidSession
    if options.device {
      session = try await signInWithDeviceCode(settings)
    } else {
      session = try await signInWithBrowser(settings)
    }
    try context.profiles.save(settings, as: profile)
    let name = session.claims["name"]?.stringValue.map { " (\(TerminalText.field($0)))" } ?? ""
    console.out("✓ Signed in as \(TerminalText.field(session.subject))\(name) at \(settings.issuer).")
    if let acr = session.claims.authenticationContextClass {
      console.out("  Authentication context (acr): \(TerminalText.field(acr)).")
    }
    if let binding = session.dpopBinding {
      console.out(
        "  Tokens bound to a \(binding.isHardwareBacked ? "hardware" : "software") DPoP key of this machine (\(binding.keyThumbprint))."
      )
    }
    console.out(
      "  Profile \"\(profile.value)\" saved in \(context.profiles.file(for: profile).path); try 'xid whoami\(profile.flag)'."
    )
    return .success
  }

  /// The profile to sign in with: the options, else the environment, else the saved profile.
  ///
  /// - Throws: ``UsageError`` when no issuer or client identifier is known.
  private func resolvedSettings() throws -> Profile {
    let saved = try context.profiles.load(profile)
    let environment = context.environment
    let issuer =
      try options.issuer?.absoluteString
      ?? environment["XID_ISSUER"].flatMap { $0.isEmpty ? nil : $0 }.map {
        try ArgumentParser.issuerURL($0, command: "login").absoluteString
      } ?? saved?.issuer
    let clientId = options.clientId ?? environment["XID_CLIENT_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? saved?.clientId
    guard let issuer else {
      throw UsageError("the first login of a profile needs --issuer URL (or $XID_ISSUER)", command: "login")
    }
    guard let clientId else {
      throw UsageError("the first login of a profile needs --client-id ID (or $XID_CLIENT_ID)", command: "login")
    }
    let dpop = options.dpop || (saved?.usesDPoP ?? false)
    let deviceSSO = options.deviceSSO || (saved?.usesDeviceSSO ?? false)
    return Profile(
      issuer: issuer, clientId: clientId, scopes: options.scopes ?? saved?.scopes ?? Profile.defaultScopes,
      redirectPort: options.redirectPort ?? saved?.redirectPort ?? 0, dpop: dpop ? true : nil,
      deviceSSO: deviceSSO ? true : nil, resources: options.resources?.map(\.absoluteString) ?? saved?.resources)
  }

  // MARK: - From the family

  /// `xid login --sso-from SOURCE --client-id ID`: signs this profile in as `ID` from `SOURCE`'s family
  /// session, through token exchange; never a browser.
  ///
  /// - Throws: ``CommandFailure`` with exit 3 when `SOURCE` has no family session.
  private func signInFromFamily(of source: ProfileName) async throws -> ExitCode {
    guard source != profile else {
      throw UsageError(
        "--sso-from names the profile being signed in; give another with --profile NAME", command: "login")
    }
    guard try context.profiles.load(source)?.usesDeviceSSO == true else { throw Self.noFamilySession(source) }
    guard let sourceProfile = try context.profiles.load(source) else { throw Self.noFamilySession(source) }
    guard let clientId = options.clientId ?? context.environment["XID_CLIENT_ID"].flatMap({ $0.isEmpty ? nil : $0 })
    else {
      throw UsageError("--sso-from needs --client-id ID: the client to sign in as", command: "login")
    }
    let settings = Profile(
      issuer: sourceProfile.issuer, clientId: clientId, scopes: options.scopes ?? Profile.defaultScopes,
      redirectPort: 0, dpop: options.dpop ? true : nil, family: source.value)
    // No user agent: nothing here may open a browser.
    let xid = try context.xid(for: settings, named: profile, verbose: verbose)
    let session: XidSession
    do {
      guard let account = try await xid.familyAccounts().first else { throw Self.noFamilySession(source) }
      session = try await xid.signIn(from: account, scopes: options.scopes)
    } catch let error as XidError where error.code == .sessionExpired {
      throw Self.noFamilySession(source)
    }
    try context.profiles.save(settings, as: profile)
    console.out(
      "✓ Signed in as \(TerminalText.field(session.subject)) with client \(TerminalText.field(clientId)), from the family session of \"\(source.value)\" (no browser)."
    )
    console.out(
      "  Profile \"\(profile.value)\" saved in \(context.profiles.file(for: profile).path); try 'xid status\(profile.flag)'."
    )
    return .success
  }

  /// `SOURCE` has no family session (never signed in with `--device-sso`, signed out, or ended at the
  /// provider): exit 3.
  private static func noFamilySession(_ source: ProfileName) -> CommandFailure {
    CommandFailure(
      .signInRequired,
      "the profile \"\(source.value)\" has no family session. Sign it in first with:\n  xid login\(source.flag) --device-sso"
    )
  }

  // MARK: - Browser

  private func signInWithBrowser(_ settings: Profile) async throws -> XidSession {
    let timeout = options.timeout ?? 300
    let progress = ProgressIndicator(
      console: console, message: "Waiting for you to sign in in the browser…",
      deadline: Date().addingTimeInterval(TimeInterval(timeout)))
    defer { progress.stop() }
    let command = SystemCommands.browserCommand(options.browser, environment: context.environment)
    let console = console
    let environment = context.environment
    let launcher = BrowserLauncher { url in
      // `url` is the listener's start link, which works once: the browser and this line are given it.
      console.err(
        "Opening the sign-in page in your browser. If it does not open, visit (the link works once):\n\n  \(url.absoluteString)\n"
      )
      let program = String(command.split(separator: " ").first ?? "")
      if SystemCommands.find(program, environment: environment) == nil {
        console.err("(No browser command \"\(program)\" found: open the address yourself, or use --browser CMD.)")
      } else {
        do {
          try await SystemCommands.open(url, with: command)
        } catch let error as XidError {
          console.err("(\(error.reason): open the address yourself.)")
        }
      }
      progress.start()
    }
    let agent = LoopbackUserAgent(browser: launcher, timeout: .seconds(timeout))
    let xid = try context.xid(for: settings, named: profile, verbose: verbose, userAgent: agent)
    var signInOptions = SignInOptions()
    signInOptions.authorizationDetails = try Self.authorizationDetails(options.authorizationDetails)
    if let requirement = options.requirement {
      // A signed-in profile steps up: the same user, with what the server asked for (RFC 9470).
      if try await xid.getSession() != nil {
        console.err("Signing the same user in again, with \(requirement) (a step-up).")
        signInOptions.stepUp = requirement
      } else {
        (signInOptions.maxAge, signInOptions.acrValues) = (requirement.maxAge, requirement.acrValues)
      }
    }
    return try await xid.signIn(options: signInOptions)
  }

  /// The authorization details of `--authorization-details` (RFC 9396): `@FILE` reads a file,
  /// anything else is the JSON itself; none without the option.
  ///
  /// - Throws: ``CommandFailure`` for a file that cannot be read, and Xid's
  ///   ``XidError/Code/invalidConfiguration`` for JSON that is not an array of details.
  static func authorizationDetails(_ option: String?) throws -> [AuthorizationDetail] {
    guard let option else { return [] }
    guard option.hasPrefix("@") else { return try AuthorizationDetail.array(parsing: option) }
    let path = String(option.dropFirst())
    guard let text = String(data: try ArgumentFile.read(path, as: "the authorization details"), encoding: .utf8) else {
      throw CommandFailure(.failure, "cannot read the authorization details from \(path): it is not UTF-8 text")
    }
    return try AuthorizationDetail.array(parsing: text)
  }

  // MARK: - Device code

  private func signInWithDeviceCode(_ settings: Profile) async throws -> XidSession {
    let xid = try context.xid(for: settings, named: profile, verbose: verbose)
    let shown = LockedValue<ProgressIndicator?>(nil)
    defer { shown.get()?.stop() }
    let console = console
    let environment = context.environment
    return try await xid.signInWithDeviceCode { authorization in
      DeviceCodePrompt.show(authorization, console: console, environment: environment)
      let progress = ProgressIndicator(
        console: console, message: "Waiting for you to approve the sign-in…", deadline: authorization.expiresAt)
      shown.update { $0 = progress }
      progress.start()
    }
  }
}
