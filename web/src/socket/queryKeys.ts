/**
 * Query keys nested like the URLs and the HTTP API (['ensembles', name, ...]) so a whole ensemble
 * can be addressed by prefix. Topics' own keys are declared by their bindings in the features.
 */
export const queryKeys = {
  ensembles: () => ['ensembles'] as const,
  ensemble: (name: string) => ['ensembles', name] as const,
};
