/**
 * `lockchaos serve`'s HTTP server (node:http), bound to 127.0.0.1 only:
 *
 *   /                   the store's page (store-index.ts, store-page.ts); the runs filtered by the query
 *   /index.json         the same index as data
 *   /files/<path>       a file of the store as it is (report.html, summary.html, ...), or a
 *                       folder's listing; nothing outside the store, symbolic links included
 *
 * A request whose Host is not this server's own address is refused (host.ts), and every
 * answer carries a Content-Security-Policy (csp.ts).
 *
 * The store is read again for every page, through the cache: what did not change is not
 * reread, so a page over 10,000 runs costs their directory listings and stats.
 */
import { createReadStream, type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { basename, dirname, extname, join, sep } from 'node:path';
import { summaryHtml } from '../campaign/report.js';
import { CAMPAIGN_FILES } from '../campaign-data/campaign-folder.js';
import { readSummary } from '../campaign-data/read-summary.js';
import { contentSecurityPolicy } from '../report/csp.js';
import { escapeHtml } from '../report/page-html.js';
import { version } from '../version.js';
import { isOwnHost, ownHosts } from './host.js';
import { FILTER_KEYS, filterRuns, IndexCache, type RunFilter, scanStore } from './store-index.js';
import { fileHref, storePage } from './store-page.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.log': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.yaml': 'text/plain; charset=utf-8',
  '.yml': 'text/plain; charset=utf-8',
  '.edn': 'text/plain; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * The file a /files/ path names inside `root` (a real path), or undefined when it names
 * anything outside it: '..' segments, NUL bytes, and links that lead out are refused.
 */
export function resolveInside(root: string, urlPath: string): string | undefined {
  let segments: string[];
  try {
    segments = urlPath.split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
  if (segments.some((s) => s === '..' || s.includes('\0') || s.includes('/') || s.includes('\\'))) return undefined;
  let real: string;
  try {
    real = realpathSync(join(root, ...segments.filter((s) => s !== '' && s !== '.')));
  } catch {
    return undefined;
  }
  return real === root || real.startsWith(root + sep) ? real : undefined;
}

/**
 * The policy of the pages serve writes itself (the index, a folder's listing): no script
 * at all (csp.ts), and no page elsewhere may frame them.
 */
const OWN_PAGE_POLICY = `${contentSecurityPolicy()}; frame-ancestors 'none'`;

/**
 * The policy of a store's HTML file: the page's own <meta> policy (csp.ts) holds as well,
 * but a store may come from anyone, and a crafted report.html need not carry one. So its
 * scripts run sandboxed, in an origin of their own: they cannot read the index or another
 * file of the store, nor load or send anything.
 */
const STORED_PAGE_POLICY =
  "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const send = (res: ServerResponse, status: number, type: string, body: string) => {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'content-security-policy': OWN_PAGE_POLICY,
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
};

function listing(res: ServerResponse, urlPath: string, dir: string): void {
  // The folder's path in the store, decoded (resolveInside has checked it), for links and title.
  const rel = urlPath
    .split('/')
    .filter((x) => x !== '')
    .map(decodeURIComponent)
    .join('/');
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a: Dirent, b: Dirent) =>
    a.name.localeCompare(b.name),
  );
  const items = entries.map((e) => {
    const slash = e.isDirectory() ? '/' : '';
    const href = fileHref(rel ? `${rel}/${e.name}` : e.name);
    return `<li><a href="${escapeHtml(href)}${slash}">${escapeHtml(e.name)}${slash}</a></li>`;
  });
  const title = `${rel}/`;
  send(
    res,
    200,
    'text/html; charset=utf-8',
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><p><a href="/">the store</a></p><h1>${escapeHtml(title)}</h1><ul>${items.join('')}</ul></body></html>`,
  );
}

function serveFile(req: IncomingMessage, res: ServerResponse, root: string, urlPath: string): void {
  const file = resolveInside(root, urlPath);
  if (file === undefined) {
    send(res, 404, 'text/plain; charset=utf-8', 'not found in the store\n');
    return;
  }
  const stat = statSync(file);
  if (stat.isDirectory()) {
    if (!urlPath.endsWith('/') && urlPath !== '') {
      res.writeHead(301, { location: `/files/${urlPath}/` });
      res.end();
      return;
    }
    listing(res, urlPath, file);
    return;
  }
  // A FIFO or device in the store would be read without end.
  if (!stat.isFile()) {
    send(res, 404, 'text/plain; charset=utf-8', 'not a regular file\n');
    return;
  }
  const fresh = basename(file) === CAMPAIGN_FILES.summaryHtml ? refreshedSummary(dirname(file)) : undefined;
  if (fresh !== undefined) {
    res.writeHead(200, {
      'content-type': TYPES['.html'],
      'cache-control': 'no-store',
      'content-security-policy': STORED_PAGE_POLICY,
      'x-content-type-options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : fresh);
    return;
  }
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': stat.size,
    'cache-control': 'no-store',
    'content-security-policy': STORED_PAGE_POLICY,
    'x-content-type-options': 'nosniff',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(file).pipe(res);
}

/**
 * A campaign's summary.html made again from its summary.json when the file says "running"
 * and its runner is gone: the file on disk stays as the killed runner left it, the page
 * served says cut short and names the cells that never ran. Undefined: serve the file.
 */
function refreshedSummary(dir: string): string | undefined {
  try {
    const summary = readSummary(dir);
    if (summary.written.state !== 'running') return undefined;
    return summary.state === 'running' ? undefined : summaryHtml(summary);
  } catch {
    return undefined;
  }
}

function filterOf(url: URL): RunFilter {
  const f: RunFilter = {};
  for (const k of FILTER_KEYS) {
    const v = url.searchParams.get(k);
    if (v) f[k] = v;
  }
  return f;
}

export interface StoreServer {
  server: Server;
  url: string;
  /** Runs and milliseconds of the first read of the store. */
  /** The first read of the store; `problems`: the folders it could not read (the page lists them too). */
  indexed: { runs: number; campaigns: number; ms: number; problems: string[] };
  close(): Promise<void>;
}

/** Serves `store` on 127.0.0.1:`port` (0: any free port); resolves once it listens. */
export async function serveStore(store: string, port: number): Promise<StoreServer> {
  const root = realpathSync(store);
  const cache = new IndexCache();
  // The first read, before the first request: a page then costs what changed since.
  const first = scanStore(root, cache);
  let bound = port;
  const server = createServer((req, res) => {
    try {
      if (!isOwnHost(req.headers.host, bound)) {
        return send(
          res,
          421,
          'text/plain; charset=utf-8',
          `Host ${JSON.stringify(req.headers.host ?? '')} is not this server: open ${ownHosts(bound)
            .map((x) => `http://${x}/`)
            .join(' or ')}\n`,
        );
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'GET only\n');
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/') {
        return send(res, 200, 'text/html; charset=utf-8', storePage(scanStore(root, cache), filterOf(url), version));
      }
      if (url.pathname === '/index.json') {
        const index = scanStore(root, cache);
        const body = { lockchaos: version, schema: 1, ...index, runs: filterRuns(index.runs, filterOf(url)) };
        return send(res, 200, 'application/json; charset=utf-8', `${JSON.stringify(body, null, 2)}\n`);
      }
      if (url.pathname === '/favicon.ico') {
        res.writeHead(204);
        res.end();
        return;
      }
      if (url.pathname.startsWith('/files/') || url.pathname === '/files') {
        return serveFile(req, res, root, url.pathname.slice('/files/'.length));
      }
      send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    } catch (err) {
      send(res, 500, 'text/plain; charset=utf-8', `lockchaos serve: ${(err as Error).message}\n`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  // A TCP server's address is its host and port (a string only for a pipe's).
  const address = server.address();
  bound = typeof address === 'object' && address !== null ? address.port : port;
  return {
    server,
    url: `http://127.0.0.1:${bound}/`,
    indexed: {
      runs: first.runs.length,
      campaigns: first.campaigns.length,
      ms: Math.round(first.scanMs),
      problems: first.problems,
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
