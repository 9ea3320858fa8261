import Foundation

/// Fetches protected resources' metadata (RFC 9728) and keeps each for a lifetime, as
/// ``ProviderDiscovery`` keeps the provider's: concurrent callers for one resource share a fetch, a
/// failed fetch is not cached, and a document that breaks a rule is never used.
///
/// At most ``capacity`` resources are kept (the oldest goes first), so that challenges naming many
/// metadata URLs cannot grow the cache without bound.
actor ProtectedResourceDiscovery {
  /// How many resources' metadata are kept.
  static let capacity = 32

  private let http: ProtocolHTTP
  private let clock: any XidClock
  private let lifetime: Duration
  private var cached: [String: (metadata: ProtectedResourceMetadata, fetchedAt: Date)] = [:]
  private var inFlight: [String: Task<ProtectedResourceMetadata, any Error>] = [:]

  init(http: ProtocolHTTP, clock: any XidClock, lifetime: Duration) {
    self.http = http
    self.clock = clock
    self.lifetime = lifetime
  }

  /// The metadata at `url`, which must state `resource`: the cached copy while it is younger than the
  /// lifetime, otherwise fetched.
  func metadata(at url: URL, resource: String, forceRefresh: Bool) async throws -> ProtectedResourceMetadata {
    let key = url.absoluteString + " " + resource
    if !forceRefresh, let entry = cached[key], clock.now.timeIntervalSince(entry.fetchedAt) < lifetime.timeInterval {
      return entry.metadata
    }
    if let task = inFlight[key] { return try await task.value }
    let task = Task { [http] in try await Self.fetch(url, resource: resource, http: http) }
    inFlight[key] = task
    defer { inFlight[key] = nil }
    let metadata = try await task.value
    if cached[key] == nil, cached.count >= Self.capacity,
      let oldest = cached.min(by: { $0.value.fetchedAt < $1.value.fetchedAt })?.key
    {
      cached[oldest] = nil
    }
    cached[key] = (metadata, clock.now)
    return metadata
  }

  private static func fetch(_ url: URL, resource: String, http: ProtocolHTTP) async throws
    -> ProtectedResourceMetadata
  {
    let endpoint = "protected resource metadata endpoint"
    let response = try await http.send(HTTPRequest(url: url), endpoint: endpoint)
    guard response.isSuccess else {
      throw XidError(
        .resourceMetadataFailed,
        "the protected resource metadata could not be fetched: HTTP \(response.status) from \(SafeText.short(url.absoluteString, limit: 200))",
        httpStatus: response.status)
    }
    guard response.body.count <= ProtectedResourceMetadata.maximumSize else {
      throw XidError(
        .responseTooLarge,
        "the protected resource metadata has \(response.body.count) bytes; Xid reads at most \(ProtectedResourceMetadata.maximumSize)",
        httpStatus: response.status)
    }
    let document: [String: JSONValue]
    do {
      document = try ProtocolHTTP.jsonObject(response, endpoint: endpoint)
    } catch let error as XidError {
      throw XidError(
        .resourceMetadataFailed, "the protected resource metadata is not usable: \(error.reason)",
        httpStatus: response.status)
    }
    return try ProtectedResourceMetadata(document: .object(document), expectedResource: resource)
  }
}
