/** The messages the primary and its workers exchange over the IPC channel. */

/** Primary → worker, once, right after the fork. */
export interface StartMessage {
  type: 'velox:start';
  id: number;
  entry: string;
  port: number;
  host: string | undefined;
  timeout: number;
  uncaught: 'shutdown' | 'exit' | 'log';
}

/** Primary → worker: drain and exit 0. */
export interface StopMessage {
  type: 'velox:stop';
}

/** Worker → primary: listening on the shared port. */
export interface ListeningMessage {
  type: 'velox:listening';
}

/** Worker → primary: the start failed; the worker exits 1 after sending this. */
export interface FailedMessage {
  type: 'velox:failed';
  /** Whether the entry itself is wrong (no retry will help) rather than a failure while running it. */
  entry: boolean;
  error: { message: string; code?: string; stack?: string; causeCode?: string };
}

export type ToWorker = StartMessage | StopMessage;
export type ToPrimary = ListeningMessage | FailedMessage;

export function isMessage<T extends { type: string }>(value: unknown, type: T['type']): value is T {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === type;
}
