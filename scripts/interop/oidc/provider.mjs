// A real OAuth 2.1 authorization server for the tests, built on the certified OpenID
// provider `oidc-provider` (pinned by package-lock.json beside this file, installed by
// scripts/interop-setup into target/interop/oidc/). Not for production: static secrets,
// in-memory storage, HTTP on 127.0.0.1.
//
//   node provider.mjs [--port N] [--exit-with-stdin]      (or OIDC_PORT=N; 0 = any free port)
//
// Once it is ready it prints ONE line to stdout, {"issuer":"http://127.0.0.1:PORT","pid":N},
// and nothing else there; everything it logs goes to stderr. --exit-with-stdin (or
// OIDC_EXIT_WITH_STDIN=1) makes it exit when its stdin closes, so that it cannot outlive a
// parent that dies without stopping it.
//
// The issuer is http://127.0.0.1:PORT (no path). Metadata (RFC 8414 and OpenID Discovery,
// the same document): /.well-known/oauth-authorization-server and
// /.well-known/openid-configuration. Endpoints: /token, /jwks, /token/introspection.
//
// Static clients (token_endpoint_auth_method client_secret_basic; client_secret_post is
// accepted too), grant type client_credentials only:
//
//   client id      secret               scopes                              access token (with resource=R)
//   svc            svc-secret           profile:read notes:read notes:write JWT, RS256, TTL 600 s
//   reader         reader-secret        notes:read                          JWT, RS256, TTL 600 s
//   short-lived    short-lived-secret   profile:read notes:read notes:write JWT, RS256, TTL 2 s
//   es256          es256-secret         profile:read notes:read notes:write JWT, ES256 (P-256), TTL 600 s
//   eddsa          eddsa-secret         profile:read notes:read notes:write JWT, EdDSA (Ed25519), TTL 600 s
//   opaque         opaque-secret        profile:read notes:read notes:write opaque, TTL 600 s
//   introspector   introspector-secret  (none)                              may call /token/introspection
//
// Any client may call the introspection endpoint (RFC 7662) for any token; `introspector`
// exists so that the resource server has credentials of its own. Only opaque tokens can be
// introspected (oidc-provider answers unsupported_token_type for a JWT).
//
// Getting a token: POST /token, Basic auth, form body grant_type=client_credentials,
// scope=..., resource=R. R (RFC 8707) must be an absolute http URL on 127.0.0.1 or
// localhost, any port and path (otherwise invalid_target); it becomes the token's `aud`
// (exactly R). The token's `scope` is the requested scope (a scope outside the client's
// allowance is invalid_scope; an empty request yields no scope). Without `resource`, the
// token is opaque and has no audience. JWT access tokens have typ "at+jwt", iss = the
// issuer, sub = client_id = the client id, and carry the kid of a key in /jwks.
//
// Test controls (loopback callers only; they keep working during an outage):
//
//   POST /_test/rotate           new signing keys (one per algorithm) sign every NEW token;
//                                /jwks lists them first, the previous keys still after them.
//   POST /_test/retire           /jwks lists only the current keys (older tokens no longer
//                                verify against it).
//   POST /_test/outage?seconds=N[&mode=503|drop]
//                                for N seconds (fractions allowed; 0 ends an outage) every
//                                other request is answered 503 (default) or its connection
//                                is dropped without an answer (mode=drop).
//   GET  /_test/state            the current kids, the published kids, the outage, and
//                                `hits`: requests served per path (outside /_test/).
//
// rotate/retire answer the same JSON as /_test/state. oidc-provider reads its keys when it
// is constructed, so they build a new Provider with the new key set and route to it; clients
// are static and issued tokens live in one in-memory store, so nothing else changes.
import * as crypto from 'node:crypto';
import * as http from 'node:http';
import { parseArgs } from 'node:util';

// oidc-provider prints its notices with console.info; stdout carries the ready line only.
console.log = console.info = console.debug = (...args) => console.error(...args);

const { Provider, errors } = await import('oidc-provider');

const { values: args } = parseArgs({
  options: {
    port: { type: 'string' },
    'exit-with-stdin': { type: 'boolean', default: false },
  },
  allowPositionals: false,
});
const port = Number(args.port ?? process.env.OIDC_PORT ?? 0);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`provider.mjs: bad port '${args.port ?? process.env.OIDC_PORT}'`);
  process.exit(2);
}

const SCOPES = ['profile:read', 'notes:read', 'notes:write'];
const ALL = SCOPES.join(' ');
const LONG_TTL = 600;

