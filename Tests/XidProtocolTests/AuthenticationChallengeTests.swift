import Testing
import XidProtocol

/// `WWW-Authenticate` is read by its grammar (RFC 9110 §11.6.1), so that a parameter is found only
/// where the server put it: never inside another parameter's quoted value, never in a challenge of
/// another scheme.
struct AuthenticationChallengeTests {
  static func pairs(_ challenge: AuthenticationChallenge) -> [String] {
    challenge.parameters.map { "\($0.name)=\($0.value)" }
  }

  @Test func severalChallengesInOneFieldKeepTheirOwnParametersQuotedCommasAndEscapes() {
    let challenges = AuthenticationChallenge.parse(
      #"DPoP algs="ES256 PS256", error="invalid_token", Bearer realm="a, b", error_description="say \"hi\"", Basic"#)
    #expect(challenges.map(\.scheme) == ["dpop", "bearer", "basic"])
    #expect(Self.pairs(challenges[0]) == ["algs=ES256 PS256", "error=invalid_token"])
    #expect(Self.pairs(challenges[1]) == ["realm=a, b", #"error_description=say "hi""#])
    #expect(challenges[2].parameters.isEmpty)
  }

  @Test func schemesAndParameterNamesAreReadWithoutRegardToCaseAndTokensUnquoted() {
    let challenge = AuthenticationChallenge.parse("BEARER Error = insufficient_scope ,Scope=\"a b\"")
    #expect(challenge.map(\.scheme) == ["bearer"])
    #expect(challenge.first?["error"] == "insufficient_scope")
    #expect(challenge.first?["SCOPE"] == "a b")
  }

  @Test func aToken68StandsInsteadOfParameters() {
    let challenges = AuthenticationChallenge.parse("Negotiate YIIB+w/x==, Bearer error=invalid_token")
    #expect(challenges.map(\.scheme) == ["negotiate", "bearer"])
    #expect(challenges[0].token68 == "YIIB+w/x==")
    #expect(challenges[0].parameters.isEmpty)
    #expect(challenges[1]["error"] == "invalid_token")
  }

  @Test func aParameterInsideAnotherParametersQuotedValueIsNotRead() {
    let challenges = AuthenticationChallenge.parse(
      #"Bearer realm="x, error=insufficient_user_authentication, acr_values=weak""#)
    #expect(challenges.count == 1)
    #expect(challenges.first?["error"] == nil)
    #expect(challenges.first?["realm"] == "x, error=insufficient_user_authentication, acr_values=weak")
  }

  @Test func aChallengeThatNamesAParameterTwiceIsDropped() {
    let challenges = AuthenticationChallenge.parse(
      #"Bearer error="invalid_token", error="insufficient_user_authentication", DPoP algs="ES256""#)
    #expect(challenges.map(\.scheme) == ["dpop"])
  }

  @Test(arguments: [
    #"Bearer error="unterminated"#,
    #"Bearer error="x" junk"#,
    "Bearer error=\"a\u{1}b\"",
  ])
  func aFieldThatBreaksTheGrammarYieldsOnlyTheChallengesBeforeTheBreak(field: String) {
    let challenges = AuthenticationChallenge.parse("Basic realm=r, " + field + ", DPoP algs=ES256")
    #expect(challenges.first?.scheme == "basic")
    #expect(!challenges.contains { $0.scheme == "dpop" })
    #expect(!challenges.contains { $0["error"] != nil && $0["error"] != "x" })
  }

  @Test func aFieldLongerThanTheLimitYieldsNoChallenge() {
    let long = "Bearer error=invalid_token, realm=\"" + String(repeating: "r", count: 9000) + "\""
    #expect(AuthenticationChallenge.parse(long).isEmpty)
  }

  @Test func everyWWWAuthenticateFieldOfAResponseIsRead() {
    var headers: HTTPHeaders = ["WWW-Authenticate": "DPoP algs=ES256"]
    headers.append(name: "www-authenticate", value: #"Bearer error="invalid_token""#)
    let response = HTTPResponse(status: 401, headers: headers)
    #expect(AuthenticationChallenge.challenges(in: response).map(\.scheme) == ["dpop", "bearer"])
  }
}
