/// The commands of `xid` and the global options, as help shows them.
package enum CommandCatalog {
  /// Options every command accepts, before or after the command's name.
  package static let globalOptions: [OptionSpec] = [
    OptionSpec(
      "profile", value: "NAME", "The profile to use (or $XID_PROFILE; \"default\"): one provider, client and account"),
    OptionSpec("verbose", short: "v", "Show Xid's log messages on standard error (they never contain a token)"),
    OptionSpec("help", short: "h", "Show help"),
  ]

  /// Every command, in the order help lists them.
  package static let commands: [CommandSpec] = [demo, login, status, token, whoami, request, logout]

  /// The command named `name`.
  package static func command(named name: String) -> CommandSpec? { commands.first { $0.name == name } }

  static let demo = CommandSpec(
    name: "demo", summary: "Walk through a whole session with a test provider on this machine",
    options: [
      OptionSpec("serve", "Instead, keep the test provider running for other xid commands to use, until Ctrl-C")
    ],
    discussion: """
      Starts Xid's test provider on 127.0.0.1 inside this process and shows, step by step, a sign-in
      through the loopback redirect, the ID token's claims, a refresh, an authorized call to the
      provider's protected resource, UserInfo and sign-out. Needs no network and no account; tokens
      live in a temporary directory that is deleted at the end, and none is ever printed.

      With --serve, the test provider stays up on 127.0.0.1 and prints how to sign in to it with
      `xid login`, in a real browser or with --device; its user, alice, approves every request.
      """)

  static let login = CommandSpec(
    name: "login", summary: "Sign in, and remember the provider in a profile",
    options: [
      OptionSpec("issuer", value: "URL", "The provider's issuer (or $XID_ISSUER)"),
      OptionSpec("client-id", value: "ID", "The client identifier registered at the provider (or $XID_CLIENT_ID)"),
      OptionSpec(
        "scope", value: "SCOPES", repeatable: true,
        "Scopes to request, separated by spaces or given several times (default: openid profile email)"),
      OptionSpec(
        "redirect-port", value: "PORT",
        "The port of the redirect URI http://127.0.0.1:PORT/callback (default 0: any free port)"),
      OptionSpec("device", "Sign in with a code shown here, on another device (the device authorization grant)"),
      OptionSpec(
        "browser", value: "CMD",
        "Run CMD with the sign-in URL as its last argument instead of the browser (or $BROWSER)"),
      OptionSpec("timeout", value: "SECONDS", "How long to wait for the browser sign-in (default 300)"),
      OptionSpec(
        "dpop",
        "Bind the tokens to a key of this machine (DPoP, RFC 9449); the APIs you call must accept Authorization: DPoP"
      ),
      OptionSpec(
        "device-sso",
        "Ask for device_sso (OpenID Connect Native SSO) and keep the family session with this state, for --sso-from"),
      OptionSpec(
        "sso-from", value: "PROFILE",
        "Sign in as --client-id ID from PROFILE's family session, with no browser (exits 3 when it is gone)"),
      OptionSpec(
        "acr-values", value: "\"A B\"",
        "Ask for these authentication context classes; a signed-in profile is signed in again (a step-up)"),
      OptionSpec(
        "max-age", value: "SECONDS",
        "Accept only an authentication at most SECONDS old (0: sign in now); a signed-in profile steps up"),
      OptionSpec(
        "authorization-details", value: "@FILE.json|JSON",
        "Ask for exactly this authorization (RFC 9396): a JSON array of objects with a \"type\""),
      OptionSpec(
        "resource", value: "URL", repeatable: true,
        "Ask for tokens meant for this API alone (RFC 8707); saved in the profile, for token and request --resource"),
    ],
    discussion: """
      Opens the provider's sign-in page in the browser and receives the redirect on 127.0.0.1
      (RFC 8252); with --device, shows a code to enter on another device instead. The issuer, client,
      scopes, redirect port and --dpop are saved in the profile, so later commands, and the next login,
      need no flags. With --dpop, a stolen token is useless without this machine's key (kept with the
      tokens, mode 0600), and offline_access may be requested.

      An app family (docs/app-family.md): `xid login --device-sso` also keeps the provider's device
      secret and ID token as the family session; then `xid login --sso-from PROFILE --client-id ID
      --profile NAME` signs NAME in as the other client ID from PROFILE's family session through token
      exchange, with no browser. When that family session is gone it exits 3 and opens nothing: sign
      PROFILE in again.

      A step-up (RFC 9470, docs/step-up.md): when `xid request` exits 5, the server wants a stronger
      or more recent sign-in, and standard error names the command, such as `xid login --acr-values
      "urn:example:mfa" --max-age 300`. For a signed-in profile, --acr-values and --max-age sign the
      same user in again, and the new ID token must show one of the acr values asked for, an
      auth_time within max-age and the same sub; otherwise the session is kept as it was.

      Exactly what a call needs (docs/step-up.md): --authorization-details asks for one payment, say,
      as RFC 9396 authorization details (from a file with @FILE.json), and `xid status` shows the types
      granted; --resource URL asks for tokens meant for that API, which `xid token --resource URL` and
      `xid request URL --resource URL` then use.
      """)

  static let status = CommandSpec(
    name: "status", summary: "Show whether you are signed in, as whom, with which scopes, until when",
    discussion: """
      Reads the stored session only; never the network, never a token. Exits 3 when signed out.
      A profile signed in with --sso-from shows the profile it came from as `family: PROFILE`.
      """)

  static let token = CommandSpec(
    name: "token", summary: "Print a valid access token, refreshed when needed, for $(xid token)",
    options: [
      OptionSpec("force-refresh", "Refresh the access token even if it is still valid"),
      OptionSpec(
        "dpop-proof", value: "METHOD URL",
        "For a DPoP session: print the token, then on a second line a DPoP proof for METHOD URL"),
      OptionSpec(
        "resource", value: "URL",
        "Print a token meant for this resource alone (RFC 8707), issued from the session's refresh token"),
    ],
    discussion: """
      The only command that prints a token: the access token alone, on standard output. For example:
        curl -H "Authorization: Bearer $(xid token)" https://api.example.com/me
      A session signed in with --dpop needs a proof for each request, made for its method and URL:
        { read -r token; read -r proof; } < <(xid token --dpop-proof GET https://api.example.com/me)
        curl -H "Authorization: DPoP $token" -H "DPoP: $proof" https://api.example.com/me
      """)

  static let whoami = CommandSpec(
    name: "whoami", summary: "Show the ID token's claims and the provider's UserInfo",
    options: [OptionSpec("json", "Print one JSON object: {\"id_token_claims\": …, \"userinfo\": …}")],
    discussion: "Calls the provider's UserInfo endpoint with the access token (refreshed when needed).")

  static let request = CommandSpec(
    name: "request", summary: "Send an authorized HTTP request and print the response body, like curl",
    positionals: ["URL"],
    options: [
      OptionSpec("request", short: "X", value: "METHOD", "The method (default GET, or POST with --data)"),
      OptionSpec("header", short: "H", value: "'NAME: VALUE'", repeatable: true, "Add a header; may be repeated"),
      OptionSpec(
        "data", short: "d", value: "DATA",
        "Send DATA as the body (@FILE reads a file, @- standard input); form-encoded unless -H sets Content-Type"),
      OptionSpec("include", short: "i", "Print the status line and headers before the body"),
      OptionSpec(
        "resource", value: "URL", "Send a token meant for this resource alone (RFC 8707) instead of the session's"),
    ],
    discussion: """
      Adds the access token (Authorization: Bearer …, or for a session signed in with --dpop,
      Authorization: DPoP … and a DPoP proof), and when the server answers 401 invalid_token,
      refreshes it and sends the request once more (and once with a server's new DPoP nonce). The URL
      must be https, or http to 127.0.0.1.
      Exits 1 when the server answers with a status of 400 or more (the body is still printed), and 5
      when it asks for a step-up (RFC 9470 insufficient_user_authentication): standard error then says
      which acr_values and max_age it wants, and the `xid login` that satisfies them.
      """)

  static let logout = CommandSpec(
    name: "logout", summary: "Sign out: forget the tokens and revoke the refresh token",
    options: [
      OptionSpec("end-session", "Also end the session at the provider, in the browser"),
      OptionSpec("browser", value: "CMD", "Run CMD with the end-session URL instead of the browser (or $BROWSER)"),
      OptionSpec(
        "family",
        "End the family session too: every profile signed in from it, and revoke the device secret"),
    ],
    discussion: """
      Deletes the local session first, whatever the network does, then revokes the refresh token at the
      provider and says what became of it: revoked, not revocable (the provider has no revocation
      endpoint, for one) or failed; in the last two cases it may stay valid until it expires. The
      profile's settings stay, so `xid login` signs in again with no flags.
      With --family, the family session of a `--device-sso` profile ends as well: its record is
      deleted, the device secret revoked, and every profile that shares it is signed out.
      """)
}
