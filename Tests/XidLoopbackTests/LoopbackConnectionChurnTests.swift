import Foundation
import Testing
import XidCore
import XidTestSupport

@testable import XidLoopback

/// Many short connections at once, each closed by its client as soon as it has read the response:
/// the shape of every sign-in and of every test against the test provider, repeated until a race in
/// the server's use of Dispatch would show.
///
/// On Linux, libdispatch's epoll back end handles a hang-up (`EPOLLHUP`: the server had shut down its
/// sending side and the client then closed) by unregistering the socket's read source from a worker
/// thread while its manager thread still delivers the same event; now and then the manager finds the
/// source already finalized and stops the process ("Source finalized twice", an illegal
/// instruction). A socket must therefore never be able to hang up while Dispatch watches it.
/// `XID_CHURN_CONNECTIONS` and `XID_CHURN_CLIENTS` raise the number of connections and of clients
/// sending them at once for a longer run.
struct LoopbackConnectionChurnTests {
  private static let clients =
    ProcessInfo.processInfo.environment["XID_CHURN_CLIENTS"].flatMap { Int($0) } ?? 4
  private static let connections =
    ProcessInfo.processInfo.environment["XID_CHURN_CONNECTIONS"].flatMap { Int($0) } ?? 400

  /// Connections that stay open and silent meanwhile: with their sockets, Dispatch watches more
  /// descriptors than its table has buckets, so the sockets that come and go share buckets with them.
  private static let idle = 150

  @Test func manyClientsClosingRightAfterTheirResponseAreAllAnsweredAndTheProcessSurvives() async throws {
    let limits = LoopbackHTTPServer.Limits(
      readTimeout: .seconds(120), maxConnections: Self.idle + 2 * Self.clients + 16)
    try await withServer(limits: limits, handler: { _ in HTTPResponse(status: 200, body: Data("ok".utf8)) }) { server in
      let port = server.port
      let perClient = Self.connections / Self.clients
      let idle = try await onOwnThread { Held(try (0..<Self.idle).map { _ in try RawConnection(port: port) }) }
      defer { withExtendedLifetime(idle) {} }
      let statuses = try await withThrowingTaskGroup(of: [Int: Int].self) { group in
        for _ in 0..<Self.clients {
          group.addTask {
            try await onOwnThread {
              var statuses: [Int: Int] = [:]
              let request = Array(rawRequest(port: port).utf8)
              for _ in 0..<perClient {
                let connection = try RawConnection(port: port)
                try connection.send(request)
                statuses[RawResponse(bytes: try connection.receiveAll()).status ?? 0, default: 0] += 1
              }
              return statuses
            }
          }
        }
        return try await group.reduce(into: [Int: Int]()) { all, some in all.merge(some, uniquingKeysWith: +) }
      }
      #expect(statuses == [200: perClient * Self.clients])
    }
  }

  #if os(Linux)
    // The cause of the crash, seen without waiting for the race: when the client sees the end of
    // the response, the server has shut down its sending side; if libdispatch still watched that
    // socket, the client's close would hang it up under Dispatch's eyes.
    @Test func theServerShutsDownAConnectionOnlyOnceDispatchNoLongerWatchesIt() async throws {
      try await withServer { server in
        let port = server.port
        let (serverSides, stillWatched) = try await onOwnThread {
          let connection = try RawConnection(port: port)
          try connection.send(rawRequest(port: port))
          let reply = RawResponse(bytes: try connection.receiveAll())
          guard reply.status == 200 else { return ([Int32](), [Int32]()) }
          // Still open on this side: the server's socket has not hung up yet. It is the one socket
          // of the server's port whose peer is this connection (other tests' sockets run beside).
          let serverSides = ProcessDescriptors.sockets(withPeerPort: connection.localPort, localPort: port)
          let watched = ProcessDescriptors.watchedByEpoll
          return (serverSides, serverSides.filter { watched.contains($0) })
        }
        #expect(serverSides.count == 1)
        #expect(stillWatched.isEmpty)
      }
    }
  #endif
}

/// Connections opened on one thread and only kept open (never used) by another.
private struct Held: @unchecked Sendable {
  let connections: [RawConnection]
  init(_ connections: [RawConnection]) { self.connections = connections }
}
