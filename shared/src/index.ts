export * from './paths.js';
export * from './sessionId.js';
export * from './znodeData.js';
export * from './consoleSession.js';
export * from './childrenDiff.js';
export * from './protocol/schemas.js';
export * from './protocol/api.js';
export * from './childOrder.js';
