import Foundation
import XidCore

extension TestProvider {
  /// The device code grant (RFC 8628 §3.4, §3.5): pending, slow down, denied, expired, or tokens once.
  func redeemDeviceCode(_ parameters: FormParameters, client: TestClient, jkt: String?, now: Date) throws -> JSONValue {
    let deviceCode = try parameters.required("device_code")
    guard var record = store.deviceCodes[deviceCode], record.clientId == client.id else {
      throw OAuthFailure.invalidGrant("the device code is unknown")
    }
    guard now < record.expiresAt else {
      throw OAuthFailure("expired_token", "the device code expired; start a new device authorization")
    }
    switch record.status {
    case .pending:
      defer { store.deviceCodes[deviceCode] = record }
      if let last = record.lastPolledAt, now.timeIntervalSince(last) < TimeInterval(record.interval) {
        record.interval += 5
        record.lastPolledAt = now
        throw OAuthFailure("slow_down", "poll at most every \(record.interval) seconds")
      }
      record.lastPolledAt = now
      throw OAuthFailure("authorization_pending", "the user has not finished yet")
    case .denied:
      throw OAuthFailure("access_denied", "the user denied the request")
    case .redeemed:
      throw OAuthFailure.invalidGrant("the device code was already used")
    case .approved(let authorization):
      record.status = .redeemed
      store.deviceCodes[deviceCode] = record
      let grantID = store.newGrant(authorization)
      return try issueTokens(
        grantID: grantID, scopes: authorization.scopes, now: now, jkt: jkt,
        refreshTokenJKT: bindsRefreshTokens(of: client) ? jkt : nil)
    }
  }
}
