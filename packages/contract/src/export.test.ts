import { describe, expect, it } from 'vitest';
import { EXPORT_LIST_METHODS, EXPORT_PATH_PREFIX, exportHref } from './export';
import { methods } from './methods/index';

describe('exportHref', () => {
  it('carries the params as JSON that reads back unchanged, whatever characters the filter holds', () => {
    const params = { filter: { entity_id: 'a&b=c #1 "x" /ü', event_name_prefix: 'refund.' }, since: '2026-01-01T00:00:00.000Z' };
    const href = exportHref('events', 'csv', params);
    const url = new URL(href, 'http://console.test');
    expect(url.pathname).toBe(`${EXPORT_PATH_PREFIX}events`);
    expect(url.searchParams.get('format')).toBe('csv');
    expect(JSON.parse(url.searchParams.get('params')!)).toEqual(params);
  });

  it('names a contract list method, paged by limit and cursor, for every list', () => {
    for (const method of Object.values(EXPORT_LIST_METHODS)) {
      const shape = (methods[method].params as unknown as { shape: Record<string, unknown> }).shape;
      expect(Object.keys(shape), method).toEqual(expect.arrayContaining(['limit', 'cursor']));
    }
  });
});
