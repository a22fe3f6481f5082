#!/usr/bin/env node
// The package bin: register tsx so the TypeScript sources run as they are, then start the CLI.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/bin.ts');
