export { BundleError, fingerprintOf, loadBundle, type LoadedBundle } from './bundle/load';
export type { AgentDefinition, BundleDefinition, EntityTypeDefinition, NodeDefinition, ScriptRule, ToolServerDefinition } from './bundle/schema';
export { DEFAULT_BUNDLE_PATH, Runtime, type AppliedReset, type IngressState, type RuntimeOptions, type RuntimeStatus } from './runtime';
export { Dispatcher, backoffFor, type DispatcherOptions } from './dispatcher';
export type { PublishInput, PublishResult } from './ingress';
export type { ApproveInput, Decider, DecisionOutcome, RejectInput } from './mailbox';
export { OTHER_REASON_CODE, RUNTIME_ACTOR } from './mailbox';
export { evaluateGates, toEntityRecord } from './entities';
export { evaluateCondition } from './conditions';
export { validatePayload, type PayloadIssue } from './payload-schema';
export { RuntimeLog, LEVEL_RANK, isMcpComponent, type LogEntry, type LogLevel } from './runtime-log';
export { createModelProvider, type ModelProviderConfig } from './providers/index';
export { ModelError, type ModelProvider, type ModelReply, type ModelRequest } from './providers/provider';
export { ScriptedProvider } from './providers/scripted';
export { OpenAiCompatibleProvider, type OpenAiCompatibleOptions } from './providers/openai-compatible';
export { runDemoScenario, type DemoScenarioResult, type DemoScenarioOptions } from './demo/scenario';
export { startSteadyTraffic, type SteadyTraffic, type SteadyTrafficOptions } from './demo/steady-traffic';
export {
  ContainerStartError,
  type ContainerManager,
  type ContainerRecord,
  type ContainerSpec,
  type StopOutcome,
} from './containers/container-manager';
export { createContainerManager, type ContainerManagerConfig } from './containers/create-container-manager';
export { LocalProcessManager, DEFAULT_LOCAL_CONTAINER_COMMAND, type LocalProcessManagerOptions } from './containers/local-process-manager';
export { DockerEngineManager, type DockerEngineManagerOptions } from './containers/docker-engine-manager';
export type { ResetRequest, ResetResult } from './reset/reset-coordinator';
export type { OnEffectCommit } from './effect-commit';
export { noopRuntimeObserver, type DeliveryOutcome, type MailboxDecision, type OperationDropReason, type PublishOutcome, type RuntimeObserver } from './observer';
export { traceIdOf } from './tracing';
export { Alerts, type AlertsOptions } from './alerts/alerts';
export { Incidents, type IncidentPage, type IncidentQuery, type IncidentRow, type IncidentUpdate } from './incidents/incidents';
export type { IncidentPosition, IncidentSort } from './incidents/incident-order';
export type { IncidentActivityEntry, IncidentStateFilter, IncidentStateView } from './incidents/incident-state';
export { newWebhookSecret } from './alerts/alert-config';
export { maskedUrl } from './alerts/notice-content';
export { SavedViews, type ViewActor, type ViewChanges, type ViewInput } from './saved-views';
export { Retention, type RetentionPassOutcome, type RetentionStatus } from './retention/retention';
export { DEFAULT_RETENTION_SETTINGS, LONGEST_INCIDENT_LOOK_BACK_DAYS, cutoffsAt, type RetentionSettings } from './retention/retention-settings';
