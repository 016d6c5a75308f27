/** What a runtime is booted with, and what its constructor is given once the boot has chosen. */
import type { Clock, Store } from '@switchboard/store';
import type { LoadedBundle } from './bundle/load';
import type { DispatcherOptions } from './dispatcher';
import type { ModelProvider } from './providers/provider';
import type { ModelProviderConfig } from './providers/index';
import type { ContainerManager } from './containers/container-manager';
import type { ServerRegistryOptions } from './membership/server-registry';
import type { RuntimeObserver } from './observer';
import type { AlertsOptions } from './alerts/alerts';
import type { RetentionSettings } from './retention/retention-settings';

export interface RuntimeOptions {
  store: Store;
  bundlePath?: string;
  clock?: Clock;
  /** A provider instance, or the configuration selecting one; scripted by default. */
  modelProvider?: ModelProvider | ModelProviderConfig;
  dispatcher?: DispatcherOptions;
  /** Start the dispatcher loop at boot (default true). Tests turn it off and call runUntilIdle (testing/run-until-idle.ts). */
  autoStart?: boolean;
  /** Container manager for entities of managed_container types; local child processes by default. */
  containers?: ContainerManager;
  /** Bound on reset quiescence waiting for running handlers (default 10 s). */
  resetDrainTimeoutMs?: number;
  /** This process as a server of the store: heartbeat, when a silent server counts as dead, version. */
  server?: ServerRegistryOptions;
  /** Told of publishes, delivery outcomes and decisions (the server's metrics); nothing by default. */
  observer?: RuntimeObserver;
  /** Alert notices: how they are sent (attempts, backoff, lease), how often conditions are evaluated, where links point. */
  alerts?: AlertsOptions;
  /** How long settled history is kept and how fast it is removed (ADR 0018); the defaults otherwise. */
  retention?: Partial<RetentionSettings>;
}

/** What the constructor is given: the options, with the bundle, clock and provider they chose. */
export interface RuntimeParts extends RuntimeOptions {
  bundle: LoadedBundle;
  clock: Clock;
  provider: ModelProvider;
}

