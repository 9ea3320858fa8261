import Foundation
import XidCore

extension TestProvider {
  /// What became of a request: a response, or none at all.
  public enum Reply: Sendable, Hashable {
    /// The provider answered.
    case response(HTTPResponse)
    /// No response left the provider: an injected ``Fault/dropResponse`` (after the request took
    /// effect) or ``Fault/failConnection`` (before it arrived), a ``Fault/timeout(after:)`` or
    /// ``Fault/stall(_:)`` that ended, or the sending task was cancelled during a ``Fault/delay(_:)``. A transport reports this as a network failure.
    case dropped
  }

  /// Handles one HTTP request and returns the provider's response, as a server would send it.
  ///
  /// The endpoint is chosen by the path below the issuer; the host is not looked at. When an
  /// injected fault drops the response, the result is a `504 Gateway Timeout` with no body; use
  /// ``respond(to:)`` to tell a dropped response apart.
  public func handle(_ request: HTTPRequest) async -> HTTPResponse {
    switch await respond(to: request) {
    case .response(let response): response
    case .dropped: HTTPResponse(status: 504)
    }
  }

  /// Handles one HTTP request, applying the next injected fault of its endpoint.
  ///
  /// A transport that can fail a connection (``InMemoryTransport``, or a socket server that closes
  /// the connection without answering) should use this rather than ``handle(_:)``, so that
  /// ``Reply/dropped`` reaches the client as a network failure.
  public func respond(to request: HTTPRequest) async -> Reply {
    guard let endpoint = endpoint(for: request.url) else {
      return .response(OAuthFailure("not_found", "the test provider serves nothing at this path", status: 404).response)
    }
    let fault = takeFault(for: endpoint)
    if case .failConnection? = fault { return .dropped }
    counters.count(
      endpoint, grantType: endpoint == .token ? (try? FormParameters.form(of: request))?["grant_type"] : nil)
    if let fault {
      counters.faultsApplied += 1
      if case .delay = fault {} else { counters.requestsFailedByFault += 1 }
    }
    switch fault {
    case .respond(let status, let headers, let body)?:
      return .response(HTTPResponse(status: status, headers: headers, body: body))
    case .delay(let duration)?:
      do { try await Task.sleep(for: duration) } catch { return .dropped }
    case .timeout(let after)?:
      // Time passes for the client, which gives up (its timeout runs on this clock); the request
      // stays unanswered until it does (the sending task is cancelled), or for at most
      // `Fault.longestHold` of real time.
      clock.advance(by: after)
      try? await Task.sleep(for: Fault.longestHold)
      return .dropped
    case .stall(let duration)?:
      try? await Task.sleep(for: duration)
      return .dropped
    default:
      break
    }
    // Everything from here to the response runs without suspension, so each request is atomic.
    var response = serve(endpoint, request, now: clock.now)
    if let nonce = dpopState.takeAnnouncement() { response.headers["DPoP-Nonce"] = nonce }
    switch fault {
    case .dropResponse?: return .dropped
    case .truncateBody?: response.body = response.body.prefix(response.body.count / 2)
    case .oversizeBody?:
      response.body.append(Data(repeating: UInt8(ascii: " "), count: (1 << 20) + 1 - min(response.body.count, 1 << 20)))
    default: break
    }
    return .response(response)
  }

  /// Removes and returns the next fault queued for `endpoint`.
  private func takeFault(for endpoint: Endpoint) -> Fault? {
    guard var queue = faults[endpoint], !queue.isEmpty else { return nil }
    let fault = queue.removeFirst()
    faults[endpoint] = queue.isEmpty ? nil : queue
    return fault
  }

  /// The endpoint at `url`'s path below the issuer, if the provider serves one there.
  private func endpoint(for url: URL) -> Endpoint? {
    if url.path == self.url(for: .resourceMetadata).path { return .resourceMetadata }
    let base = issuer.path
    guard url.path.hasPrefix(base) else { return nil }
    let path = String(url.path.dropFirst(base.count))
    guard let endpoint = Endpoint.allCases.first(where: { $0.path == path }) else { return nil }
    if endpoint == .pushedAuthorization && configuration.pushedAuthorization == .unsupported { return nil }
    if endpoint == .revocation && !configuration.supportsRevocation { return nil }
    return endpoint
  }

  private func serve(_ endpoint: Endpoint, _ request: HTTPRequest, now: Date) -> HTTPResponse {
    guard endpoint.methods.contains(request.method) else {
      let allowed = endpoint.methods.sorted().joined(separator: ", ")
      return OAuthFailure(
        "invalid_request", "\(endpoint) accepts \(allowed) only", status: 405, headers: ["Allow": allowed]
      ).response
    }
    do {
      switch endpoint {
      case .discovery: return serveDiscovery()
      case .jwks: return serveJWKS()
      case .authorization: return try serveAuthorization(request, now: now)
      case .pushedAuthorization: return try servePushedAuthorization(request, now: now)
      case .token: return try serveToken(request, now: now)
      case .userInfo: return try serveUserInfo(request, now: now)
      case .revocation: return try serveRevocation(request)
      case .endSession: return try serveEndSession(request)
      case .deviceAuthorization: return try serveDeviceAuthorization(request, now: now)
      case .deviceVerification: return try serveDeviceVerification(request, now: now)
      case .resource: return try serveResource(request, now: now)
      case .resourceMetadata: return serveResourceMetadata()
      }
    } catch let failure as OAuthFailure {
      return failure.response
    } catch let error as XidError {
      return OAuthFailure("server_error", "the test provider failed: \(error.reason)", status: 500).response
    } catch {
      return OAuthFailure("server_error", "the test provider failed", status: 500).response
    }
  }
}
