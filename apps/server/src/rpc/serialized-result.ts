import type { MethodName, Result } from '@switchboard/contract';

/**
 * A method's result already in its JSON text: a page a reader thread read and serialized
 * (reads/reader-threads.ts). The HTTP answer splices the text in as it is; anything else that
 * serializes it (a batch, the WebSocket) gets the value back through toJSON.
 */
export class SerializedResult<M extends MethodName = MethodName> {
  /** Only the type checker sees this: which method's result the text holds. */
  declare readonly method?: M;

  constructor(readonly json: string) {}

  /** The result as a value (parsed on each call: for the paths that are not the HTTP answer's). */
  value(): Result<M> {
    return JSON.parse(this.json) as Result<M>;
  }

  toJSON(): Result<M> {
    return this.value();
  }
}
