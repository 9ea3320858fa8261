import Foundation
import FuzzSupport
import XidCore

/// The discovery document (`openid-configuration`) on arbitrary bytes: parsed as JSON, then read by
/// `ProviderMetadata(document:expectedIssuer:)` with the document's own issuer (so that mutations get
/// past the issuer check) and with a fixed one.
///
/// The same document is read as a protected resource's metadata (RFC 9728), with its own `resource`
/// and a fixed one, and that `resource` (when it is a URL) gives a well-known URL.
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - metadata that reads has the issuer it was asked for, and absolute endpoint URLs;
/// - the ID token algorithms it yields are among those Xid verifies;
/// - resource metadata that reads states the resource it was asked for, and its well-known URL keeps
///   the resource's scheme and host and has the well-known path.
@main
enum FuzzDiscovery {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

private let fixedIssuer = "https://op.xid.test"

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let document = try? JSONValue(parsing: LibFuzzer.bytes(data, size)) else { return 0 }
  var issuers = [fixedIssuer]
  if let own = document["issuer"]?.stringValue { issuers.append(own) }
  for issuer in issuers {
    guard let metadata = try? ProviderMetadata(document: document, expectedIssuer: issuer) else { continue }
    fuzzCheck(metadata.issuer == issuer, "metadata read with another issuer than expected")
    for url in [metadata.authorizationEndpoint, metadata.tokenEndpoint, metadata.jwksURI] {
      fuzzCheck(url.scheme != nil, "a required endpoint is not an absolute URL")
    }
    if let algorithms = try? metadata.idTokenSigningAlgorithms() {
      fuzzCheck(!algorithms.isEmpty, "no ID token algorithm and no error")
      fuzzCheck(algorithms.isSubset(of: JWSAlgorithm.allCases), "an ID token algorithm Xid does not verify")
    }
    _ = metadata.hashValue
  }
  var resources = [fixedResource]
  if let own = document["resource"]?.stringValue { resources.append(own) }
  for resource in resources {
    guard let metadata = try? ProtectedResourceMetadata(document: document, expectedResource: resource) else {
      continue
    }
    fuzzCheck(metadata.resource == resource, "resource metadata read for another resource than expected")
    _ = metadata.hashValue
    guard let url = URL(string: resource), let wellKnown = try? ProtectedResourceMetadata.metadataURL(for: url) else {
      continue
    }
    fuzzCheck(wellKnown.scheme == url.scheme && wellKnown.host == url.host, "a well-known URL on another origin")
    fuzzCheck(wellKnown.path.hasPrefix("/.well-known/oauth-protected-resource"), "a well-known URL without its path")
  }
  return 0
}

private let fixedResource = "https://api.xid.test/resource"
