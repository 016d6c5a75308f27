/**
 * An OTLP/HTTP trace receiver in the test process: accepts POST /v1/traces in the OTLP JSON
 * encoding (what the server's exporter sends) and keeps every span with its resource's attributes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type AttributeValue = string | number | boolean;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** The attributes of the process that exported it (service.name, OTEL_RESOURCE_ATTRIBUTES). */
  resource: Record<string, AttributeValue>;
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
}

interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpAttribute[] }[] }[];
  }[];
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Request bodies that were not OTLP JSON (the test fails on any). */
  readonly refused: string[] = [];
  private server: http.Server | undefined;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
          this.refused.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
          res.writeHead(404).end();
          return;
        }
        try {
          this.accept(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraces);
        } catch (err) {
          this.refused.push((err as Error).message);
          res.writeHead(400).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private accept(body: OtlpTraces): void {
    for (const rs of body.resourceSpans ?? []) {
      const resource = attributesOf(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId || undefined,
            name: s.name,
            kind: s.kind,
            attributes: attributesOf(s.attributes),
            resource,
          });
        }
      }
    }
  }

  inTrace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
