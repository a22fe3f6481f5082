export * from './archive.ts';
export * from './definitions.ts';
export * from './options.ts';
export * from './record.ts';
export * from './ref.ts';
export * from './render.ts';
export * from './snippet.ts';
export * from './tools.ts';
