/**
 * The key the lock protects in the data store. The runner records it in test.json
 * (`storeKey`), so that reading a run folder back never has to guess it from the history;
 * this default is for folders written before it was recorded.
 */
export const STORE_KEY = 'lockchaos:set';
