import Foundation
import FuzzSupport

@testable import XidProtocol
@testable import XidSession

/// `WWW-Authenticate` challenges on arbitrary bytes (as UTF-8, as the transport hands header values
/// over): `ProtocolHTTP.challengeParameter` for the parameters Xid reads, `oauthError(inChallenge:)`
/// and the typed error `failure(_:code:endpoint:)` makes of a 401 that carries the challenge.
///
/// Then the grammar's reader, `AuthenticationChallenge.parse`, and the step-up classifier (RFC 9470)
/// on the same field.
///
/// These are internal to XidCore, so this target uses `@testable import` (fuzz.sh builds with
/// `-enable-testing`).
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - a parameter's value is never longer than the challenge;
/// - the error's message stays short (it is shown to developers) whatever the challenge holds;
/// - every parsed challenge has a non-empty lowercase scheme and no parameter name twice;
/// - a step-up requirement comes only from a Bearer or DPoP challenge whose error is
///   `insufficient_user_authentication`, with a `max_age` of at least zero and distinct acr values
///   without spaces, and its error's message stays short.
@main
enum FuzzWWWAuthenticate {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let challenge = String(decoding: LibFuzzer.bytes(data, size), as: UTF8.self)
  let length = challenge.unicodeScalars.count
  for name in ["error", "error_description", "scope", "realm", "ERROR"] {
    if let value = ProtocolHTTP.challengeParameter(name, in: challenge) {
      fuzzCheck(value.unicodeScalars.count < length, "a parameter longer than its challenge")
    }
  }
  var response = HTTPResponse(status: 401, headers: [:], body: Data())
  response.headers["WWW-Authenticate"] = challenge
  _ = ProtocolHTTP.oauthError(inChallenge: response)
  let error = ProtocolHTTP.failure(response, code: .userInfoFailed, endpoint: "UserInfo endpoint")
  fuzzCheck(error.description.count <= 2048, "an error message that grows with the challenge")

  let challenges = AuthenticationChallenge.parse(challenge)
  for parsed in challenges {
    fuzzCheck(!parsed.scheme.isEmpty && parsed.scheme == parsed.scheme.lowercased(), "a scheme not in lowercase")
    let names = parsed.parameters.map(\.name)
    fuzzCheck(Set(names).count == names.count, "a challenge with a parameter twice")
    for parameter in parsed.parameters {
      fuzzCheck(parameter.value.unicodeScalars.count < length, "a parameter longer than its field")
    }
  }
  if let requirement = response.stepUpRequirement {
    fuzzCheck(
      challenges.contains {
        ($0.scheme == "bearer" || $0.scheme == "dpop") && $0["error"] == "insufficient_user_authentication"
      }, "a step-up without its challenge")
    fuzzCheck((requirement.maxAge ?? .zero) >= .zero, "a negative max_age")
    fuzzCheck(Set(requirement.acrValues).count == requirement.acrValues.count, "an acr value twice")
    fuzzCheck(requirement.acrValues.allSatisfy { !$0.isEmpty && !$0.contains(" ") }, "an acr value with a space")
    fuzzCheck((response.stepUpError?.reason.count ?? 0) <= 2048, "a step-up message that grows with the challenge")
  }
  return 0
}
