package dev.lifecycle.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.lifecycle.examples.broker.ExampleJson;
import org.junit.jupiter.api.Test;

class ReplyTest {
  @Test
  void anOkReplyGivesItsResultAsCompactJson() throws Exception {
    assertReply(
        "{\"ok\": true, \"result\": {\"a\": [1, 2.5, \"x\\n\", null]}}",
        true,
        "{\"a\":[1,2.5,\"x\\n\",null]}");
  }

  @Test
  void theResultIsWrittenAsTheObjectMapperWroteIt() throws Exception {
    String result =
        "{\"pid\":12,\"state\":\"SERVING\",\"backend\":[1,2],\"alive\":true,\"f\":-0.5}";
    String reply = "{\"ok\":true,\"result\":" + result + "}";
    assertThat(Reply.parse(reply).payload())
        .isEqualTo(ExampleJson.write(ExampleJson.parse(result)));
  }

  @Test
  void aFailedReplyGivesItsErrorAndAMissingOneIsNull() throws Exception {
    assertReply(
        "{\"ok\":false,\"error\":{\"code\":-1,\"message\":\"m\"}}",
        false,
        "{\"code\":-1,\"message\":\"m\"}");
    assertThat(Reply.parse("{\"ok\":true}").payload()).isEqualTo("null");
    assertThat(Reply.parse("{\"ok\":\"true\",\"result\":1}").ok()).isFalse();
  }

  @Test
  void aReplyThatIsNotAnObjectIsAllError() throws Exception {
    assertReply("[1,\"two\"]", false, "[1,\"two\"]");
  }

  @Test
  void duplicateKeysTrailingTextDeepNestingAndEmptyRepliesAreErrors() {
    assertThatThrownBy(() -> Reply.parse("{\"ok\":true,\"ok\":false}"))
        .isInstanceOf(JsonProcessingException.class);
    assertThatThrownBy(() -> Reply.parse("{\"ok\":true,\"x\":{\"a\":1,\"a\":2}}"))
        .isInstanceOf(JsonProcessingException.class);
    assertThatThrownBy(() -> Reply.parse("{\"ok\":true} {}"))
        .isInstanceOf(JsonProcessingException.class);
    assertThatThrownBy(
            () -> Reply.parse("{\"ok\":true,\"result\":" + "[".repeat(40) + "]".repeat(40) + "}"))
        .isInstanceOf(JsonProcessingException.class);
    assertThatThrownBy(() -> Reply.parse("")).isInstanceOf(JsonProcessingException.class);
    assertThatThrownBy(() -> Reply.parse("{\"ok\":tru}"))
        .isInstanceOf(JsonProcessingException.class);
  }

  private static void assertReply(String line, boolean ok, String payload) throws Exception {
    Reply reply = Reply.parse(line);
    assertThat(reply.ok()).as(line).isEqualTo(ok);
    assertThat(reply.payload()).as(line).isEqualTo(payload);
  }
}
