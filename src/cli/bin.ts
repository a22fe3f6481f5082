/** The `ctxcheck` entry point: run the CLI on the process arguments and exit with its code. */
import { hideBin } from 'yargs/helpers';
import { createCli } from './cli.ts';

process.exitCode = await createCli(hideBin(process.argv)).run();
