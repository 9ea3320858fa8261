import Foundation

// The second half of parsing: each command's options, checked and typed.
extension ArgumentParser {
  static func command(_ spec: CommandSpec, _ raw: RawArguments) throws -> Command {
    // `token --dpop-proof METHOD URL`: the option's second value is the one positional.
    let expected = spec.positionals.count + (spec.name == "token" && raw.flag("dpop-proof") ? 1 : 0)
    guard raw.positionals.count == expected else {
      let extra = raw.positionals.dropFirst(expected).first.map { "unexpected argument \"\($0.prefix(80))\"" }
      let missing = "missing \(spec.positionals.dropFirst(raw.positionals.count).joined(separator: " "))"
      throw UsageError(raw.positionals.count > expected ? extra! : missing, command: spec.name)
    }
    switch spec.name {
    case "demo": return .demo(serve: raw.flag("serve"))
    case "login": return .login(try login(raw))
    case "status": return .status
    case "token":
      return .token(
        forceRefresh: raw.flag("force-refresh"), dpopProof: try dpopProof(raw),
        resource: try raw.value("resource").map { try resourceURL($0, command: "token") })
    case "whoami": return .whoami(json: raw.flag("json"))
    case "request": return .request(try request(raw))
    case "logout":
      return .logout(
        endSession: raw.flag("end-session"), browser: try browser(raw, command: "logout"), family: raw.flag("family"))
    default: preconditionFailure("the catalog has a command the parser does not know: \(spec.name)")
    }
  }

