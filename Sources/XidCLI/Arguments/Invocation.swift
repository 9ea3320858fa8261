import Foundation

/// A parsed command line: the command with its options, and the global options.
public struct Invocation: Sendable, Equatable {
  /// What to do.
  public var command: Command
  /// `--profile NAME`, when given.
  public var profile: String?
  /// `--verbose`: show Xid's log messages.
  public var verbose: Bool

  /// Creates an invocation.
  public init(_ command: Command, profile: String? = nil, verbose: Bool = false) {
    self.command = command
    self.profile = profile
    self.verbose = verbose
  }
}

/// A command of `xid` with its options.
public enum Command: Sendable, Equatable {
  /// `xid --help`, `xid help [COMMAND]` or `xid COMMAND --help`: help for one command, or all.
  case help(command: String?)
  /// `xid demo [--serve]`.
  case demo(serve: Bool)
  /// `xid login`.
  case login(LoginOptions)
  /// `xid status`.
  case status
  /// `xid token [--force-refresh] [--dpop-proof METHOD URL]`.
  case token(forceRefresh: Bool, dpopProof: DPoPProofTarget? = nil)
  /// `xid whoami [--json]`.
  case whoami(json: Bool)
  /// `xid request URL …`.
  case request(RequestOptions)
  /// `xid logout [--end-session] [--browser CMD]`.
  case logout(endSession: Bool, browser: String?)
}

/// The options of `xid login`; `nil` means not given (the environment or the profile decides).
public struct LoginOptions: Sendable, Equatable {
  /// `--issuer`.
  public var issuer: URL?
  /// `--client-id`.
  public var clientId: String?
  /// `--scope`, split on spaces and commas.
  public var scopes: [String]?
  /// `--redirect-port`; 0 picks a free port.
  public var redirectPort: UInt16?
  /// `--device`: the device authorization grant.
  public var device: Bool
  /// `--browser CMD`.
  public var browser: String?
  /// `--timeout`, in seconds.
  public var timeout: Int?
  /// `--dpop`: bind the tokens to a key of this machine (DPoP, RFC 9449); saved in the profile.
  public var dpop: Bool

  /// Creates login options; every one is optional.
  public init(
    issuer: URL? = nil, clientId: String? = nil, scopes: [String]? = nil, redirectPort: UInt16? = nil,
    device: Bool = false, browser: String? = nil, timeout: Int? = nil, dpop: Bool = false
  ) {
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
public struct DPoPProofTarget: Sendable, Equatable {
  /// The request's method, in upper case.
  public var method: String
  /// The request's URL, exactly as it will be sent.
  public var url: URL

  /// Creates a target.
  public init(method: String, url: URL) {
    self.method = method
    self.url = url
  }
}

/// The options of `xid request`.
public struct RequestOptions: Sendable, Equatable {
  /// The URL to send to.
  public var url: URL
  /// `-X`; `nil` means GET, or POST with a body.
  public var method: String?
  /// `-H` headers, in order.
  public var headers: [Header]
  /// `-d`, as given (`@FILE` and `@-` are read when the command runs).
  public var data: String?
  /// `-i`: print the status line and headers.
  public var include: Bool

  /// One `-H 'Name: value'`.
  public struct Header: Sendable, Equatable {
    /// The field name.
    public var name: String
    /// The field value, without surrounding spaces.
    public var value: String

    /// Creates a header.
    public init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  /// Creates request options.
  public init(url: URL, method: String? = nil, headers: [Header] = [], data: String? = nil, include: Bool = false) {
    self.url = url
    self.method = method
    self.headers = headers
    self.data = data
    self.include = include
  }

  /// The method to use: `-X`, else POST with a body and GET without.
  public var effectiveMethod: String { method ?? (data == nil ? "GET" : "POST") }
}

/// A command line that cannot be run as given. The tool prints ``message`` and exits with 2.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong, in one sentence.
  public let message: String
  /// The command it is about, for the hint `xid COMMAND --help`.
  public let command: String?

  /// Creates a usage error.
  public init(_ message: String, command: String? = nil) {
    self.message = message
    self.command = command
  }

  /// The message and where to find help.
  public var description: String {
    "xid: \(message)\nRun 'xid \(command.map { $0 + " " } ?? "")--help' for usage."
  }
}
