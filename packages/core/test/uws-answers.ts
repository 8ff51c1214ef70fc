// The answers uWS v20.51 writes itself, before or instead of a route, for a request it refuses:
// the whole of what the client reads before uWS closes the connection (no Content-Length; the
// close ends the body).

/** A malformed request: a bad header line or framing header, a bad chunk size, no Host. */
export const UWS_400 = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n<h1>Bad Request</h1><hr><i>uWebSockets/20 Server</i>';

/** A request head over `UWS_HTTP_MAX_HEADERS_SIZE`, or with more than 98 header lines. */
export const UWS_431 =
  'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n<h1>Request Header Fields Too Large</h1><hr><i>uWebSockets/20 Server</i>';

/**
 * A request line uWS cannot parse: anything but `METHOD /origin-form-target HTTP/1.1` (uWS's
 * page speaks of HTTP/1.0 whatever the cause).
 */
export const UWS_505 =
  'HTTP/1.1 505 HTTP Version Not Supported\r\nConnection: close\r\n\r\n<h1>HTTP Version Not Supported</h1><p>This server does not support HTTP/1.0.</p><hr><i>uWebSockets/20 Server</i>';
