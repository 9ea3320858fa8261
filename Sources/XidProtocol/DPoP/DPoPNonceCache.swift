import Foundation

/// The latest `DPoP-Nonce` (RFC 9449 §8, §9) each server gave, per origin (scheme, host and port).
///
/// Any response that carries a `DPoP-Nonce` header updates it, whatever its status; the next proof to
/// that origin carries the nonce. A session's cache is kept in its ``TokenStorageAdapter`` under its
/// own key (never in the token record, whose version a nonce must not change), so an extension's
/// first request carries the nonce the app last saw. Servers rotate nonces at any time; a stale one
/// costs one retry.
public final class DPoPNonceCache: Sendable {
  /// The longest nonce kept; longer values are ignored.
  static let maximumLength = 1024

  private struct State: Sendable {
    var loaded: Bool
    var nonces: [String: String]
  }

  private let storage: (any TokenStorageAdapter)?
  private let storageKey: String
  private let logger: any XidLogger
  private let state: LockedValue<State>

  /// A cache in memory only.
  public init() {
    storage = nil
    storageKey = ""
    logger = DiscardingLogger()
    state = LockedValue(State(loaded: true, nonces: [:]))
  }

  /// A cache kept in `storage` under `key`, read on first use.
  package init(storage: any TokenStorageAdapter, key: String, logger: any XidLogger) {
    self.storage = storage
    self.storageKey = key
    self.logger = logger
    state = LockedValue(State(loaded: false, nonces: [:]))
  }

  /// The origin of `url`: lower-case scheme and host, and the port (the scheme's default when none).
  ///
  /// Read from the URL's text (a proof is made for every request, and asking `URL` for its parts
  /// parses it again each time): `scheme://[userinfo@]host[:port]` up to the path, query or fragment.
  static func origin(of url: URL) -> String {
    var text = url.absoluteString
    return text.withUTF8(origin(ofAbsolute:)) ?? "\(url.scheme?.lowercased() ?? ""):"
  }

  /// The origin of the URL whose text is `bytes`, or `nil` when it has no authority (`scheme:` with
  /// no `//`).
  private static func origin(ofAbsolute bytes: UnsafeBufferPointer<UInt8>) -> String? {
    guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 3 <= bytes.count,
      bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
    else { return nil }
    let authorityStart = colon + 3
    var end = authorityStart
    while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"),
      bytes[end] != UInt8(ascii: "#")
    {
      end += 1
    }
    let authority = bytes[authorityStart..<end]
    let hostStart = authority.lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? authorityStart
    // The port follows the last colon, unless that colon is inside an IPv6 literal's brackets.
    var hostEnd = end
    var port: Int?
    let hostAndPort = bytes[hostStart..<end]
    if let last = hostAndPort.lastIndex(of: UInt8(ascii: ":")),
      hostAndPort.lastIndex(of: UInt8(ascii: "]")).map({ $0 < last }) ?? true
    {
      hostEnd = last
      if last + 1 < end {
        port = Int(String(decoding: UnsafeBufferPointer(rebasing: bytes[(last + 1)..<end]), as: UTF8.self))
      }
    }
    let schemeBytes = UnsafeBufferPointer(rebasing: bytes[..<colon])
    let host = UnsafeBufferPointer(rebasing: bytes[hostStart..<hostEnd])
    let scheme = String(decoding: schemeBytes, as: UTF8.self)
    let number =
      port ?? (scheme.equalsIgnoringASCIICase("https") ? 443 : scheme.equalsIgnoringASCIICase("http") ? 80 : 0)
    guard (schemeBytes.allSatisfy { $0 < 0x80 } && host.allSatisfy { $0 < 0x80 }) else {
      // Not in a URL's text, whose hosts are punycode or percent-encoded; lower-cased as a string.
      return scheme.lowercased() + "://" + String(decoding: host, as: UTF8.self).lowercased() + ":" + String(number)
    }
    var digits = String(number)
    // One string, written in place: the scheme and host lower-cased byte by byte.
    return digits.withUTF8 { digits in
      String(unsafeUninitializedCapacity: schemeBytes.count + 3 + host.count + 1 + digits.count) { output in
        var index = 0
        func write(_ byte: UInt8) {
          output[index] = byte
          index += 1
        }
        for byte in schemeBytes { write(byte.asciiLowercased) }
        for byte in "://".utf8 { write(byte) }
        for byte in host { write(byte.asciiLowercased) }
        write(UInt8(ascii: ":"))
        for byte in digits { write(byte) }
        return index
      }
    }
  }

