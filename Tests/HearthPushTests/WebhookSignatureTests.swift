import HearthPush
import Testing

struct WebhookSignatureTests {
    /// RFC 4231 §4.3 (test case 2): HMAC-SHA256 with key "Jefe".
    @Test func signatureIsLowercaseHexHMACSHA256OfTheBody() {
        let value = WebhookSignature.value(for: Array("what do ya want for nothing?".utf8), secret: "Jefe")
        #expect(value == "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func verificationAcceptsOnlyTheExactBodyAndSecret() {
        let body = samplePush().webhookBody
        let header = WebhookSignature.value(for: body, secret: "s3cret")
        #expect(WebhookSignature.isValid(header, body: body, secret: "s3cret"))
        #expect(!WebhookSignature.isValid(header, body: body + [0x20], secret: "s3cret"))
        #expect(!WebhookSignature.isValid(header, body: body, secret: "other"))
        #expect(!WebhookSignature.isValid(String(header.dropFirst(7)), body: body, secret: "s3cret"))
        #expect(!WebhookSignature.isValid("sha256=zz", body: body, secret: "s3cret"))
    }
}
