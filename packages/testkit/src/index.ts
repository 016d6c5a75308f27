/** Shared by server tests, e2e specs and benchmarks; no package or app source imports it (lint). */
export { freePort } from './ports';
export { repoRoot, SERVER_SCRIPT } from './repository';
export { runServerToExit, serverProcessEnv, startServerProcess, type ServerProcess, type ServerProcessOptions } from './server-process';
export { Cluster, NoAnswer, type ChaosServer, type ClusterOptions, type RpcAnswer, type UnexpectedExit } from './cluster';
export { PostgresAdmin, clusterTestDatabase, createSpecDatabase, prepareTestStore, removeDataDir, temporaryDataDir, testDatabaseFor, testPostgres, type SpecDatabase } from './databases';
