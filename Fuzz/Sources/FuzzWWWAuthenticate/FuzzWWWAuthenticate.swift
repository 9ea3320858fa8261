import Foundation
import FuzzSupport

@testable import XidProtocol
@testable import XidSession

/// `WWW-Authenticate` challenges on arbitrary bytes (as UTF-8, as the transport hands header values
/// over): `ProtocolHTTP.challengeParameter` for the parameters Xid reads, `oauthError(inChallenge:)`
/// and the typed error `failure(_:code:endpoint:)` makes of a 401 that carries the challenge.
///
/// These are internal to XidCore, so this target uses `@testable import` (fuzz.sh builds with
/// `-enable-testing`).
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - a parameter's value is never longer than the challenge;
/// - the error's message stays short (it is shown to developers) whatever the challenge holds.
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
  return 0
}
