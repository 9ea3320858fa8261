import Foundation
import Xid

/// `xid token`: the access token alone on standard output; with `--dpop-proof METHOD URL`, a DPoP
/// proof for that request on a second line, made from the same token so that the two always match;
/// with `--resource URL`, a token meant for that resource alone (RFC 8707).
enum TokenCommand {
  static func run(
    forceRefresh: Bool, dpopProof target: DPoPProofTarget?, resource: URL? = nil, profile name: ProfileName,
    verbose: Bool, context: CLIContext
  ) async throws -> ExitCode {
    // With a proof, its URL is the resource's: the proof and the token are for the same request.
    let configured = resource.map { ProtectedResource($0, urlPrefixes: target.map { [$0.url] } ?? [$0]) }
    let xid = try context.xid(
      for: context.resolvedProfile(name), named: name, verbose: verbose, resource: configured)
    guard let target else {
      if let resource {
        context.console.out(try await xid.getAccessToken(for: resource, forceRefresh: forceRefresh))
      } else {
        context.console.out(try await xid.getAccessToken(forceRefresh: forceRefresh))
      }
      return .success
    }
    let headers = try await xid.authorizationHeaders(
      method: target.method, url: target.url, forceRefresh: forceRefresh)
    guard let authorization = headers["Authorization"], authorization.hasPrefix("DPoP "), let proof = headers["DPoP"]
    else {
      throw CommandFailure(
        .failure,
        "the session of profile \"\(name.value)\" is not DPoP-bound, so it needs no proof; sign in with 'xid login\(name.flag) --dpop' for one that is"
      )
    }
    context.console.out(String(authorization.dropFirst("DPoP ".count)))
    context.console.out(proof)
    return .success
  }
}
