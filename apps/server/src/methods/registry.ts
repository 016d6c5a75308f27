/**
 * Every RPC method's handler, keyed by the contract's method name. A method is callable only if
 * it is in the contract (which carries its schema) and has a handler here.
 *
 * One file per method, found from its name alone: `<namespace>.<op>` is handled in
 * `./<namespace>/<op>.ts`, the op spelled exactly as on the wire (snake_case kept), e.g.
 * `runtime.incident_logs` in `./runtime/incident_logs.ts`. Each file exports one handler; helpers
 * that several handlers share live outside this folder (records/, pagination/).
 */
import type { CompleteHandlerRegistry } from '../rpc/handler';
import { healthPing } from './health/ping';
import { healthCheck } from './health/check';
import { healthSubscribe } from './health/subscribe';
import { healthUnsubscribe } from './health/unsubscribe';
import { rpcDiscover } from './rpc/discover';
import { runtimeIncidents } from './runtime/incidents';
import { runtimeIncidentLogs } from './runtime/incident_logs';
import { runtimeIncidentUpdate } from './runtime/incident_update';
import { runtimeIncidentActivity } from './runtime/incident_activity';
import { runtimeStatus } from './runtime/status';
import { eventList } from './event/list';
import { mailboxGet } from './mailbox/get';
import { mailboxList } from './mailbox/list';
import { conversationGet } from './conversation/get';
import { conversationList } from './conversation/list';
import { agentGet } from './agent/get';
import { agentList } from './agent/list';
import { runGet } from './run/get';
import { runTree } from './run/tree';
import { eventPublish } from './event/publish';
import { runStart } from './run/start';
import { runtimePause } from './runtime/pause';
import { runtimeResume } from './runtime/resume';
import { runtimeNuke } from './runtime/nuke';
import { runtimeResets } from './runtime/resets';
import { runtimeRetention } from './runtime/retention';
import { runtimeRetentionRun } from './runtime/retention_run';
import { runtimeQueue } from './runtime/queue';
import { runtimeLookup } from './runtime/lookup';
import { runtimeCatalog } from './runtime/catalog';
import { mailboxReject } from './mailbox/reject';
import { mailboxApprove } from './mailbox/approve';
import { mailboxRejectReasons } from './mailbox/reject_reasons';
import { eventRedrive } from './event/redrive';
import { eventReplay } from './event/replay';
import { eventReplays } from './event/replays';
import { operationGet } from './operation/get';
import { operationList } from './operation/list';
import { operationCancel } from './operation/cancel';
import { runtimeToolServers } from './runtime/tool_servers';
import { userList } from './user/list';
import { userCreate } from './user/create';
import { userUpdate } from './user/update';
import { tokenList } from './token/list';
import { tokenCreate } from './token/create';
import { tokenRevoke } from './token/revoke';
import { auditList } from './audit/list';
import { runtimeSetToolServerFaults } from './runtime/set_tool_server_faults';
import { alertRules } from './alert/rules';
import { alertRuleCreate } from './alert/rule_create';
import { alertRuleUpdate } from './alert/rule_update';
import { alertRuleDelete } from './alert/rule_delete';
import { alertDestinations } from './alert/destinations';
import { alertDestinationCreate } from './alert/destination_create';
import { alertDestinationDelete } from './alert/destination_delete';
import { alertTest } from './alert/test';
import { alertNotices } from './alert/notices';
import { alertNoticeResend } from './alert/notice_resend';
import { alertSilences } from './alert/silences';
import { alertSilenceCreate } from './alert/silence_create';
import { alertSilenceEnd } from './alert/silence_end';
import { viewList } from './view/list';
import { viewCreate } from './view/create';
import { viewUpdate } from './view/update';
import { viewDelete } from './view/delete';

export const handlers = {
  'health.ping': healthPing,
  'health.check': healthCheck,
  'health.subscribe': healthSubscribe,
  'health.unsubscribe': healthUnsubscribe,
  'rpc.discover': rpcDiscover,
  'runtime.incidents': runtimeIncidents,
  'runtime.incident_logs': runtimeIncidentLogs,
  'runtime.incident_update': runtimeIncidentUpdate,
  'runtime.incident_activity': runtimeIncidentActivity,
  'runtime.status': runtimeStatus,
  'event.list': eventList,
  'mailbox.get': mailboxGet,
  'mailbox.list': mailboxList,
  'conversation.get': conversationGet,
  'conversation.list': conversationList,
  'agent.get': agentGet,
  'agent.list': agentList,
  'run.get': runGet,
  'run.tree': runTree,
  'event.publish': eventPublish,
  'run.start': runStart,
  'runtime.pause': runtimePause,
  'runtime.resume': runtimeResume,
  'runtime.nuke': runtimeNuke,
  'runtime.resets': runtimeResets,
  'runtime.retention': runtimeRetention,
  'runtime.retention_run': runtimeRetentionRun,
  'runtime.queue': runtimeQueue,
  'runtime.lookup': runtimeLookup,
  'runtime.catalog': runtimeCatalog,
  'mailbox.reject': mailboxReject,
  'mailbox.approve': mailboxApprove,
  'mailbox.reject_reasons': mailboxRejectReasons,
  'event.redrive': eventRedrive,
  'event.replay': eventReplay,
  'event.replays': eventReplays,
  'operation.get': operationGet,
  'operation.list': operationList,
  'operation.cancel': operationCancel,
  'runtime.tool_servers': runtimeToolServers,
  'user.list': userList,
  'user.create': userCreate,
  'user.update': userUpdate,
  'token.list': tokenList,
  'token.create': tokenCreate,
  'token.revoke': tokenRevoke,
  'audit.list': auditList,
  'runtime.set_tool_server_faults': runtimeSetToolServerFaults,
  'alert.rules': alertRules,
  'alert.rule_create': alertRuleCreate,
  'alert.rule_update': alertRuleUpdate,
  'alert.rule_delete': alertRuleDelete,
  'alert.destinations': alertDestinations,
  'alert.destination_create': alertDestinationCreate,
  'alert.destination_delete': alertDestinationDelete,
  'alert.test': alertTest,
  'alert.notices': alertNotices,
  'alert.notice_resend': alertNoticeResend,
  'alert.silences': alertSilences,
  'alert.silence_create': alertSilenceCreate,
  'alert.silence_end': alertSilenceEnd,
  'view.list': viewList,
  'view.create': viewCreate,
  'view.update': viewUpdate,
  'view.delete': viewDelete,
} satisfies CompleteHandlerRegistry;
