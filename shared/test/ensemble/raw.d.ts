// Fixtures are imported as text through Vite's `?raw` (shared has no Node types by design).
declare module '*?raw' {
  const text: string;
  export default text;
}
