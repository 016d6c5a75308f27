export type Engine = 'sqlite' | 'postgres';
