import Foundation
import Testing
import XidCore

@testable import XidTesting

struct SupportTests {
  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  @Test func userCodesUseTheUnambiguousAlphabet() throws {
    for _ in 0..<50 {
      let code = try Randomness.userCode()
      #expect(code.count == 9)
      #expect(code.replacingOccurrences(of: "-", with: "").allSatisfy { "BCDFGHJKLMNPQRSTVWXZ".contains($0) })
    }
    #expect(Randomness.normalizedUserCode("bcdf-ghjk") == "BCDFGHJK")
  }

  @Test func theClockMovesOnlyWhenTold() {
    let start = Date(timeIntervalSince1970: 1_000)
    let clock = TestClock(now: start)
    #expect(clock.now == start)
    clock.advance(by: .seconds(30))
    #expect(clock.now == start + 30)
    clock.set(to: start)
    #expect(clock.now == start)
  }

  @Test func loopbackRedirectURIsIgnoreThePortOnly() {
    let client = TestClient.example
    #expect(client.allowsRedirect(to: "com.example.app:/callback"))
    #expect(client.allowsRedirect(to: "http://127.0.0.1:1234/callback"))
    #expect(client.allowsRedirect(to: "http://127.0.0.1/callback"))
    #expect(!client.allowsRedirect(to: "http://127.0.0.1:1234/other"))
    #expect(!client.allowsRedirect(to: "http://localhost:1234/callback"))
    #expect(!client.allowsRedirect(to: "com.example.app:/callback?x=1"))
    #expect(!client.allowsRedirect(to: "COM.example.app:/callback"))
  }
}
