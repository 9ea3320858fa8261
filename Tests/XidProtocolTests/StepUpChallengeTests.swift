import Testing
import XidProtocol
import XidTestSupport

/// A resource server's step-up challenge (RFC 9470 §3) becomes `stepUpRequired` with what it asks
/// for; nothing else does.
struct StepUpChallengeTests {
  static func response(_ challenge: String, status: Int = 401) -> HTTPResponse {
    HTTPResponse(status: status, headers: ["WWW-Authenticate": challenge])
  }

  @Test func theRFCsExamplesAreStepUpsWithTheirACRValuesOrMaxAge() throws {
    let acr = Self.response(
      #"Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="myACR""#
    )
    #expect(acr.stepUpRequirement == StepUpRequirement(acrValues: ["myACR"]))
    let recent = Self.response(
      #"Bearer error="insufficient_user_authentication", error_description="More recent authentication is required", max_age="5""#
    )
    #expect(recent.stepUpRequirement == StepUpRequirement(maxAge: .seconds(5)))
  }

  @Test func aDPoPChallengeWithSeveralACRValuesIsAStepUpInTheirOrder() {
    let response = Self.response(
      #"DPoP algs="ES256", error="insufficient_user_authentication", acr_values="urn:mace:incommon:iap:silver  phr phr", max_age=0"#
    )
    #expect(
      response.stepUpRequirement
        == StepUpRequirement(acrValues: ["urn:mace:incommon:iap:silver", "phr"], maxAge: .zero))
  }

  @Test func theChallengeMayFollowAnotherInASecondField() {
    var headers: HTTPHeaders = ["WWW-Authenticate": #"Basic realm="api""#]
    headers.append(name: "WWW-Authenticate", value: #"Bearer error="insufficient_user_authentication", max_age=60"#)
    let response = HTTPResponse(status: 401, headers: headers)
    #expect(response.stepUpRequirement == StepUpRequirement(maxAge: .seconds(60)))
  }

  @Test(arguments: [
    (#"Bearer error="invalid_token""#, 401),
    (#"Bearer error="insufficient_scope", scope="admin""#, 401),
    (#"Basic error="insufficient_user_authentication""#, 401),
    (#"Bearer error="insufficient_user_authentication", acr_values="x""#, 403),
    (#"Bearer error="insufficient_user_authentication", acr_values="x""#, 400),
    (#"Bearer realm="error=insufficient_user_authentication""#, 401),
    (#"Bearer error="insufficient_user_authentication", error="invalid_token""#, 401),
  ])
  func anythingElseIsNotAStepUp(challenge: String, status: Int) {
    let response = Self.response(challenge, status: status)
    #expect(response.stepUpRequirement == nil)
    #expect(response.stepUpError == nil)
  }

  @Test(arguments: ["-1", "1.5", "5s", "", "99999999999999999999999"])
  func aMaxAgeThatIsNotWholeSecondsIsReadAsZero(maxAge: String) {
    let response = Self.response(#"Bearer error="insufficient_user_authentication", max_age=""# + maxAge + #"""#)
    #expect(response.stepUpRequirement == StepUpRequirement(maxAge: .zero))
  }

  @Test func theErrorCarriesTheRequirementAndSaysWhatToDo() throws {
    let response = Self.response(
      #"Bearer error="insufficient_user_authentication", acr_values="gold silver", max_age=300"#)
    let error = try #require(response.stepUpError)
    #expect(error.code == .stepUpRequired)
    #expect(error.httpStatus == 401)
    #expect(error.oauthError == "insufficient_user_authentication")
    #expect(error.stepUp == StepUpRequirement(acrValues: ["gold", "silver"], maxAge: .seconds(300)))
    #expect(error.reason.contains(#"acr_values "gold silver""#))
    #expect(error.reason.contains("max_age 300 s"))
    #expect(error.reason.contains("SignInOptions(stepUp:)"))
  }
}
