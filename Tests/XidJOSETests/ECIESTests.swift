import Testing

@testable import XidJOSE

/// ECIES as Apple's `eciesEncryptionCofactorVariableIVX963SHA256AESGCM` does it, on the platform's
/// primitives. The known answers were computed with Python's `cryptography` 48 (an independent
/// implementation of ECDH, the X9.63 KDF and AES-GCM), from keys derived as SHA-256 of a label:
/// `d = SHA-256("xid presence KAT recipient")` and `SHA-256("xid presence KAT ephemeral")`.
struct ECIESTests {
  static let recipient = try! P256KeyAgreementKey(
    scalar: hexBytes("603a1801ecd252881cf0bf07bbdba24af12a81b423c82d68aca2facdb32d3330"),
    publicKey: hexBytes(
      "0462556dcb98fe9e75b4b329fb7779b7b6c2d70adac1ec8cec5236fb9abb097dc8464c2c70102a696f691f511c77eb82d1fbe5db08c57059ffdf973938c701a302"
    ))
  static let ephemeral = try! P256KeyAgreementKey(
    scalar: hexBytes("d1e4682d7d7c0cb6cdc91fc307d1c664dc70481d1fec19738bfb8aa71af71744"),
    publicKey: hexBytes(
      "045869616bca6b92c51d3a0a6e5a798eb4882ac9b2dfcf5002b37094124d60f12c359bc23dba60f5f45972ee04c31d7ef21a9a321834bd61583761bad7bec39eba"
    ))
  static let plaintext = Array("a refresh token that needs the user".utf8)
  static let sealed = hexBytes(
    "045869616bca6b92c51d3a0a6e5a798eb4882ac9b2dfcf5002b37094124d60f12c359bc23dba60f5f45972ee04c31d7ef21a9a321834bd61583761bad7bec39eba9a2a8d0cde839d01690fd415a9a9fa7822962428a3db2d2149f5df69d3fa1ebb2efde051bff8a0297550dcedbef83feafff452"
  )
  static let sealedEmpty = hexBytes(
    "045869616bca6b92c51d3a0a6e5a798eb4882ac9b2dfcf5002b37094124d60f12c359bc23dba60f5f45972ee04c31d7ef21a9a321834bd61583761bad7bec39eba3b59b52c5d2aef668c2e37a7121fa025"
  )

  @Test func sealingWithAKnownEphemeralKeyGivesTheKnownAnswer() throws {
    #expect(try ECIESP256.seal(Self.plaintext, to: Self.recipient.publicKey, ephemeral: Self.ephemeral) == Self.sealed)
    #expect(try ECIESP256.seal([], to: Self.recipient.publicKey, ephemeral: Self.ephemeral) == Self.sealedEmpty)
  }

  @Test func theKnownAnswerOpensWithTheRecipientKey() throws {
    #expect(try ECIESP256.open(Self.sealed, with: Self.recipient) == Self.plaintext)
    #expect(try ECIESP256.open(Self.sealedEmpty, with: Self.recipient) == [])
  }

  @Test func aSealedMessageOpensOnlyWithItsKey() throws {
    let sealed = try ECIESP256.seal(Self.plaintext, to: Self.recipient.publicKey)
    #expect(sealed.count == Self.plaintext.count + ECIESP256.overhead)
    #expect(sealed != Self.sealed, "a fresh ephemeral key for every message")
    #expect(try ECIESP256.open(sealed, with: Self.recipient) == Self.plaintext)
    try expectDecryptionFailure { try ECIESP256.open(sealed, with: try .generate()) }
  }

  @Test func anyChangedByteIsRefused() throws {
    for index in [0, 1, 64, 65, Self.sealed.count - 17, Self.sealed.count - 1] {
      var changed = Self.sealed
      changed[index] ^= 0x01
      try expectDecryptionFailure { try ECIESP256.open(changed, with: Self.recipient) }
    }
    try expectDecryptionFailure { try ECIESP256.open(Array(Self.sealed.dropLast()), with: Self.recipient) }
    try expectDecryptionFailure { try ECIESP256.open(Array(Self.sealed.prefix(80)), with: Self.recipient) }
  }

  @Test func aRecipientThatIsNotAPointIsRefused() throws {
    var offCurve = Self.recipient.publicKey
    offCurve[64] ^= 0x01
    for bad in [offCurve, Array(Self.recipient.publicKey.dropFirst()), [0x02] + Self.recipient.publicKey[1..<33]] {
      #expect(throws: XidError.self) { try ECIESP256.seal(Self.plaintext, to: bad) }
    }
  }

