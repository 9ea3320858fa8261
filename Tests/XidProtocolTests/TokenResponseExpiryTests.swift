import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// `expires_in` values a token endpoint may send that no `Duration` holds (found by FuzzTokenResponse):
/// they used to stop the process, in `Duration.seconds(_:)` (1e300) or when the expiry was computed
/// (1e20). A lifetime longer than ``TokenResponse/maximumLifetime`` counts as that maximum.
struct TokenResponseExpiryTests {
  static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

  @Test(arguments: [
    JSONValue.double(1e300), .double(1e20), .double(9.3e18), .double(Double.greatestFiniteMagnitude),
    .int(.max), .string("9223372036854775807"),
  ])
  func aHugeExpiresInIsClampedInsteadOfStoppingTheProcess(expiresIn: JSONValue) throws {
    let response = try TokenResponse(
      json: ["access_token": "a", "token_type": "Bearer", "expires_in": expiresIn], receivedAt: Self.receivedAt)
    #expect(response.expiresIn == TokenResponse.maximumLifetime)
    let expiresAt = try #require(response.expiresAt)
    #expect(expiresAt > Self.receivedAt.addingTimeInterval(50 * 365 * 86_400))
    #expect(response.description.contains("expiresIn: \(TokenResponse.maximumLifetime.components.seconds)"))
  }

  @Test func anOrdinaryExpiresInIsKeptExactly() throws {
    let response = try TokenResponse(
      json: ["access_token": "a", "token_type": "Bearer", "expires_in": 3600.5], receivedAt: Self.receivedAt)
    #expect(response.expiresIn == .seconds(3600.5))
  }
}
