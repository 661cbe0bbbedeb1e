/** The four status tones; a tone-* class (theme/tokens.css) sets --c, the color a component draws with. */
export type Tone = 'live' | 'degraded' | 'lost' | 'stale';
