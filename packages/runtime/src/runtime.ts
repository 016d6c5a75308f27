/**
 * The embedded runtime: owns the boot bundle and the runtime state kept in the store. It knows
 * nothing of HTTP or JSON-RPC; the control API calls it.
 */
import { fileURLToPath } from 'node:url';
import type { Clock, Store } from '@switchboard/store';
import { systemClock } from '@switchboard/store';
import { loadBundle, type LoadedBundle } from './bundle/load';

export const DEFAULT_BUNDLE_PATH = fileURLToPath(new URL('../bundles/support-desk.yaml', import.meta.url));

export type IngressState = 'open' | 'paused';

export interface RuntimeOptions {
  store: Store;
  bundlePath?: string;
  clock?: Clock;
}

export class Runtime {
  readonly startedAt: Date;
  private constructor(
    readonly store: Store,
    readonly bundle: LoadedBundle,
    readonly clock: Clock,
  ) {
    this.startedAt = clock.now();
  }

  /** Loads the bundle (BundleError on a bad one) and prepares runtime state. */
  static async boot(options: RuntimeOptions): Promise<Runtime> {
    const clock = options.clock ?? systemClock;
    const bundle = loadBundle(options.bundlePath ?? DEFAULT_BUNDLE_PATH, clock.now());
    return new Runtime(options.store, bundle, clock);
  }

  get name(): string {
    return this.bundle.definition.name;
  }

  async ingressState(): Promise<IngressState> {
    const row = await this.store.db.selectFrom('runtime_state').select('value').where('key', '=', 'ingress').executeTakeFirst();
    return row?.value === 'paused' ? 'paused' : 'open';
  }

  /** True while a reset holds the runtime (readiness and mutations depend on it). */
  isResetting(): boolean {
    return false;
  }

  /** Per-component checks reported by health.check, beside the store check. */
  async healthChecks(): Promise<Record<string, { ok: boolean; latency_ms: number; detail?: string }>> {
    return { bundle: { ok: true, latency_ms: 0, detail: this.bundle.fingerprint.slice(0, 19) } };
  }

  async stop(): Promise<void> {}
}
