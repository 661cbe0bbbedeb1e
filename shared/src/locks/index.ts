/**
 * The Locks view's pure logic (issue 12), shared by server and web, ZooKeeper-free:
 *   recognizeLock      a directory's children -> recipe and contenders in order (or null)
 *   planHolding        who holds by the recipe's rule, what each other one waits for
 *   analyzeLock        + stats, data, sessions, watch gatherings -> the API's LockReport
 *   assessLeak         the two-gathering proof behind `leaked`
 *   findLockHerds      many-watcher paths, said in lock terms
 *   locksConfigSchema  the config's `locks` section; compileLockPattern for in-house recipes
 *   locksAnswerSchema / lockAnswerSchema: the HTTP answers
 */
export * from './schemas.js';
export * from './sequence.js';
export * from './recipes.js';
export * from './config.js';
export * from './recognize.js';
export * from './holding.js';
export * from './leakEvidence.js';
export * from './permits.js';
export * from './decode.js';
export * from './flags.js';
export * from './chain.js';
export * from './consequence.js';
export * from './analyze.js';
export * from './lockNotes.js';
export * from './lockOrder.js';
export * from './herds.js';
export * from './requests.js';
export * from './scope.js';
export * from './listPage.js';
export * from './scanRecord.js';
