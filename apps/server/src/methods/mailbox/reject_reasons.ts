import type { Handler } from '../../rpc/handler';

/** The bundle's reject reason codes per mailbox type, each with how many rejects carry it. */
export const mailboxRejectReasons: Handler<'mailbox.reject_reasons'> = async (params, ctx) => {
  // Keyed by type and code: two mailbox types may declare the same code.
  const counts = new Map((await ctx.store.mailboxReads.rejectCounts(params.type)).map((c) => [`${c.type}\u0000${c.reason_code}`, c.count]));
  const declared = Object.entries(ctx.runtime.bundle.definition.reject_reasons).filter(([type]) => params.type === undefined || type === params.type);
  return { reasons: declared.flatMap(([type, reasons]) => reasons.map((r) => ({ type, code: r.code, label: r.label, count: counts.get(`${type}\u0000${r.code}`) ?? 0 }))) };
};
