/**
 * An error after which the client knows the request had no effect (it was never sent).
 * Everything else a client throws is indefinite: the history records `info`.
 */
export class DefiniteFailure extends Error {
  override name = 'DefiniteFailure';
}
