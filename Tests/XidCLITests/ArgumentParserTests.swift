import Foundation
import Testing
import Xid

@testable import XidCLI

struct ArgumentParserTests {
  private func parse(_ line: String) throws -> Invocation {
    try ArgumentParser.parse(line.split(separator: " ").map(String.init))
  }

  /// The usage error `line` produces.
  private func usageError(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) -> UsageError? {
    do {
      let invocation = try ArgumentParser.parse(arguments)
      Issue.record("parsed as \(invocation)", sourceLocation: sourceLocation)
    } catch let error as UsageError {
      return error
    } catch {
      Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
    return nil
  }

  @Test func everyCommandParses() throws {
    #expect(try parse("demo") == Invocation(.demo(serve: false)))
    #expect(try parse("demo --serve") == Invocation(.demo(serve: true)))
    #expect(try parse("status") == Invocation(.status))
    #expect(try parse("token") == Invocation(.token(forceRefresh: false)))
    #expect(try parse("token --force-refresh") == Invocation(.token(forceRefresh: true)))
    #expect(
      try parse("token --dpop-proof get https://api.example.com/me?x=1")
        == Invocation(
          .token(
            forceRefresh: false,
            dpopProof: DPoPProofTarget(method: "GET", url: URL(string: "https://api.example.com/me?x=1")!))))
    #expect(try parse("whoami --json") == Invocation(.whoami(json: true)))
    #expect(try parse("logout") == Invocation(.logout(endSession: false, browser: nil)))
    #expect(try parse("logout --end-session --browser open") == Invocation(.logout(endSession: true, browser: "open")))
  }

  @Test func loginTakesEveryOption() throws {
    let invocation = try ArgumentParser.parse([
      "login", "--issuer", "https://op.example.com", "--client-id=cli", "--scope", "openid profile",
      "--scope", "email,api", "--redirect-port", "8765", "--browser", "firefox --new-window", "--timeout", "60",
    ])
    let expected = LoginOptions(
      issuer: URL(string: "https://op.example.com")!, clientId: "cli", scopes: ["openid", "profile", "email", "api"],
      redirectPort: 8765, browser: "firefox --new-window", timeout: 60)
    #expect(invocation == Invocation(.login(expected)))
    #expect(try parse("login --device") == Invocation(.login(LoginOptions(device: true))))
    #expect(try parse("login --dpop") == Invocation(.login(LoginOptions(dpop: true))))
  }

