/// The help `xid --help` and `xid COMMAND --help` print.
enum HelpText {
  /// The overview: what the tool is, its commands, environment and exit codes.
  static var overview: String {
    let width = CommandCatalog.commands.map(\.name.count).max() ?? 0
    let commands = CommandCatalog.commands.map { "  \($0.name.padded(to: width))  \($0.summary)" }
    return """
      xid: sign in to an OpenID Connect provider from the command line, and use its tokens.

      Usage: xid <command> [options]

      Commands:
      \(commands.joined(separator: "\n"))

      \(options("Global options", CommandCatalog.globalOptions))

      Start with 'xid demo'. Then, with your provider:
        xid login --issuer https://accounts.example.com --client-id my-cli
        curl -H "Authorization: Bearer $(xid token)" https://api.example.com/me

      \(footer)

      Run 'xid <command> --help' for a command's options.
      """
  }

  /// Help for one command.
  static func command(_ spec: CommandSpec) -> String {
    let positionals = spec.positionals.map { " " + $0 }.joined()
    let options = spec.options.isEmpty ? "" : " [options]"
    var sections = ["xid \(spec.name): \(spec.summary).", "Usage: xid \(spec.name)\(positionals)\(options)"]
    if !spec.options.isEmpty { sections.append(Self.options("Options", spec.options)) }
    sections.append(Self.options("Global options", CommandCatalog.globalOptions))
    sections.append(spec.discussion)
    sections.append(footer)
    return sections.joined(separator: "\n\n")
  }

  /// The environment variables and exit codes, which every command shares.
  static let footer = """
    Environment:
      XID_PROFILE    the profile when --profile is not given
      XID_ISSUER     the issuer, instead of the profile's
      XID_CLIENT_ID  the client identifier, instead of the profile's
      XID_STATE_DIR  where tokens and profiles live (default $XDG_STATE_HOME/xid or ~/.local/state/xid)
      BROWSER        the command that opens the sign-in page

    Exit codes:
      0  success
      1  failure
      2  usage error (a wrong command, option or value)
      3  sign-in required (not signed in, or the session expired: run 'xid login')
      4  network failure (the provider could not be reached, or failed; a stored session is kept)
      5  step-up required (the server wants a stronger or more recent sign-in: run the 'xid login' shown)
    """

  private static func options(_ title: String, _ options: [OptionSpec]) -> String {
    let width = options.map(\.synopsis.count).max() ?? 0
    let lines = options.map { "  \($0.synopsis.padded(to: width))  \($0.summary)" }
    return "\(title):\n" + lines.joined(separator: "\n")
  }
}

extension String {
  /// The string followed by spaces up to `width` characters.
  func padded(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
