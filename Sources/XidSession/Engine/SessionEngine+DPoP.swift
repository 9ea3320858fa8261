import Foundation

// DPoP (RFC 9449) in the session: the sign-in's key, the binding rules, authorized requests and the
// headers of requests an app sends with its own networking.
extension SessionEngine {
  // MARK: - Public API

  /// The headers that authorize a request the app sends with its own networking: `Authorization`
  /// with the access token (refreshed first when needed), and for a DPoP-bound session a `DPoP` proof
  /// for exactly `method` and `url` (with `ath` and the server's latest nonce). Make them right before
  /// sending: a proof is valid for a short time and, at most servers, once.
  ///
  /// Pass the response to ``recordResponse(_:for:)`` so that the server's nonces are learnt.
  ///
  /// - Parameters:
  ///   - method: the request's method, for example `"GET"`.
  ///   - url: the request's URL, exactly as it will be sent. A URL of a configured resource
  ///     (``ClientIdentity/resources``) gets that resource's token.
  ///   - forceRefresh: refresh the access token first (after a 401 `invalid_token`).
  /// - Throws: ``XidError/Code/insecureURL`` for a URL that is neither `https` nor loopback, token
  ///   errors (see ``accessToken(forceRefresh:)``) and ``XidError/Code/dpopKeyUnavailable``.
  public nonisolated func authorizationHeaders(method: String, url: URL, forceRefresh: Bool = false) async throws
    -> HTTPHeaders
  {
    try url.requireSecure(for: "authorized request URL")
    let resource = resources.isEmpty ? nil : ProtectedResource.covering(url, among: resources)
    return try await PresenceScope.run {
      let record = try await usableRecord(forceRefresh: forceRefresh, resource: resource)
      let accessToken = try Self.accessToken(of: record, for: resource)
      guard let key = try signer.key(for: record) else { return ["Authorization": "Bearer " + accessToken] }
      try await signer.ready(key)
      let proof = try key.proof(
        method: method, url: url, accessToken: accessToken, nonce: dpopNonces.nonce(for: url),
        now: configuration.parts.clock.now)
      return ["Authorization": "DPoP " + accessToken, "DPoP": proof]
    }
  }

  /// Learns from a response to a request the app sent with ``authorizationHeaders(method:url:forceRefresh:)``:
  /// its `DPoP-Nonce`, kept for the next proofs to its origin (and for the app's extensions).
  ///
  /// - Returns: `true` when the server asks for a proof with its new nonce (`use_dpop_nonce`): make
  ///   new headers and send the request once more.
  @discardableResult
  public nonisolated func recordResponse(_ response: HTTPResponse, for url: URL) -> Bool {
    dpopNonces.record(response, from: url) && response.asksForDPoPNonce
  }

  // MARK: - Sign-in and records

  /// A new key for a sign-in when DPoP is on, stored before the authorization request names it.
  func makeSignInKey() throws -> PreparedDPoPKey? {
    guard configuration.usesDPoP else { return nil }
    return try dpopKeys.makeKey()
  }

