import Foundation

/// Fetches a provider's metadata and keeps it for a lifetime.
///
/// Concurrent callers share one fetch; a failed fetch is not cached, so the next call tries again.
actor ProviderDiscovery {
  /// The configured issuer identifier the metadata must state.
  nonisolated let issuer: URL
  /// How long fetched metadata is reused, in seconds.
  nonisolated let lifetime: Duration
  private let http: ProtocolHTTP
  private let clock: any XidClock
  private var cached: (metadata: ProviderMetadata, fetchedAt: Date)?
  private var inFlight: Task<ProviderMetadata, any Error>?

  /// Creates a discovery cache for `issuer`.
  ///
  /// - Parameters:
  ///   - issuer: the provider's issuer identifier, exactly as its metadata states it.
  ///   - transport: the HTTP transport.
  ///   - clock: the clock that decides when cached metadata has expired.
  ///   - lifetime: how long metadata is reused; one hour by default.
  init(
    issuer: URL, transport: any HTTPTransport, clock: any XidClock = SystemClock(), lifetime: Duration = .seconds(3600)
  ) {
    self.issuer = issuer
    self.http = ProtocolHTTP(transport: transport)
    self.clock = clock
    self.lifetime = lifetime
  }

  /// The provider's metadata: the cached copy while it is younger than ``lifetime``, otherwise fetched.
  ///
  /// - Parameter forceRefresh: fetch even if a cached copy is still fresh.
  /// - Throws: ``XidError`` with ``XidError/Code/discoveryFailed`` (the document could not be fetched
  ///   or is invalid; `httpStatus` set when the server answered), ``XidError/Code/issuerMismatch``,
  ///   ``XidError/Code/insecureURL``, ``XidError/Code/networkFailure`` or ``XidError/Code/cancelled``.
  func metadata(forceRefresh: Bool = false) async throws -> ProviderMetadata {
    if !forceRefresh, let cached, clock.now.timeIntervalSince(cached.fetchedAt) < lifetime.timeInterval {
      return cached.metadata
    }
    if let inFlight { return try await inFlight.value }
    let task = Task { [http, issuer] in try await Self.fetch(issuer: issuer, http: http) }
    inFlight = task
    defer { inFlight = nil }
    let metadata = try await task.value
    cached = (metadata, clock.now)
    return metadata
  }

  /// Fetches and checks the metadata document of `issuer`, without caching.
  ///
  /// - Throws: as ``metadata(forceRefresh:)``.
  static func fetch(issuer: URL, transport: any HTTPTransport) async throws -> ProviderMetadata {
    try await fetch(issuer: issuer, http: ProtocolHTTP(transport: transport))
  }

  static func fetch(issuer: URL, http: ProtocolHTTP) async throws -> ProviderMetadata {
    try issuer.requireSecure(for: "issuer")
    let url = ProviderMetadata.discoveryURL(for: issuer)
    let response = try await http.send(HTTPRequest(url: url), endpoint: "discovery endpoint")
    guard response.isSuccess else {
      throw XidError(
        .discoveryFailed,
        "the provider metadata could not be fetched: HTTP \(response.status) from \(SafeText.short(url.absoluteString, limit: 200))",
        httpStatus: response.status)
    }
    let document: [String: JSONValue]
    do {
      document = try ProtocolHTTP.jsonObject(response, endpoint: "discovery endpoint")
    } catch let error as XidError {
      throw XidError(
        .discoveryFailed, "the provider metadata is not usable: \(error.reason)", httpStatus: response.status)
    }
    return try ProviderMetadata(document: .object(document), expectedIssuer: issuer.absoluteString)
  }
}
