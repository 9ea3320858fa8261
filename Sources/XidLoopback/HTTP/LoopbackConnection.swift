import Dispatch
import Foundation
import XidCore

/// One client connection of a ``LoopbackHTTPServer``: reads one request within the server's
/// ``LoopbackHTTPServer/Limits``, hands it to the handler, writes the response, then closes.
///
/// The socket is non-blocking and driven by Dispatch sources on the server's serial queue; no thread
/// ever waits on it. After the response it shuts down its sending side and reads (discarding) until
/// the client closes or a short time passes, so that a client still sending a refused body receives
/// the response instead of a reset.
///
/// The socket is shut down only once no Dispatch source watches it any more (the draining after the
/// response polls on a timer). On Linux, a watched socket that hangs up (its sending side shut down,
/// then the client closes) is unregistered by libdispatch from a worker thread while its manager
/// thread still handles the same event and other sockets; now and then that race stops the process
/// ("Source finalized twice", an illegal instruction on the manager thread).
///
/// Concurrency: every stored `var` is read and written on `queue` only. The handler runs in a `Task`
/// and hands its response back with `queue.async`. That confinement is what makes the
/// `@unchecked Sendable` sound.
final class LoopbackConnection: @unchecked Sendable {
  private enum State {
    case readingHead
    case readingBody(head: HTTPRequestHead, bodyStart: Int, length: Int)
    case handling(method: String)
    case writing
    case lingering
    case closed
  }

  private let descriptor: Int32
  private let queue: DispatchQueue
  private let limits: LoopbackHTTPServer.Limits
  private let port: UInt16
  private let handler: @Sendable (HTTPRequest) async -> HTTPResponse?
  private let onClose: (LoopbackConnection) -> Void
  /// The order in which the server accepted its connections: higher is newer.
  let sequence: UInt64

  private var state = State.readingHead
  private var buffer: [UInt8] = []
  private var scanner = HTTPHeadScanner()
  private var outgoing: [UInt8] = []
  private var sent = 0
  private var readSource: DispatchSourceRead?
  private var writeSource: DispatchSourceWrite?
  private var timer: DispatchSourceTimer?
  /// Sources created and not yet through their cancel handler; the descriptor is closed at zero.
  private var liveSources = 0
  private var handlerTask: Task<Void, Never>?
  /// Set by ``closeUnlessAnswering()``: the server is stopping, and a handler still running has the
  /// write timeout to answer.
  private var draining = false
  /// When draining after the response ends, whatever the client does.
  private var lingerDeadline = DispatchTime.now()
  /// How long, in milliseconds, until the next drain after the response.
  private var lingerPoll = LoopbackConnection.firstLingerPoll

  /// How long, at most, the connection drains a client's unread bytes after the response.
  private static let lingerTime = Duration.seconds(2)
  /// How long the first wait between two drains after the response is; each wait doubles, up to
  /// ``longestLingerPoll``.
  private static let firstLingerPoll = 5
  private static let longestLingerPoll = 200
  /// How many reads one readiness event may make before the queue serves other connections.
  private static let readsPerEvent = 8
  private static let readChunk = 16 * 1024

  /// Creates a connection over an accepted, non-blocking socket, which it now owns.
  ///
  /// - Parameters:
  ///   - sequence: the connection's place in the order the server accepted them.
  ///   - onClose: called on `queue` once the descriptor is closed.
  init(
    descriptor: Int32, sequence: UInt64, queue: DispatchQueue, limits: LoopbackHTTPServer.Limits, port: UInt16,
    handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse?, onClose: @escaping (LoopbackConnection) -> Void
  ) {
    self.descriptor = descriptor
    self.sequence = sequence
    self.queue = queue
    self.limits = limits
    self.port = port
    self.handler = handler
    self.onClose = onClose
  }

  /// Whether the connection still waits for its request (has sent none, or only part of it): it is
  /// what an idle connection a browser opened ahead of need, or a client that stalls, looks like.
  /// Call on `queue`.
  var isWaitingForRequest: Bool {
    switch state {
    case .readingHead, .readingBody: true
    case .handling, .writing, .lingering, .closed: false
    }
  }

  /// Whether the connection has written its response and only drains what the client still sends
  /// before closing. Call on `queue`.
  var isLingering: Bool {
    if case .lingering = state { return true }
    return false
  }

  /// Whether ``close()`` was called (the descriptor may still be open until its sources are gone).
  /// Call on `queue`.
  var isClosed: Bool {
    if case .closed = state { return true }
    return false
  }

