/**
 * `new Date(ms).toISOString()`, from a cache of the current second's text: every request logs
 * one timestamp and a ping answers with another, and appending the milliseconds is far cheaper
 * than formatting a Date each time (figures in bench/README.md, "What the ping p99 holds").
 */
let cachedSecond = Number.NaN;
let cachedPrefix = '';

export function isoTimestamp(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    // "YYYY-MM-DDTHH:MM:SS." (also for years outside 0000-9999, whose form is longer).
    const whole = new Date(second * 1000).toISOString();
    cachedPrefix = whole.slice(0, whole.length - 4);
    cachedSecond = second;
  }
  const millis = ms - second * 1000;
  return `${cachedPrefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}
