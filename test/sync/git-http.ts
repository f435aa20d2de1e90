/**
 * A smart-HTTP git remote for tests: `git http-backend` behind a small Node server on loopback,
 * honest or hostile. Honest, it serves fetch and push (Basic auth required when asked: any user
 * and password pass). Hostile, it serves the ref advertisement and then answers the upload-pack
 * request with nothing ever (`hang`), or with `floodBytes` of `remote:` sideband messages
 * (`flood`), as the red team's servers did (round nine).
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type GitHttpMode =
  { kind: 'serve'; auth?: boolean } | { kind: 'hang' } | { kind: 'flood'; floodBytes: number };

export interface GitHttpServer {
  /** The URL of the bare repository `name` under the served root. */
  url(name: string): string;
  stop(): Promise<void>;
}

/** Serves the bare repositories under `root` on 127.0.0.1. */
export async function startGitHttp(root: string, mode: GitHttpMode): Promise<GitHttpServer> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    if (mode.kind === 'serve' && mode.auth === true && req.headers.authorization === undefined) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' });
      res.end();
      return;
    }
    const upload = req.method === 'POST' && req.url?.includes('git-upload-pack') === true;
    if (upload && mode.kind === 'hang') {
      req.resume(); // read, and never answered: the connection stays open
      return;
    }
    if (upload && mode.kind === 'flood') return flood(req, res, mode.floodBytes);
    // The hostile modes speak protocol v0 (no GIT_PROTOCOL): its upload-pack answer is the
    // simplest to forge.
    cgi(root, req, res, mode.kind === 'serve');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `git http-backend` for one request: its CGI headers become the response's. */
function cgi(root: string, req: IncomingMessage, res: ServerResponse, v2: boolean): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const child = spawn('git', ['-c', 'http.receivepack=true', 'http-backend'], {
    env: {
      ...process.env,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      REQUEST_METHOD: req.method ?? 'GET',
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: v2 ? String(req.headers['git-protocol'] ?? '') : '',
      REMOTE_USER: 'tester',
      REMOTE_ADDR: '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  req.pipe(child.stdin);
  const out: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.on('close', () => {
    const all = Buffer.concat(out);
    const end = all.indexOf('\r\n\r\n');
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of all.subarray(0, Math.max(end, 0)).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon);
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    res.end(all.subarray(end + 4));
  });
}

/** A pkt-line. */
function pkt(payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, '0')), payload]);
}

/**
 * The upload-pack answer of a flooding remote: NAK, then side-band #2 packets (what git prints
 * as `remote: …`, even under --quiet), 64 KB lines, until `bytes` were sent.
 */
function flood(req: IncomingMessage, res: ServerResponse, bytes: number): void {
  const parts: Buffer[] = [];
  req.on('data', (chunk: Buffer) => parts.push(chunk));
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-result' });
    const raw = Buffer.concat(parts);
    const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
    // A round of negotiation without "done" is answered NAK: go on.
    if (!body.includes('done')) return res.end(pkt(Buffer.from('NAK\n')));
    res.write(pkt(Buffer.from('NAK\n')));
    const line = pkt(Buffer.concat([Buffer.from([2]), Buffer.from(`${'x'.repeat(64_000)}\n`)]));
    const chunk = Buffer.concat(Array.from({ length: 16 }, () => line));
    let sent = 0;
    const pump = (): void => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    pump();
  });
}