  /// Starts reading, and the read timer. Call on `queue`.
  func start() {
    let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
    source.setEventHandler { self.readable() }
    source.setCancelHandler { self.sourceCancelled() }
    liveSources += 1
    readSource = source
    source.activate()

    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.setEventHandler { self.timedOut() }
    timer.schedule(deadline: .now() + limits.readTimeout.dispatchInterval)
    self.timer = timer
    timer.activate()
  }

  /// Closes the connection now, whatever it was doing; the descriptor is closed once its sources
  /// have been cancelled. Idempotent. Call on `queue`.
  func close() {
    if case .closed = state { return }
    state = .closed
    timer?.cancel()
    timer = nil
    handlerTask?.cancel()
    handlerTask = nil
    readSource?.cancel()
    readSource = nil
    writeSource?.cancel()
    writeSource = nil
    buffer = []
    outgoing = []
    if liveSources == 0 { release() }
  }

  /// Closes the connection now, unless it is answering a request: then the response is written
  /// first, and the connection closes after it as usual (a handler still running has the write
  /// timeout to answer). Call on `queue`.
  func closeUnlessAnswering() {
    switch state {
    case .handling:
      draining = true
      timer?.schedule(deadline: .now() + limits.writeTimeout.dispatchInterval)
    case .writing, .lingering:
      break
    case .readingHead, .readingBody, .closed:
      close()
    }
  }

  // MARK: Reading

  private func readable() {
    for _ in 0..<Self.readsPerEvent {
      let result = withUnsafeTemporaryAllocation(byteCount: Self.readChunk, alignment: 1) { chunk in
        let result = LoopbackSocket.read(descriptor, into: chunk)
        if case .bytes(let count) = result { received(UnsafeRawBufferPointer(rebasing: chunk[..<count])) }
        return result
      }
      switch result {
      case .bytes: if case .closed = state { return }
      case .wouldBlock: return
      case .endOfStream: return peerFinishedSending()
      case .failed: return close()
      }
    }
  }

  private func received(_ bytes: UnsafeRawBufferPointer) {
    switch state {
    case .readingHead:
      buffer.append(contentsOf: bytes)
      readHead()
    case .readingBody:
      buffer.append(contentsOf: bytes)
      readBody()
    case .handling, .writing, .lingering, .closed:
      break  // one request per connection: anything after it is discarded
    }
  }

  private func readHead() {
    do {
      guard let end = try scanner.scan(buffer) else {
        if buffer.count > limits.maxHeadBytes { throw headTooLarge }
        return
      }
      guard end <= limits.maxHeadBytes else { throw headTooLarge }
      let head = try HTTPRequestHead.parse(buffer[..<(end - 4)], maxHeaderFields: limits.maxHeaderFields)
      try head.checkHost(port: port)
      let length = try head.bodyLength(maxBodyBytes: limits.maxBodyBytes)
      state = .readingBody(head: head, bodyStart: end, length: length)
      if buffer.count < end + length, head.minorVersion == 1,
        head.headers["Expect"]?.caseInsensitiveCompare("100-continue") == .orderedSame
      {
        sendContinue()
      }
      readBody()
    } catch let rejection as HTTPRequestRejection {
      reject(rejection)
    } catch {
      reject(.badRequest("the request could not be read"))
    }
  }

  private var headTooLarge: HTTPRequestRejection {
    HTTPRequestRejection(status: 431, reason: "the request line and header fields exceed \(limits.maxHeadBytes) bytes")
  }

  private func readBody() {
    guard case .readingBody(let head, let start, let length) = state, buffer.count >= start + length else { return }
    let body = Data(buffer[start..<(start + length)])
    buffer = []
    guard let url = URL(string: "http://127.0.0.1:\(port)\(head.target)") else {
      return reject(.badRequest("the request target is not a valid URL path"))
    }
    let request = HTTPRequest(method: head.method, url: url, headers: head.headers, body: body)
    state = .handling(method: head.method)
    timer?.schedule(deadline: .distantFuture)
    let handler = handler
    handlerTask = Task {
      let response = await handler(request)
      self.queue.async {
        // A handler that returns no response drops the connection unanswered, as a server that
        // crashed after committing would (the test provider's drop-after-commit fault).
        if let response { self.respond(response) } else { self.close() }
      }
    }
  }

