import Foundation

/// The rules every protocol HTTP call follows: the URL must be secure, `Accept: application/json` is
/// sent, transport failures become ``XidError``s, bodies are size-limited, success bodies must be
/// JSON, and error bodies in every shape real providers send become typed errors.
struct ProtocolHTTP: Sendable {
  /// The largest body Xid reads from a provider: 1 MiB.
  static let maximumBodySize = JSONValue.maximumDocumentSize

  /// The transport that carries the requests.
  let transport: any HTTPTransport

  /// Sends `request` to the endpoint named `endpoint` (for example `"token endpoint"`).
  ///
  /// - Throws: ``XidError/Code/insecureURL`` before sending to a URL that is not https (or loopback
  ///   http), ``XidError/Code/cancelled`` when the task is cancelled, ``XidError/Code/networkFailure``
  ///   when the transport fails, and ``XidError/Code/responseTooLarge``.
  func send(_ request: HTTPRequest, endpoint: String) async throws -> HTTPResponse {
    try request.url.requireSecure(for: endpoint)
    var request = request
    if request.headers["Accept"] == nil { request.headers["Accept"] = "application/json" }
    if Task.isCancelled { throw XidError(.cancelled, "the request to the \(endpoint) was cancelled") }
    let response: HTTPResponse
    do {
      response = try await transport.send(request)
    } catch let error as XidError {
      throw error
    } catch is CancellationError {
      throw XidError(.cancelled, "the request to the \(endpoint) was cancelled")
    } catch {
      throw XidError(.networkFailure, "the request to the \(endpoint) failed: no response (\(type(of: error)))")
    }
    guard response.body.count <= Self.maximumBodySize else {
      throw XidError(
        .responseTooLarge,
        "the \(endpoint) answered with \(response.body.count) bytes; Xid reads at most \(Self.maximumBodySize)",
        httpStatus: response.status)
    }
    return response
  }

  /// POSTs `parameters` as a form to an endpoint of the provider, authenticated as the configured
  /// client (RFC 6749 §2.3): the one way Xid calls the token, revocation, device authorization and
  /// pushed authorization request endpoints.
  ///
  /// - Parameters:
  ///   - refusal: the code of the error a non-2xx answer becomes.
  ///   - secrets: values of this request to keep out of error reasons even if the provider echoes them
  ///     (a code, verifier or token); the client secret is always kept out.
  ///   - reading: turns the error of a refusal into the one to throw, with the response at hand (a
  ///     provider's quirk); the error as it is by default.
  ///   - dpop: the session's DPoP signer: the request then carries a proof (RFC 9449 §5), the
  ///     answer's `DPoP-Nonce` is learnt, and a `use_dpop_nonce` refusal is retried once with it.
  /// - Returns: the 2xx response.
  /// - Throws: `refusal`, with the HTTP status and the OAuth error when there was one, whatever the
  ///   body's shape, and as ``send(_:endpoint:)``.
  func postClientForm(
    _ parameters: [(String, String)], to url: URL, endpoint: String, configuration: XidConfiguration,
    refusal: XidError.Code, secrets: [String] = [], dpop: DPoPSigner? = nil,
    reading: (HTTPResponse, XidError) -> XidError = { $1 }
  ) async throws -> HTTPResponse {
    // Each sending of the form is authenticated anew: a client assertion's jti is used once.
    var assertions: [String] = []
    func authenticated() throws -> HTTPRequest {
      var parameters = parameters
      var headers: HTTPHeaders = [:]
      if let assertion = try configuration.identity.clientAuthentication.apply(
        clientId: configuration.identity.clientId, issuer: configuration.identity.issuerIdentifier, endpoint: url,
        now: configuration.parts.clock.now, to: &parameters, headers: &headers)
      {
        assertions.append(assertion)
      }
      return HTTPRequest.form(url, parameters, headers: headers)
    }
    let response: HTTPResponse
    if let dpop {
      response = try await send(try authenticated(), proving: dpop, accessToken: nil, endpoint: endpoint) {
        try authenticated()
      }
    } else {
      response = try await send(try authenticated(), endpoint: endpoint)
    }
    let secrets = secrets + assertions
    guard response.isSuccess else {
      throw reading(
        response,
        Self.failure(response, code: refusal, endpoint: endpoint, secrets: Self.secrets(secrets, of: configuration)))
    }
    return response
  }

