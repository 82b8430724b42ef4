import * as os from 'node:os';
import type { ServerManagerOptions } from '../../../src/core/servers/serverManager';
import { ServerManager } from '../../../src/core/servers/serverManager';
import { createTransport } from '../../../src/core/transports/factory';
import { MemoryLogger } from './logger';

/** A ServerManager with no inputs, no roots and an empty environment; `options` override any of that. */
export function bareServerManager(options: Partial<ServerManagerOptions> = {}): ServerManager {
  return new ServerManager({
    logger: new MemoryLogger(),
    clientInfo: { name: 't', version: '0' },
    roots: () => [],
    resolveContext: () => ({ folders: {}, folderPaths: [], userHome: os.homedir(), env: {}, readFile: async () => '' }),
    promptInput: async () => undefined,
    createTransport,
    ...options,
  });
}