  /// Sends `100 Continue` (RFC 9110 §10.1.1) so a client waiting for it sends the body now. The
  /// socket is fresh, so 25 bytes fit; if they do not, the connection is closed.
  private func sendContinue() {
    let interim = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    let result = interim.withUnsafeBytes { LoopbackSocket.write(descriptor, $0) }
    if result != .bytes(interim.count) { close() }
  }

  private func peerFinishedSending() {
    switch state {
    case .readingHead, .readingBody, .lingering, .closed:
      close()
    case .handling, .writing:
      // A half-closed client may still read the response; stop watching a socket that stays readable.
      readSource?.cancel()
      readSource = nil
    }
  }

  private func timedOut() {
    switch state {
    case .readingHead, .readingBody:
      let seconds = limits.readTimeout.timeInterval
      reject(HTTPRequestRejection(status: 408, reason: "the request did not arrive within \(seconds) s"))
    case .handling:
      if draining { close() }
    case .lingering:
      drainLingering()
    case .writing, .closed:
      close()
    }
  }

  // MARK: Writing

  private func respond(_ response: HTTPResponse) {
    guard case .handling(let method) = state else { return }
    handlerTask = nil
    write(HTTPResponseEncoder.encode(response, forMethod: method))
  }

  private func reject(_ rejection: HTTPRequestRejection) {
    buffer = []
    write(HTTPResponseEncoder.encode(HTTPResponseEncoder.response(for: rejection), forMethod: "GET"))
  }

  private func write(_ bytes: [UInt8]) {
    state = .writing
    outgoing = bytes
    sent = 0
    timer?.schedule(deadline: .now() + limits.writeTimeout.dispatchInterval)
    flush()
  }

  private func flush() {
    guard case .writing = state else { return }
    while sent < outgoing.count {
      let result = outgoing.withUnsafeBytes {
        LoopbackSocket.write(descriptor, UnsafeRawBufferPointer(rebasing: $0[sent...]))
      }
      switch result {
      case .bytes(let count): sent += count
      case .wouldBlock: return awaitWritable()
      case .endOfStream, .failed: return close()
      }
    }
    writeSource?.cancel()
    writeSource = nil
    outgoing = []
    finishAfterResponse()
  }

  private func awaitWritable() {
    guard writeSource == nil else { return }
    let source = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: queue)
    source.setEventHandler { self.flush() }
    source.setCancelHandler { self.sourceCancelled() }
    liveSources += 1
    writeSource = source
    source.activate()
  }

  /// Closes a connection whose client has stopped sending; otherwise lingers: once its sources are
  /// cancelled, ``beginLingering()`` shuts down the sending side and drains.
  private func finishAfterResponse() {
    guard let readSource else { return close() }
    state = .lingering
    lingerDeadline = .now() + min(limits.readTimeout, Self.lingerTime).dispatchInterval
    timer?.schedule(deadline: lingerDeadline)
    readSource.cancel()
    self.readSource = nil
  }

  /// Shuts down the sending side, which tells the client the response is complete, and starts
  /// draining. Only once no source watches the socket: see the type's documentation.
  private func beginLingering() {
    LoopbackSocket.shutdown(descriptor, sending: true)
    drainLingering()
  }

  /// Reads and discards what the client still sends; closes once it has closed (or failed) or the
  /// linger time is up, else looks again a little later.
  private func drainLingering() {
    guard case .lingering = state else { return }
    var received = false
    reading: for _ in 0..<Self.readsPerEvent {
      let result = withUnsafeTemporaryAllocation(byteCount: Self.readChunk, alignment: 1) {
        LoopbackSocket.read(descriptor, into: $0)
      }
      switch result {
      case .bytes: received = true
      case .wouldBlock: break reading
      case .endOfStream, .failed: return close()
      }
    }
    let now = DispatchTime.now()
    guard now < lingerDeadline else { return close() }
    // A client still sending is drained at the quickest pace, a silent one ever more rarely.
    if received { lingerPoll = Self.firstLingerPoll }
    timer?.schedule(deadline: min(now + .milliseconds(lingerPoll), lingerDeadline))
    lingerPoll = min(lingerPoll * 2, Self.longestLingerPoll)
  }

  // MARK: Closing

  private func sourceCancelled() {
    liveSources -= 1
    guard liveSources == 0 else { return }
    switch state {
    case .closed: release()
    case .lingering: beginLingering()
    case .readingHead, .readingBody, .handling, .writing: break
    }
  }

  private func release() {
    LoopbackSocket.closeDescriptor(descriptor)
    onClose(self)
  }
}
