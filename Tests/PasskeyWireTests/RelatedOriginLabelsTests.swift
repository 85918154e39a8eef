import PasskeyWire
import Testing

@Suite("Related-origin labels (WebAuthn L3 §5.11.1)")
struct RelatedOriginLabelsTests {
    @Test("an origin's label is its registrable domain without the public suffix", arguments: [
        ("https://example.com", "example"), ("https://shop.example.com:8443", "example"), ("https://www.example.co.uk", "example"),
        ("https://example.com.au", "example"), ("https://a.b.example.org", "example"), ("https://example-shop.de", "example-shop"),
        ("https://shop.github.io", "shop"), ("https://www.blog.vercel.app", "blog"),
    ])
    func label(origin: String, expected: String) {
        #expect(RelatedOriginLabels.label(ofOrigin: origin) == expected)
    }

    @Test("no label for what has no registrable domain", arguments: [
        "http://localhost:8080", "https://192.168.1.20", "android:apk-key-hash:AbCd", "example.com", "https://co.uk",
    ])
    func noLabel(origin: String) {
        #expect(RelatedOriginLabels.label(ofOrigin: origin) == nil)
    }

    @Test("origins whose site comes after the fifth distinct one are what clients may ignore")
    func beyondFive() {
        let five = ["https://a.com", "https://www.a.com", "https://b.co.uk", "https://c.de", "https://d.fr", "https://e.io"]
        #expect(RelatedOriginLabels.labels(of: five) == ["a", "b", "c", "d", "e"])
        #expect(RelatedOriginLabels.beyondHonoured(five).isEmpty)
        let seven = five + ["https://f.net", "https://shop.a.com", "https://g.org"]
        #expect(RelatedOriginLabels.beyondHonoured(seven) == ["https://f.net", "https://g.org"])
    }
}
