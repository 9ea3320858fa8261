import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// The built `xid`, run as a user would, against the test provider served over loopback from this
/// process.
@Suite(.workerProcessesOneAtATime)
struct BinaryTests {
  @Test func theDemoWalksThroughASessionAndPrintsNoToken() async throws {
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let run = try await xid.run(["demo"])
    #expect(run.exitCode == 0, "\(run)")
    for section in [
      "1. The provider", "2. Sign-in", "listener  200", "3. The ID token's claims", "sub        alice", "4. Refresh",
      "refreshes: 1", "5. An authorized request", "HTTP 200", "hello from the protected resource", "6. DPoP",
      "token_type DPoP", "✓ the token is bound to the key", "refused: HTTP 401", "7. UserInfo", "alice@example.com",
      "8. An app family", "signs in from it by token", "exchange, no browser", "device secret revoked",
      "app 2 ends its session at its next refresh: sessionExpired", "9. Sign-out",
      "getAccessToken() throws signInRequired", "Done in",
    ] {
      #expect(run.stdout.contains(section), "missing \"\(section)\" in\n\(run)")
    }
    #expect(run.stderr.isEmpty, "\(run)")
    // The demo's tokens died with its temporary directory; none looks like one in the output either:
    // no JWT, and no run of 32 or more base64url characters (the provider's tokens have 43).
    let output = run.stdout + run.stderr
    #expect(!output.contains("eyJ"))
    #expect(output.firstMatch(of: /[A-Za-z0-9_\-]{32,}/) == nil, "\(run)")
  }

