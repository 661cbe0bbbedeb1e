#!/usr/bin/env node
// The installed `keeper` command: the bundled server (npm run build writes dist/keeper.js).
// Stack traces name the TypeScript sources (dist/keeper.js.map), not lines of the bundle.
process.setSourceMapsEnabled(true);
await import('../dist/keeper.js');