  private static func login(_ raw: RawArguments) throws -> LoginOptions {
    var options = LoginOptions(
      device: raw.flag("device"), browser: try browser(raw, command: "login"), dpop: raw.flag("dpop"),
      deviceSSO: raw.flag("device-sso"))
    if let issuer = raw.value("issuer") { options.issuer = try issuerURL(issuer, command: "login") }
    if let clientId = raw.value("client-id") {
      guard !clientId.isEmpty else { throw UsageError("--client-id is empty", command: "login") }
      options.clientId = clientId
    }
    if let scopes = raw.options["scope"] {
      let split = scopes.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) }
      guard !split.isEmpty else { throw UsageError("--scope names no scope", command: "login") }
      options.scopes = split
    }
    if let port = raw.value("redirect-port") {
      guard let number = UInt16(port) else {
        throw UsageError(
          "--redirect-port must be a port number from 0 to 65535, not \"\(port.prefix(20))\"", command: "login")
      }
      options.redirectPort = number
    }
    if let timeout = raw.value("timeout") {
      guard let seconds = Int(timeout), seconds > 0, seconds <= 86_400 else {
        throw UsageError("--timeout must be a number of seconds from 1 to 86400", command: "login")
      }
      options.timeout = seconds
    }
    if let acrValues = raw.value("acr-values") {
      let split = acrValues.split(separator: " ").map(String.init)
      guard !split.isEmpty else { throw UsageError("--acr-values names no value", command: "login") }
      options.acrValues = split
    }
    if let maxAge = raw.value("max-age") {
      guard let seconds = Int(maxAge), seconds >= 0, seconds <= 31_536_000 else {
        throw UsageError("--max-age must be a number of seconds from 0 to 31536000", command: "login")
      }
      options.maxAge = seconds
    }
    if let details = raw.value("authorization-details") {
      guard !details.isEmpty else { throw UsageError("--authorization-details is empty", command: "login") }
      options.authorizationDetails = details
    }
    if let resources = raw.options["resource"] {
      options.resources = try resources.map { try resourceURL($0, command: "login") }
    }
    if options.device && options.authorizationDetails != nil {
      throw UsageError("--authorization-details goes with a browser sign-in: drop --device", command: "login")
    }
    if options.device && options.requirement != nil {
      throw UsageError(
        "--acr-values and --max-age ask the browser sign-in for them: drop --device", command: "login")
    }
    if let source = raw.value("sso-from") {
      try ssoFrom(source, options)
      options.ssoFrom = source
    }
    if options.device && (options.browser != nil || options.redirectPort != nil) {
      throw UsageError(
        "--device signs in without a browser or redirect: drop --browser and --redirect-port", command: "login")
    }
    return options
  }

  /// Checks `--sso-from PROFILE`: it needs `--client-id` (the other app's client) and takes nothing that
  /// opens a browser or shows a code, since it never does either.
  private static func ssoFrom(_ source: String, _ options: LoginOptions) throws {
    guard !source.isEmpty else { throw UsageError("--sso-from needs a profile name", command: "login") }
    guard options.clientId != nil else {
      throw UsageError(
        "--sso-from signs in as another client: give its --client-id ID", command: "login")
    }
    let browserOnly = [
      ("--device", options.device), ("--browser", options.browser != nil),
      ("--redirect-port", options.redirectPort != nil), ("--timeout", options.timeout != nil),
      ("--issuer", options.issuer != nil), ("--acr-values", options.acrValues != nil),
      ("--max-age", options.maxAge != nil),
    ].filter(\.1).map(\.0)
    guard browserOnly.isEmpty else {
      throw UsageError(
        "--sso-from signs in from the family session, with no browser and at its issuer: drop "
          + browserOnly.joined(separator: " and "), command: "login")
    }
  }

  /// An issuer or request URL: absolute, `http` or `https`, with a host.
  static func issuerURL(_ text: String, command: String?) throws -> URL {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
      url.host?.isEmpty == false
    else {
      throw UsageError("\"\(text.prefix(200))\" is not an http(s) URL", command: command)
    }
    return url
  }

  /// `--dpop-proof METHOD URL` of `xid token`.
  private static func dpopProof(_ raw: RawArguments) throws -> DPoPProofTarget? {
    guard let method = raw.value("dpop-proof") else { return nil }
    guard !method.isEmpty, method.unicodeScalars.allSatisfy(httpToken.contains) else {
      throw UsageError(
        "--dpop-proof needs an HTTP method and a URL, such as GET https://api.example.com/me", command: "token")
    }
    let url = try issuerURL(raw.positionals[0], command: "token")
    return DPoPProofTarget(method: method.uppercased(), url: url)
  }

  /// The characters of an HTTP method (RFC 9110 token).
  static let httpToken = CharacterSet(
    charactersIn: "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

  private static func browser(_ raw: RawArguments, command: String) throws -> String? {
    guard let browser = raw.value("browser") else { return nil }
    guard !browser.trimmingCharacters(in: .whitespaces).isEmpty else {
      throw UsageError("--browser is empty", command: command)
    }
    return browser
  }

  /// A `--resource` value: an absolute URI without a fragment (RFC 8707 §2).
  static func resourceURL(_ text: String, command: String) throws -> URL {
    guard let url = URL(string: text), url.scheme != nil, url.fragment == nil, url.host != nil || url.scheme == "urn"
    else {
      throw UsageError(
        "--resource needs an absolute URI without a fragment, such as https://api.example.com/, not \"\(text.prefix(80))\"",
        command: command)
    }
    return url
  }

  private static func request(_ raw: RawArguments) throws -> RequestOptions {
    var options = RequestOptions(
      url: try issuerURL(raw.positionals[0], command: "request"), data: raw.value("data"), include: raw.flag("include"))
    options.resource = try raw.value("resource").map { try resourceURL($0, command: "request") }
    if let method = raw.value("request") {
      let token = CharacterSet(
        charactersIn: "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
      guard !method.isEmpty, method.unicodeScalars.allSatisfy(token.contains) else {
        throw UsageError(
          "-X needs an HTTP method such as GET or POST, not \"\(method.prefix(20))\"", command: "request")
      }
      options.method = method.uppercased()
    }
    for line in raw.options["header"] ?? [] {
      guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
        throw UsageError("-H needs 'Name: value', not \"\(line.prefix(80))\"", command: "request")
      }
      let name = line[..<colon].trimmingCharacters(in: .whitespaces)
      guard !name.contains(" ") else {
        throw UsageError("the header name \"\(name.prefix(80))\" contains a space", command: "request")
      }
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      options.headers.append(RequestOptions.Header(name: name, value: value))
    }
    return options
  }
}