  @Test func aKeyPairIsCheckedToBelongTogether() throws {
    #expect(throws: XidError.self) {
      try P256KeyAgreementKey(scalar: Self.ephemeral.scalar, publicKey: Self.recipient.publicKey)
    }
    let generated = try P256KeyAgreementKey.generate()
    #expect(try P256KeyAgreementKey(scalar: generated.scalar, publicKey: generated.publicKey) == generated)
    #expect(!"\(generated)".contains(Base64URL.encode(generated.scalar)))
  }

  #if os(Linux)
    // The OpenSSL layer's pieces one by one, against the same reference.

    @Test func openSSLECDHGivesTheKnownSharedSecret() throws {
      let secret = try PlatformECIES.ecdh(
        scalar: Self.ephemeral.scalar, publicKey: Self.ephemeral.publicKey, peer: Self.recipient.publicKey)
      #expect(secret == hexBytes("f3010262b19e04e7abe81c8a0504b53913df9e201a1071c3aaa600d1c2d5231a"))
    }

    @Test func openSSLX963KDFGivesTheKnownAnswers() throws {
      let first = try PlatformECIES.x963KDFSHA256(
        sharedSecret: hexBytes("f3010262b19e04e7abe81c8a0504b53913df9e201a1071c3aaa600d1c2d5231a"),
        sharedInfo: Self.ephemeral.publicKey, count: 32)
      #expect(first == hexBytes("471ff9e7533f83f3a2763489d229651b9fd5baae99a4edf290248f34bf033915"))
      // 48 bytes: two SHA-256 blocks, the second one cut.
      let second = try PlatformECIES.x963KDFSHA256(
        sharedSecret: Array(0..<32), sharedInfo: Array("xid x963 kdf".utf8), count: 48)
      #expect(
        second
          == hexBytes(
            "50c3e864631775cbf19c515e04905b307e0e8e3a37686cbf6abe8cc69cb9b32336e6e67497568412fff8db6c1f70934c"))
    }

    @Test func openSSLAESGCMWithASixteenByteIVGivesTheKnownAnswer() throws {
      let key = Array<UInt8>(16..<32), iv = Array<UInt8>(100..<116)
      let plaintext = Array("sixteen byte IVs are GHASHed".utf8)
      let (ciphertext, tag) = try PlatformECIES.aesGCMSeal(plaintext, key: key, iv: iv)
      #expect(ciphertext == hexBytes("c6d4f374d95c4312ca4b975b178ebe18f83d5ff9ae59cbdf37704ac8"))
      #expect(tag == hexBytes("03622769aee2464892e38624de11f689"))
      #expect(try PlatformECIES.aesGCMOpen(ciphertext, tag: tag, key: key, iv: iv) == plaintext)
      var wrongTag = tag
      wrongTag[0] ^= 0x80
      try expectDecryptionFailure { try PlatformECIES.aesGCMOpen(ciphertext, tag: wrongTag, key: key, iv: iv) }
    }
  #endif

  private func expectDecryptionFailure(_ body: () throws -> [UInt8]) throws {
    do {
      _ = try body()
      Issue.record("opened data that must not open")
    } catch let error as XidError {
      #expect(error.code == .decryptionFailed, "\(error)")
    }
  }
}

/// The DER to r ‖ s conversion of the signatures `LAPrivateKey` and the Security framework return.
struct ECDSASignatureDERDecodeTests {
  @Test func derRoundTripsToTheRawForm() throws {
    for raw in [
      [UInt8](repeating: 0x7F, count: 64), [UInt8](repeating: 0xFF, count: 64),
      [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [0x80],
    ] {
      let der = [UInt8](unsafeUninitializedCapacity: ECDSASignatureDER.maximumLength) { buffer, count in
        count = raw.withUnsafeBytes { ECDSASignatureDER.encode(rawP256: $0, into: buffer) }
      }
      #expect(ECDSASignatureDER.rawP256(fromDER: der) == raw)
    }
  }

  @Test func malformedDERIsRefused() {
    let good: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02]
    #expect(
      ECDSASignatureDER.rawP256(fromDER: good) == [UInt8](repeating: 0, count: 31) + [1]
        + [UInt8](repeating: 0, count: 31) + [2])
    for bad: [UInt8] in [
      [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02],  // wrong sequence length
      [0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x02],  // negative r
      [0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x02],  // r not minimal
      [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x02],  // r is zero
      [0x30, 0x06, 0x03, 0x01, 0x01, 0x02, 0x01, 0x02],  // not an INTEGER
      [0x30, 0x09, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02, 0x05, 0x00, 0x00],  // trailing bytes inside
    ] {
      #expect(ECDSASignatureDER.rawP256(fromDER: bad) == nil, "\(bad)")
    }
    let tooLong = [0x30, 0x26, 0x02, 0x21, 0x01] + [UInt8](repeating: 1, count: 32) + [0x02, 0x01, 0x01]
    #expect(ECDSASignatureDER.rawP256(fromDER: tooLong) == nil)
  }
}
