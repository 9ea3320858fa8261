import Foundation
import Xid

/// A parsed command line: the command with its options, and the global options.
package struct Invocation: Sendable, Equatable {
  /// What to do.
  package var command: Command
  /// `--profile NAME`, when given.
  package var profile: String?
  /// `--verbose`: show Xid's log messages.
  package var verbose: Bool

  /// Creates an invocation.
  package init(_ command: Command, profile: String? = nil, verbose: Bool = false) {
    self.command = command
    self.profile = profile
    self.verbose = verbose
  }
}

/// A command of `xid` with its options.
package enum Command: Sendable, Equatable {
  /// `xid --help`, `xid help [COMMAND]` or `xid COMMAND --help`: help for one command, or all.
  case help(command: String?)
  /// `xid demo [--serve]`.
  case demo(serve: Bool)
  /// `xid login`.
  case login(LoginOptions)
  /// `xid status`.
  case status
  /// `xid token [--force-refresh] [--dpop-proof METHOD URL] [--resource URL]`.
  case token(forceRefresh: Bool, dpopProof: DPoPProofTarget? = nil, resource: URL? = nil)
  /// `xid whoami [--json]`.
  case whoami(json: Bool)
  /// `xid request URL …`.
  case request(RequestOptions)
  /// `xid logout [--end-session] [--browser CMD] [--family]`; `family` ends every profile that shares the
  /// profile's family session.
  case logout(endSession: Bool, browser: String?, family: Bool = false)
}

/// The options of `xid login`; `nil` means not given (the environment or the profile decides).
package struct LoginOptions: Sendable, Equatable {
  /// `--issuer`.
  package var issuer: URL?
  /// `--client-id`.
  package var clientId: String?
  /// `--scope`, split on spaces and commas.
  package var scopes: [String]?
  /// `--redirect-port`; 0 picks a free port.
  package var redirectPort: UInt16?
  /// `--device`: the device authorization grant.
  package var device: Bool
  /// `--browser CMD`.
  package var browser: String?
  /// `--timeout`, in seconds.
  package var timeout: Int?
  /// `--dpop`: bind the tokens to a key of this machine (DPoP, RFC 9449); saved in the profile.
  package var dpop: Bool
  /// `--device-sso`: ask for the `device_sso` scope and keep the family record with the profile's state
  /// (OpenID Connect Native SSO); saved in the profile.
  package var deviceSSO: Bool
  /// `--sso-from PROFILE`: sign in as another client from that profile's family session, with no browser.
  package var ssoFrom: String?
  /// `--acr-values "A B"`: the authentication context classes to ask for, in order.
  package var acrValues: [String]?
  /// `--max-age SECONDS`: the longest time since the user's authentication that is accepted.
  package var maxAge: Int?
  /// `--authorization-details @FILE.json` or inline JSON, as given (read when the command runs).
  package var authorizationDetails: String?
  /// `--resource URL`, each time given: the resources to ask tokens for (RFC 8707); saved in the
  /// profile.
  package var resources: [URL]?

  /// What `--acr-values` and `--max-age` ask for, when either is given: a step-up of a signed-in
  /// profile (RFC 9470), or the first sign-in's requirement.
  package var requirement: StepUpRequirement? {
    guard acrValues != nil || maxAge != nil else { return nil }
    return StepUpRequirement(acrValues: acrValues ?? [], maxAge: maxAge.map { .seconds($0) })
  }

  /// The `xid login` that satisfies `requirement`, for `profile`: what `xid request` prints when a
  /// server asks for a step-up.
  static func stepUpCommand(for requirement: StepUpRequirement, profile: ProfileName) -> String {
    var command = "xid login\(profile.flag)"
    if !requirement.acrValues.isEmpty {
      command += " --acr-values " + shellQuoted(requirement.acrValues.joined(separator: " "))
    }
    if let maxAge = requirement.maxAge {
      command += " --max-age \(maxAge.components.seconds)"
    } else if requirement.acrValues.isEmpty {
      command += " --max-age 0"
    }
    return command
  }

  /// `text` in single quotes for a POSIX shell, with any single quote in it closed, escaped and
  /// reopened, and control characters left out (the values come from a server).
  private static func shellQuoted(_ text: String) -> String {
    let printable = String(
      String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
    return "'" + printable.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }

  /// Creates login options; every one is optional.
  package init(
    issuer: URL? = nil, clientId: String? = nil, scopes: [String]? = nil, redirectPort: UInt16? = nil,
    device: Bool = false, browser: String? = nil, timeout: Int? = nil, dpop: Bool = false, deviceSSO: Bool = false,
    ssoFrom: String? = nil
  ) {
    self.deviceSSO = deviceSSO
    self.ssoFrom = ssoFrom
    self.issuer = issuer
    self.clientId = clientId
    self.scopes = scopes
    self.redirectPort = redirectPort
    self.device = device
    self.browser = browser
    self.timeout = timeout
    self.dpop = dpop
  }
}

/// The request of `xid token --dpop-proof METHOD URL`: the proof printed after the token is for it.
package struct DPoPProofTarget: Sendable, Equatable {
  /// The request's method, in upper case.
  package var method: String
  /// The request's URL, exactly as it will be sent.
  package var url: URL

  /// Creates a target.
  package init(method: String, url: URL) {
    self.method = method
    self.url = url
  }
}

/// The options of `xid request`.
package struct RequestOptions: Sendable, Equatable {
  /// The URL to send to.
  package var url: URL
  /// `-X`; `nil` means GET, or POST with a body.
  package var method: String?
  /// `-H` headers, in order.
  package var headers: [Header]
  /// `-d`, as given (`@FILE` and `@-` are read when the command runs).
  package var data: String?
  /// `-i`: print the status line and headers.
  package var include: Bool
  /// `--resource URL`: send the resource's own token (RFC 8707) instead of the session's.
  package var resource: URL?

  /// One `-H 'Name: value'`.
  package struct Header: Sendable, Equatable {
    /// The field name.
    package var name: String
    /// The field value, without surrounding spaces.
    package var value: String

    /// Creates a header.
    package init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  /// Creates request options.
  package init(url: URL, method: String? = nil, headers: [Header] = [], data: String? = nil, include: Bool = false) {
    self.url = url
    self.method = method
    self.headers = headers
    self.data = data
    self.include = include
  }

  /// The method to use: `-X`, else POST with a body and GET without.
  package var effectiveMethod: String { method ?? (data == nil ? "GET" : "POST") }
}

/// A command line that cannot be run as given. The tool prints ``message`` and exits with 2.
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong, in one sentence.
  package let message: String
  /// The command it is about, for the hint `xid COMMAND --help`.
  package let command: String?

  /// Creates a usage error.
  package init(_ message: String, command: String? = nil) {
    self.message = message
    self.command = command
  }

  /// The message and where to find help.
  package var description: String {
    "xid: \(message)\nRun 'xid \(command.map { $0 + " " } ?? "")--help' for usage."
  }
}
