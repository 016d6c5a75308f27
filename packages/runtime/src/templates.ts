/**
 * Bundle templates: a string "$.a.b" reads the trigger payload, "$<root>.a" reads another named
 * root (e.g. "$result.refund_id", "$tools.lookup_order.total", "$entity.revision"); objects and
 * arrays are rendered member by member; anything else is a literal.
 */
export type TemplateRoots = Record<string, unknown> & { payload: unknown };

const REF = /^\$([a-z_]*)(?:\.(.+))?$/i;

export function readPath(value: unknown, dotted: string | undefined): unknown {
  if (!dotted) return value;
  let current: unknown = value;
  for (const part of dotted.split('.')) {
    // Own members only: "$.constructor" reads the payload's member, never Object.prototype's.
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function renderTemplate(template: unknown, roots: TemplateRoots): unknown {
  if (typeof template === 'string') {
    const m = REF.exec(template);
    if (!m) return template;
    if (m[1] && !Object.hasOwn(roots, m[1])) return template;
    const root = m[1] ? roots[m[1]] : roots.payload;
    return readPath(root, m[2]);
  }
  if (Array.isArray(template)) return template.map((t) => renderTemplate(t, roots));
  if (template !== null && typeof template === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(template)) {
      const rendered = renderTemplate(v, roots);
      if (rendered !== undefined) out[k] = rendered;
    }
    return out;
  }
  return template;
}

export function renderObject(template: Record<string, unknown>, roots: TemplateRoots): Record<string, unknown> {
  return renderTemplate(template, roots) as Record<string, unknown>;
}
