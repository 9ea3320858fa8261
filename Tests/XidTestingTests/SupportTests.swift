import Foundation
import Testing
import Xid

@testable import XidTesting

struct SupportTests {
  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  /// FIPS 180-4 example vectors, including the empty message and a two-block one.
  @Test func sha512MatchesTheStandardVectors() {
    #expect(
      Self.hex(SHA512.hash(Array("abc".utf8)))
        == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
    )
    #expect(
      Self.hex(SHA512.hash([]))
        == "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"
    )
    let twoBlocks =
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
    #expect(
      Self.hex(SHA512.hash(Array(twoBlocks.utf8)))
        == "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"
    )
  }

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
    clock.advance(by: 30)
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
