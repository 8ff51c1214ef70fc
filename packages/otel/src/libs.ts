/**
 * The one file that imports OpenTelemetry: the API (spans, context, propagation, metrics), the
 * instrumentation base class and the semantic-convention names. The rest of the package goes
 * through these names, so that a change of OpenTelemetry's packages touches this file only.
 */
export {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  ValueType,
  type Attributes,
  type Context,
  type Counter,
  type Histogram,
  type Span,
  type TextMapGetter,
  type UpDownCounter,
} from '@opentelemetry/api';
export { InstrumentationBase, type InstrumentationConfig } from '@opentelemetry/instrumentation';
export {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PEER_ADDRESS,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_QUERY,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
  METRIC_HTTP_SERVER_REQUEST_DURATION,
} from '@opentelemetry/semantic-conventions';
