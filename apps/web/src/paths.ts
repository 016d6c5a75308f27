/**
 * Where each kind of record opens. Screens and the "go to id" box link through these, so moving a
 * screen is a change here only.
 */
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

export const paths = {
  incidents: () => '/incidents',
  event: (eventId: string) => `/events?${q({ event_id: eventId, selected: eventId })}`,
  deadLetter: (eventId: string, deadLetterId: string) => `/dead-letters?${q({ event_id: eventId, selected: eventId, dead_letter: deadLetterId })}`,
  run: (runId: string) => `/events?${q({ run_id: runId })}`,
  entity: (entityId: string) => `/events?${q({ entity_id: entityId })}`,
  subscriber: (subscriberId: string) => `/events?${q({ subscriber_id: subscriberId })}`,
  agent: (agentId: string) => `/agents/${encodeURIComponent(agentId)}`,
  session: (sessionId: string) => `/conversations/${encodeURIComponent(sessionId)}`,
  mailbox: (mailboxId: string) => `/mailbox/${encodeURIComponent(mailboxId)}`,
  turn: (sessionId: string, turnId: string) => `/conversations/${encodeURIComponent(sessionId)}?${q({ turn: turnId })}`,
  incident: (incidentId: string) => `/incidents?${q({ state: 'all', selected: incidentId })}`,
  /** A tool server's row, with its fault switch, on the Runtime page. */
  toolServer: (name: string) => `/runtime?${q({ tool_server: name })}#tool-servers`,
  /** The live servers, on the Runtime page. */
  servers: () => '/runtime#servers',
  operation: (operationId: string) => `/runtime?${q({ operation: operationId })}#operations`,
  /** A person, or a token: what they did, in the audit trail. */
  actor: (actorId: string) => `/audit?${q({ actor: actorId })}`,
  /** The Alerts screen's parts: rules (the default), destinations, the history of notices, silences. */
  alerts: (part: 'rules' | 'destinations' | 'history' | 'silences' = 'rules', params: Record<string, string> = {}) =>
    `/alerts${part === 'rules' ? '' : `/${part}`}${Object.keys(params).length ? `?${q(params)}` : ''}`,
  /** A delivery opens on its event, whose detail marks it and scrolls it into view. */
  delivery: (eventId: string, deliveryId?: string) =>
    `/events?${q({ event_id: eventId, selected: eventId, ...(deliveryId ? { delivery: deliveryId } : {}) })}`,
};