  @Test func loginTakesTheFamilyFlags() throws {
    #expect(try parse("login --device-sso") == Invocation(.login(LoginOptions(deviceSSO: true))))
    #expect(
      try parse("login --sso-from work --client-id notes --profile notes --scope openid,email")
        == Invocation(
          .login(LoginOptions(clientId: "notes", scopes: ["openid", "email"], ssoFrom: "work")), profile: "notes"))
    #expect(try parse("logout --family") == Invocation(.logout(endSession: false, browser: nil, family: true)))
    #expect(
      try parse("logout --family --end-session")
        == Invocation(.logout(endSession: true, browser: nil, family: true)))
  }

  @Test(arguments: [
    (["login", "--sso-from", "work"], "give its --client-id ID"),
    (["login", "--sso-from", "work", "--client-id", "n", "--device"], "drop --device"),
    (["login", "--sso-from", "work", "--client-id", "n", "--browser", "open"], "drop --browser"),
    (["login", "--sso-from", "work", "--client-id", "n", "--issuer", "https://op.example.com"], "drop --issuer"),
    (["login", "--sso-from=", "--client-id", "n"], "--sso-from needs a profile name"),
  ])
  func ssoFromNeverTakesWhatOpensABrowser(arguments: [String], message: String) {
    let error = usageError(arguments)
    #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
  }

  @Test func loginTakesWhatAStepUpAsksFor() throws {
    let invocation = try ArgumentParser.parse(["login", "--acr-values", "urn:a  urn:b", "--max-age", "300"])
    var options = LoginOptions()
    (options.acrValues, options.maxAge) = (["urn:a", "urn:b"], 300)
    #expect(invocation == Invocation(.login(options)))
    #expect(options.requirement == StepUpRequirement(acrValues: ["urn:a", "urn:b"], maxAge: .seconds(300)))
    #expect(LoginOptions().requirement == nil)
  }

  @Test(arguments: [
    (["login", "--max-age", "-1"], "--max-age must be a number of seconds"),
    (["login", "--max-age", "5m"], "--max-age must be a number of seconds"),
    (["login", "--acr-values", " "], "--acr-values names no value"),
    (["login", "--device", "--max-age", "0"], "drop --device"),
    (["login", "--sso-from", "work", "--client-id", "n", "--acr-values", "a"], "drop --acr-values"),
  ])
  func stepUpFlagsRefuseWhatCannotCarryThem(arguments: [String], message: String) {
    let error = usageError(arguments)
    #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
  }

  @Test func loginTokenAndRequestTakeWhatACallNeeds() throws {
    let login = try ArgumentParser.parse([
      "login", "--authorization-details", "@payment.json", "--resource", "https://api.example.com/",
      "--resource", "urn:example:ledger",
    ])
    var options = LoginOptions()
    options.authorizationDetails = "@payment.json"
    options.resources = [URL(string: "https://api.example.com/")!, URL(string: "urn:example:ledger")!]
    #expect(login == Invocation(.login(options)))

    let token = try ArgumentParser.parse(["token", "--resource", "https://api.example.com/"])
    #expect(token == Invocation(.token(forceRefresh: false, resource: URL(string: "https://api.example.com/")!)))

    let request = try ArgumentParser.parse([
      "request", "https://api.example.com/me", "--resource", "https://api.example.com/",
    ])
    guard case .request(let sent) = request.command else {
      Issue.record("not a request: \(request)")
      return
    }
    #expect(sent.resource == URL(string: "https://api.example.com/")!)
  }

  @Test(arguments: [
    (["token", "--resource", "api"], "--resource needs an absolute URI without a fragment"),
    (["request", "https://api.example.com/", "--resource", "https://api.example.com/#x"], "without a fragment"),
    (["login", "--resource", "/relative"], "--resource needs an absolute URI"),
    (["login", "--device", "--authorization-details", "[]"], "drop --device"),
    (["login", "--authorization-details="], "--authorization-details is empty"),
  ])
  func whatACallNeedsRefusesWhatCannotCarryIt(arguments: [String], message: String) {
    let error = usageError(arguments)
    #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
  }

  @Test func theStepUpCommandQuotesWhatTheServerSent() {
    let profile = ProfileName("work")
    #expect(
      LoginOptions.stepUpCommand(
        for: StepUpRequirement(acrValues: ["gold", "it's"], maxAge: .seconds(60)), profile: profile)
        == #"xid login --profile work --acr-values 'gold it'\''s' --max-age 60"#)
    #expect(
      LoginOptions.stepUpCommand(for: StepUpRequirement(acrValues: ["a\u{1B}[2Jb"]), profile: .default)
        == "xid login --acr-values 'a[2Jb'")
    #expect(LoginOptions.stepUpCommand(for: StepUpRequirement(), profile: .default) == "xid login --max-age 0")
  }

  @Test func requestTakesMethodHeadersAndDataLikeCurl() throws {
    let invocation = try ArgumentParser.parse([
      "request", "https://api.example.com/items", "-X", "put", "-H", "Accept: application/json", "-HX-Trace:  1 ",
      "-d", "@-", "-i",
    ])
    let expected = RequestOptions(
      url: URL(string: "https://api.example.com/items")!, method: "PUT",
      headers: [.init(name: "Accept", value: "application/json"), .init(name: "X-Trace", value: "1")], data: "@-",
      include: true)
    #expect(invocation == Invocation(.request(expected)))
    #expect(expected.effectiveMethod == "PUT")
    #expect(RequestOptions(url: expected.url, data: "a=1").effectiveMethod == "POST")
    #expect(RequestOptions(url: expected.url).effectiveMethod == "GET")
  }

  @Test func globalOptionsGoBeforeOrAfterTheCommand() throws {
    #expect(try parse("--profile work status") == Invocation(.status, profile: "work"))
    #expect(try parse("status --profile=work -v") == Invocation(.status, profile: "work", verbose: true))
  }

  @Test func helpIsAskedForInEveryWay() throws {
    #expect(try parse("--help") == Invocation(.help(command: nil)))
    #expect(try parse("-h") == Invocation(.help(command: nil)))
    #expect(try parse("help") == Invocation(.help(command: nil)))
    #expect(try parse("help login") == Invocation(.help(command: "login")))
    #expect(try parse("--help request") == Invocation(.help(command: "request")))
    for command in CommandCatalog.commands {
      #expect(try parse("\(command.name) --help") == Invocation(.help(command: command.name)))
    }
  }

  @Test func doubleDashEndsTheOptions() throws {
    let invocation = try ArgumentParser.parse(["request", "--", "https://example.com/-x"])
    #expect(invocation == Invocation(.request(RequestOptions(url: URL(string: "https://example.com/-x")!))))
  }

  @Test(arguments: [
    (["frob"], "unknown command \"frob\""),
    (["login", "--bogus"], "unknown option --bogus for 'xid login'"),
    (["status", "-z"], "unknown option -z for 'xid status'"),
    (["--force-refresh", "token"], "it belongs after the command: xid token --force-refresh"),
    (["login", "--issuer"], "--issuer needs a value (URL)"),
    (["login", "--issuer", "ftp://x"], "is not an http(s) URL"),
    (["login", "--redirect-port", "70000"], "--redirect-port must be a port number"),
    (["login", "--timeout", "0"], "--timeout must be a number of seconds"),
    (["login", "--device", "--browser", "open"], "--device signs in without a browser"),
    (["login", "--client-id", "a", "--client-id", "b"], "--client-id is given more than once"),
    (["token", "--dpop-proof", "GET"], "missing"),
    (["token", "--dpop-proof", "G T", "https://a.example/"], "--dpop-proof needs an HTTP method and a URL"),
    (["token", "--dpop-proof", "GET", "ftp://a.example/"], "is not an http(s) URL"),
    (["token", "--force-refresh=yes"], "--force-refresh takes no value"),
    (["token", "extra"], "unexpected argument \"extra\""),
    (["request"], "missing URL"),
    (["request", "https://x.example", "-H", "NoColon"], "-H needs 'Name: value'"),
    (["request", "https://x.example", "-X", "GE T"], "-X needs an HTTP method"),
    (["status", "--profile", "../etc"], "the profile name \"../etc\" is not allowed"),
    (["help", "frob"], "no help for \"frob\""),
    ([], "no command given"),
  ])
  func mistakesAreUsageErrorsThatSayWhatIsWrong(arguments: [String], message: String) {
    let error = usageError(arguments)
    #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
    #expect(error?.description.contains("--help' for usage") == true)
  }

  @Test func helpDescribesEveryOptionAndTheExitCodes() {
    for command in CommandCatalog.commands {
      let help = HelpText.command(command)
      #expect(help.contains("Usage: xid \(command.name)"))
      for option in command.options { #expect(help.contains("--\(option.name)")) }
      #expect(help.contains("3  sign-in required"))
    }
    #expect(HelpText.overview.contains("XID_STATE_DIR"))
  }
}