// How each client's access tokens are made, for a resource (see the table above).
const CLIENTS = {
  svc: { secret: 'svc-secret', scope: ALL, alg: 'RS256', ttl: LONG_TTL, format: 'jwt' },
  reader: { secret: 'reader-secret', scope: 'notes:read', alg: 'RS256', ttl: LONG_TTL, format: 'jwt' },
  'short-lived': { secret: 'short-lived-secret', scope: ALL, alg: 'RS256', ttl: 2, format: 'jwt' },
  es256: { secret: 'es256-secret', scope: ALL, alg: 'ES256', ttl: LONG_TTL, format: 'jwt' },
  eddsa: { secret: 'eddsa-secret', scope: ALL, alg: 'EdDSA', ttl: LONG_TTL, format: 'jwt' },
  opaque: { secret: 'opaque-secret', scope: ALL, alg: 'RS256', ttl: LONG_TTL, format: 'opaque' },
  introspector: { secret: 'introspector-secret', scope: '', alg: 'RS256', ttl: LONG_TTL, format: 'opaque' },
};

// --- keys ---------------------------------------------------------------------------------
const ALGS = ['RS256', 'ES256', 'EdDSA'];
let generation = 0;
function newKey(alg) {
  const { privateKey } = alg === 'RS256'
    ? crypto.generateKeyPairSync('rsa', { modulusLength: 2048 })
    : alg === 'ES256'
      ? crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : crypto.generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, alg, use: 'sig', kid: `${alg.toLowerCase()}-${generation}-${crypto.randomBytes(4).toString('hex')}` };
}
function newKeySet() {
  generation += 1;
  return Object.fromEntries(ALGS.map((alg) => [alg, newKey(alg)]));
}
let current = newKeySet(); // alg -> private JWK signing new tokens
let previous = []; // older private JWKs still published

// --- storage ------------------------------------------------------------------------------
// One in-memory store for every Provider instance this process builds (oidc-provider's own
// memory adapter keeps one store per instance, so a rotation would forget the opaque tokens).
const store = new Map(); // `${model}:${id}` -> { payload, expiresAt (ms) }
const grants = new Map(); // grantId -> Set of keys
function live(key) {
  const entry = store.get(key);
  if (entry && entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
    store.delete(key);
    return undefined;
  }
  return entry;
}
class SharedMemoryAdapter {
  constructor(model) {
    this.model = model;
  }

  key(id) {
    return `${this.model}:${id}`;
  }

  async upsert(id, payload, expiresIn) {
    const key = this.key(id);
    store.set(key, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
    if (payload.grantId) {
      if (!grants.has(payload.grantId)) grants.set(payload.grantId, new Set());
      grants.get(payload.grantId).add(key);
    }
  }

  async find(id) {
    return live(this.key(id))?.payload;
  }

  async findByUserCode(userCode) {
    for (const [key, entry] of store) {
      if (key.startsWith(`${this.model}:`) && entry.payload.userCode === userCode && live(key)) return entry.payload;
    }
    return undefined;
  }

  async findByUid(uid) {
    for (const [key, entry] of store) {
      if (key.startsWith(`${this.model}:`) && entry.payload.uid === uid && live(key)) return entry.payload;
    }
    return undefined;
  }

  async consume(id) {
    const entry = live(this.key(id));
    if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id) {
    store.delete(this.key(id));
  }

  async revokeByGrantId(grantId) {
    for (const key of grants.get(grantId) ?? []) store.delete(key);
    grants.delete(grantId);
  }
}

// --- the provider -------------------------------------------------------------------------
function isLoopbackResource(resource) {
  let url;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost') && !url.hash;
}

function configuration() {
  return {
    adapter: SharedMemoryAdapter,
    clients: Object.entries(CLIENTS).map(([id, c]) => ({
      client_id: id,
      client_secret: c.secret,
      // The introspection client gets no tokens of its own.
      grant_types: c.scope ? ['client_credentials'] : [],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      ...(c.scope ? { scope: c.scope } : {}),
    })),
    // Both methods are accepted for every client, whatever it registered.
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    scopes: SCOPES,
    claims: {},
    jwks: { keys: [...Object.values(current), ...previous] },
    cookies: { keys: ['mcp-framework-tests-only'] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => false,
        getResourceServerInfo(ctx, resource, client) {
          if (!isLoopbackResource(resource)) {
            throw new errors.InvalidTarget('resource must be an http URL on 127.0.0.1 or localhost');
          }
          const c = CLIENTS[client.clientId];
          const info = {
            audience: resource,
            scope: ALL,
            accessTokenTTL: c.ttl,
            accessTokenFormat: c.format,
          };
          if (c.format === 'jwt') {
            info.jwt = { sign: { alg: c.alg, kid: current[c.alg].kid } };
          }
          return info;
        },
      },
    },
    ttl: {
      ClientCredentials: (ctx, token, client) => token.resourceServer?.accessTokenTTL
        ?? CLIENTS[client?.clientId]?.ttl ?? LONG_TTL,
    },
  };
}

