#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Ctrl-C while a spinner is drawn: clears the line, so the shell's prompt starts clean, and exits
/// with 130 as the shell would report for SIGINT.
enum Interrupt {
  /// Installs the handler when standard error is a terminal; elsewhere SIGINT keeps its default.
  static func clearLineOnInterrupt(stderrIsTerminal: Bool) {
    guard stderrIsTerminal else { return }
    signal(SIGINT) { _ in
      let clear: [UInt8] = [13, 27, 91, 50, 75]  // "\r\u{1B}[2K": back to the start, erase the line
      _ = clear.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
      _exit(130)
    }
  }
}
