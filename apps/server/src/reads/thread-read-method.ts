/** Methods whose pages reader threads may read (thread-reads.ts holds a read function for each). */
export type ThreadReadMethod = 'event.list';
