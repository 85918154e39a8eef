public import Foundation
import PasskeyAttestation
import PasskeyCore
import PasskeyWire

/// Settings that are valid but cannot do what they were most likely given for.
extension ServerConfiguration {
    /// Settings that are valid but cannot do what they were most likely given for, said in words: printed at start
    /// (standard error) so the mistake shows before the first sign-in fails with `origin_mismatch`.
    public var warnings: [String] { warnings(now: Date()) }

    /// ``warnings`` as of `now` (roots that expired by then).
    public func warnings(now: Date) -> [String] {
        var warnings: [String] = []
        // What Apple's platforms report as the origin of an app's ceremony: https:// and the RP ID (the app's
        // webcredentials association names the domain; the port and subdomain are never part of it).
        let appOrigin = "https://\(rpID)"
        if !appleAppIDs.isEmpty, !effectiveOrigins.contains(appOrigin) {
            warnings.append(
                "--apple-app-id is set, but the origin iOS and macOS apps report, \(appOrigin), is not among the accepted origins: "
                    + "sign-ins from the app will fail with origin_mismatch. Add --origin \(appOrigin).")
        }
        // WebAuthn L3 §5.1.3 / §5.1.4 (with §5.11): a browser lets a page use an RP ID only when it is the page's host or
        // a parent of it, or when the RP ID's /.well-known/webauthn lists the page's origin (related origins).
        for origin in origins + relatedOrigins where origin.hasPrefix("http://") {
            let host = Self.host(ofWebOrigin: origin)
            guard host != "localhost", !host.hasSuffix(".localhost") else { continue }
            warnings.append(
                "\(origins.contains(origin) ? "--origin" : "--related-origin") \(origin) is http:// on a host other than localhost: "
                    + "browsers allow passkeys there only over https://.")
        }
        for origin in origins where origin.hasPrefix("https://") && !relatedOrigins.contains(origin) {
            let host = Self.host(ofWebOrigin: origin)
            guard host != rpID, !host.hasSuffix("." + rpID) else { continue }
            let isAddress = host.split(separator: ".").allSatisfy { $0.allSatisfy(\.isNumber) }
            warnings.append(
                "--origin \(origin) is not on RP ID \(rpID) or one of its subdomains: browsers there refuse passkeys for \(rpID) "
                    + "unless https://\(rpID)/.well-known/webauthn lists the origin. Give it as --related-origin instead"
                    + (isAddress ? " (a page on an IP address can use passkeys only as a related origin)." : ", or choose an RP ID that \(host) is under."))
        }
        let rootedFormats = self.rootedFormats
        if !rootedFormats.isEmpty, attestation == .none {
            warnings.append("--attestation-root has no effect with --attestation none: browsers then send no attestation. Add --attestation direct.")
        } else if !rootedFormats.isEmpty, !requireTrustedAttestation {
            warnings.append(
                "--attestation-root without --require-trusted-attestation: \(rootedFormats.map(\.rawValue).joined(separator: ", ")) attestations that reach none of the roots are refused, "
                    + "while passkeys that send no attestation (synced passkeys) still register. Give roots only for the formats you mean to restrict, or require trusted attestation.")
        }
        // A root past its notAfter date vouches for nothing: every chain to it is refused (attestation_untrusted).
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        for format in rootedFormats {
            for root in attestationTrustAnchors.roots(for: format) where root.notValidAfter < now {
                warnings.append(
                    "--attestation-root for \(format.rawValue): \(root.subject) expired on \(day.string(from: root.notValidAfter)): every chain to it is refused as attestation_untrusted.")
            }
        }
        // U2F keys carry the all-zero AAGUID: a list without it admits none of them.
        if rootedFormats.contains(.fidoU2F), !allowedAAGUIDs.isEmpty, !allowedAAGUIDs.contains(where: { AAGUID($0)?.isZero == true }) {
            warnings.append(
                "--allowed-aaguid does not list 00000000-0000-0000-0000-000000000000, which every fido-u2f registration carries: no U2F key can register under the fido-u2f root.")
        }
        // An android-key, SafetyNet or TPM chain vouches for the device, not for what the app or platform wrote in the
        // authenticator data: any app on a genuine device can claim any AAGUID under those roots.
        let deviceRooted = rootedFormats.filter { [.androidKey, .androidSafetyNet, .tpm].contains($0) }
        if !allowedAAGUIDs.isEmpty, !deviceRooted.isEmpty {
            warnings.append(
                "--allowed-aaguid with roots for \(deviceRooted.map(\.rawValue).joined(separator: ", ")): those chains vouch for the device, not for the AAGUID, "
                    + "which any app on such a device can choose. The list pins models only under packed and fido-u2f roots of security-key vendors.")
        }
        // WebAuthn L3 §5.11.1: clients need honour only five labels of /.well-known/webauthn (the web origins, in order).
        let ignored = RelatedOriginLabels.beyondHonoured(webOrigins)
        if !ignored.isEmpty {
            warnings.append(
                "/.well-known/webauthn lists origins of more than \(RelatedOriginLabels.minimumHonoured) sites (\(RelatedOriginLabels.labels(of: webOrigins).joined(separator: ", "))): "
                    + "browsers may ignore \(ignored.joined(separator: ", ")), after the fifth site. Keep at most five site names (the count is estimated without the Public Suffix List).")
        }
        return warnings
    }
}
