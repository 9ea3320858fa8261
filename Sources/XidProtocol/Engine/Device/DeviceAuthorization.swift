import Foundation

/// A started device authorization (RFC 8628 §3.2): the code and URL to show the user, and what polling
/// needs.
///
/// Show ``userCode`` and ``verificationURI`` (or ``verificationURIComplete``, for example as a QR
/// code), then poll with ``OpenIDClient/pollDeviceAuthorization(_:dpopKey:)``. It is `Codable` so that it can
/// outlive the app's process; its `description` shows neither code.
public struct DeviceAuthorization: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
  /// `device_code`: the secret that polling presents.
  public let deviceCode: String
  /// `user_code`: what the user types at ``verificationURI``.
  public let userCode: String
  /// `verification_uri`: where the user goes (also read from the older `verification_url`).
  public let verificationURI: URL
  /// `verification_uri_complete`: the verification URI with the user code in it, when sent.
  public let verificationURIComplete: URL?
  /// When the device code expires: the response's `expires_in` after its arrival.
  public let expiresAt: Date
  /// `interval`: the time to wait between polls; 5 seconds when the provider did not say.
  public let interval: Duration
  /// The scopes requested.
  public let scopes: [String]

  /// Creates a device authorization from its parts.
  public init(
    deviceCode: String, userCode: String, verificationURI: URL, verificationURIComplete: URL?, expiresAt: Date,
    interval: Duration, scopes: [String]
  ) {
    self.deviceCode = deviceCode
    self.userCode = userCode
    self.verificationURI = verificationURI
    self.verificationURIComplete = verificationURIComplete
    self.expiresAt = expiresAt
    self.interval = interval
    self.scopes = scopes
  }

  /// Reads a device authorization response (RFC 8628 §3.2).
  ///
  /// - Throws: ``XidError/Code/deviceAuthorizationFailed`` when a required member is missing or
  ///   malformed, and ``XidError/Code/insecureURL`` for a verification URI that is not https.
  public init(json: [String: JSONValue], receivedAt: Date, scopes: [String]) throws {
    func fail(_ reason: String) -> XidError {
      XidError(.deviceAuthorizationFailed, "the device authorization response \(reason)")
    }
    guard let deviceCode = json["device_code"]?.stringValue, !deviceCode.isEmpty else {
      throw fail("has no string \"device_code\"")
    }
    guard let userCode = json["user_code"]?.stringValue, !userCode.isEmpty else {
      throw fail("has no string \"user_code\"")
    }
    guard let uriText = (json["verification_uri"] ?? json["verification_url"])?.stringValue,
      let verificationURI = URL(string: uriText), verificationURI.scheme != nil
    else { throw fail("has no absolute \"verification_uri\"") }
    try verificationURI.requireSecure(for: "verification URI")
    var complete: URL?
    if let text = (json["verification_uri_complete"] ?? json["verification_url_complete"])?.stringValue {
      guard let url = URL(string: text), url.scheme != nil else {
        throw fail("has a malformed \"verification_uri_complete\"")
      }
      try url.requireSecure(for: "verification URI")
      complete = url
    }
    guard let expiresIn = json["expires_in"]?.doubleValue ?? json["expires_in"]?.stringValue.flatMap(Double.init),
      expiresIn.isFinite, expiresIn > 0
    else { throw fail("has no positive \"expires_in\"") }
    var interval: TimeInterval = 5
    if let value = json["interval"] {
      guard let seconds = value.doubleValue ?? value.stringValue.flatMap(Double.init), seconds.isFinite, seconds >= 0
      else {
        throw fail("has a malformed \"interval\"")
      }
      interval = max(seconds, 1)
    }
    self.init(
      deviceCode: deviceCode, userCode: userCode, verificationURI: verificationURI, verificationURIComplete: complete,
      expiresAt: receivedAt.addingTimeInterval(min(expiresIn, 86_400)), interval: .seconds(min(interval, 600)),
      scopes: scopes)
  }

  /// `DeviceAuthorization(verificationURI: …, expiresAt: …, interval: …)`; never the device or user code.
  public var description: String {
    "DeviceAuthorization(verificationURI: \(verificationURI.absoluteString), expiresAt: \(expiresAt), interval: \(interval.components.seconds) s)"
  }

  /// The fields that are not secret, so that `dump` does not show the codes.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "verificationURI": verificationURI, "expiresAt": expiresAt, "interval": interval, "scopes": scopes,
      ])
  }
}

