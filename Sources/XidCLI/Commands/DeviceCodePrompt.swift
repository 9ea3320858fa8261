import Foundation
import Xid

/// What the device flow shows: where to go, the code to enter, and a QR code of the address with the
/// code in it when `qrencode` is installed.
enum DeviceCodePrompt {
  static func show(_ authorization: DeviceAuthorization, console: Console, environment: [String: String]) {
    console.err("To sign in, open this page in a browser on any device:\n")
    console.err("  \(TerminalText.field(authorization.verificationURI.absoluteString))\n")
    console.err("and enter the code:\n")
    console.err("  \(TerminalText.field(authorization.userCode))\n")
    let target = authorization.verificationURIComplete ?? authorization.verificationURI
    if let complete = authorization.verificationURIComplete {
      console.err("Or open this address, which carries the code:\n\n  \(TerminalText.field(complete.absoluteString))\n")
    }
    guard console.stderrIsTerminal else { return }
    if let qr = SystemCommands.qrCode(target.absoluteString, environment: environment) {
      console.err("Or scan it with a phone:\n")
      console.writeErr(qr)
    } else {
      console.err("(Install qrencode to see a QR code of the address here.)\n")
    }
  }
}
