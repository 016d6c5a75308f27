import { expect, it } from 'vitest';
import { boundLimitsOf, limitValuesOf, parametersBesideLimits, textWithLimits } from '../../../src/engines/sqlite/bound-limits';

it('finds the parameters of LIMIT and OFFSET among the others, in any case and spacing', () => {
  const sql = 'select * from t where a = ? and b > ? order by a LIMIT\n  ? offset ?';
  const limits = boundLimitsOf(sql)!;
  expect(limits.placeholders.map((p) => p.parameter)).toEqual([2, 3]);
  expect(limits.otherParameters).toEqual([0, 1]);
  expect(limits.placeholders.map((p) => sql[p.at])).toEqual(['?', '?']);
});

it('has nothing to say about a text without a bound LIMIT or OFFSET', () => {
  expect(boundLimitsOf('select * from t where a = ? limit 5')).toBeUndefined();
  expect(boundLimitsOf('select * from t where a = ?')).toBeUndefined();
  // A column whose name ends in "limit" is not the keyword.
  expect(boundLimitsOf('select * from t where rate_limit = ?')).toBeUndefined();
  expect(boundLimitsOf('select * from t where "limit" = ?')).toBeUndefined();
});

it('does not count a ? inside a string, a quoted name or a comment, and leaves numbered parameters alone', () => {
  const sql = `select 'limit ?', "limit ?", [x?], \`y?\` -- limit ?\n /* offset ? */ from t where s = 'it''s ?' and n = ? limit ?`;
  const limits = boundLimitsOf(sql)!;
  expect(limits.otherParameters).toEqual([0]);
  expect(limits.placeholders.map((p) => p.parameter)).toEqual([1]);
  expect(boundLimitsOf('select * from t where a = ?1 limit ?2')).toBeUndefined();
});

it('writes integer values into the text and keeps the other parameters in order', () => {
  const sql = 'select * from t where a = ? limit ? offset ?';
  const limits = boundLimitsOf(sql)!;
  const values = limitValuesOf(limits, ['x', 50, 10n])!;
  expect(values).toEqual(['50', '10']);
  expect(textWithLimits(sql, limits, values)).toBe('select * from t where a = ? limit 50 offset 10');
  expect(parametersBesideLimits(limits, ['x', 50, 10n])).toEqual(['x']);
  expect(textWithLimits('select 1 limit ?', boundLimitsOf('select 1 limit ?')!, ['-1'])).toBe('select 1 limit -1');
});

it('writes in nothing that is not an integer', () => {
  const limits = boundLimitsOf('select * from t limit ?')!;
  for (const value of [1.5, '5', null, undefined, Number.MAX_SAFE_INTEGER + 2, Number.NaN]) expect(limitValuesOf(limits, [value])).toBeUndefined();
});
