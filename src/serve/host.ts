/**
 * The Host header `lockchaos serve` answers: its own address only. A web page elsewhere
 * can point a name it owns at 127.0.0.1 (DNS rebinding) and then read the store through
 * the browser as a page of its own origin; its requests carry that name as their Host,
 * so a server that answers only its own addresses gives it nothing.
 */

/** The Host values that name this server on `port`: 127.0.0.1, localhost and [::1]. */
export const ownHosts = (port: number): string[] => [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];

/** Whether a request's Host header names this server (case aside: a host name has none). */
export function isOwnHost(host: string | undefined, port: number): boolean {
  return host !== undefined && ownHosts(port).includes(host.toLowerCase());
}
