package dev.larder.http.internal;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A request the endpoints refuse: the status and a message for the client, answered as {@code
 * {"status":..., "error":"..."}}. Thrown by endpoints, caught by {@link HttpRequestHandler}; never
 * escapes the module.
 */
final class HttpProblem extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final transient HttpResponseStatus status;
  private final String allow;

  HttpProblem(HttpResponseStatus status, String message) {
    this(status, message, null);
  }

  private HttpProblem(HttpResponseStatus status, String message, String allow) {
    super(message, null, false, false);
    this.status = status;
    this.allow = allow;
  }

  /**
   * Returns a 405 naming them.
   *
   * @param allow the methods the resource allows, for the {@code Allow} header
   */
  static HttpProblem methodNotAllowed(String method, String path, String allow) {
    String message =
        allow.isEmpty()
            ? path + " allows no method"
            : method + " is not allowed on " + path + "; allowed: " + allow;
    return new HttpProblem(HttpResponseStatus.METHOD_NOT_ALLOWED, message, allow);
  }

  static HttpProblem notFound(String message) {
    return new HttpProblem(HttpResponseStatus.NOT_FOUND, message);
  }

  static HttpProblem badRequest(String message) {
    return new HttpProblem(HttpResponseStatus.BAD_REQUEST, message);
  }

  HttpResponseStatus status() {
    return status;
  }

  /** Returns the {@code Allow} header's value, or null. */
  String allow() {
    return allow;
  }
}
