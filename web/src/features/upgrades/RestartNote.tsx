/** "Restart: the sandbox restarts its own members. Target version: … Note: …", planned or running. */
import type { UpgradeWorkflow } from '@keeper/shared';
import { METHOD_WORDS } from './upgradeWords';

export function RestartNote({ method, targetVersion, note }: { method: UpgradeWorkflow['restartMethod']; targetVersion: string | null; note: string | null }) {
  return (
    <p className="note">
      Restart: {METHOD_WORDS[method]}.
      {targetVersion && (
        <>
          {' '}
          Target version: <span className="mono">{targetVersion}</span>.
        </>
      )}
      {note && <> Note: {note}</>}
    </p>
  );
}
