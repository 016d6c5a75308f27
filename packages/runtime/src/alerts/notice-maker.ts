/**
 * Turns transitions into notices. The enabled rules, the destinations and the active silences
 * are kept in memory (reloaded when this process changes them, when another server's change is
 * heard, and at least every few seconds), so a transition costs no query unless a rule watches it,
 * and a log record costs none unless its incident is new to this process or was resolved.
 * Notices are inserted in the transition's own transaction; their dedupe key makes one notice per
 * rule, destination and transition even when several writers see the same transition.
 */
import { incidentId, type AlertDestinationRecord, type AlertRuleRecord, type Clock, type IncidentKey, type NewLogRecord, type Store, type StoreTx } from '@switchboard/store';
import { noticeRecord, type NoticeSubject } from './notice-content';

/** Rules, destinations and silences are reloaded at least this often (other servers' changes). */
const RELOAD_AFTER_MS = 5_000;
const LEVEL_RANKS: Record<string, number> = { warn: 2, error: 3 };

interface Loaded {
  rules: AlertRuleRecord[];
  destinations: Map<string, AlertDestinationRecord>;
  destinationsByName: Map<string, AlertDestinationRecord>;
  /** Rule id or incident id -> the latest end of an active silence. */
  silencedUntil: Map<string, string>;
  /** Resolved incident groups (group key -> resolved at): an occurrence after it regresses them. */
  resolved: Map<string, string>;
  /** Some enabled incident.opened or incident.regressed rule has a destination. */
  watchesIncidents: boolean;
  loadedAt: number;
}

const EMPTY: Loaded = { rules: [], destinations: new Map(), destinationsByName: new Map(), silencedUntil: new Map(), resolved: new Map(), watchesIncidents: false, loadedAt: 0 };

function groupKey(key: IncidentKey): string {
  return JSON.stringify([key.component, key.error_code ?? '', key.cause_key ?? '']);
}

/** What a notice about an incident says and links to. */
function incidentSubject(transition: string, key: IncidentKey, record: NewLogRecord, episode: string, verb: string): NoticeSubject {
  const id = incidentId(key);
  const code = key.error_code ?? 'no code';
  return {
    transition,
    subject_type: 'incident',
    subject_id: id,
    title: `Incident ${verb}: ${key.component} ${code}${record.message ? `: ${record.message.slice(0, 160)}` : ''}`,
    link: `/incidents?selected=${id}`,
    data: { incident_id: id, component: key.component, error_code: key.error_code, level_rank: record.level_rank, first_seen: record.ts, message: record.message.slice(0, 500) },
    episode,
  };
}

