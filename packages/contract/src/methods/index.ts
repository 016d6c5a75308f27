import type { z } from 'zod';
import { agentGet, agentList } from './agent';
import { alertDestinationCreate, alertDestinationDelete, alertDestinations, alertNoticeResend, alertNotices, alertRuleCreate, alertRuleDelete, alertRuleUpdate, alertRules, alertSilenceCreate, alertSilenceEnd, alertSilences, alertTest } from './alert';
import { auditList } from './audit';
import { conversationGet, conversationList } from './conversation';
import { eventList, eventPublish, eventRedrive, eventReplay, eventReplays } from './event';
import { healthCheck, healthPing, healthSubscribe, healthUnsubscribe } from './health';
import { mailboxApprove, mailboxGet, mailboxList, mailboxReject, mailboxRejectReasons } from './mailbox';
import { operationCancel, operationGet, operationList } from './operation';
import { tokenCreate, tokenList, tokenRevoke } from './token';
import { userCreate, userList, userUpdate } from './user';
import { viewCreate, viewDelete, viewList, viewUpdate } from './view';
import { rpcDiscover } from './rpc';
import { runGet, runStart, runTree } from './run';
import { runtimeIncidentActivity, runtimeIncidentLogs, runtimeIncidentUpdate, runtimeCatalog, runtimeIncidents, runtimeLookup, runtimeNuke, runtimePause, runtimeQueue, runtimeResets, runtimeResume, runtimeRetention, runtimeRetentionRun, runtimeSetToolServerFaults, runtimeStatus, runtimeToolServers } from './runtime';

/**
 * Every method of the v1 surface, keyed by its wire name. A method is defined in the file named
 * after its namespace (the part before the dot): `event.replay` lives in `./event.ts`.
 */
export const methods = {
  [healthPing.name]: healthPing,
  [healthCheck.name]: healthCheck,
  [healthSubscribe.name]: healthSubscribe,
  [healthUnsubscribe.name]: healthUnsubscribe,
  [rpcDiscover.name]: rpcDiscover,
  [runtimeIncidents.name]: runtimeIncidents,
  [runtimeIncidentLogs.name]: runtimeIncidentLogs,
  [runtimeIncidentUpdate.name]: runtimeIncidentUpdate,
  [runtimeIncidentActivity.name]: runtimeIncidentActivity,
  [runtimeStatus.name]: runtimeStatus,
  [runtimePause.name]: runtimePause,
  [runtimeResume.name]: runtimeResume,
  [runtimeNuke.name]: runtimeNuke,
  [runtimeResets.name]: runtimeResets,
  [runtimeRetention.name]: runtimeRetention,
  [runtimeRetentionRun.name]: runtimeRetentionRun,
  [runtimeQueue.name]: runtimeQueue,
  [runtimeLookup.name]: runtimeLookup,
  [runtimeCatalog.name]: runtimeCatalog,
  [eventList.name]: eventList,
  [eventPublish.name]: eventPublish,
  [runStart.name]: runStart,
  [runGet.name]: runGet,
  [runTree.name]: runTree,
  [mailboxList.name]: mailboxList,
  [mailboxGet.name]: mailboxGet,
  [mailboxReject.name]: mailboxReject,
  [mailboxApprove.name]: mailboxApprove,
  [mailboxRejectReasons.name]: mailboxRejectReasons,
  [agentList.name]: agentList,
  [agentGet.name]: agentGet,
  [conversationList.name]: conversationList,
  [conversationGet.name]: conversationGet,
  [eventRedrive.name]: eventRedrive,
  [eventReplay.name]: eventReplay,
  [eventReplays.name]: eventReplays,
  [operationGet.name]: operationGet,
  [operationList.name]: operationList,
  [operationCancel.name]: operationCancel,
  [runtimeToolServers.name]: runtimeToolServers,
  [runtimeSetToolServerFaults.name]: runtimeSetToolServerFaults,
  [userList.name]: userList,
  [userCreate.name]: userCreate,
  [userUpdate.name]: userUpdate,
  [tokenList.name]: tokenList,
  [tokenCreate.name]: tokenCreate,
  [tokenRevoke.name]: tokenRevoke,
  [auditList.name]: auditList,
  [alertRules.name]: alertRules,
  [alertRuleCreate.name]: alertRuleCreate,
  [alertRuleUpdate.name]: alertRuleUpdate,
  [alertRuleDelete.name]: alertRuleDelete,
  [alertDestinations.name]: alertDestinations,
  [alertDestinationCreate.name]: alertDestinationCreate,
  [alertDestinationDelete.name]: alertDestinationDelete,
  [alertTest.name]: alertTest,
  [alertNotices.name]: alertNotices,
  [alertNoticeResend.name]: alertNoticeResend,
  [alertSilences.name]: alertSilences,
  [alertSilenceCreate.name]: alertSilenceCreate,
  [alertSilenceEnd.name]: alertSilenceEnd,
  [viewList.name]: viewList,
  [viewCreate.name]: viewCreate,
  [viewUpdate.name]: viewUpdate,
  [viewDelete.name]: viewDelete,
} as const;

export type Methods = typeof methods;
export type MethodName = keyof Methods;
/** What a caller sends (defaults not yet applied). */
export type ParamsInput<M extends MethodName> = z.input<Methods[M]['params']>;
/** What a handler receives after validation. */
export type Params<M extends MethodName> = z.output<Methods[M]['params']>;
export type Result<M extends MethodName> = z.output<Methods[M]['result']>;

export const methodNames = Object.keys(methods) as MethodName[];

export function isMethodName(name: string): name is MethodName {
  return Object.prototype.hasOwnProperty.call(methods, name);
}

export * from './agent';
export * from './alert';
export * from './audit';
export * from './common';
export * from './conversation';
export * from './event';
export * from './health';
export * from './mailbox';
export * from './operation';
export * from './rpc';
export * from './run';
export * from './runtime';
export * from './token';
export * from './user';
export * from './view';
