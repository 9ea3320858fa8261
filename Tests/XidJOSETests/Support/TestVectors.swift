import Foundation
import Testing
import XidJOSE

/// The shared test vectors (Wycheproof, RFC 7520), read in place from `../shared/vectors` next to the
/// package, or from `$XID_TEST_VECTORS`. Tests that need them are skipped with a message when the
/// folder is absent.
enum TestVectors {
  static let directory: URL = {
    if let path = ProcessInfo.processInfo.environment["XID_TEST_VECTORS"] {
      return URL(fileURLWithPath: path, isDirectory: true)
    }
    // Tests/XidJOSETests/Support/TestVectors.swift -> package root -> ../shared/vectors
    return URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("shared/vectors", isDirectory: true)
  }()

  static let available = FileManager.default.fileExists(atPath: directory.appendingPathComponent("SOURCES.md").path)

  static let skipMessage: Comment =
    "test vectors not found at ../shared/vectors (set XID_TEST_VECTORS to their folder to run these tests)"

  static func json(_ relativePath: String) throws -> JSONValue {
    let data = try Data(contentsOf: directory.appendingPathComponent(relativePath))
    return try JSONValue(parsing: Array(data))
  }
}

extension Trait where Self == ConditionTrait {
  /// Runs the test only where the shared test vectors are present.
  static var requiresTestVectors: Self { .enabled(if: TestVectors.available, TestVectors.skipMessage) }
}

/// Hex to bytes, for test vectors.
func hexBytes(_ hex: String) -> [UInt8] {
  var bytes: [UInt8] = []
  bytes.reserveCapacity(hex.utf8.count / 2)
  var iterator = hex.utf8.makeIterator()
  func nibble(_ c: UInt8) -> UInt8 {
    switch c {
    case 0x30...0x39: c - 0x30
    case 0x61...0x66: c - 0x61 + 10
    case 0x41...0x46: c - 0x41 + 10
    default: preconditionFailure("bad hex in a test vector")
    }
  }
  while let high = iterator.next(), let low = iterator.next() { bytes.append(nibble(high) << 4 | nibble(low)) }
  return bytes
}

/// Big-endian integer bytes from hex, without leading zeros, left-padded to `length` when given.
func integerBytes(_ hex: String, length: Int? = nil) -> [UInt8] {
  var bytes = hexBytes(hex.count % 2 == 1 ? "0" + hex : hex)
  while bytes.first == 0 { bytes.removeFirst() }
  if let length, bytes.count < length { bytes = [UInt8](repeating: 0, count: length - bytes.count) + bytes }
  return bytes
}
