import Foundation
import Testing
import XidTestSupport

@testable import XidProtocol

/// Which configured resource (RFC 8707) a URL belongs to, and what a resource's configuration may be.
struct ProtectedResourceTests {
  static func identity(_ resources: [ProtectedResource]) -> ClientIdentity {
    var identity = ClientIdentity(
      issuer: URL(string: "https://op.example")!, clientId: "c", redirectUri: URL(string: "com.example.app:/cb")!)
    identity.resources = resources
    return identity
  }

  static let api = ProtectedResource(URL(string: "https://api.example.com/v1")!)
  static let payments = ProtectedResource(
    URL(string: "urn:example:payments")!, urlPrefixes: [URL(string: "https://api.example.com/v1/payments/")!])

  @Test(
    arguments: [
      ("https://api.example.com/v1", "https://api.example.com/v1"),
      ("https://api.example.com/v1/accounts?x=1", "https://api.example.com/v1"),
      ("https://API.example.com:443/v1/x", "https://api.example.com/v1"),
      ("https://api.example.com/v1/payments/42", "urn:example:payments"),
      ("https://api.example.com/v1/payments", "https://api.example.com/v1"),
      ("https://api.example.com/v10", nil),
      ("https://api.example.com/v", nil),
      ("http://api.example.com/v1", nil),
      ("https://api.example.com:8443/v1", nil),
      ("https://other.example.com/v1", nil),
    ] as [(String, String?)])
  func aURLBelongsToTheMostSpecificResourceWhosePrefixCoversItAtASegment(url: String, expected: String?) {
    let identity = Self.identity([Self.api, Self.payments])
    #expect(identity.resource(for: URL(string: url)!)?.parameter == expected)
  }

  @Test func noResourcesMeansEveryURLCarriesTheSessionsToken() {
    #expect(Self.identity([]).resource(for: URL(string: "https://api.example.com/v1")!) == nil)
  }

  @Test(arguments: [
    ("https://api.example.com/v1#part", "has a fragment"),
    ("/relative", "is not an absolute URI"),
  ])
  func aResourceIdentifierMustBeAnAbsoluteURIWithoutAFragment(identifier: String, says: String) {
    let identity = Self.identity([ProtectedResource(URL(string: identifier)!, urlPrefixes: [])])
    let error = expectXidError(.invalidConfiguration) { try identity.validate() }
    #expect(error?.reason.contains(says) == true)
  }

  @Test func aPrefixMustBeSecureAndWithoutQuery() {
    for prefix in ["http://api.example.com/", "https://api.example.com/?q=1"] {
      let resource = ProtectedResource(URL(string: "urn:x")!, urlPrefixes: [URL(string: prefix)!])
      expectXidError(.invalidConfiguration) { try Self.identity([resource]).validate() }
    }
    let loopback = ProtectedResource(URL(string: "urn:x")!, urlPrefixes: [URL(string: "http://127.0.0.1:8080/api")!])
    #expect(throws: Never.self) { try Self.identity([loopback]).validate() }
  }

  @Test func aResourceConfiguredTwiceIsRefused() {
    let error = expectXidError(.invalidConfiguration) { try Self.identity([Self.api, Self.api]).validate() }
    #expect(error?.reason.contains("configured twice") == true)
  }

  @Test func aRefreshForAResourceNamesItAndItsScopes() {
    let grant = TokenEndpoint.refreshGrant(
      refreshToken: "rt", scopes: ["read"], resource: "https://api.example.com/v1")
    #expect(grant.filter { $0.0 == "resource" }.map(\.1) == ["https://api.example.com/v1"])
    #expect(grant.filter { $0.0 == "scope" }.map(\.1) == ["read"])
  }
}