  /// The latest nonce of `url`'s origin, or `nil` when it never gave one.
  public func nonce(for url: URL) -> String? {
    let origin = Self.origin(of: url)
    // Once loaded (every call but the first), one lock and no copy of the cache.
    if let known = state.update({ state in state.loaded ? .some(state.nonces[origin]) : String??.none }) {
      return known
    }
    loadIfNeeded()
    return state.get().nonces[origin]
  }

  /// Learns the `DPoP-Nonce` of a response from `url`, if it has one.
  ///
  /// - Returns: whether the response carried a usable nonce.
  @discardableResult
  public func record(_ response: HTTPResponse, from url: URL) -> Bool {
    guard let nonce = response.headers["DPoP-Nonce"] else { return false }
    return setNonce(nonce, for: url)
  }

  /// Sets the nonce of `url`'s origin, and saves the cache when it changed.
  ///
  /// - Returns: whether `nonce` is a valid nonce (RFC 9449 §8.1: visible ASCII but `"` and `\`).
  @discardableResult
  public func setNonce(_ nonce: String, for url: URL) -> Bool {
    guard Self.isValid(nonce) else {
      logger.log(.notice, category: "dpop", "ignored a malformed DPoP-Nonce header")
      return false
    }
    loadIfNeeded()
    let origin = Self.origin(of: url)
    let changed = state.update { state -> Bool in
      guard state.nonces[origin] != nonce else { return false }
      state.nonces[origin] = nonce
      return true
    }
    if changed { save(origin: origin, nonce: nonce) }
    return true
  }

  static func isValid(_ nonce: String) -> Bool {
    !nonce.isEmpty && nonce.utf8.count <= maximumLength
      && nonce.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E && $0 != 0x22 && $0 != 0x5C }
  }

  // MARK: - Storage

  private func loadIfNeeded() {
    guard !state.update({ $0.loaded }), let storage else { return }
    let stored = read(storage)
    state.update { state in
      guard !state.loaded else { return }
      // Nonces learnt while reading win over the stored ones.
      state.nonces = stored.merging(state.nonces) { _, learnt in learnt }
      state.loaded = true
    }
  }

  private func read(_ storage: any TokenStorageAdapter) -> [String: String] {
    do {
      guard let text = try storage.load(key: storageKey) else { return [:] }
      guard let members = try? JSONValue(parsing: Array(text.utf8)).objectValue else {
        logger.log(.notice, category: "dpop", "ignored an unreadable DPoP nonce cache")
        return [:]
      }
      return members.compactMapValues { $0.stringValue.flatMap { Self.isValid($0) ? $0 : nil } }
    } catch {
      logger.log(.notice, category: "dpop", "could not read the DPoP nonce cache: \(Self.code(of: error))")
      return [:]
    }
  }

  /// Saves the cache with `origin`'s new nonce, keeping the other origins another process may have
  /// saved meanwhile. A failure is logged: a lost nonce costs one retry, never a session.
  private func save(origin: String, nonce: String) {
    guard let storage else { return }
    var merged = read(storage)
    merged[origin] = nonce
    do {
      let object = JSONValue.object(merged.mapValues(JSONValue.string))
      try storage.save(key: storageKey, value: object.serialized(sortedKeys: true))
    } catch {
      logger.log(.notice, category: "dpop", "could not save the DPoP nonce cache: \(Self.code(of: error))")
    }
  }

  private static func code(of error: any Error) -> String {
    (error as? XidError)?.code.rawValue ?? String(describing: type(of: error))
  }
}
