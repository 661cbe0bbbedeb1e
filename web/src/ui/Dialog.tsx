/**
 * A native <dialog> opened modally: focus trap, Esc to close and the backdrop come from the browser.
 * A child marked data-autofocus takes the focus when it opens.
 */
import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { Close } from './icons';
import './dialog.css';

export function Dialog({
  open,
  onClose,
  title,
  children,
  className = '',
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Opened in the same commit that renders it (useEffect may run after the browser paints): the
  // first key press after a click that opens it already lands inside.
  useLayoutEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      d.showModal();
      // showModal focuses the first control (the close button); a dialog's own first field says so with data-autofocus.
      d.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    }
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className={`dialog ${className}`}
      aria-label={title}
      onClose={onClose}
      onClick={(e) => {
        // A click on the backdrop lands on the <dialog> itself.
        if (e.target === ref.current) onClose();
      }}
    >
      {open && (
        <div className="dialog__body">
          <header className="dialog__header">
            <h2>{title}</h2>
            <button type="button" className="btn btn--icon" aria-label="Close" onClick={onClose}>
              <Close />
            </button>
          </header>
          {children}
        </div>
      )}
    </dialog>
  );
}
