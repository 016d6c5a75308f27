/**
 * Every RPC method's handler, keyed by the contract's method name. A method is callable only if
 * it is in the contract (which carries its schema) and has a handler here.
 */
import type { CompleteHandlerRegistry } from '../rpc/handler';
import { healthCheck } from './health/check';
import { healthPing } from './health/ping';
import { healthSubscribe } from './health/subscribe';
import { healthUnsubscribe } from './health/unsubscribe';
import { rpcDiscover } from './rpc/discover';
import { agentGet } from './agent/get';
import { agentList } from './agent/list';
import { conversationGet } from './conversation/get';
import { conversationList } from './conversation/list';
import { eventList } from './event/list';
import { mailboxGet } from './mailbox/get';
import { mailboxRejectReasons } from './mailbox/reject-reasons';
import { mailboxList } from './mailbox/list';
import { runGet, runTree } from './run/get';
import { runtimeIncidentLogs } from './runtime/incident-logs';
import { runtimeIncidents } from './runtime/incidents';
import { runtimeIncidentActivity, runtimeIncidentUpdate } from './runtime/incident-update';
import { runtimeStatus } from './runtime/status';
import { eventPublish } from './event/publish';
import { runStart } from './run/start';
import { runtimePause } from './runtime/pause';
import { runtimeResume } from './runtime/resume';
import { runtimeNuke } from './runtime/nuke';
import { runtimeQueue, runtimeResets } from './runtime/records';
import { runtimeLookup } from './runtime/lookup';
import { runtimeCatalog } from './runtime/catalog';
import { mailboxReject } from './mailbox/reject';
import { mailboxApprove } from './mailbox/approve';
import { eventRedrive, eventReplay } from './event/redrive';
import { eventReplays } from './event/replays';

import { operationGet } from './operation/get';
import { operationList } from './operation/list';
import { operationCancel } from './operation/cancel';
import { runtimeSetToolServerFaults, runtimeToolServers } from './runtime/tool-servers';
import { tokenCreate, tokenList, tokenRevoke } from './people/tokens';
import { userCreate, userList, userUpdate } from './people/users';
import { auditList } from './audit/list';
import { alertRuleCreate, alertRuleDelete, alertRuleUpdate, alertRules } from './alert/rules';
import { alertDestinationCreate, alertDestinationDelete, alertDestinations } from './alert/destinations';
import { alertNoticeResend, alertNotices, alertTest } from './alert/notices';
import { alertSilenceCreate, alertSilenceEnd, alertSilences } from './alert/silences';

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
} satisfies CompleteHandlerRegistry;
