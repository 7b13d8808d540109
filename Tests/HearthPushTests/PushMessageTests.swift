import Foundation
import HearthPush
import Testing

struct PushMessageTests {
    @Test func webhookBodyIsTheContractsObjectInItsOrder() {
        let body = String(decoding: samplePush().webhookBody, as: UTF8.self)
        #expect(
            body
                == #"{"id":"push-1","uid":"alice","deviceId":"phone","token":"token-abc","platform":"fcm","title":"Bob","#
                + #""body":"See you at \"8\" \\ tonight\n🎉","badge":3,"data":{"chatId":"chat-1","messageId":"-Nmsg1"}}"#
        )
    }

    @Test func callPushCarriesCallIdInsteadOfMessageId() throws {
        let push = samplePush(platform: .apns, data: .call(chatID: "chat-9", callID: "call-7"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(push.webhookBody)) as? [String: Any])
        #expect(object["data"] as? [String: String] == ["chatId": "chat-9", "callId": "call-7"])
        #expect(object["platform"] as? String == "apns")
        #expect(push.data.callID == "call-7" && push.data.messageID == nil)
    }

    @Test func controlCharactersAreEscapedSoTheBodyParses() throws {
        var push = samplePush()
        push.title = "tab\tbell\u{07}nul\u{00}"
        let object = try #require(try JSONSerialization.jsonObject(with: Data(push.webhookBody)) as? [String: Any])
        #expect(object["title"] as? String == "tab\tbell\u{07}nul\u{00}")
        #expect(String(decoding: push.webhookBody, as: UTF8.self).contains(#""tab\tbell\u0007nul\u0000""#))
    }
}
