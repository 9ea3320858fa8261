import XidCore

/// Finds where a request head ends as its bytes arrive, and refuses a CR or LF outside a CRLF pair
/// at once rather than waiting for a terminator that a lenient client will never send.
struct HTTPHeadScanner {
  /// How many bytes have been looked at.
  private(set) var scanned = 0

  /// Scans the bytes of `buffer` not seen yet.
  ///
  /// - Returns: the index just past the CRLF CRLF that ends the head, once it has arrived.
  mutating func scan(_ buffer: [UInt8]) throws -> Int? {
    while scanned < buffer.count {
      let index = scanned
      let byte = buffer[index]
      scanned += 1
      if byte == HTTPSyntax.lf {
        guard index > 0, buffer[index - 1] == HTTPSyntax.cr else {
          throw HTTPRequestRejection.badRequest("a line ends in LF without CR")
        }
        if index >= 3, buffer[index - 2] == HTTPSyntax.lf, buffer[index - 3] == HTTPSyntax.cr { return index + 1 }
      } else if index > 0, buffer[index - 1] == HTTPSyntax.cr {
        throw HTTPRequestRejection.badRequest("a CR is not followed by LF")
      }
    }
    return nil
  }
}
