export * from './open-sqlite.ts';
export * from './sqlite-memory-store.ts';
export * from './sqlite-session-store.ts';
