/** "If 127.0.0.1:2192 goes down now: quorum holds, can lose 0 more", from the live member states. */
import type { MemberStatus } from '@keeper/shared';
import type { WhatIf as WhatIfAnswer } from '@keeper/shared';
import type { Tone } from '../memberState';
import { Callout } from '../../../ui/Callout';

export function whatIfLook(w: WhatIfAnswer): { tone: Tone; word: string } {
  if (!w.quorumHolds) return { tone: 'lost', word: 'quorum lost' };
  if (w.canLoseAfter === 0) return { tone: 'degraded', word: 'holds, no margin' };
  return { tone: 'live', word: 'quorum holds' };
}

export function WhatIf({
  members,
  down,
  onDown,
  answer,
  stale,
}: {
  members: readonly MemberStatus[];
  down: string | null;
  onDown: (address: string | null) => void;
  answer: WhatIfAnswer | null;
  stale: boolean;
}) {
  const look = answer ? whatIfLook(answer) : null;
  return (
    <section className="sizing__block" aria-label="What if a member goes down">
      <h3 className="section-title">What if a member goes down now?</h3>
      <label className="sizing__pick">
        <span className="visually-hidden">Member to take down</span>
        <select className="input" value={down ?? ''} onChange={(e) => onDown(e.target.value === '' ? null : e.target.value)}>
          <option value="">Pick a member…</option>
          {members.map((m) => (
            <option key={m.address} value={m.address}>
              {m.address} · {m.state}
              {m.id !== null ? ` · id ${m.id}` : ''}
            </option>
          ))}
        </select>
      </label>
      {answer && look && (
        <Callout tone={stale ? 'stale' : look.tone} className="sizing__whatif" aria-live="polite">
          <span className="status">{look.word}</span>
          <span>{answer.sentence}</span>
          {stale && <span className="note">Based on member states as of the last poll.</span>}
        </Callout>
      )}
      {down !== null && !answer && <p className="note">No member {down} in the latest poll.</p>}
    </section>
  );
}
