import { useEffect, useState } from 'react';
import { Check, Copy } from './icons';

/** Copies text and confirms in place for a moment; the label says what is copied. */
export function CopyButton({ text, label, className = '' }: { text: string; label: string; className?: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(t);
  }, [copied]);
  return (
    <button
      type="button"
      className={`btn btn--icon ${className}`}
      aria-label={copied ? `${label}: copied` : label}
      title={copied ? 'Copied' : label}
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
    >
      {copied ? <Check /> : <Copy />}
    </button>
  );
}
