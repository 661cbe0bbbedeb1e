/**
 * The line `npm start` prints once Keeper serves. It names each ensemble as the UI and the API
 * do ("default"), with where it runs: a sandbox Keeper started is said to be one, not taken for
 * the ensemble's name (issue 34, item 14: "ensemble sandbox" for an ensemble named "default").
 */
export interface ServedEnsemble {
  name: string;
  connectionString: string;
}

export function servingLine(url: string, ensembles: readonly ServedEnsemble[], sandbox: boolean): string {
  const described = ensembles.map((e) => `ensemble ${e.name}${sandbox ? ', the sandbox' : ''}: ${e.connectionString}`).join('; ');
  return `Keeper is serving ${url} (${described})`;
}
