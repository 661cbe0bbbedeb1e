/** A number with − and + buttons; the input stays typeable (and arrow keys step it, natively). */
import { useId } from 'react';
import { Minus, Plus } from '../icons';

export function Stepper({ label, value, min, max, onChange }: { label: string; value: number; min: number; max: number; onChange: (n: number) => void }) {
  const id = useId();
  const set = (n: number) => onChange(Math.min(max, Math.max(min, Math.round(n))));
  return (
    <div className="stepper">
      <label htmlFor={id} className="stepper__label">
        {label}
      </label>
      <div className="stepper__control">
        <button type="button" className="btn btn--icon" aria-label={`Fewer ${label.toLowerCase()}`} disabled={value <= min} onClick={() => set(value - 1)}>
          <Minus size={14} />
        </button>
        <input
          id={id}
          className="input mono stepper__input"
          type="number"
          inputMode="numeric"
          min={min}
          max={max}
          value={value}
          onChange={(e) => {
            const n = e.target.valueAsNumber;
            if (Number.isFinite(n)) set(n);
          }}
        />
        <button type="button" className="btn btn--icon" aria-label={`More ${label.toLowerCase()}`} disabled={value >= max} onClick={() => set(value + 1)}>
          <Plus size={14} />
        </button>
      </div>
    </div>
  );
}
