/** Scraping GET /metrics over HTTP and reading the exposition back with a Prometheus text parser. */
import { spawn } from 'node:child_process';
import parsePrometheusTextFormat, { type ParsedFamily, type ParsedSample } from 'parse-prometheus-text-format';

export interface Scrape {
  text: string;
  families: Map<string, ParsedFamily>;
}

export async function scrape(baseUrl: string, token: string): Promise<Scrape> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${text.slice(0, 300)}`);
  // The parser folds every labelled series of a histogram into one sample (it handles only
  // unlabelled ones): read histograms as their plain _bucket, _sum and _count series instead.
  // Each series then comes back in runs (one child's _bucket, _sum, _count, the next child's...):
  // runs of one name are one family.
  const flat = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped');
  const families = new Map<string, ParsedFamily>();
  for (const run of parsePrometheusTextFormat(flat)) {
    const known = families.get(run.name);
    if (known) known.metrics.push(...run.metrics);
    else families.set(run.name, { ...run, metrics: [...run.metrics] });
  }
  return { text, families };
}

/** One value from a fresh scrape of `baseUrl` (see valueOf): for a test waiting for a counter to move. */
export async function scrapedValue(baseUrl: string, token: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return valueOf(await scrape(baseUrl, token), name, labels);
}

/** Samples of a family whose labels include `labels` (every sample when none are given). */
export function samples(s: Scrape, name: string, labels: Record<string, string> = {}): ParsedSample[] {
  const family = s.families.get(name);
  if (!family) throw new Error(`no metric ${name} in the scrape`);
  return family.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

/** The value of the one sample matching `labels`; 0 when the family has none (a counter not yet incremented). */
export function valueOf(s: Scrape, name: string, labels: Record<string, string> = {}): number {
  const matching = samples(s, name, labels);
  if (matching.length > 1) throw new Error(`${matching.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matching.length === 0 ? 0 : Number(matching[0]!.value);
}

/** A histogram's observation count for `labels` (0 when not observed yet). */
export function countOf(s: Scrape, histogram: string, labels: Record<string, string> = {}): number {
  return valueOf(s, `${histogram}_count`, labels);
}

/** A histogram's sum of observations for `labels`. */
export function sumOf(s: Scrape, histogram: string, labels: Record<string, string> = {}): number {
  return valueOf(s, `${histogram}_sum`, labels);
}

/** `promtool check metrics` on the exposition text: its exit code and what it printed. */
export function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}
