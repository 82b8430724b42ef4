import type { ResolvedServer } from '../config/types';
import type { Logger } from '../util/log';
import { LegacySseTransport } from './sse';
import { StdioTransport } from './stdio';
import { StreamableHttpTransport } from './streamableHttp';
import type { Transport } from './transport';
import { WebSocketTransport } from './websocket';
import { HTTP, SETTINGS, STDIO } from '../config/types';

/** What a Streamable HTTP session needs to be resumed after a window reload. */
export interface SavedHttpSession {
  sessionId: string;
  protocolVersion: string;
}

/** The transport for a resolved server configuration. */
export const createTransport = (server: ResolvedServer, logger: Logger, resume?: SavedHttpSession): Transport => {
  if (server.type === STDIO) {
    return new StdioTransport({ command: server.command, args: server.args, env: server.env, unsetEnv: server.unsetEnv, cwd: server.cwd, logger });
  }
  // Settings allow no ${input:…}: the advice on a refusal says so (every WebSocket server is there).
  const remote = { url: server.url, headers: server.headers, logger, serverName: server.label, settings: server.source.kind === SETTINGS };
  switch (server.type) {
    case HTTP:
      return new StreamableHttpTransport({ ...remote, sessionId: resume?.sessionId, protocolVersion: resume?.protocolVersion });
    case 'sse':
      return new LegacySseTransport(remote);
    case 'ws':
      return new WebSocketTransport(remote);
  }
};
