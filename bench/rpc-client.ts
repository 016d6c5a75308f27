import http from 'node:http';

/** JSON-RPC calls to one server over keep-alive connections (at most `sockets` at once). */
export class RpcClient {
  private readonly agent: http.Agent;
  constructor(
    readonly port: number,
    private readonly token: string,
    sockets = 16,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  }

  call(method: string, params?: unknown): Promise<any> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: '/v1/rpc',
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}`, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => {
            try {
              const answer = JSON.parse(text) as { result?: unknown; error?: { message: string } };
              if (answer.result === undefined) reject(new Error(`${method}: ${answer.error?.message ?? `HTTP ${res.statusCode}`}`));
              else resolve(answer.result);
            } catch {
              reject(new Error(`${method}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
            }
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