/// The device authorization grant (RFC 8628): starting it and polling the token endpoint.
enum DeviceFlow {
  static let name = "device authorization endpoint"

  /// Requests a device and user code (RFC 8628 §3.1).
  ///
  /// - Throws: ``XidError/Code/unsupportedByProvider`` without a `device_authorization_endpoint`,
  ///   ``XidError/Code/deviceAuthorizationFailed`` on refusal or a malformed response, and as
  ///   ``ProtocolHTTP/send(_:endpoint:)``.
  static func start(
    scopes: [String], configuration: XidConfiguration, metadata: ProviderMetadata, http: ProtocolHTTP,
    clock: any XidClock
  ) async throws -> DeviceAuthorization {
    guard let endpoint = metadata.deviceAuthorizationEndpoint else {
      throw XidError(.unsupportedByProvider, "the provider advertises no device_authorization_endpoint")
    }
    let response = try await http.postClientForm(
      [("scope", scopes.joined(separator: " "))], to: endpoint, endpoint: name, configuration: configuration,
      refusal: .deviceAuthorizationFailed)
    let object = try ProtocolHTTP.jsonObject(response, endpoint: name)
    return try DeviceAuthorization(json: object, receivedAt: clock.now, scopes: scopes)
  }

  /// Polls the token endpoint until the user approves, declines, or the code expires (RFC 8628 §3.4,
  /// §3.5). Waits `interval` before each poll, adds 5 seconds on `slow_down`, and doubles the wait
  /// (up to a minute) after a network failure or a server error.
  ///
  /// - Throws: ``XidError/Code/deviceCodeExpired``, ``XidError/Code/accessDenied``,
  ///   ``XidError/Code/cancelled`` when the task is cancelled, and ``XidError/Code/tokenRequestFailed``
  ///   for other refusals.
  static func poll(
    _ authorization: DeviceAuthorization, configuration: XidConfiguration, metadata: ProviderMetadata,
    http: ProtocolHTTP, clock: any XidClock, dpop: DPoPSigner? = nil
  ) async throws -> TokenResponse {
    var interval = authorization.interval > .zero ? authorization.interval : .seconds(5)
    while true {
      do {
        try await clock.sleep(for: interval)
      } catch {
        throw XidError(.cancelled, "polling for the device authorization was cancelled")
      }
      if Task.isCancelled { throw XidError(.cancelled, "polling for the device authorization was cancelled") }
      guard clock.now < authorization.expiresAt else {
        throw XidError(
          .deviceCodeExpired,
          "the device code expired before the user approved the request; start a new device authorization")
      }
      do {
        return try await TokenEndpoint.request(
          TokenEndpoint.deviceCodeGrant(deviceCode: authorization.deviceCode), configuration: configuration,
          metadata: metadata, http: http, clock: clock, secrets: [authorization.deviceCode, authorization.userCode],
          dpop: dpop)
      } catch let error as XidError where error.code == .tokenRequestFailed {
        switch error.oauthError {
        case "authorization_pending": continue
        case "slow_down": interval += .seconds(5)
        case "expired_token":
          throw XidError(
            .deviceCodeExpired,
            "the device code expired before the user approved the request; start a new device authorization",
            httpStatus: error.httpStatus, oauthError: error.oauthError)
        case "access_denied":
          throw XidError(
            .accessDenied, "the user declined the device authorization request", httpStatus: error.httpStatus,
            oauthError: error.oauthError)
        default:
          guard error.isTransient else { throw error }
          interval = max(interval, min(interval * 2, .seconds(60)))
        }
      } catch let error as XidError where error.code == .networkFailure {
        interval = max(interval, min(interval * 2, .seconds(60)))
      }
    }
  }
}