  /// Stores a sign-in's record, its refresh token sealed first (``sealedForSignIn(_:)``: tokens that
  /// cannot be kept are revoked). When the store fails, the stored session stays as it was, with the
  /// presence key that opens its refresh token, and the sign-in's tokens are revoked
  /// (``storeFailed(_:sealed:cause:)``). The session it replaces (its newest tokens: a refresh that
  /// was under way drops its own, and one that wrote just after the sign-in is found once the refresh
  /// lock is free) is over: its presence key is deleted, its refresh token, which nobody will send
  /// again, is revoked, best effort, and its DPoP key is deleted.
  func store(_ record: TokenRecord) async throws {
    // Sealed here rather than by the account, so that tokens that cannot be kept are revoked.
    let sealed = try await sealedForSignIn(record)
    let stored: TokenRecord?
    do {
      stored = try await account.store(sealed)
    } catch {
      throw await storeFailed(record, sealed: sealed, cause: error)
    }
    guard let replaced = stored, replaced.signInID != record.signInID else {
      await keepOnlyThePresenceKey(of: sealed)
      return
    }
    let oldKey = replaced.dpopKeyThumbprint.flatMap { try? dpopKeys.key(thumbprint: $0) }
    if let old = replaced.dpopKeyThumbprint, old != record.dpopKeyThumbprint {
      dpopKeys.delete(thumbprint: old)
    }
    // A sealed one is opened (only with a confirmation the call or the reuse time holds) before its
    // presence key goes.
    let revocable = await account.revocableRefreshToken(of: replaced)
    await keepOnlyThePresenceKey(of: sealed)
    guard let refreshToken = revocable, refreshToken != record.refreshToken else { return }
    let what = "the refresh token of the session the sign-in replaced"
    if await client.revokeBestEffort(
      refreshToken, hint: .refreshToken, dpopKey: oldKey?.key, category: "sign-in", naming: what) == .revoked
    {
      configuration.parts.logger.log(.info, category: "sign-in", "revoked \(what)")
    }
  }

  /// How `record`'s tokens are bound, for ``XidSession/dpopBinding``.
  func binding(of record: TokenRecord) -> DPoPBinding? {
    record.dpopKeyThumbprint.map { dpopKeys.binding(thumbprint: $0) }
  }

  // MARK: - Authorized requests

  /// Sends `request` with the session's token: at most three times, the first try, one retry with a
  /// server's new DPoP nonce and one retry after a refresh.
  ///
  /// `answer` makes the result from the response, the record whose token went with it and its
  /// resource: `send` keeps only the response, and copies no record.
  nonisolated func sendAuthorized<Answer: Sendable>(
    _ request: HTTPRequest, answer: @Sendable (HTTPResponse, borrowing TokenRecord, ProtectedResource?) -> Answer
  ) async throws -> Answer {
    // A URL of a configured resource (RFC 8707) carries that resource's token. Its index, a plain
    // integer, is what the loop keeps: a request to no resource copies nothing more than before.
    let index = resources.isEmpty ? nil : ProtectedResource.index(covering: request.url, among: resources)
    var resource: ProtectedResource? { index.map { resources[$0] } }
    // One call: in the stricter mode one prompt covers a refresh and every proof of the request.
    return try await PresenceScope.run {
      var record = try await usableRecord(forceRefresh: false, resource: resource)
      var sends = 0
      var retriedWithNonce = false
      var refreshed = false
      while true {
        let key = try signer.key(for: record)
        try await signer.ready(key)
        let accessToken = try Self.accessToken(of: record, for: resource)
        let authorized: HTTPRequest
        if let key {
          let proof = try key.proof(
            method: request.method, url: request.url, accessToken: accessToken,
            nonce: dpopNonces.nonce(for: request.url), now: configuration.parts.clock.now)
          authorized = request.authorized(with: accessToken, dpopProof: proof)
        } else {
          authorized = request.authorized(with: accessToken)
        }
        let response = try await transport.send(authorized)
        sends += 1
        let learnt = key != nil && dpopNonces.record(response, from: request.url)
        guard response.status == 401 else { return answer(response, record, resource) }
        // The token is good but the user's authentication is not (RFC 9470): a refresh cannot help.
        if let stepUp = response.stepUpError { throw stepUp }
        guard sends < 3 else { return answer(response, record, resource) }
        if learnt, !retriedWithNonce, response.asksForDPoPNonce {
          retriedWithNonce = true
          configuration.parts.logger.log(
            .info, category: "request", "the server asked for a DPoP nonce; sending once more")
          continue
        }
        let asksForToken = key != nil ? response.asksForNewDPoPToken : response.invalidTokenChallenge
        guard asksForToken, !refreshed else { return answer(response, record, resource) }
        refreshed = true
        configuration.parts.logger.log(
          .info, category: "request", "the server refused the access token; refreshing once")
        record = try await usableRecord(forceRefresh: true, resource: resource)
      }
    }
  }

}