export class NoticeMaker {
  private loaded: Loaded = EMPTY;
  private reloading: Promise<void> | undefined;
  private reloadAgain: Promise<void> | undefined;
  /** Incident groups this process knows have occurred: their records cannot open them. */
  private readonly knownGroups = new Set<string>();
  /** Regressions this process already notified (group key and resolve time). */
  private readonly notifiedRegressions = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** A notice was inserted: its transaction commits shortly, then the sender should look. */
    private readonly made: () => void,
  ) {}

  /** Loads rules, destinations and silences now (boot, tests). */
  async load(): Promise<void> {
    const now = this.clock.now().toISOString();
    const [rules, destinations, silences, resolved] = await Promise.all([
      this.store.alerts.rules(),
      this.store.alerts.destinations(),
      this.store.alerts.silences(now, false),
      this.store.incidents.resolvedGroups(),
    ]);
    const silencedUntil = new Map<string, string>();
    for (const s of silences) {
      const target = s.rule_id ?? s.incident_id;
      if (target && (silencedUntil.get(target) ?? '') < s.until) silencedUntil.set(target, s.until);
    }
    const loaded: Loaded = {
      rules: rules.filter((r) => r.enabled),
      destinations: new Map(destinations.map((d) => [d.id, d])),
      destinationsByName: new Map(destinations.map((d) => [d.name, d])),
      silencedUntil,
      resolved: new Map(resolved.map((g) => [groupKey(g), g.resolved_at])),
      watchesIncidents: false,
      loadedAt: Date.now(),
    };
    this.loaded = loaded;
    loaded.watchesIncidents = loaded.rules.some((r) => (r.trigger === 'incident.opened' || r.trigger === 'incident.regressed') && this.destinationsOf(r).length > 0);
  }

  /**
   * Reloads (coalesced): something this process or another server changed. Resolves once a load
   * that started after this call has finished.
   */
  reload(): Promise<void> {
    if (this.reloading) {
      this.reloadAgain ??= this.reloading.then(() => {
        this.reloadAgain = undefined;
        return this.reload();
      });
      return this.reloadAgain;
    }
    this.reloading = this.load()
      .catch(() => undefined)
      .finally(() => {
        this.reloading = undefined;
      });
    return this.reloading;
  }

  /** Whether any destination exists (as of the last load): without one no notice can be due. */
  get hasDestinations(): boolean {
    return this.loaded.destinations.size > 0;
  }

  private fresh(): Loaded {
    if (Date.now() - this.loaded.loadedAt > RELOAD_AFTER_MS) void this.reload();
    return this.loaded;
  }

  /** Enabled rules of a trigger. */
  rulesFor(trigger: string): AlertRuleRecord[] {
    return this.fresh().rules.filter((r) => r.trigger === trigger);
  }

  /** A rule's destinations that exist now (by id, and by name for bundle rules). */
  destinationsOf(rule: AlertRuleRecord, escalation = false): AlertDestinationRecord[] {
    const { destinations, destinationsByName } = this.loaded;
    const ids = escalation ? rule.escalation_destination_ids : rule.destination_ids;
    const names = escalation ? rule.escalation_destination_names : rule.destination_names;
    const out = new Map<string, AlertDestinationRecord>();
    for (const id of ids) {
      const d = destinations.get(id);
      if (d) out.set(d.id, d);
    }
    for (const name of names) {
      const d = destinationsByName.get(name);
      if (d) out.set(d.id, d);
    }
    return [...out.values()];
  }

  /** Whether a silence mutes this rule, or this incident, now. */
  silenced(rule: AlertRuleRecord, subjectIncidentId?: string): boolean {
    const now = this.clock.now().toISOString();
    const until = (id: string | undefined) => (id ? this.loaded.silencedUntil.get(id) : undefined);
    return (until(rule.id) ?? '') > now || (until(subjectIncidentId) ?? '') > now;
  }

  /**
   * Inserts the notices of one transition for every rule given that is not silenced, in `tx`
   * (or a transaction of its own). `dueAt` defers them. Returns how many were inserted.
   */
  async notify(rules: readonly AlertRuleRecord[], subject: NoticeSubject, tx: StoreTx | undefined, options: { escalation?: boolean; dueAt?: Date } = {}): Promise<number> {
    const now = this.clock.now();
    const incident = subject.subject_type === 'incident' ? subject.subject_id : undefined;
    const notices = rules
      .filter((rule) => !this.silenced(rule, incident))
      .flatMap((rule) => this.destinationsOf(rule, options.escalation).map((d) => noticeRecord(rule, d, subject, now, options.dueAt)));
    if (notices.length === 0) return 0;
    const inserted = await this.store.alerts.notices.insert(notices, tx);
    if (inserted.length) this.made();
    return inserted.length;
  }

  /** A transition of a write (reset applied, operation finished with failures, server dead), in its transaction. */
  async transition(trigger: string, subject: Omit<NoticeSubject, 'transition'>, tx?: StoreTx): Promise<number> {
    const rules = this.rulesFor(trigger);
    if (rules.length === 0) return 0;
    return this.notify(rules, { ...subject, transition: trigger }, tx);
  }

  /**
   * Whether a warn-or-worse record may open or regress its incident for a rule: only then does it
   * need `incidentRecord` (and a transaction). In memory, no query.
   */
  watchesRecord(record: NewLogRecord): boolean {
    const loaded = this.fresh();
    if (!loaded.watchesIncidents) return false;
    const key = groupKey(record as IncidentKey);
    if (!this.knownGroups.has(key)) return true;
    const resolvedAt = loaded.resolved.get(key);
    return resolvedAt !== undefined && record.ts > resolvedAt && !this.notifiedRegressions.has(`${key}@${resolvedAt}`);
  }

  /**
   * A warn-or-worse record written in `tx`: the first of its group opens an incident; the first
   * after the group was resolved regresses it.
   */
  async incidentRecord(record: NewLogRecord & { log_id: string }, tx: StoreTx): Promise<void> {
    const key: IncidentKey = { component: record.component, error_code: record.error_code ?? null, cause_key: record.cause_key ?? '' };
    const gk = groupKey(key);
    const atLeast = (rule: AlertRuleRecord) => record.level_rank >= (LEVEL_RANKS[(rule.condition as { min_level?: string }).min_level ?? 'warn'] ?? 2);
    const resolvedAt = this.loaded.resolved.get(gk);
    if (resolvedAt !== undefined && record.ts > resolvedAt && !this.notifiedRegressions.has(`${gk}@${resolvedAt}`)) {
      this.notifiedRegressions.add(`${gk}@${resolvedAt}`);
      const rules = this.rulesFor('incident.regressed').filter(atLeast);
      if (rules.length) await this.notify(rules, incidentSubject('incident.regressed', key, record, resolvedAt, 'regressed'), tx);
    }
    if (this.knownGroups.has(gk)) return;
    const opened = !(await this.store.incidents.occurredBefore(key, record.log_id, tx));
    this.knownGroups.add(gk);
    if (!opened) return;
    const rules = this.rulesFor('incident.opened').filter(atLeast);
    if (rules.length) await this.notify(rules, incidentSubject('incident.opened', key, record, 'first', 'opened'), tx);
  }

  /** After a reset deleted the records: every incident group is new again. */
  forgetIncidents(): void {
    this.knownGroups.clear();
    this.notifiedRegressions.clear();
  }

  /** An operator changed an incident's state here: reload the resolved groups at once. */
  incidentStateChanged(): void {
    void this.reload();
  }
}
