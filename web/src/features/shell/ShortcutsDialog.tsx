import { Dialog } from '../../ui/Dialog';
import { SHORTCUTS } from './shortcuts';

export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts" className="shortcuts">
      <table className="shortcuts__table">
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.what}>
              <td className="shortcuts__keys">
                {s.keys.map((k) => (
                  <kbd key={k}>{k}</kbd>
                ))}
              </td>
              <td>{s.what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
