// `litmus serve [target]`: which folder to serve, then the server until Ctrl-C.

import { existsSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { resolveInputs } from '../cli/inputs.js';
import { getModel, unknownModelMessage } from '../../models/index.js';
import { startServer } from './server.js';
import { say } from '../cli/say.js';

interface ServeFlags {
  host: string;
  allowHost?: string[];
  port: number;
  model: string;
  unroll: number;
  maxExecutions: number;
  timeout: number;
}

export async function runServe(target: string, o: ServeFlags): Promise<number> {
  if (!getModel(o.model)) {
    say(`litmus: ${unknownModelMessage(o.model)}`);
    return 2;
  }
  // A path as given; else a name in the bundled litmus/ folder.
  const found = existsSync(target) ? target : resolveInputs([target]).folders[0] ?? resolveInputs([target]).files[0];
  if (!found) {
    say(`${target}: no such file, folder or bundled test`);
    return 2;
  }
  const isFolder = statSync(found).isDirectory();
  const root = isFolder ? found : dirname(found);
  const open = isFolder ? undefined : basename(found);
  try {
    const s = await startServer({
      root,
      host: o.host,
      port: o.port,
      open,
      allowHosts: o.allowHost,
      limits: { model: o.model, unroll: o.unroll, maxExecutions: o.maxExecutions, timeoutMs: o.timeout },
    });
    console.log(`litmus serve: ${s.url} (the tests under ${root}; Ctrl-C to stop)`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    // Nothing runs on this thread but the server's own work, so the signal is seen at once; a second one, or
    // threads slow to end, do not hold the exit up.
    const force = () => process.exit(0);
    process.once('SIGINT', force);
    process.once('SIGTERM', force);
    setTimeout(force, 3000).unref();
    await s.close();
    return 0;
  } catch (e) {
    say(`litmus serve: cannot listen on ${o.host}:${o.port}: ${(e as Error).message}`);
    return 2;
  }
}
