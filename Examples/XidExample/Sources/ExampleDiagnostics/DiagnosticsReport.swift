import Foundation

/// The device the checks ran on, as the report's header shows it.
public struct DiagnosticsEnvironment: Codable, Sendable, Hashable {
  /// The app's name, version and build (`XidExample 1.0 (1)`).
  public var app: String
  /// The system and its build (`iOS 17.4.1 (21E236)`).
  public var system: String
  /// The model identifier (`iPhone15,2`), or `Simulator (…)`.
  public var device: String
  /// The biometry and whether it is enrolled (`Face ID, enrolled`).
  public var biometry: String
  /// Whether the device has a Secure Enclave (`yes`, `no`).
  public var secureEnclave: String
  /// Whether a passcode is set (`set`, `not set`).
  public var passcode: String

  /// Creates an environment.
  public init(app: String, system: String, device: String, biometry: String, secureEnclave: String, passcode: String) {
    self.app = app
    self.system = system
    self.device = device
    self.biometry = biometry
    self.secureEnclave = secureEnclave
    self.passcode = passcode
  }
}

/// The outcome of every check, as the Diagnostics screen shows it and exports it.
///
/// The export (``text``) is plain text for an issue or a message, in format 1:
///
/// ```text
/// Xid device self-check, format 1
/// made: 2026-12-03T12:00:00Z
/// app: XidExample 1.0 (1)
/// system: iOS 17.4.1 (21E236)
/// device: iPhone15,2
/// biometry: Face ID, enrolled
/// secure enclave: yes
/// passcode: set
/// summary: 3 as expected, 0 UNEXPECTED, 1 waiting for you, 0 skipped, 1 not run
/// expectations: unverified until a device confirms them (docs/apple.md, "The device self-check")
///
/// [as expected] 1. right-store-missing-right: LARightStore: a right that was never saved
///   expected (unverified): the lookup fails in com.apple.LocalAuthentication with …
///   observed: LARightStore.right(forIdentifier:): failed: com.apple.LocalAuthentication -1005: …
///   next: Xid's reading holds: …
///   ran: 2026-12-03T11:59:58Z in app
/// ```
///
/// - The first line names the format; a change of the layout below changes its number.
/// - Header lines are `key: value`, in this order.
/// - Then one block per check, always all five, in the order of ``DiagnosticsCheck/allCases``,
///   each after an empty line. Its first line is `[verdict] number. id: title`, the verdict one of
///   ``DiagnosticsVerdict``'s raw values; the lines after it are indented by two spaces:
///   `expected (unverified): …` (or `expected (verified on …): …`), then `observed: …` lines,
///   `next: …` and `ran: … in …` when there is something to say.
/// - Every value is one line: line breaks and tabs become spaces, runs of spaces one space, and a
///   value longer than 600 characters is cut with `…`.
/// - Times are UTC, ISO 8601, to the second.
/// - The text holds no token or keychain value: the checks read none, and the extensions' probe
///   value is reported only as matching or not.
public struct DiagnosticsReport: Sendable, Hashable {
  /// The format's number, on the first line.
  public static let format = 1
  /// The longest value a line carries.
  public static let maximumValueLength = 600

  /// The device.
  public var environment: DiagnosticsEnvironment
  /// When the report was made.
  public var madeAt: Date
  /// One result per check, in the order of ``DiagnosticsCheck/allCases``.
  public private(set) var results: [DiagnosticsResult]

  /// A report of `results`: for each check the last of its results, `not run` when there is none.
  public init(environment: DiagnosticsEnvironment, madeAt: Date, results: [DiagnosticsResult]) {
    self.environment = environment
    self.madeAt = madeAt
    self.results = DiagnosticsCheck.allCases.map { check in
      results.last { $0.check == check } ?? .notRun(check)
    }
  }

  /// The result of `check`.
  public func result(for check: DiagnosticsCheck) -> DiagnosticsResult {
    results.first { $0.check == check } ?? .notRun(check)
  }

  /// How many checks came out each way: `3 as expected, 0 UNEXPECTED, …`, every verdict named.
  public var summary: String {
    DiagnosticsVerdict.allCases.map { verdict in
      "\(results.filter { $0.verdict == verdict }.count) \(verdict.rawValue)"
    }.joined(separator: ", ")
  }

  /// The export: see the type's documentation for the format.
  public var text: String {
    var lines = [
      "Xid device self-check, format \(Self.format)",
      "made: \(Self.timestamp(madeAt))",
      "app: \(Self.line(environment.app))",
      "system: \(Self.line(environment.system))",
      "device: \(Self.line(environment.device))",
      "biometry: \(Self.line(environment.biometry))",
      "secure enclave: \(Self.line(environment.secureEnclave))",
      "passcode: \(Self.line(environment.passcode))",
      "summary: \(summary)",
      "expectations: "
        + (results.allSatisfy { $0.check.verifiedOn == nil }
          ? "unverified until a device confirms them" : "some verified, as each check says")
        + " (docs/apple.md, \"The device self-check\")",
    ]
    for result in results {
      let check = result.check
      lines.append("")
      lines.append("[\(result.verdict.rawValue)] \(check.number). \(check.rawValue): \(check.title)")
      let verification = check.verifiedOn.map { "verified on \(Self.line($0))" } ?? "unverified"
      lines.append("  expected (\(verification)): \(Self.line(check.expectation))")
      lines += result.observed.map { "  observed: \(Self.line($0))" }
      if let next = result.next { lines.append("  next: \(Self.line(next))") }
      if let ranAt = result.ranAt {
        let places = result.ranIn.map(\.rawValue).joined(separator: ", ")
        lines.append("  ran: \(Self.timestamp(ranAt))" + (places.isEmpty ? "" : " in \(places)"))
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// `value` on one line: line breaks, tabs and other control characters become spaces, runs of
  /// spaces one, and the value is cut at ``maximumValueLength`` characters with `…`.
  public static func line(_ value: String) -> String {
    let spaced = String(
      value.unicodeScalars.map { scalar -> Character in
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
          ? " " : Character(scalar)
      })
    let words = spaced.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    guard words.count > maximumValueLength else { return words }
    return String(words.prefix(maximumValueLength - 1)) + "…"
  }

  /// `date` in UTC, ISO 8601, to the second.
  public static func timestamp(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: date)
  }
}
