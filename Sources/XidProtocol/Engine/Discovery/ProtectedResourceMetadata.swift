import Foundation

/// What a protected resource publishes about itself (OAuth 2.0 Protected Resource Metadata, RFC 9728):
/// the authorization servers whose tokens it accepts, the scopes it knows, whether its tokens must be
/// DPoP-bound.
///
/// Read it with `OpenIDClient.protectedResourceMetadata(for:)` (from the resource's identifier) or
/// `protectedResourceMetadata(challengedBy:requestURL:)` (from a 401's `resource_metadata` parameter);
/// both check it against the configuration, and cache it as discovery is cached.
///
/// ```swift
/// let metadata = try await client.protectedResourceMetadata(for: URL(string: "https://api.example.com")!)
/// try await Xid.shared.signIn(options: SignInOptions(resourceMetadata: metadata))
/// ```
public struct ProtectedResourceMetadata: Sendable, Hashable {
  /// `resource`: the resource's identifier, identical to the one the metadata was fetched for.
  public let resource: String
  /// `authorization_servers`: the issuer identifiers of the authorization servers the resource
  /// accepts tokens from; empty when it names none.
  public let authorizationServers: [String]
  /// `scopes_supported`: the scopes the resource uses, if it says.
  public let scopesSupported: [String]?
  /// `bearer_methods_supported`: how the resource accepts a token (`header`, `body`, `query`), if it
  /// says.
  public let bearerMethodsSupported: [String]?
  /// `dpop_signing_alg_values_supported`: the DPoP proof algorithms the resource accepts, if it says.
  public let dpopSigningAlgValuesSupported: [String]?
  /// `dpop_bound_access_tokens_required`: whether the resource accepts only DPoP-bound tokens.
  public let dpopBoundAccessTokensRequired: Bool
  /// The whole document, for members Xid does not read.
  public let document: JSONValue

  /// The largest metadata document Xid reads, in bytes.
  static let maximumSize = 64 * 1024

  /// Reads and checks a metadata document (RFC 9728 §2, §3.3). A member whose value is `null` counts
  /// as absent.
  ///
  /// - Parameters:
  ///   - document: the parsed JSON.
  ///   - expectedResource: the resource identifier the metadata was fetched for; the document's
  ///     `resource` must be identical to it (a resource that states another identifier is not used).
  /// - Throws: ``XidError/Code/resourceMetadataFailed`` when the document is not an object, lacks
  ///   `resource` or states another, or has a member of the wrong type.
  public init(document: JSONValue, expectedResource: String) throws {
    guard let members = document.objectValue else {
      throw XidError(.resourceMetadataFailed, "the protected resource metadata is not a JSON object")
    }
    guard let resource = members["resource"]?.stringValue else {
      throw XidError(.resourceMetadataFailed, "the protected resource metadata has no string \"resource\"")
    }
    guard resource == expectedResource else {
      throw XidError(
        .resourceMetadataFailed,
        "the protected resource metadata states resource \"\(SafeText.short(resource))\", not \"\(SafeText.short(expectedResource))\" it was fetched for; RFC 9728 §3.3 forbids using it"
      )
    }
    let typed = MetadataMembers(
      members: members, code: .resourceMetadataFailed, document: "protected resource metadata")
    self.resource = resource
    authorizationServers = try typed.strings("authorization_servers") ?? []
    scopesSupported = try typed.strings("scopes_supported")
    bearerMethodsSupported = try typed.strings("bearer_methods_supported")
    dpopSigningAlgValuesSupported = try typed.strings("dpop_signing_alg_values_supported")
    dpopBoundAccessTokensRequired = try typed.flag("dpop_bound_access_tokens_required")
    self.document = document
  }

  /// The URL of the metadata of `resource` (RFC 9728 §3.1): `/.well-known/oauth-protected-resource`
  /// between the host (and port) and the path, the path's terminating slash removed, and the query
  /// kept; so `https://api.example.com/v1` gives
  /// `https://api.example.com/.well-known/oauth-protected-resource/v1`.
  ///
  /// - Throws: ``XidError/Code/insecureURL`` for a resource that is neither `https` nor loopback, and
  ///   ``XidError/Code/invalidConfiguration`` for one with a fragment or without a host (RFC 8707 §2).
  public static func metadataURL(for resource: URL) throws -> URL {
    try resource.requireSecure(for: "protected resource identifier")
    guard var components = URLComponents(url: resource, resolvingAgainstBaseURL: false), components.host != nil,
      components.fragment == nil
    else {
      throw XidError(
        .invalidConfiguration,
        "a protected resource identifier is an absolute URL with a host and no fragment (RFC 8707 §2)")
    }
    var path = components.percentEncodedPath
    while path.hasSuffix("/") { path.removeLast() }
    components.percentEncodedPath = "/.well-known/oauth-protected-resource" + path
    guard let url = components.url else {
      throw XidError(.invalidConfiguration, "the protected resource identifier cannot take the well-known path")
    }
    return url
  }

  /// Checks that a session of `configuration` can use the resource: its issuer is one of
  /// ``authorizationServers`` (when the resource lists any), and its tokens are DPoP-bound when the
  /// resource requires it.
  ///
  /// - Throws: ``XidError/Code/issuerMismatch`` for an issuer the resource does not list, and
  ///   ``XidError/Code/invalidConfiguration`` when the resource requires DPoP and it is off.
  public func check(for configuration: XidConfiguration) throws {
    let issuer = configuration.identity.issuerIdentifier
    if !authorizationServers.isEmpty, !authorizationServers.contains(issuer) {
      let listed = authorizationServers.prefix(4).map { "\"\(SafeText.short($0))\"" }.joined(separator: ", ")
      throw XidError(
        .issuerMismatch,
        "the protected resource \"\(SafeText.short(resource))\" accepts tokens from \(listed), not from the configured issuer \"\(SafeText.short(issuer))\""
      )
    }
    if dpopBoundAccessTokensRequired, !configuration.usesDPoP {
      throw XidError(
        .invalidConfiguration,
        "the protected resource \"\(SafeText.short(resource))\" accepts only DPoP-bound access tokens (dpop_bound_access_tokens_required); turn XidConfiguration.usesDPoP on"
      )
    }
  }
}
