/**
 * The owner string of one acquire: which client (and process) asked, and which of its
 * acquires this is. Every backend stores it with the lock, so that a release or a renewal
 * acts only on the holder's own lock, never on a lock taken since by someone else.
 */
let acquires = 0;

export function newOwner(clientId: string): string {
  acquires += 1;
  return `${clientId}:${process.pid}:${acquires}`;
}
