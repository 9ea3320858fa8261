import Foundation
import XidCore

extension TestProvider {
  /// The device authorization endpoint (RFC 8628 §3.1, §3.2).
  func serveDeviceAuthorization(_ request: HTTPRequest, now: Date) throws -> HTTPResponse {
    let parameters = try FormParameters.form(of: request)
    try parameters.requireNoRepeats()
    let client = try authenticateClient(request, parameters)
    let deviceCode = try Randomness.token()
    let userCode = try Randomness.userCode()
    store.deviceCodes[deviceCode] = DeviceAuthorizationRecord(
      clientId: client.id, scopes: parameters.scopes, userCode: userCode,
      expiresAt: now + configuration.deviceCodeLifetime,
      interval: Int(configuration.devicePollingInterval.components.seconds))
    let verification = url(for: .deviceVerification)
    return .json([
      "device_code": .string(deviceCode),
      "user_code": .string(userCode),
      "verification_uri": .string(verification.absoluteString),
      "verification_uri_complete": .string(verification.appendingQuery([("user_code", userCode)]).absoluteString),
      "expires_in": .int(configuration.deviceCodeLifetime.components.seconds),
      "interval": .int(configuration.devicePollingInterval.components.seconds),
    ])
  }

  /// The verification page: the user enters (or the complete URI carries) the `user_code`, and the
  /// ``TestUser`` approves or denies as its behavior says.
  func serveDeviceVerification(_ request: HTTPRequest, now: Date) throws -> HTTPResponse {
    guard let userCode = FormParameters.query(of: request)["user_code"] else {
      return .json(["prompt": "enter the code shown on your device"])
    }
    guard let deviceCode = store.deviceCode(forUserCode: userCode), let record = store.deviceCodes[deviceCode],
      case .pending = record.status, now < record.expiresAt
    else { throw OAuthFailure.invalidRequest("the code is unknown, expired or already used") }
    let approved = user.behavior != .deny
    decideDevice(deviceCode, approved: approved, now: now)
    return .json(["result": approved ? "approved" : "denied"])
  }

  /// Records the user's decision on a device authorization, signing them in to approve.
  func decideDevice(_ deviceCode: String, approved: Bool, now: Date) {
    guard var record = store.deviceCodes[deviceCode] else { return }
    if approved, let session = try? session ?? signIn(now: now) {
      record.status = .approved(
        Authorization(clientId: record.clientId, scopes: record.scopes, user: user, session: session, nonce: nil))
    } else {
      record.status = .denied
    }
    store.deviceCodes[deviceCode] = record
  }
}
