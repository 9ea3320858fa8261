import Foundation
import Testing
import Xid
import XidTestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension GlewlwydInterop {
  /// DPoP (RFC 9449) at glewlwyd's `oidc-dpop` instance, which demands server nonces, with the client
  /// that must prove a key in every token request. glewlwyd keeps one nonce per client (for every user
  /// and device), hands out a new one on a success answer after `XID_IDP_DPOP_NONCE_COUNTER` successful
  /// DPoP requests, protects `/userinfo` with DPoP, and refuses a bad proof at its token endpoint with
  /// `403 invalid_dpop_proof`.
  @Suite(.interopProvider, .timeLimit(.minutes(1)))
  struct DPoPInteropTests {
    @Test func signInSendsDPoPJktAndGetsTokensBoundToTheSessionsKey() async throws {
      let fixture = try InteropFixture(dpop: true)
      let url = try await fixture.xid.authorizationURL()
      let jkt = try #require(url.queryValue("dpop_jkt"))
      let callback = try await fixture.glewlwyd.approve(url, cookie: try await fixture.glewlwyd.logIn())
      let session = try await fixture.xid.handleRedirect(url: callback)

      #expect(session.dpopBinding == DPoPBinding(keyThumbprint: jkt, isHardwareBacked: false))
      #expect(session.scopes.contains("offline_access"))
      #expect(try fixture.stored("token_type") == "DPoP")
      let accessToken = try #require(try fixture.stored("access_token"))
      let refreshToken = try #require(try fixture.stored("refresh_token"))
      #expect(try Self.confirmationThumbprint(of: accessToken) == jkt)

      // The token endpoint asked for its nonce first; Xid sent the code once more with it (glewlwyd
      // checks the nonce last, so the code was still good).
      let tokenEndpoint = try await fixture.glewlwyd.endpoint("token_endpoint", of: fixture.issuer)
      let exchanges = fixture.exchanges.exchanges(with: tokenEndpoint)
      #expect(exchanges.map(\.status) == [400, 200], "\(exchanges)")
      #expect(exchanges.first?.asksForNonce == true)
      let everyRequestProved = exchanges.allSatisfy(\.hadProof)
      #expect(everyRequestProved)
      #expect(exchanges.last?.proofNonce != nil)
      #expect(exchanges.last?.proofNonce == exchanges.first?.dpopNonce)

      // glewlwyd holds the token to the key: as a Bearer token it is refused; Xid's UserInfo works.
      let userInfoEndpoint = try await fixture.glewlwyd.endpoint("userinfo_endpoint", of: fixture.issuer)
      let bearer = try await fixture.glewlwyd.transport.send(
        HTTPRequest(url: userInfoEndpoint, headers: ["Authorization": "Bearer " + accessToken]))
      #expect(bearer.status == 401)
      let info = try await fixture.xid.userInfo()
      #expect(info.subject == session.subject)
      fixture.expectNoSecretsLogged([accessToken, refreshToken])
    }

    @Test func aRefreshProvesTheSameKeyAndTheRotatedRefreshTokenStaysBound() async throws {
      let fixture = try InteropFixture(dpop: true)
      let session = try await fixture.xid.signIn()
      let jkt = try #require(session.dpopBinding?.keyThumbprint)
      let firstAccess = try #require(try fixture.stored("access_token"))
      let firstRefresh = try #require(try fixture.stored("refresh_token"))
      let tokenEndpoint = try await fixture.glewlwyd.endpoint("token_endpoint", of: fixture.issuer)
      let mark = fixture.exchanges.exchanges(with: tokenEndpoint).count

      let access = try await fixture.xid.getAccessToken(forceRefresh: true)
      let newAccessToken = access != firstAccess
      #expect(newAccessToken)
      let rotated = try #require(try fixture.stored("refresh_token"))
      let refreshTokenRotated = rotated != firstRefresh
      #expect(refreshTokenRotated)
      #expect(try Self.confirmationThumbprint(of: access) == jkt)
      #expect(try fixture.stored("token_type") == "DPoP")
      #expect(try fixture.stored("dpop_jkt") == jkt)
      // Xid kept the nonce its sign-in learnt, so the refresh needed no nonce retry.
      let refreshes = fixture.exchanges.exchanges(with: tokenEndpoint).dropFirst(mark)
      #expect(refreshes.map(\.status) == [200], "\(Array(refreshes))")
      let everyRefreshProved = refreshes.allSatisfy(\.hadProof)
      #expect(everyRefreshProved)

      // The rotated refresh token is bound too: sent by hand without a proof, glewlwyd refuses it...
      let unproved = try await fixture.glewlwyd.refresh(rotated, issuer: fixture.issuer, clientId: fixture.clientId)
      #expect(unproved.status == 403)
      #expect(try Self.oauthError(of: unproved) == "invalid_dpop_proof")
      // ... and that refusal did not end the grant: Xid's next refresh, with the key, works.
      let again = try await fixture.xid.getAccessToken(forceRefresh: true)
      #expect(try Self.confirmationThumbprint(of: again) == jkt)
      fixture.expectNoSecretsLogged([firstAccess, firstRefresh, access, rotated, again])
    }

    @Test func userInfoAnswersANonceChallengeOnceAndFollowsTheNonceRotation() async throws {
      let fixture = try InteropFixture(dpop: true)
      let session = try await fixture.xid.signIn()
      try await Self.anotherDeviceRotatesTheNonce()

      // The nonce this device learnt at sign-in is stale: glewlwyd answers 401 use_dpop_nonce with
      // its new nonce, and Xid asks once more with it.
      let userInfoEndpoint = try await fixture.glewlwyd.endpoint("userinfo_endpoint", of: fixture.issuer)
      let info = try await fixture.xid.userInfo()
      #expect(info.subject == session.subject)
      let challenged = fixture.exchanges.exchanges(with: userInfoEndpoint)
      #expect(challenged.map(\.status) == [401, 200], "\(challenged)")
      #expect(challenged.first?.asksForNonce == true)
      #expect(challenged.allSatisfy { $0.hadProof && $0.authorizationScheme == "DPoP" })
      #expect(challenged.last?.proofNonce != nil)
      #expect(challenged.last?.proofNonce == challenged.first?.dpopNonce)

      // glewlwyd hands out its next nonce on a success answer; Xid takes it from there, so no request
      // is refused: through userInfo(), then through send().
      try await Self.expectNoRefusalThroughANonceRotation(fixture, at: userInfoEndpoint) {
        _ = try await fixture.xid.userInfo()
      }
      try await Self.expectNoRefusalThroughANonceRotation(fixture, at: userInfoEndpoint) {
        _ = try await fixture.xid.send(HTTPRequest(url: userInfoEndpoint))
      }
    }

    @Test func sendAndTheAppsOwnRequestsEachAnswerANonceChallengeOnce() async throws {
      let fixture = try InteropFixture(dpop: true)
      let session = try await fixture.xid.signIn()
      let userInfoEndpoint = try await fixture.glewlwyd.endpoint("userinfo_endpoint", of: fixture.issuer)

      // Xid.send: 401 use_dpop_nonce, then once more with the nonce.
      try await Self.anotherDeviceRotatesTheNonce()
      let mark = fixture.exchanges.exchanges(with: userInfoEndpoint).count
      let response = try await fixture.xid.send(HTTPRequest(url: userInfoEndpoint))
      #expect(response.status == 200)
      let sent = Array(fixture.exchanges.exchanges(with: userInfoEndpoint).dropFirst(mark))
      #expect(sent.map(\.status) == [401, 200], "\(sent)")
      #expect(sent.last?.proofNonce == sent.first?.dpopNonce)

      // A request the app sends itself with URLSession: the headers carry the stale nonce;
      // recordResponse learns the new one from the HTTPURLResponse and says to send once more, with
      // new headers.
      try await Self.anotherDeviceRotatesTheNonce()
      let urlSession = URLSession(configuration: .ephemeral)
      defer { urlSession.finishTasksAndInvalidate() }
      func sendOwnRequest() async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: userInfoEndpoint)
        for field in try await fixture.xid.authorizationHeaders(method: "GET", url: userInfoEndpoint) {
          request.setValue(field.value, forHTTPHeaderField: field.name)
        }
        let (data, response) = try await urlSession.data(for: request)
        return (data, try #require(response as? HTTPURLResponse))
      }
      let (_, refused) = try await sendOwnRequest()
      #expect(refused.statusCode == 401)
      #expect(fixture.xid.recordResponse(refused))
      let learnt = try #require(refused.value(forHTTPHeaderField: "DPoP-Nonce"))
      let headers = try await fixture.xid.authorizationHeaders(method: "GET", url: userInfoEndpoint)
      #expect(headers["DPoP"].flatMap(RecordingTransport.nonce(ofProof:)) == learnt)
      let (body, accepted) = try await sendOwnRequest()
      #expect(accepted.statusCode == 200)
      #expect(!fixture.xid.recordResponse(accepted))
      let subject = try JSONValue(parsing: Array(body)).objectValue?["sub"]?.stringValue
      #expect(subject == session.subject)
    }

    @Test func aProofMadeWithAnotherKeyIsRefusedWith403AndTheSessionIsKept() async throws {
      let fixture = try InteropFixture(dpop: true)
      let session = try await fixture.xid.signIn()
      let ownKey = try #require(session.dpopBinding?.keyThumbprint)
      let refreshToken = try #require(try fixture.stored("refresh_token"))

      // Another device's key, as Xid stored it there, turns up with this device's record (a restored
      // backup): the record now names that key, so Xid signs the refresh with it.
      let other = try InteropFixture(dpop: true)
      try await other.xid.signIn()
      let otherEntry = try #require(try other.storage.keys(withPrefix: Self.keyPrefix).first)
      try fixture.storage.save(key: otherEntry, value: try #require(try other.storage.load(key: otherEntry)))
      try fixture.rewriteStored("dpop_jkt", to: .string(String(otherEntry.dropFirst(Self.keyPrefix.count))))
      let confused = try fixture.relaunched()

      let error = await expectXidError(.tokenRequestFailed) { try await confused.getAccessToken(forceRefresh: true) }
      #expect(error?.httpStatus == 403)
      #expect(error?.oauthError == "invalid_dpop_proof")
      #expect(error?.isInvalidGrant == false)
      // A refused proof says nothing about the grant: the session and its refresh token are kept...
      #expect(try await confused.getSession() != nil)
      #expect(try fixture.stored("refresh_token") == refreshToken)

      // ... and glewlwyd agrees: with the right key, the same refresh token still works.
      try fixture.rewriteStored("dpop_jkt", to: .string(ownKey))
      let restored = try fixture.relaunched()
      let access = try await restored.getAccessToken(forceRefresh: true)
      #expect(try Self.confirmationThumbprint(of: access) == ownKey)
      let rotated = try fixture.stored("refresh_token") != refreshToken
      #expect(rotated)
    }

    // MARK: - Helpers

    /// The storage keys of DPoP keys start with this, followed by the thumbprint.
    static let keyPrefix = "xid.dpop-key."

    /// Another device of the same client signs in and calls UserInfo until glewlwyd hands it a new
    /// nonce: glewlwyd keeps one nonce per client, so every other device's nonce is then stale.
    static func anotherDeviceRotatesTheNonce() async throws {
      let device = try InteropFixture(dpop: true)
      try await device.xid.signIn()
      let rotated = { device.exchanges.all.contains { $0.status == 200 && $0.dpopNonce != nil } }
      for _ in 0...device.environment.dpopNonceCounter where !rotated() {
        _ = try await device.xid.userInfo()
      }
      try #require(rotated(), "glewlwyd did not rotate the DPoP nonce: \(device.exchanges.all)")
    }

    /// Sends `request` (to `endpoint`) until glewlwyd hands out a new nonce on a success answer, and
    /// once more: every answer must be a success, and the request after the rotation must carry the
    /// new nonce.
    static func expectNoRefusalThroughANonceRotation(
      _ fixture: InteropFixture, at endpoint: URL, sourceLocation: SourceLocation = #_sourceLocation,
      request: () async throws -> Void
    ) async throws {
      let mark = fixture.exchanges.exchanges(with: endpoint).count
      var sent: [RecordingTransport.Exchange] { Array(fixture.exchanges.exchanges(with: endpoint).dropFirst(mark)) }
      // A rotation comes within counter + 1 successes; one request more shows the new nonce used.
      for _ in 0..<(fixture.environment.dpopNonceCounter + 2)
      where !sent.dropLast().contains(where: { $0.dpopNonce != nil }) {
        try await request()
      }
      let refused = sent.filter { $0.status != 200 }
      #expect(refused.isEmpty, "refused during a nonce rotation: \(sent)", sourceLocation: sourceLocation)
      let rotation = try #require(
        sent.firstIndex { $0.dpopNonce != nil }, "glewlwyd gave no new nonce: \(sent)", sourceLocation: sourceLocation)
      try #require(rotation + 1 < sent.count, sourceLocation: sourceLocation)
      #expect(sent[rotation + 1].proofNonce == sent[rotation].dpopNonce, sourceLocation: sourceLocation)
    }

    /// The `cnf.jkt` of a JWT access token (glewlwyd's are JWTs), read without verifying it.
    static func confirmationThumbprint(of accessToken: String) throws -> String? {
      let payload = try JSONValue(parsing: CompactJWS(parsing: accessToken).payload)
      return payload.objectValue?["cnf"]?.objectValue?["jkt"]?.stringValue
    }

    /// The `error` member of a response's JSON body.
    static func oauthError(of response: HTTPResponse) throws -> String? {
      try JSONValue(parsing: Array(response.body)).objectValue?["error"]?.stringValue
    }
  }
}
