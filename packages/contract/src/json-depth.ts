/**
 * How deep request params may nest. Deeper values are refused with INVALID_PARAMS before any
 * recursive walk (validation, canonical hashing, storage) could exhaust the stack.
 */
export const MAX_PARAMS_DEPTH = 64;

/** Whether `value` nests objects or arrays more than `max` levels deep (an object or array is one level). Iterative. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
