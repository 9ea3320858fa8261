import ExampleDiagnostics
import Foundation
import Testing

/// The export's format (format 1, `DiagnosticsReport.text`): what a person pastes from an iPhone
/// into an issue, read by people and by `grep`.
@Suite struct DiagnosticsReportTests {
  static let noon = Date(timeIntervalSince1970: 1_796_299_200)  // 2026-12-03T12:00:00Z

  static let environment = DiagnosticsEnvironment(
    app: "XidExample 1.0 (7)", system: "iOS Version 17.4.1 (Build 21E236)", device: "iPhone15,2",
    biometry: "Face ID, enrolled", secureEnclave: "yes", passcode: "set")

  static func sample() -> DiagnosticsReport {
    DiagnosticsReport(
      environment: environment, madeAt: noon,
      results: [
        DiagnosticsResult(
          check: .rightStoreMissingRight, verdict: .asExpected,
          observed: ["lookup: com.apple.LocalAuthentication -1005", "removal: succeeded"],
          next: "Xid's reading holds.", ranAt: noon.addingTimeInterval(-62), ranIn: [.app]),
        DiagnosticsResult(
          check: .oneContextDecryptsAndSigns, verdict: .unexpected, observed: ["decrypt: failed"],
          ranAt: noon.addingTimeInterval(-30), ranIn: [.app]),
        DiagnosticsResult(check: .biometryEnrollmentChange, verdict: .waiting, next: "Enroll a finger."),
        DiagnosticsResult(
          check: .extensionTakesAppGroupLock, verdict: .skipped, observed: ["widget: took it"],
          ranAt: noon.addingTimeInterval(-1), ranIn: [.intent, .widget]),
      ])
  }

  @Test func theExportOfAReportIsFormatOneLineForLine() {
    func block(_ check: DiagnosticsCheck, _ verdict: String) -> String {
      "\n[\(verdict)] \(check.number). \(check.rawValue): \(check.title)\n  expected (unverified): \(check.expectation)\n"
    }
    let expected =
      """
      Xid device self-check, format 1
      made: 2026-12-03T12:00:00Z
      app: XidExample 1.0 (7)
      system: iOS Version 17.4.1 (Build 21E236)
      device: iPhone15,2
      biometry: Face ID, enrolled
      secure enclave: yes
      passcode: set
      summary: 1 as expected, 1 UNEXPECTED, 1 waiting for you, 1 skipped, 1 not run
      expectations: unverified until a device confirms them (docs/apple.md, "The device self-check")

      """
      + block(.rightStoreMissingRight, "as expected")
        + """
          observed: lookup: com.apple.LocalAuthentication -1005
          observed: removal: succeeded
          next: Xid's reading holds.
          ran: 2026-12-03T11:58:58Z in app

        """
      + block(.oneContextDecryptsAndSigns, "UNEXPECTED")
        + """
          observed: decrypt: failed
          ran: 2026-12-03T11:59:30Z in app

        """
      + block(.biometryEnrollmentChange, "waiting for you")
        + """
          next: Enroll a finger.

        """
      + block(.extensionReadsKeychainItem, "not run")
      + block(.extensionTakesAppGroupLock, "skipped")
        + """
          observed: widget: took it
          ran: 2026-12-03T11:59:59Z in intent, widget

        """
    #expect(Self.sample().text == expected)
  }

  @Test func everyLineOfTheExportHasOneOfTheFormatsForms() throws {
    let header = try Regex(#"^(made|app|system|device|biometry|secure enclave|passcode|summary|expectations): \S.*$"#)
    let title = try Regex(
      #"^\[(as expected|UNEXPECTED|waiting for you|skipped|not run)\] [1-5]\. [a-z0-9-]+: \S.*$"#)
    let detail = try Regex(#"^  (expected \((unverified|verified on .+)\)|observed|next|ran): \S.*$"#)
    let lines = Self.sample().text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.first == "Xid device self-check, format 1")
    #expect(lines.last == "", "the text ends with a line break")
    for line in lines.dropFirst().dropLast() {
      let string = String(line)
      #expect(
        string.isEmpty || string.wholeMatch(of: header) != nil || string.wholeMatch(of: title) != nil
          || string.wholeMatch(of: detail) != nil, "\(string)")
    }
  }

  @Test func aReportListsEveryCheckInOrderAndTheMissingOnesAsNotRun() {
    let report = DiagnosticsReport(environment: Self.environment, madeAt: Self.noon, results: [])
    #expect(report.results.map(\.check) == DiagnosticsCheck.allCases)
    #expect(report.results.allSatisfy { $0.verdict == .notRun })
    let titles = report.text.split(separator: "\n").filter { $0.hasPrefix("[") }
    #expect(titles.map { $0.split(separator: " ")[3] } == DiagnosticsCheck.allCases.map { "\($0.rawValue):" })
    #expect(DiagnosticsCheck.allCases.map(\.number) == [1, 2, 3, 4, 5])
  }

  @Test func theLastResultOfACheckIsTheOneReported() {
    let report = DiagnosticsReport(
      environment: Self.environment, madeAt: Self.noon,
      results: [
        DiagnosticsResult(check: .biometryEnrollmentChange, verdict: .waiting),
        DiagnosticsResult(check: .biometryEnrollmentChange, verdict: .asExpected),
      ])
    #expect(report.result(for: .biometryEnrollmentChange).verdict == .asExpected)
    #expect(report.results.count == DiagnosticsCheck.allCases.count)
  }

  @Test func theSummaryNamesEveryVerdictEvenAtZero() {
    let report = DiagnosticsReport(environment: Self.environment, madeAt: Self.noon, results: [])
    #expect(report.summary == "0 as expected, 0 UNEXPECTED, 0 waiting for you, 0 skipped, 5 not run")
  }

  @Test func everyExpectationIsMarkedUnverifiedUntilADeviceConfirmsIt() {
    for check in DiagnosticsCheck.allCases {
      #expect(check.verifiedOn == nil, "\(check): say so in docs/apple.md too")
      #expect(!check.expectation.isEmpty && !check.procedure.isEmpty && !check.reliedOnBy.isEmpty)
    }
    let text = Self.sample().text
    #expect(text.components(separatedBy: "\n  expected (unverified): ").count == DiagnosticsCheck.allCases.count + 1)
  }

  @Test func everyValueStaysOnOneLineAndLongOnesAreCut() {
    #expect(DiagnosticsReport.line("a\nb\r\n\tc  d\u{2028}e") == "a b c d e")
    #expect(DiagnosticsReport.line("  trimmed  ") == "trimmed")
    let long = DiagnosticsReport.line(String(repeating: "x", count: 700))
    #expect(long.count == DiagnosticsReport.maximumValueLength)
    #expect(long.hasSuffix("…"))
    let report = DiagnosticsReport(
      environment: Self.environment, madeAt: Self.noon,
      results: [
        DiagnosticsResult(
          check: .rightStoreMissingRight, verdict: .unexpected, observed: ["first\nsecond"], next: "one\ntwo")
      ])
    #expect(report.text.contains("  observed: first second\n"))
    #expect(report.text.contains("  next: one two\n"))
  }

  @Test func timesAreUTCToTheSecond() {
    #expect(DiagnosticsReport.timestamp(Self.noon.addingTimeInterval(0.9)) == "2026-12-03T12:00:00Z")
  }
}
