/** Types of test-postgres.mjs, for the TypeScript tests that import it (the e2e two-node spec). */
export function findTestPostgres(): { url: string; reason?: undefined } | { url?: undefined; reason: string };
export function dropTestDatabases(url: string): Promise<number>;
export function dropDatabase(client: { query(text: string): Promise<unknown> }, name: string): Promise<void>;
