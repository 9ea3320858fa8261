import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

struct SupportTests {
  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  @Test func challengeParametersAreReadFromWWWAuthenticate() {
    let header = #"Bearer realm="example", error="invalid_token", error_description="The token \"x\" expired""#
    #expect(ProtocolHTTP.challengeParameter("error", in: header) == "invalid_token")
    #expect(ProtocolHTTP.challengeParameter("error_description", in: header) == #"The token "x" expired"#)
    #expect(ProtocolHTTP.challengeParameter("realm", in: header) == "example")
    #expect(ProtocolHTTP.challengeParameter("scope", in: header) == nil)
    #expect(ProtocolHTTP.challengeParameter("error", in: "Bearer error=insufficient_scope") == "insufficient_scope")
  }

  @Test func sanitizeRemovesControlCharactersSecretsAndLength() {
    #expect(SafeText.sanitize("a\n\tb\u{202E}c  d") == "a b c d")
    #expect(SafeText.sanitize("token abcd1234 leaked", redacting: ["abcd1234"]) == "token [redacted] leaked")
    #expect(SafeText.sanitize(String(repeating: "x", count: 1000)).count == 201)
    #expect(SafeText.errorCode("invalid_grant") == "invalid_grant")
    #expect(!SafeText.errorCode("bad\u{0}code\"").contains("\u{0}"))
  }

  @Test func constantTimeEqualityComparesWholeStrings() {
    #expect(SafeText.constantTimeEquals("abc", "abc"))
    #expect(!SafeText.constantTimeEquals("abc", "abd"))
    #expect(!SafeText.constantTimeEquals("abc", "abcd"))
    #expect(!SafeText.constantTimeEquals("", "a"))
  }

  @Test func insecureEndpointIsRefusedBeforeSending() async throws {
    let transport = ScriptedTransport { _ in HTTPResponse(status: 200) }
    let http = ProtocolHTTP(transport: transport)
    await expectXidError(.insecureURL) {
      try await http.send(HTTPRequest(url: URL(string: "http://op.example/token")!), endpoint: "token endpoint")
    }
    #expect(transport.requests.isEmpty)
    _ = try await http.send(HTTPRequest(url: URL(string: "http://127.0.0.1:8080/token")!), endpoint: "token endpoint")
    #expect(transport.requests.count == 1)
  }

  @Test func errorClassificationSeparatesDeadGrantsFromTransientFailures() {
    func error(_ status: Int?, _ oauth: String?, code: XidError.Code = .tokenRequestFailed) -> XidError {
      XidError(code, "r", httpStatus: status, oauthError: oauth)
    }
    #expect(error(400, "invalid_grant").isInvalidGrant)
    #expect(error(400, nil, code: .refreshRefused).isInvalidGrant)
    #expect(!error(400, nil).isInvalidGrant)
    #expect(!error(401, nil).isInvalidGrant)
    #expect(!error(403, nil).isInvalidGrant)
    #expect(!error(403, "invalid_code").isInvalidGrant)
    #expect(!error(200, "bad_verification_code").isInvalidGrant)
    #expect(!error(400, "invalid_request").isInvalidGrant)
    #expect(!error(401, "invalid_client").isInvalidGrant)
    #expect(!error(500, nil).isInvalidGrant)
    #expect(!error(400, "invalid_grant", code: .userInfoFailed).isInvalidGrant)
    #expect(error(500, nil).isTransient)
    #expect(error(429, nil).isTransient)
    #expect(error(400, "temporarily_unavailable").isTransient)
    #expect(error(nil, nil, code: .networkFailure).isTransient)
    #expect(!error(400, "invalid_grant").isTransient)
  }
}

/// `WWW-Authenticate` parsing takes time in proportion to the header (found by FuzzWWWAuthenticate:
/// 64 KiB of ", " took 36 s, since every position after a space or comma made strings of its own).
struct ChallengeParameterBoundTests {
  @Test func aLongChallengeIsReadInTimeProportionalToItsLength() {
    let header = String(repeating: ", ", count: 512 * 1024) + #"error="invalid_token""#
    let clock = ContinuousClock()
    let started = clock.now
    #expect(ProtocolHTTP.challengeParameter("error", in: header) == "invalid_token")
    #expect(ProtocolHTTP.challengeParameter("error_description", in: header) == nil)
    // A generous bound: linear parsing takes milliseconds; the quadratic one took minutes.
    #expect(clock.now - started < .seconds(2))
  }

  @Test func namesMatchWithoutRegardToASCIICaseAndOnlyAtAParameterBoundary() {
    #expect(ProtocolHTTP.challengeParameter("error", in: #"Bearer ERROR="a""#) == "a")
    #expect(ProtocolHTTP.challengeParameter("error", in: #"Bearer xerror="a", error=b"#) == "b")
    #expect(ProtocolHTTP.challengeParameter("error", in: #"Bearer,error="a\"b\\c""#) == #"a"b\c"#)
    #expect(ProtocolHTTP.challengeParameter("error", in: #"Bearer error="unterminated"#) == "unterminated")
    // By RFC 9110's grammar, "error=" after the scheme is a token68, not an empty parameter.
    #expect(ProtocolHTTP.challengeParameter("error", in: "Bearer error=") == nil)
    #expect(ProtocolHTTP.challengeParameter("error", in: "Bearer error=, realm=x") == "")
    #expect(ProtocolHTTP.challengeParameter("error", in: "Bearer error") == nil)
    #expect(ProtocolHTTP.challengeParameter("realm", in: #"Bearer realm="é\"日本""#) == #"é"日本"#)
  }
}

/// A challenge is read by RFC 9110's grammar when it follows it: a parameter's text inside another
/// parameter's quoted value is not a parameter, and each challenge's parameters are its own. A field
/// that does not follow the grammar is still read leniently, as providers send them.
struct ChallengeParameterGrammarTests {
  @Test func aParameterInsideAQuotedValueIsNotAParameter() {
    let header = #"Bearer realm="api, error=invalid_token", error="insufficient_scope""#
    #expect(ProtocolHTTP.challengeParameter("error", in: header) == "insufficient_scope")
    let response = HTTPResponse(status: 401, headers: ["WWW-Authenticate": header])
    #expect(!response.invalidTokenChallenge, "insufficient_scope asks for no new token")
    let dpop = #"DPoP error_description="then send error=use_dpop_nonce", error="invalid_token""#
    #expect(ProtocolHTTP.challengeParameter("error", in: dpop) == "invalid_token")
    #expect(!HTTPResponse(status: 401, headers: ["WWW-Authenticate": dpop]).asksForDPoPNonce)
  }

  @Test func theFirstChallengeThatHasTheParameterGivesIt() {
    let header = #"Basic realm="x", DPoP algs="ES256", error="use_dpop_nonce", Bearer error="invalid_token""#
    #expect(ProtocolHTTP.challengeParameter("error", in: header) == "use_dpop_nonce")
    #expect(ProtocolHTTP.challengeParameter("realm", in: header) == "x")
  }

  @Test func aFieldOutsideTheGrammarIsStillReadLeniently() {
    // No commas between the parameters, as some servers write it.
    #expect(
      ProtocolHTTP.challengeParameter("error", in: "Bearer error=invalid_token error_description=x") == "invalid_token")
    #expect(ProtocolHTTP.challengeParameter("error", in: #"Bearer error="unterminated"#) == "unterminated")
  }
}
