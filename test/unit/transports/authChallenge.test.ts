import * as assert from 'node:assert/strict';
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { WebSocketServer } from 'ws';
import { authChallengeHint } from '../../../src/core/transports/authChallenge';
import { LegacySseTransport } from '../../../src/core/transports/sse';
import { StreamableHttpTransport } from '../../../src/core/transports/streamableHttp';
import { TransportHttpError } from '../../../src/core/transports/transport';
import { WebSocketTransport } from '../../../src/core/transports/websocket';
import { MemoryLogger } from '../helpers/logger';

const OAUTH = /: it asks to sign in with OAuth, which MCP Tasks does not support yet\. If the server also accepts a token \(an API key or a personal access token\), add it under "headers" in its configuration, e\.g\. /;

describe('authChallengeHint: what a 401/403 challenge tells the user (RFC 6750, RFC 9728)', () => {
  it('names an OAuth sign-in when a 401 Bearer challenge points to protected resource metadata', () => {
    const hint = authChallengeHint(401, 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read"');
    assert.match(hint ?? '', /^it asks to sign in with OAuth/);
  });

  it('names the missing scope of a 403 insufficient_scope, quoted or not, unescaped', () => {
    assert.equal(
      authChallengeHint(403, 'Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://x/"'),
      'the token lacks the scope it needs ("files:read files:write"): configure a token with that scope under "headers" in its configuration',
    );
    assert.match(authChallengeHint(403, 'Bearer error=insufficient_scope,scope=admin') ?? '', /\("admin"\)/);
    assert.match(authChallengeHint(403, 'Bearer error="insufficient_scope", scope="a\\"b"') ?? '', /\("a"b"\)/);
    assert.match(authChallengeHint(403, 'Bearer error="insufficient_scope"') ?? '', /^the token lacks the scope it needs: configure/);
  });

  it('keeps the server\'s scope to 200 printable characters', () => {
    const hint = authChallengeHint(403, `Bearer error="insufficient_scope", scope="${'s'.repeat(300)}\u001b[31m\u202e"`) ?? '';
    assert.ok(hint.includes(`("${'s'.repeat(200)}")`), hint);
    assert.ok(!hint.includes('\u001b') && !hint.includes('\u202e') && !hint.includes('s'.repeat(201)), hint);
  });

  it('adds nothing for other challenges: no Bearer, no metadata on a 401, another error on a 403', () => {
    assert.equal(authChallengeHint(401, undefined), undefined);
    assert.equal(authChallengeHint(401, 'Basic realm="x", resource_metadata="https://x/"'), undefined);
    assert.equal(authChallengeHint(401, 'Bearer realm="api", error="invalid_token"'), undefined);
    // A parameter whose name only ends like one of ours is not it.
    assert.equal(authChallengeHint(401, 'Bearer x_resource_metadata="https://x/"'), undefined);
    assert.equal(authChallengeHint(403, 'Bearer error="invalid_token", resource_metadata="https://x/"'), undefined);
    assert.equal(authChallengeHint(500, 'Bearer resource_metadata="https://x/"'), undefined);
  });
});

/**
 * The official SDK's own bearer-auth middleware (what SDK-built servers put in front of their
 * MCP endpoint): its challenges, read by each HTTP transport as users meet them.
 */
describe('refused by the SDK\'s requireBearerAuth: the error says what the challenge says', function () {
  this.timeout(15_000);
  let server: http.Server;
  let base: string;

  before(async () => {
    const app = createMcpExpressApp();
    const verifier = {
      async verifyAccessToken(token: string) {
        if (token !== 'read-only') throw new InvalidTokenError('Unknown token');
        return { token, clientId: 'test', scopes: ['tasks:read'], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
      },
    };
    const auth = requireBearerAuth({ verifier, requiredScopes: ['tasks:run'], resourceMetadataUrl: 'http://127.0.0.1/.well-known/oauth-protected-resource/mcp' });
    for (const p of ['/mcp', '/sse']) app.all(p, auth, (_req: unknown, res: { status(n: number): { end(): void } }) => res.status(500).end());
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  async function refusal(start: () => Promise<unknown>): Promise<TransportHttpError> {
    const err = await start().then(
      () => assert.fail('the request should have been refused'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof TransportHttpError, String(err));
    return err;
  }

  it('Streamable HTTP, no token: 401 asks for an OAuth sign-in, which we say we cannot do', async () => {
    const t = new StreamableHttpTransport({ url: `${base}/mcp`, logger: new MemoryLogger(), serverName: 'guarded' });
    try {
      await t.start();
      const err = await refusal(() => t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }));
      assert.equal(err.status, 401);
      assert.match(err.message, /^Server "guarded" refused the request \(HTTP 401 Unauthorized\)/);
      assert.match(err.message, OAUTH);
    } finally {
      await t.close();
    }
  });

  it('Streamable HTTP, a token without the scope: 403 names the scope the server wants', async () => {
    const t = new StreamableHttpTransport({ url: `${base}/mcp`, logger: new MemoryLogger(), serverName: 'guarded', headers: { Authorization: 'Bearer read-only' } });
    try {
      await t.start();
      const err = await refusal(() => t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }));
      assert.equal(err.status, 403);
      assert.match(err.message, /^Server "guarded" refused the request \(HTTP 403 Forbidden\): the token lacks the scope it needs \("tasks:run"\): configure a token with that scope under "headers"/);
    } finally {
      await t.close();
    }
  });

  it('Streamable HTTP, a wrong token: 401 invalid_token says the token sent was refused, not to sign in with OAuth', async () => {
    const t = new StreamableHttpTransport({ url: `${base}/mcp`, logger: new MemoryLogger(), serverName: 'guarded', headers: { Authorization: 'Bearer wrong' } });
    try {
      await t.start();
      const err = await refusal(() => t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }));
      assert.equal(err.status, 401);
      assert.match(err.message, /^Server "guarded" refused the request \(HTTP 401 Unauthorized\): ".*Unknown token.*"\. The token sent in its "Authorization" header was refused: check it/);
      assert.doesNotMatch(err.message, /OAuth|wrong/);
    } finally {
      await t.close();
    }
  });

  it('legacy HTTP+SSE, no token: the same OAuth wording', async () => {
    const t = new LegacySseTransport({ url: `${base}/sse`, logger: new MemoryLogger(), serverName: 'guarded' });
    try {
      const err = await refusal(() => t.start());
      assert.equal(err.status, 401);
      assert.match(err.message, OAUTH);
    } finally {
      await t.close();
    }
  });
});

describe('a WebSocket upgrade refused with a challenge (ws server)', function () {
  this.timeout(15_000);

  it('401 with resource metadata: the OAuth wording; 403 insufficient_scope: the scope', async () => {
    const challenges: Record<string, [number, string]> = {
      '/oauth': [401, 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'],
      '/scope': [403, 'Bearer error="insufficient_scope", scope="tasks:run"'],
    };
    const wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      verifyClient: (info, done) => {
        const [status, challenge] = challenges[info.req.url ?? ''];
        done(false, status, status === 401 ? 'Unauthorized' : 'Forbidden', { 'WWW-Authenticate': challenge });
      },
    });
    await new Promise((resolve) => wss.once('listening', resolve));
    const base = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
    try {
      for (const [p, expected] of [
        ['/oauth', OAUTH],
        ['/scope', /refused the WebSocket connection with HTTP 403 Forbidden: the token lacks the scope it needs \("tasks:run"\)/],
      ] as const) {
        const t = new WebSocketTransport({ url: base + p, logger: new MemoryLogger(), serverName: 'guarded' });
        const err = await t.start().then(
          () => assert.fail('the upgrade should have been refused'),
          (e: unknown) => e,
        );
        assert.ok(err instanceof TransportHttpError, String(err));
        assert.match(err.message, expected);
        await t.close();
      }
    } finally {
      await new Promise((resolve) => wss.close(resolve));
    }
  });
});