  /// Sends `request` with a DPoP proof for it (with `ath` when it carries `accessToken`), learns the
  /// answer's `DPoP-Nonce`, and sends it once more with a new proof when the server asks for its
  /// nonce (`use_dpop_nonce`).
  ///
  /// `again` makes the request to send the second time (a client form with a new client assertion);
  /// by default the same request.
  func send(
    _ request: HTTPRequest, proving dpop: DPoPSigner, accessToken: String?, endpoint: String,
    again: (() throws -> HTTPRequest)? = nil
  ) async throws -> HTTPResponse {
    var request = request
    request.headers["DPoP"] = try dpop.proof(method: request.method, url: request.url, accessToken: accessToken)
    let response = try await send(request, endpoint: endpoint)
    let learnt = dpop.nonces.record(response, from: request.url)
    guard !response.isSuccess, learnt, response.asksForDPoPNonce else { return response }
    if let again { request = try again() }
    request.headers["DPoP"] = try dpop.proof(method: request.method, url: request.url, accessToken: accessToken)
    let retried = try await send(request, endpoint: endpoint)
    dpop.nonces.record(retried, from: request.url)
    return retried
  }

  /// `secrets` and the configured client secret, if any: what error reasons must never show.
  static func secrets(_ secrets: [String], of configuration: XidConfiguration) -> [String] {
    secrets + [configuration.identity.clientAuthentication.secret].compactMap { $0 }
  }

  /// The media type of a response, lowercased and without parameters, or `nil` when none was sent.
  static func mediaType(of response: HTTPResponse) -> String? {
    guard let value = response.headers["Content-Type"] else { return nil }
    let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
    let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
    return trimmed.isEmpty ? nil : trimmed
  }

  /// Whether `mediaType` is JSON: `application/json` or any `…+json`.
  static func isJSON(_ mediaType: String) -> Bool {
    mediaType == "application/json" || mediaType.hasSuffix("+json")
  }

  /// The body of a successful response as a JSON object.
  ///
  /// A body without `Content-Type` is accepted when it parses as JSON; one with another media type
  /// is refused.
  ///
  /// - Throws: ``XidError/Code/unexpectedResponse`` when the body is not a JSON object.
  static func jsonObject(_ response: HTTPResponse, endpoint: String) throws -> [String: JSONValue] {
    try requireJSONMediaType(response, endpoint: endpoint)
    guard !response.body.isEmpty else {
      throw XidError(
        .unexpectedResponse, "the \(endpoint) answered HTTP \(response.status) with an empty body; expected JSON",
        httpStatus: response.status)
    }
    let value: JSONValue
    do {
      value = try JSONValue(parsing: response.body)
    } catch let error as XidError {
      throw XidError(
        .unexpectedResponse, "the \(endpoint) answered with invalid JSON (\(error.reason))", httpStatus: response.status
      )
    }
    guard let object = value.objectValue else {
      throw XidError(
        .unexpectedResponse, "the \(endpoint) answered with JSON that is not an object", httpStatus: response.status)
    }
    return object
  }

  /// Checks that a response's `Content-Type`, when it has one, is JSON.
  ///
  /// - Throws: ``XidError/Code/unexpectedResponse`` for another media type.
  static func requireJSONMediaType(_ response: HTTPResponse, endpoint: String) throws {
    if let mediaType = mediaType(of: response), !isJSON(mediaType) {
      throw XidError(
        .unexpectedResponse,
        "the \(endpoint) answered HTTP \(response.status) with a \(SafeText.short(mediaType, limit: 60)) body; expected application/json",
        httpStatus: response.status)
    }
  }

  /// An OAuth error as a server sent it: the `error` code and `error_description`, both as received.
  struct OAuthError: Sendable {
    /// The `error` code, when one could be read.
    var error: String?
    /// The `error_description`, when one could be read.
    var description: String?
  }

  /// The OAuth error in a JSON body (RFC 6749 §5.2), whatever its `Content-Type` says, or `nil` when
  /// the body is not a JSON object with a string `error`.
  static func oauthError(inBody response: HTTPResponse) -> OAuthError? {
    guard !response.body.isEmpty, let object = try? JSONValue(parsing: response.body).objectValue,
      let error = object["error"]?.stringValue
    else { return nil }
    return OAuthError(error: error, description: object["error_description"]?.stringValue)
  }

