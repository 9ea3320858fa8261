import Foundation
import Xid

/// A transport that sends through another one and keeps what each exchange says about DPoP: the
/// nonce the request's proof carried, and the status, `DPoP-Nonce`, challenge and OAuth error of the
/// answer. It keeps no token, code or proof, so a failing test can show an exchange.
final class RecordingTransport: HTTPTransport {
  /// One request and its answer, as far as DPoP is concerned.
  struct Exchange: Sendable, CustomStringConvertible {
    let method: String
    /// The request URL's path (no query): which endpoint was asked.
    let path: String
    /// The scheme of the request's `Authorization` header (`DPoP`, `Bearer`), if it had one.
    let authorizationScheme: String?
    /// Whether the request carried a `DPoP` proof.
    let hadProof: Bool
    /// The `nonce` claim of the request's proof.
    let proofNonce: String?
    let status: Int
    /// The answer's `DPoP-Nonce` header.
    let dpopNonce: String?
    /// The answer's `WWW-Authenticate` header.
    let challenge: String?
    /// The `error` member of the answer's JSON body.
    let oauthError: String?

    /// Whether the server asked for a proof with its nonce (`use_dpop_nonce`, in the body at a token
    /// endpoint, in the challenge at a resource).
    var asksForNonce: Bool {
      oauthError == "use_dpop_nonce" || challenge?.contains("error=\"use_dpop_nonce\"") == true
    }

    var description: String {
      let proof = hadProof ? " proof(nonce: \(proofNonce ?? "none"))" : ""
      let answer = [dpopNonce.map { "DPoP-Nonce: \($0)" }, challenge, oauthError].compactMap { $0 }
      return "\(method) \(path) [\(authorizationScheme ?? "-")]\(proof) -> \(status) \(answer.joined(separator: "; "))"
    }
  }

  private let transport: any HTTPTransport
  private let recorded = Locked<[Exchange]>([])

  init(_ transport: any HTTPTransport) { self.transport = transport }

  /// Every exchange so far, in the order the answers came.
  var all: [Exchange] { recorded.value }

  /// The exchanges with `endpoint` (compared by path).
  func exchanges(with endpoint: URL) -> [Exchange] { all.filter { $0.path == endpoint.path } }

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    let response = try await transport.send(request)
    let proof = request.headers["DPoP"]
    let error = try? JSONValue(parsing: Array(response.body)).objectValue?["error"]?.stringValue
    let exchange = Exchange(
      method: request.method, path: request.url.path,
      authorizationScheme: request.headers["Authorization"].map { String($0.prefix { $0 != " " }) },
      hadProof: proof != nil, proofNonce: proof.flatMap(Self.nonce(ofProof:)), status: response.status,
      dpopNonce: response.headers["DPoP-Nonce"], challenge: response.headers["WWW-Authenticate"],
      oauthError: error ?? nil)
    recorded.update { $0.append(exchange) }
    return response
  }

  /// The `nonce` claim of a DPoP proof (its payload is read, not verified).
  static func nonce(ofProof proof: String) -> String? {
    guard let jws = try? CompactJWS(parsing: proof) else { return nil }
    return (try? JSONValue(parsing: jws.payload))?.objectValue?["nonce"]?.stringValue
  }
}
