import ExampleDiagnostics
import ExampleShared
import SwiftUI

/// The device self-check: runs each of Xid's checks that need a real iPhone, shows its outcome
/// against what Xid expects, and exports all of it as text (docs/apple.md, "The device self-check").
@MainActor
struct DiagnosticsView: View {
  @StateObject private var model = DiagnosticsModel()
  @Environment(\.scenePhase) private var scenePhase

  var body: some View {
    List {
      Section {
        Text(
          "Runs the checks of Xid's Apple paths on this device: about five minutes, three or four prompts. Checks 4 and 5 run in the App Intent and the widget. Then share the report."
        )
        .font(.callout)
        Button("Run Checks 1–3 and Prepare 4–5") { Task { await model.runAll() } }
          .disabled(model.isRunning)
      }
      ForEach(DiagnosticsCheck.allCases, id: \.self) { check in
        Section {
          DiagnosticsCheckRow(result: model.report.result(for: check), isRunning: model.running == check)
          actions(for: check)
        } header: {
          Text("\(check.number). \(check.title)")
        }
      }
      Section("Export") {
        ShareLink(item: model.report.text, subject: Text("Xid device self-check")) {
          Label("Share Report", systemImage: "square.and.arrow.up")
        }
        Button {
          model.copyReport()
        } label: {
          Label("Copy Report", systemImage: "doc.on.doc")
        }
        Text(model.report.summary).font(.footnote).foregroundStyle(.secondary)
      }
    }
    .navigationTitle("Diagnostics")
    .refreshable { model.reload() }
    .task { model.reload() }
    .onChange(of: scenePhase) { phase in
      // Back from Settings (check 3) or Shortcuts (checks 4 and 5).
      if phase == .active { model.reload() }
    }
    .alert(
      "Diagnostics",
      isPresented: Binding(get: { model.failure != nil }, set: { if !$0 { model.failure = nil } }),
      actions: { Button("OK", role: .cancel) {} },
      message: { Text(model.failure ?? "") })
  }

  @ViewBuilder private func actions(for check: DiagnosticsCheck) -> some View {
    switch check {
    case .rightStoreMissingRight, .oneContextDecryptsAndSigns:
      Button("Run") { Task { await model.run(check) } }
        .disabled(model.isRunning)
    case .biometryEnrollmentChange:
      Button(model.report.result(for: check).verdict == .waiting ? "Run Again" : "Run") {
        Task { await model.run(check) }
      }
      .disabled(model.isRunning)
      Button("Start Over", role: .destructive) { model.startOverEnrollmentChange() }
        .disabled(model.isRunning)
    case .extensionReadsKeychainItem:
      Button("Prepare") { model.prepareExtensions() }
        .disabled(model.isRunning)
      Text(
        "Then run the shortcut \"Run Xid Diagnostics\" in the Shortcuts app, or keep the Account widget on the Home Screen: it answers when it reloads. Come back here to see the outcome."
      )
      .font(.footnote)
      .foregroundStyle(.secondary)
    case .extensionTakesAppGroupLock:
      Button("Hold the Lock for 8 Seconds") { Task { await model.holdLock() } }
        .disabled(model.isRunning)
      Text(
        "The app holds the lock while the widget reloads: the widget must wait. Prepare and the shortcut check that the extensions take it at all."
      )
      .font(.footnote)
      .foregroundStyle(.secondary)
    }
  }
}

/// One check's outcome: the verdict, what was seen, and what to do next.
@MainActor
struct DiagnosticsCheckRow: View {
  let result: DiagnosticsResult
  let isRunning: Bool

  var body: some View {
    VStack(alignment: .leading, spacing: 6) {
      HStack {
        Label(result.verdict.rawValue, systemImage: symbol)
          .foregroundStyle(color)
          .font(.headline)
        if isRunning {
          Spacer()
          ProgressView()
        }
      }
      Text(result.check.procedure).font(.footnote)
      Text(
        "Expected (\(result.check.verifiedOn.map { "verified on \($0)" } ?? "unverified")): \(result.check.expectation)"
      )
      .font(.footnote)
      .foregroundStyle(.secondary)
      ForEach(Array(result.observed.enumerated()), id: \.offset) { _, line in
        Text(line).font(.footnote.monospaced())
      }
      if let next = result.next {
        Text(next).font(.footnote.bold())
      }
    }
    .padding(.vertical, 4)
  }

  private var symbol: String {
    switch result.verdict {
    case .asExpected: "checkmark.circle.fill"
    case .unexpected: "xmark.octagon.fill"
    case .waiting: "hand.point.right.fill"
    case .skipped: "forward.fill"
    case .notRun: "circle"
    }
  }

  private var color: Color {
    switch result.verdict {
    case .asExpected: .green
    case .unexpected: .red
    case .waiting: .orange
    case .skipped, .notRun: .secondary
    }
  }
}