  @Test func aWholeSessionThroughTheCommands() async throws {
    let provider = try await TestProvider.startLoopback()
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let browser = try ScriptedBrowser(in: xid.home)
    let issuer = provider.issuer.absoluteString
    var runs: [XidBinary.Run] = []
    var tokenOutputs: [String] = []
    var secrets = Set<String>()
    func run(_ arguments: [String]) async throws -> XidBinary.Run {
      let result = try await xid.run(arguments)
      secrets.formUnion(xid.storedTokens())
      if arguments.first == "token" {
        // Its standard output is the one place a token may appear.
        tokenOutputs.append(result.stdout)
        runs.append(XidBinary.Run(arguments: arguments, exitCode: result.exitCode, stdout: "", stderr: result.stderr))
      } else {
        runs.append(result)
      }
      return result
    }

    async let signingIn = xid.run([
      "login", "--issuer", issuer, "--client-id", "xid-example", "--browser", browser.script.path,
    ])
    try await browser.signIn()
    let login = try await signingIn
    secrets.formUnion(xid.storedTokens())
    runs.append(login)
    #expect(login.exitCode == 0, "\(login)")
    #expect(login.stdout.contains("Signed in as alice"))
    #expect(login.stderr.contains("Waiting for you to sign in"))
    let profileFile = xid.stateDirectory.appendingPathComponent("profiles/default.json")
    let attributes = try FileManager.default.attributesOfItem(atPath: profileFile.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    #expect(try String(contentsOf: profileFile, encoding: .utf8).contains(#""issuer" : "\#(issuer)""#))

    let status = try await run(["status"])
    #expect(status.exitCode == 0, "\(status)")
    #expect(status.stdout.contains("yes, as alice"))
    #expect(status.stdout.contains("openid profile email"))

    let token = try await run(["token"])
    #expect(token.exitCode == 0, "\(token)")
    let accessToken = token.stdout.trimmingCharacters(in: .newlines)
    #expect(token.stdout == accessToken + "\n" && !accessToken.isEmpty && token.stderr.isEmpty)
    let direct = try await URLSessionTransport().send(
      HTTPRequest(url: provider.url(for: .resource), headers: ["Authorization": "Bearer \(accessToken)"]))
    #expect(direct.status == 200)

    let whoami = try await run(["whoami", "--json"])
    #expect(whoami.exitCode == 0, "\(whoami)")
    let document = try JSONValue(parsing: whoami.stdout)
    #expect(document["id_token_claims"]?["sub"]?.stringValue == "alice")
    #expect(document["userinfo"]?["email"]?.stringValue == "alice@example.com")

    let request = try await run(["request", provider.url(for: .resource).absoluteString])
    #expect(request.exitCode == 0, "\(request)")
    #expect(request.stdout.contains("hello from the protected resource"))

    let refreshed = try await run(["token", "--force-refresh"])
    #expect(refreshed.exitCode == 0 && refreshed.stdout != token.stdout, "\(refreshed)")
    #expect(await provider.counters.refreshes == 1)

    let logout = try await run(["logout", "--end-session", "--browser", browser.script.path])
    #expect(logout.exitCode == 0, "\(logout)")
    #expect(await provider.counters.revocations == 1)
    let endSession = try await browser.nextURL()
    #expect(endSession.path == provider.url(for: .endSession).path)
    #expect(endSession.queryParameters.contains { $0.0 == "id_token_hint" })
    #expect(logout.stderr.contains("id_token_hint=…"))
    let afterLogout = try await run(["token"])
    #expect(afterLogout.exitCode == 3, "\(afterLogout)")
    #expect(afterLogout.stdout.isEmpty && afterLogout.stderr.contains("xid login"))
    #expect(try await run(["status"]).exitCode == 3)

    #expect(secrets.count >= 5, "the state directory held the tokens of the sign-in and of the refresh")
    for run in runs {
      for secret in secrets {
        #expect(!(run.stdout + run.stderr).contains(secret), "a token leaked in the output of \(run.arguments)")
      }
    }
    let printed = Set(tokenOutputs.map { $0.trimmingCharacters(in: .newlines) }.filter { !$0.isEmpty })
    let printedOnlyStoredAccessTokens = printed.count == 2 && printed.isSubset(of: secrets)
    #expect(printedOnlyStoredAccessTokens, "xid token printed something other than the stored access tokens")
    await provider.stopLoopback()
  }

  /// What became of the refresh token at sign-out: revoked, not revocable (no revocation endpoint),
  /// or failed (the endpoint answered 503).
  @Test(arguments: [
    (true, false, "Refresh token: revoked by the provider."),
    (false, false, "Refresh token: not revocable: the provider advertises no revocation_endpoint"),
    (true, true, "Refresh token: revocation failed: "),
  ])
  func logoutSaysWhatBecameOfTheRefreshToken(supportsRevocation: Bool, revocationFails: Bool, line: String)
    async throws
  {
    var configuration = TestProvider.Configuration()
    configuration.supportsRevocation = supportsRevocation
    let provider = try await TestProvider.startLoopback(configuration: configuration)
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let browser = try ScriptedBrowser(in: xid.home)
    async let signingIn = xid.run([
      "login", "--issuer", provider.issuer.absoluteString, "--client-id", "xid-example", "--browser",
      browser.script.path,
    ])
    try await browser.signIn()
    #expect(try await signingIn.exitCode == 0)
    if revocationFails { await provider.injectFault(.respond(status: 503), at: .revocation) }
    let logout = try await xid.run(["logout"])
    #expect(logout.exitCode == 0, "\(logout)")
    #expect(logout.stdout.contains("✓ Signed out alice"), "\(logout)")
    #expect(logout.stdout.contains(line), "\(logout)")
    #expect(await provider.counters.revocations == (supportsRevocation ? 1 : 0))
    #expect(try await xid.run(["status"]).exitCode == 3)
    await provider.stopLoopback()
  }

  /// `xid login --device-sso`, then `xid login --sso-from` as another client with no browser, `xid
  /// status` naming the family, and `xid logout --family` ending both profiles.
  @Test func aSecondClientSignsInFromTheFamilySessionAndTheFamilySignsOutTogether() async throws {
    var configuration = TestProvider.Configuration()
    var example = TestClient.example
    example.allowsTokenExchange = true
    configuration.clients = [
      example, TestClient(id: "notes-app", redirectURIs: example.redirectURIs, allowsTokenExchange: true),
    ]
    let provider = try await TestProvider.startLoopback(configuration: configuration)
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let browser = try ScriptedBrowser(in: xid.home)
    async let signingIn = xid.run([
      "login", "--device-sso", "--issuer", provider.issuer.absoluteString, "--client-id", "xid-example",
      "--browser", browser.script.path,
    ])
    try await browser.signIn()
    let login = try await signingIn
    #expect(login.exitCode == 0, "\(login)")
    let authorizations = await provider.counters.authorizationRequests

    let sibling = try await xid.run([
      "login", "--sso-from", "default", "--client-id", "notes-app", "--profile", "notes",
    ])
    #expect(sibling.exitCode == 0, "\(sibling)")
    #expect(sibling.stdout.contains("from the family session of \"default\""))
    #expect(await provider.counters.authorizationRequests == authorizations)
    #expect(await provider.counters.tokenExchanges == 1)
    let status = try await xid.run(["status", "--profile", "notes"])
    #expect(status.stdout.contains(/Family +default\n/), "\(status)")
    #expect(status.stdout.contains("yes, as alice"), "\(status)")

    let logout = try await xid.run(["logout", "--family"])
    #expect(logout.exitCode == 0, "\(logout)")
    #expect(logout.stdout.contains("device secret revoked"), "\(logout)")
    #expect(logout.stdout.contains("Signed out the profile \"notes\""), "\(logout)")
    #expect(try await xid.run(["token", "--profile", "notes"]).exitCode == 3)
    // The family session is gone: signing in from it again exits 3, with no browser.
    let again = try await xid.run(["login", "--sso-from", "default", "--client-id", "notes-app", "--profile", "notes"])
    #expect(again.exitCode == 3, "\(again)")
    for secret in xid.storedTokens() + (await provider.issuedSecrets) where secret.count >= 8 {
      for run in [login, sibling, status, logout, again] { #expect(!(run.stdout + run.stderr).contains(secret)) }
    }
    await provider.stopLoopback()
  }

  /// `xid request` exits 5 on a step-up challenge and names the login that satisfies it; that login
  /// signs the same user in again, and `xid status` shows the new acr.
  @Test func aStepUpChallengeExitsFiveAndTheLoginItNamesSatisfiesIt() async throws {
    var configuration = TestProvider.Configuration()
    configuration.acrValuesSupported = ["urn:xid:test:acr:password", "urn:xid:test:acr:mfa"]
    let provider = try await TestProvider.startLoopback(configuration: configuration)
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let browser = try ScriptedBrowser(in: xid.home)
    async let signingIn = xid.run([
      "login", "--issuer", provider.issuer.absoluteString, "--client-id", "xid-example", "--browser",
      browser.script.path,
    ])
    try await browser.signIn()
    #expect(try await signingIn.exitCode == 0)
    let challenge = #"Bearer error="insufficient_user_authentication", acr_values="urn:xid:test:acr:mfa", max_age=60"#
    await provider.injectFault(.respond(status: 401, headers: ["WWW-Authenticate": challenge]), at: .resource)

    let refused = try await xid.run(["request", provider.url(for: .resource).absoluteString])
    #expect(refused.exitCode == 5, "\(refused)")
    #expect(refused.stderr.contains(#"acr_values "urn:xid:test:acr:mfa", max_age 60 s"#), "\(refused)")
    let command = "xid login --acr-values 'urn:xid:test:acr:mfa' --max-age 60"
    #expect(refused.stderr.contains(command), "\(refused)")
    #expect(!refused.stderr.contains("SignInOptions"), "\(refused)")

    async let steppingUp = xid.run([
      "login", "--acr-values", "urn:xid:test:acr:mfa", "--max-age", "60", "--browser", browser.script.path,
    ])
    try await browser.signIn()
    let stepUp = try await steppingUp
    #expect(stepUp.exitCode == 0, "\(stepUp)")
    #expect(stepUp.stderr.contains("a step-up"), "\(stepUp)")
    let status = try await xid.run(["status"])
    #expect(status.stdout.contains(/Authentication +acr urn:xid:test:acr:mfa\n/), "\(status)")
    #expect(try await xid.run(["request", provider.url(for: .resource).absoluteString]).exitCode == 0)
    await provider.stopLoopback()
  }

  /// `xid login --authorization-details @FILE --resource URL` asks for both; `xid status` shows the
  /// granted types, `xid token --resource URL` prints the resource's own token and `xid request URL
  /// --resource URL` sends it.
  @Test func aLoginAsksForAuthorizationDetailsAndAResourceWhoseTokenTheOtherCommandsUse() async throws {
    let provider = try await TestProvider.startLoopback()
    let resourceURL = provider.url(for: .resource).absoluteString
    await provider.updateConfiguration { $0.resources.append(resourceURL) }
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let details = xid.home.appendingPathComponent("payment.json")
    try #"[{"type":"payment_initiation","actions":["initiate"],"instructedAmount":{"currency":"EUR","amount":"9.99"}}]"#
      .write(to: details, atomically: true, encoding: .utf8)
    let browser = try ScriptedBrowser(in: xid.home)
    async let signingIn = xid.run([
      "login", "--issuer", provider.issuer.absoluteString, "--client-id", "xid-example", "--browser",
      browser.script.path, "--authorization-details", "@" + details.path, "--resource", resourceURL,
    ])
    try await browser.signIn()
    let login = try await signingIn
    #expect(login.exitCode == 0, "\(login)")

    let own = try await xid.run(["token"])
    let forResource = try await xid.run(["token", "--resource", resourceURL])
    #expect(forResource.exitCode == 0, "\(forResource)")
    #expect(!forResource.stdout.isEmpty && forResource.stdout != own.stdout)
    let status = try await xid.run(["status"])
    #expect(status.stdout.contains(/Authorized +authorization details of type payment_initiation\n/), "\(status)")
    #expect(status.stdout.contains("Resource"), "\(status)")
    #expect(!status.stdout.contains("9.99"), "status shows the types only")

    let request = try await xid.run(["request", resourceURL, "--resource", resourceURL])
    #expect(request.exitCode == 0, "\(request)")
    #expect(request.stdout.contains(#""aud":["\#(resourceURL)"]"#), "\(request)")
    // The profile remembers the resource of the login: its URLs carry its token without the flag.
    let plain = try await xid.run(["request", resourceURL])
    #expect(plain.stdout.contains(#""aud":["\#(resourceURL)"]"#), "\(plain)")
    // A resource the provider does not know: a typed refusal, the session kept.
    let unknown = try await xid.run(["token", "--resource", "https://unknown.xid.test/"])
    #expect(unknown.exitCode == 1, "\(unknown)")
    #expect(unknown.stderr.contains("invalid_target"), "\(unknown)")
    #expect(try await xid.run(["token"]).exitCode == 0)
    for secret in xid.storedTokens() + (await provider.issuedSecrets) where secret.count >= 8 {
      for run in [login, status, request, unknown] { #expect(!(run.stdout + run.stderr).contains(secret)) }
    }
    await provider.stopLoopback()
  }

  @Test func theDeviceGrantShowsACodeAndSignsIn() async throws {
    var configuration = TestProvider.Configuration()
    configuration.devicePollingInterval = .seconds(1)
    let provider = try await TestProvider.startLoopback(configuration: configuration)
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let arguments = [
      "login", "--device", "--profile", "tv", "--issuer", provider.issuer.absoluteString, "--client-id", "xid-example",
    ]
    async let signingIn = xid.run(arguments, label: "device")
    var userCode: String?
    // A bound for a binary that never prints it, not a speed goal: under a loaded CI machine the
    // code took more than 20 s to appear.
    let deadline = Date().addingTimeInterval(90)
    while userCode == nil && Date() < deadline {
      userCode = xid.standardErrorSoFar(label: "device").firstMatch(of: /\n  ([B-Z]{4}-[B-Z]{4})\n/).map {
        String($0.1)
      }
      if userCode == nil { try await Task.sleep(for: .milliseconds(20)) }
    }
    let code = try #require(userCode)
    #expect(await provider.completeDeviceAuthorization(userCode: code))
    let login = try await signingIn
    #expect(login.exitCode == 0, "\(login)")
    #expect(login.stderr.contains(provider.url(for: .deviceVerification).absoluteString))
    #expect(login.stderr.contains("Waiting for you to approve"))
    let status = try await xid.run(["status"], environment: ["XID_PROFILE": "tv"])
    #expect(status.stdout.contains("yes, as alice"), "\(status)")
    await provider.stopLoopback()
  }

  @Test func theBinaryEscapesAHostileProvidersClaims() async throws {
    var configuration = TestProvider.Configuration()
    configuration.devicePollingInterval = .seconds(1)
    let provider = try await TestProvider.startLoopback(configuration: configuration)
    await provider.setUser(
      TestUser(subject: "mallory\(TerminalSafetyTests.hostile)", claims: ["name": .string(TerminalSafetyTests.hostile)])
    )
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let arguments = [
      "login", "--device", "--issuer", provider.issuer.absoluteString, "--client-id", "xid-example",
    ]
    async let signingIn = xid.run(arguments, label: "device")
    var userCode: String?
    // A bound for a binary that never prints it, not a speed goal: under a loaded CI machine the
    // code took more than 20 s to appear.
    let deadline = Date().addingTimeInterval(90)
    while userCode == nil && Date() < deadline {
      userCode = xid.standardErrorSoFar(label: "device").firstMatch(of: /\n  ([B-Z]{4}-[B-Z]{4})\n/).map {
        String($0.1)
      }
      if userCode == nil { try await Task.sleep(for: .milliseconds(20)) }
    }
    #expect(await provider.completeDeviceAuthorization(userCode: try #require(userCode)))
    let login = try await signingIn
    #expect(login.exitCode == 0, "\(login)")
    let status = try await xid.run(["status"])
    #expect(status.stdout.contains("yes, as mallory"), "\(status)")
    for run in [login, status] {
      #expect(TerminalSafetyTests.unsafeScalars(in: run.stdout + run.stderr).isEmpty, "\(run)")
    }
    await provider.stopLoopback()
  }

  /// The provider answers in the URL fragment, which the browser does not send on: `xid login`
  /// fails with the reason at once, not with `timedOut` after its (here two-minute) wait.
  @Test func loginEndsAtOnceWhenTheAnswerNeverReachesTheListener() async throws {
    let provider = try await TestProvider.startLoopback()
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let browser = try ScriptedBrowser(in: xid.home)
    async let signingIn = xid.run([
      "login", "--issuer", provider.issuer.absoluteString, "--client-id", "xid-example", "--browser",
      browser.script.path, "--timeout", "120",
    ])
    let authorization = try await browser.nextAuthorizationURL()
    let redirect = try #require(authorization.queryParameters.first { $0.0 == "redirect_uri" }?.1)
    let state = try #require(authorization.queryParameters.first { $0.0 == "state" }?.1)
    let page = try await URLSessionTransport(timeout: .seconds(30)).send(
      HTTPRequest(url: try #require(URL(string: "\(redirect)#code=c&state=\(state)"))))
    #expect(page.status == 400)
    #expect(String(decoding: page.body, as: UTF8.self).contains("Sign-in failed"))
    let login = try await signingIn
    #expect(login.exitCode == 1, "\(login)")
    #expect(login.stderr.contains("fragment") && login.stderr.contains("invalidAuthorizationResponse"), "\(login)")
    #expect(!login.stderr.contains("timedOut"), "\(login)")
    await provider.stopLoopback()
  }

  @Test func exitCodesForBadFlagsNoSessionAndAnUnreachableProvider() async throws {
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let bad = try await xid.run(["login", "--colour"])
    #expect(bad.exitCode == 2 && bad.stderr.contains("unknown option --colour"), "\(bad)")

    let noSession = try await xid.run(
      ["whoami"], environment: ["XID_ISSUER": "http://127.0.0.1:9", "XID_CLIENT_ID": "x"])
    #expect(noSession.exitCode == 3, "\(noSession)")

    let gone = try await TestProvider.startLoopback()
    await gone.stopLoopback()
    let unreachable = try await xid.run([
      "login", "--issuer", gone.issuer.absoluteString, "--client-id", "xid-example", "--browser", "true",
    ])
    #expect(unreachable.exitCode == 4, "\(unreachable)")
    #expect(unreachable.stderr.contains("networkFailure"))
  }
}
