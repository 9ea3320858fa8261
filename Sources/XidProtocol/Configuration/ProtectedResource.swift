import Foundation

/// An API the app calls with tokens meant for it alone (resource indicators, RFC 8707): its
/// identifier, sent as `resource` in the authorization request and in the token requests of its
/// tokens, and the URLs that belong to it.
///
/// ```swift
/// configuration.identity.resources = [
///   ProtectedResource(URL(string: "https://payments.example.com/")!),
///   ProtectedResource(
///     URL(string: "https://health.example.com/records")!,
///     urlPrefixes: [URL(string: "https://health.example.com/records/")!], scopes: ["records.read"]),
/// ]
/// ```
///
/// `Xid.shared.getAccessToken(for:)` and `send(_:)` to a URL under one of its prefixes then use an
/// access token for that resource alone, issued from the session's one refresh token and refreshed
/// on its own.
public struct ProtectedResource: Sendable, Hashable {
  /// The resource's identifier (RFC 8707 §2): an absolute URI without a fragment, as the provider
  /// knows it.
  public var identifier: URL
  /// The URLs of the resource: a request whose URL has the same scheme, host and port as one of
  /// them, and a path under its path (at a `/`), carries the resource's token.
  public var urlPrefixes: [URL]
  /// The scopes to ask for in the resource's token requests (a subset of the session's), or `nil`
  /// for the session's.
  public var scopes: [String]?

  /// Creates a resource; its URLs are those under `identifier` unless `urlPrefixes` says otherwise.
  public init(_ identifier: URL, urlPrefixes: [URL]? = nil, scopes: [String]? = nil) {
    self.identifier = identifier
    self.urlPrefixes = urlPrefixes ?? [identifier]
    self.scopes = scopes
  }

  /// The identifier as `resource` carries it.
  public var parameter: String { identifier.absoluteString }

  /// Checks the resource before anything is sent.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` for an identifier that is not an absolute URI or
  ///   has a fragment (RFC 8707 §2), and a URL prefix that is not an absolute `https` (or loopback
  ///   `http`) URL without query or fragment.
  public func validate() throws {
    let name = SafeText.short(identifier.absoluteString, limit: 96)
    guard identifier.scheme != nil, identifier.host != nil || identifier.scheme?.lowercased() == "urn" else {
      throw XidError(.invalidConfiguration, "the resource identifier \"\(name)\" is not an absolute URI (RFC 8707 §2)")
    }
    guard identifier.fragment == nil else {
      throw XidError(.invalidConfiguration, "the resource identifier \"\(name)\" has a fragment (RFC 8707 §2)")
    }
    for prefix in urlPrefixes {
      let text = SafeText.short(prefix.absoluteString, limit: 96)
      guard prefix.host != nil, prefix.query == nil, prefix.fragment == nil else {
        throw XidError(
          .invalidConfiguration,
          "the URL prefix \"\(text)\" of resource \"\(name)\" must be an absolute URL without query or fragment")
      }
      do { try prefix.requireSecure(for: "URL prefix of resource \"\(name)\"") } catch let error as XidError {
        throw XidError(.invalidConfiguration, error.reason)
      }
    }
  }

  /// Whether `url` is under one of ``urlPrefixes``; the length of the longest such prefix's path,
  /// for the most specific match among resources.
  func match(_ url: URL) -> Int? {
    urlPrefixes.compactMap { Self.match(url, under: $0) }.max()
  }

  private static func match(_ url: URL, under prefix: URL) -> Int? {
    guard let scheme = url.scheme?.lowercased(), scheme == prefix.scheme?.lowercased(),
      let host = url.host?.lowercased(), host == prefix.host?.lowercased(),
      port(of: url, scheme: scheme) == port(of: prefix, scheme: scheme)
    else { return nil }
    // As sent, and with a trailing slash kept (`path` drops it).
    let path = url.path(percentEncoded: true).isEmpty ? "/" : url.path(percentEncoded: true)
    let base = prefix.path(percentEncoded: true).isEmpty ? "/" : prefix.path(percentEncoded: true)
    guard path.utf8.starts(with: base.utf8) else { return nil }
    // At a segment's end: "/api" covers "/api" and "/api/x", not "/apix".
    let rest = path.utf8.dropFirst(base.utf8.count)
    guard base.hasSuffix("/") || rest.isEmpty || rest.first == UInt8(ascii: "/") else { return nil }
    return base.utf8.count
  }

  private static func port(of url: URL, scheme: String) -> Int? {
    url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
  }
}

extension ProtectedResource {
  /// The resource of `resources` whose URLs include `url`, the most specific one when several do;
  /// `nil` for a URL of none.
  package static func covering(_ url: URL, among resources: [ProtectedResource]) -> ProtectedResource? {
    index(covering: url, among: resources).map { resources[$0] }
  }

  /// The index in `resources` of ``covering(_:among:)``'s resource.
  package static func index(covering url: URL, among resources: [ProtectedResource]) -> Int? {
    var best: (index: Int, length: Int)?
    for (index, resource) in resources.enumerated() {
      if let length = resource.match(url), length > (best?.length ?? -1) { best = (index, length) }
    }
    return best?.index
  }
}

extension ClientIdentity {
  /// The configured resource whose URLs include `url`, the most specific one when several do; `nil`
  /// for a URL of none (its requests carry the session's own access token).
  public func resource(for url: URL) -> ProtectedResource? { ProtectedResource.covering(url, among: resources) }

  /// The configured resource whose identifier is `identifier`.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` when no configured resource has it.
  public func resource(identifiedBy identifier: URL) throws -> ProtectedResource {
    guard let resource = resources.first(where: { $0.parameter == identifier.absoluteString }) else {
      let known = resources.map(\.parameter).joined(separator: ", ")
      throw XidError(
        .invalidConfiguration,
        "\"\(SafeText.short(identifier.absoluteString, limit: 96))\" is not one of the configured resources (XidConfiguration.identity.resources: \(known.isEmpty ? "none" : known))"
      )
    }
    return resource
  }
}
