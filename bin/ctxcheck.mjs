#!/usr/bin/env node
// ctxcheck inside this repository: register tsx so the TypeScript sources run as they are, then start
// the CLI. The package's bin is the bundled dist/bin/ctxcheck.mjs (npm run build), which needs no tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/bin.ts');
