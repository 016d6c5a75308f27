/** Builds the configured container manager (SWITCHBOARD_CONTAINERS: local | docker). */
import type { Clock, Store } from '@switchboard/store';
import type { ContainerManager } from './container-manager';
import { DockerEngineManager } from './docker-engine-manager';
import { LocalProcessManager } from './local-process-manager';

export interface ContainerManagerConfig {
  kind: 'local' | 'docker';
  /** Shell command of each container (run with /bin/sh -c); the built-in default when omitted. */
  command?: string;
  stopTimeoutMs: number;
  maxContainers?: number;
  dockerSocket: string;
  dockerImage: string;
}

export function createContainerManager(
  config: ContainerManagerConfig,
  deps: { store: Store; clock: Clock },
): ContainerManager {
  if (config.kind === 'docker') {
    return new DockerEngineManager({
      store: deps.store,
      clock: deps.clock,
      socketPath: config.dockerSocket,
      image: config.dockerImage,
      command: config.command ? ['/bin/sh', '-c', config.command] : undefined,
      stopTimeoutSeconds: Math.max(1, Math.ceil(config.stopTimeoutMs / 1000)),
      maxContainers: config.maxContainers,
    });
  }
  return new LocalProcessManager({
    store: deps.store,
    clock: deps.clock,
    command: config.command,
    stopTimeoutMs: config.stopTimeoutMs,
    maxContainers: config.maxContainers,
  });
}
