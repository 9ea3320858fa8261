import FuzzSupport
import XidJOSE

/// JWK and JWK Set parsing on arbitrary bytes: the same input is read as one public JWK, as a JWK
/// Set, and as a private JWK to sign with.
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - A key that parses has a thumbprint (43 base64url characters) that does not depend on its
///   optional members, and a description without key material.
/// - A JWK Set accounts for every element of its `keys`: each is a key or a skipped key, in order.
/// - A private JWK that imports signs a JWS its public half verifies (for ES256, not in
///   deterministic runs: see ``LibFuzzer/isDeterministic``).
@main
enum FuzzJWK {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = LibFuzzer.bytes(data, size)
  guard let json = try? JSONValue(parsing: input) else {
    fuzzCheck((try? JWK(parsing: input)) == nil, "a JWK from bytes that are not JSON")
    fuzzCheck((try? JWKSet(parsing: input)) == nil, "a JWK Set from bytes that are not JSON")
    return 0
  }
  if let jwk = try? JWK(json: json) { check(jwk) }
  checkSet(input, json)
  if let signingKey = try? JWSSigningKey(privateJWK: json) { check(signingKey) }
  return 0
}

private func check(_ jwk: JWK) {
  let thumbprint = jwk.thumbprint
  fuzzCheck(thumbprint.utf8.count == 43, "a thumbprint is not 43 characters")
  var required = jwk.members
  for name in required.keys where !["kty", "crv", "x", "y", "n", "e"].contains(name) { required[name] = nil }
  if let bare = try? JWK(json: .object(required)) {
    fuzzCheck(bare.thumbprint == thumbprint, "the thumbprint depends on optional members")
  } else {
    fuzzCheck(false, "a key without its optional members does not parse")
  }
  for algorithm in JWSAlgorithm.allCases where jwk.permitsVerification(with: algorithm) {
    fuzzCheck(algorithm.keyType == jwk.keyType, "a key permits an algorithm of another key type")
  }
  let key = try? JWSVerificationKey(jwk: jwk)
  if let key { _ = key.description }
  _ = jwk.description
}

private func checkSet(_ input: UnsafeBufferPointer<UInt8>, _ json: JSONValue) {
  guard let set = try? JWKSet(parsing: input) else {
    fuzzCheck(json["keys"]?.arrayValue == nil, "a document with a keys array is not a JWK Set")
    return
  }
  guard let elements = json["keys"]?.arrayValue else {
    fuzzCheck(false, "a JWK Set without a keys array")
    return
  }
  fuzzCheck(set.keys.count + set.skipped.count == elements.count, "a JWK Set loses keys")
  let skippedIndices = set.skipped.map(\.index)
  fuzzCheck(skippedIndices == skippedIndices.sorted(), "skipped keys out of order")
  fuzzCheck(Set(skippedIndices).count == skippedIndices.count, "a key skipped twice")
  for skipped in set.skipped {
    fuzzCheck(elements.indices.contains(skipped.index), "a skipped key outside the set")
  }
  for algorithm in JWSAlgorithm.allCases {
    _ = try? set.candidates(keyID: nil, algorithm: algorithm)
    for key in set.keys.prefix(4) { _ = try? set.candidates(keyID: key.keyID, algorithm: algorithm) }
  }
}

private func check(_ signingKey: JWSSigningKey) {
  // ECDSA signatures are randomized, and which branches their DER encoding takes with them: left
  // out of deterministic runs (Ed25519 signatures are deterministic).
  if LibFuzzer.isDeterministic, signingKey.algorithm == .es256 { return }
  let payload = Array("fuzz".utf8)
  guard let token = try? signingKey.sign(payload), let jws = try? CompactJWS(parsing: token),
    let key = try? signingKey.verificationKey()
  else {
    fuzzCheck(false, "an imported private key does not sign a parsable JWS")
    return
  }
  fuzzCheck(
    (try? jws.verify(with: key, allowedAlgorithms: [signingKey.algorithm])) == signingKey.algorithm,
    "a signature by an imported private key does not verify with its public half")
  fuzzCheck(jws.payload == payload, "a signed payload changed")
}
