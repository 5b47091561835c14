package dev.larder.http.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A response before it is written: status, content type (null for no body) and body, plus the few
 * headers endpoints set. Immutable.
 *
 * @param status the status
 * @param contentType the body's type, or null when there is no body
 * @param body the body, empty for none
 * @param headers further headers
 */
@SuppressWarnings("ArrayRecordComponent") // never compared; the array is passed on uncopied
record HttpReply(
    HttpResponseStatus status, String contentType, byte[] body, Map<String, String> headers) {

  static final String JSON = "application/json";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  static HttpReply of(HttpResponseStatus status, String contentType, byte[] body) {
    return new HttpReply(status, contentType, body, Map.of());
  }

  static HttpReply noContent() {
    return new HttpReply(HttpResponseStatus.NO_CONTENT, null, new byte[0], Map.of());
  }

  static HttpReply json(Object value) {
    try {
      return of(HttpResponseStatus.OK, JSON, MAPPER.writeValueAsBytes(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON for " + value.getClass(), e);
    }
  }

  /** Returns {@code {"status":<code>,"error":"<message>"}} with that status. */
  static HttpReply error(HttpResponseStatus status, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", status.code());
    body.put("error", message);
    try {
      return of(status, JSON, MAPPER.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      return of(status, "text/plain; charset=utf-8", message.getBytes(StandardCharsets.UTF_8));
    }
  }

  HttpReply withHeader(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new HttpReply(status, contentType, body, Map.copyOf(more));
  }
}
