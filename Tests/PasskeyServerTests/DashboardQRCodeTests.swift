import Foundation
import PasskeyTestSupport
import Testing

/// The dashboard's QR encoder (`Public/qr.js`, run with node) against `qrcode` from PyPI, an encoder we did not write:
/// the same modules for the same text and mask, in versions with and without version information. Without node or
/// the package the test is skipped locally; on CI (`CI=true`) it fails instead.
@Suite("Dashboard QR codes")
struct DashboardQRCodeTests {
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"
    static let env = URL(fileURLWithPath: "/usr/bin/env")
    static let available: Bool = {
        guard let node = try? runProgram(env, ["node", "--version"]), node.status == 0,
            let python = try? runProgram(env, ["python3", "-c", "import qrcode"]), python.status == 0
        else { return false }
        return true
    }()

    static var encoder: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PasskeyServer/Public/qr.js").path
    }

    /// Prints the modules as lines of 0 and 1, with the mask given (or the encoder's own choice with -1).
    static let node = """
        const fs = require("fs"), vm = require("vm");
        const sandbox = { TextEncoder };
        vm.runInNewContext(fs.readFileSync(process.argv[1], "utf8") + "\\nthis.QRCode = QRCode;", sandbox);
        const mask = Number(process.argv[3]);
        const m = sandbox.QRCode.encode(process.argv[2], mask < 0 ? {} : { mask });
        console.log(m.map((row) => row.map((d) => (d ? "1" : "0")).join("")).join("\\n"));
        """
    static let python = """
        import sys, qrcode
        qr = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=0, mask_pattern=int(sys.argv[2]))
        qr.add_data(sys.argv[1].encode(), optimize=0)
        qr.make(fit=True)
        print("\\n".join("".join("1" if x else "0" for x in row) for row in qr.get_matrix()))
        """

    func ours(_ text: String, mask: Int) async throws -> String {
        try await onOwnThread { try runProgram(Self.env, ["node", "-e", Self.node, Self.encoder, text, String(mask)]) }.output
    }

    func theirs(_ text: String, mask: Int) async throws -> String {
        try await onOwnThread { try runProgram(Self.env, ["python3", "-c", Self.python, text, String(mask)]) }.output
    }

    @Test(
        "every mask gives the modules qrcode gives, from version 1 to 13; the encoder's own choice is one of them",
        .enabled(if: available || required, "node, or python3 with qrcode, is missing (apt-get install nodejs; python3 -m pip install qrcode)"))
    func sameAsReference() async throws {
        guard Self.available else {
            Issue.record("CI=true but node or python3's qrcode is missing: .ci/run installs them")
            return
        }
        let texts = [
            "hi", "https://auth.example.com/#link=pal_" + String(repeating: "AbC-_9", count: 7) + "x",
            String(repeating: "x", count: 200), String(repeating: "é", count: 150),
        ]
        for text in texts {
            var all: [String] = []
            for mask in 0..<8 {
                let mine = try await ours(text, mask: mask)
                #expect(mine.hasPrefix("1111111"), "a finder pattern first: \(mine.prefix(40))")
                #expect(mine == (try await theirs(text, mask: mask)), "\(text.utf8.count) bytes, mask \(mask)")
                all.append(mine)
            }
            #expect(all.contains(try await ours(text, mask: -1)), "\(text.utf8.count) bytes: the chosen mask is one of the eight")
        }
    }
}