let server;
let issuer;
let provider;
function buildProvider() {
  const next = new Provider(issuer, configuration());
  next.on('server_error', (ctx, err) => console.error('provider.mjs: server_error', err));
  next.on('grant.error', (ctx, err) => console.error(`provider.mjs: token request refused: ${err.error ?? err.message} (${err.error_description ?? ''})`));
  provider = next;
  handler = next.callback();
}
let handler;

// --- test controls ------------------------------------------------------------------------
let outage = { until: 0, mode: '503' };

// Requests served per path (outside /_test/), so tests can count what a server fetched.
const hits = {};

function state() {
  return {
    hits,
    issuer,
    current_kids: Object.fromEntries(ALGS.map((alg) => [alg, current[alg].kid])),
    jwks_kids: [...Object.values(current), ...previous].map((k) => k.kid),
    outage: Date.now() < outage.until
      ? { mode: outage.mode, remaining_ms: outage.until - Date.now() }
      : null,
  };
}

function json(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(text);
}

function control(req, res, url) {
  const remote = req.socket.remoteAddress ?? '';
  if (!(remote === '127.0.0.1' || remote === '::1' || remote === '::ffff:127.0.0.1')) {
    return json(res, 403, { error: 'test controls answer loopback callers only' });
  }
  const route = `${req.method} ${url.pathname}`;
  switch (route) {
    case 'GET /_test/state':
      return json(res, 200, state());
    case 'POST /_test/rotate':
      previous = [...Object.values(current), ...previous];
      current = newKeySet();
      buildProvider();
      console.error(`provider.mjs: rotated; signing with ${Object.values(current).map((k) => k.kid).join(', ')}`);
      return json(res, 200, state());
    case 'POST /_test/retire':
      previous = [];
      buildProvider();
      console.error('provider.mjs: retired the previous keys');
      return json(res, 200, state());
    case 'POST /_test/outage': {
      const seconds = Number(url.searchParams.get('seconds') ?? '');
      const mode = url.searchParams.get('mode') ?? '503';
      if (!Number.isFinite(seconds) || seconds < 0 || !['503', 'drop'].includes(mode)) {
        return json(res, 400, { error: 'usage: POST /_test/outage?seconds=N[&mode=503|drop]' });
      }
      outage = { until: Date.now() + seconds * 1000, mode };
      console.error(`provider.mjs: outage (${mode}) for ${seconds} s`);
      return json(res, 200, state());
    }
    default:
      return json(res, 404, { error: `no test control ${route}` });
  }
}

server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (url.pathname.startsWith('/_test/')) {
    return control(req, res, url);
  }
  hits[url.pathname] = (hits[url.pathname] || 0) + 1;
  if (Date.now() < outage.until) {
    if (outage.mode === 'drop') {
      req.socket.destroy();
      return undefined;
    }
    res.writeHead(503, {
      'content-type': 'application/json',
      'retry-after': String(Math.ceil((outage.until - Date.now()) / 1000)),
      connection: 'close',
    });
    res.end(JSON.stringify({ error: 'temporarily_unavailable', error_description: 'test outage' }));
    return undefined;
  }
  return handler(req, res);
});
// Connections are not kept open across an outage or a stop longer than needed.
server.keepAliveTimeout = 2000;

server.on('error', (err) => {
  console.error(`provider.mjs: ${err.message}`);
  process.exit(1);
});
server.listen(port, '127.0.0.1', () => {
  issuer = `http://127.0.0.1:${server.address().port}`;
  buildProvider();
  process.stdout.write(`${JSON.stringify({ issuer, pid: process.pid })}\n`);
  console.error(`provider.mjs: ready at ${issuer}`);
});

if (args['exit-with-stdin'] || process.env.OIDC_EXIT_WITH_STDIN === '1') {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
}
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => process.exit(0));
}
