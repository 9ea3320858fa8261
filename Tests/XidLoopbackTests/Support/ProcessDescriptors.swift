#if os(Linux)
  import Foundation
  import Glibc

  /// What Linux tells about this process's own descriptors, through `/proc/self`.
  enum ProcessDescriptors {
    /// The open descriptors.
    static var all: [Int32] {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
      return names.compactMap { Int32($0) }.sorted()
    }

    /// The TCP sockets of this process whose peer is `127.0.0.1:port` (and whose own address is
    /// `127.0.0.1:localPort`, when given).
    static func sockets(withPeerPort port: UInt16, localPort: UInt16? = nil) -> [Int32] {
      all.filter { descriptor in
        loopbackPort(of: descriptor, getpeername) == port
          && (localPort == nil || loopbackPort(of: descriptor, getsockname) == localPort)
      }
    }

    /// The port of `descriptor`'s 127.0.0.1 address that `read` (`getpeername`, `getsockname`)
    /// gives, if it has one.
    private static func loopbackPort(
      of descriptor: Int32, _ read: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> UInt16? {
      var address = sockaddr_in()
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let result = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { read(descriptor, $0, &length) }
      }
      guard result == 0, address.sin_family == sa_family_t(AF_INET),
        address.sin_addr.s_addr == UInt32(0x7F00_0001).bigEndian
      else { return nil }
      return UInt16(bigEndian: address.sin_port)
    }

    /// Every descriptor that an epoll instance of this process watches: libdispatch's among them,
    /// which holds each descriptor a Dispatch source watches.
    static var watchedByEpoll: Set<Int32> {
      var watched: Set<Int32> = []
      for descriptor in all {
        let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
        guard link == "anon_inode:[eventpoll]",
          let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)
        else { continue }
        // One line per watched descriptor: "tfd:       12 events:       19 data: ...".
        for line in info.split(separator: "\n") where line.hasPrefix("tfd:") {
          if let target = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({
            Int32($0)
          }) {
            watched.insert(target)
          }
        }
      }
      return watched
    }
  }
#endif