  /// The `error` and `error_description` parameters of a `WWW-Authenticate` challenge (RFC 6750 §3).
  static func oauthError(inChallenge response: HTTPResponse) -> OAuthError? {
    guard let challenge = response.headers["WWW-Authenticate"] else { return nil }
    let error = challengeParameter("error", in: challenge)
    guard error != nil else { return nil }
    return OAuthError(error: error, description: challengeParameter("error_description", in: challenge))
  }

  /// The value of `name` in a `WWW-Authenticate` field such as `Bearer realm="x", error="y"`: the
  /// first challenge's that has the parameter, read by RFC 9110's grammar
  /// (``AuthenticationChallenge``), so that text inside a quoted value is never a parameter.
  ///
  /// A field that does not follow the grammar from start to end (parameters without commas between
  /// them, an unterminated quoted string, a repeated parameter, one over
  /// ``AuthenticationChallenge/maximumFieldLength``) is read leniently instead, by
  /// ``scannedChallengeParameter(_:in:)``, as servers send such fields.
  static func challengeParameter(_ name: String, in challenge: String) -> String? {
    guard let challenges = AuthenticationChallenge.parseWholly(challenge) else {
      return scannedChallengeParameter(name, in: challenge)
    }
    return challenges.lazy.compactMap { $0[name] }.first
  }

  /// The value of `name` in a challenge field that RFC 9110's grammar does not read, such as
  /// `Bearer error=x error_description=y`.
  ///
  /// The name matches without regard to ASCII case, at the start or after a space or a comma; a quoted
  /// value ends at its closing quote (or the end), with `\` escaping the next character. One pass over
  /// the UTF-8 bytes, without allocating per position: time in proportion to the header's length.
  static func scannedChallengeParameter(_ name: String, in challenge: String) -> String? {
    let target = Array(name.utf8).map(asciiLowercase)
    guard !target.isEmpty else { return nil }
    let bytes = Array(challenge.utf8)
    let count = bytes.count
    var index = 0
    while index + target.count < count {
      // A parameter name starts the string or follows a space or a comma.
      let atBoundary = index == 0 || bytes[index - 1] == UInt8(ascii: " ") || bytes[index - 1] == UInt8(ascii: ",")
      if atBoundary, bytes[index + target.count] == UInt8(ascii: "="),
        target.indices.allSatisfy({ asciiLowercase(bytes[index + $0]) == target[$0] })
      {
        var position = index + target.count + 1
        var value: [UInt8] = []
        if position < count, bytes[position] == UInt8(ascii: "\"") {
          position += 1
          while position < count, bytes[position] != UInt8(ascii: "\"") {
            if bytes[position] == UInt8(ascii: "\\"), position + 1 < count { position += 1 }
            value.append(bytes[position])
            position += 1
          }
        } else {
          while position < count, bytes[position] != UInt8(ascii: ","), bytes[position] != UInt8(ascii: " ") {
            value.append(bytes[position])
            position += 1
          }
        }
        return String(decoding: value, as: UTF8.self)
      }
      index += 1
    }
    return nil
  }

  private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
  }

  /// The typed error for a response that failed: its status, its OAuth error when one could be read
  /// from the body (or the `WWW-Authenticate` challenge), and a reason that describes the body's
  /// shape when it carried no OAuth error (empty, HTML, JSON without `error`).
  ///
  /// - Parameter secrets: values that must not appear in the reason even if the server echoes them.
  static func failure(
    _ response: HTTPResponse, code: XidError.Code, endpoint: String, secrets: [String] = []
  ) -> XidError {
    let status = response.status
    if let found = oauthError(inBody: response) ?? oauthError(inChallenge: response), let error = found.error {
      let errorCode = SafeText.errorCode(error)
      var reason = "the \(endpoint) refused the request (HTTP \(status), \(errorCode))"
      if let description = found.description {
        let clean = SafeText.sanitize(description, redacting: secrets)
        if !clean.isEmpty { reason += ": \(clean)" }
      }
      return XidError(code, reason, httpStatus: status, oauthError: errorCode)
    }
    let shape: String
    if response.body.isEmpty {
      shape = "an empty body"
    } else if let mediaType = mediaType(of: response), !isJSON(mediaType) {
      shape = "a \(SafeText.short(mediaType, limit: 60)) body rather than a JSON error"
    } else if (try? JSONValue(parsing: response.body).objectValue) != nil {
      shape = "a JSON body without a string \"error\" member"
    } else {
      shape = "a body that is not a JSON error"
    }
    return XidError(code, "the \(endpoint) answered HTTP \(status) with \(shape)", httpStatus: status)
  }
}
