/**
 * The API as the e2e tests call it to seed and to check what a page shows: methods, params and
 * results typed from the contract, so renaming a method or a field breaks these tests at compile time.
 */
import type { MethodName, ParamsInput, Result, RpcErrorObject } from '@switchboard/contract';

export interface RpcClient {
  rpc<M extends MethodName>(method: M, params?: ParamsInput<M>): Promise<Result<M>>;
  /** One batch (at most 100 entries, as the server allows); every entry must succeed. */
  rpcBatch<M extends MethodName>(calls: { method: M; params: ParamsInput<M> }[]): Promise<Result<M>[]>;
}

interface Answer {
  id: string | null;
  result?: unknown;
  error?: RpcErrorObject;
}

export function rpcClient(url: string, token: string): RpcClient {
  const post = async (body: unknown): Promise<unknown> => {
    const r = await fetch(`${url}/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return r.json();
  };
  return {
    async rpc(method, params = {} as never) {
      const answer = (await post({ jsonrpc: '2.0', id: '1', method, params })) as Answer;
      if (answer.error) throw new Error(`${method}: ${answer.error.data.code} ${answer.error.message}`);
      return answer.result as never;
    },
    async rpcBatch(calls) {
      const answers = (await post(calls.map((c, i) => ({ jsonrpc: '2.0', id: String(i), ...c })))) as Answer[];
      const failed = answers.find((a) => a.error);
      if (failed) throw new Error(`batch call failed: ${failed.error!.data.code} ${failed.error!.message}`);
      return answers.map((a) => a.result) as never;
    },
  };
}
