import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// Header fields are looked up by name without regard to the case of ASCII letters (RFC 9110 §5.1).
struct HTTPHeadersTests {
  @Test(arguments: [
    ("DPoP-Nonce", "dpop-nonce", true), ("WWW-Authenticate", "www-AUTHENTICATE", true), ("Host", "host", true),
    ("Host", "Hosts", false), ("Content-Length", "Content_Length", false), ("a", "A", true), ("@", "`", false),
    ("[", "{", false), ("x-1", "X-1", true), ("é", "É", false), ("", "", true),
  ])
  func namesMatchByBytesButTheCaseOfASCIILetters(a: String, b: String, match: Bool) {
    #expect(a.equalsIgnoringASCIICase(b) == match)
    #expect(b.equalsIgnoringASCIICase(a) == match)
    #expect((HTTPHeaders([(a, "v")])[b] != nil) == match)
  }

  @Test func lookupFindsTheFirstFieldOfAnyCaseAndSettingReplacesThemAll() {
    var headers: HTTPHeaders = ["Content-Type": "text/plain", "dpop-nonce": "first"]
    headers.append(name: "DPOP-NONCE", value: "second")
    #expect(headers["DPoP-Nonce"] == "first")
    headers["DPoP-Nonce"] = "third"
    #expect(headers.fields.map(\.name) == ["Content-Type", "DPoP-Nonce"])
    #expect(headers["dpop-NONCE"] == "third")
    headers["content-type"] = nil
    #expect(headers.fields.map(\.value) == ["third"])
  }
}

/// What may carry OAuth traffic: `https` to a host, `http` to a loopback host; schemes compare
/// without regard to case (RFC 3986 §3.1).
struct SecureURLTests {
  @Test(arguments: [
    "https://op.example.com/token", "HTTPS://Op.Example.com/token", "HtTp://LOCALHOST:8080/cb", "http://127.0.0.1/",
    "http://127.1.2.3:9/x", "http://[::1]:4000/", "https://op.example.com:8443/a%20b?x#y",
  ])
  func acceptsHTTPSAndLoopbackHTTPWhateverTheSchemesCase(url: String) throws {
    try URL(string: url)!.requireSecure(for: "test URL")
  }

  @Test(arguments: [
    "http://op.example.com/token", "HTTP://10.0.0.1/", "https:///x", "httpss://op.example.com/", "ftp://127.0.0.1/x",
    "http://127.0.0.1.example.com/", "op.example.com/token",
  ])
  func refusesEverythingElse(url: String) {
    let error = expectXidError(.insecureURL) { try URL(string: url)!.requireSecure(for: "test URL") }
    #expect(error?.reason.contains("test URL") == true)
  }
}
