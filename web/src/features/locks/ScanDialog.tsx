/**
 * "Scan for locks…": which subtree to look in (/ by default). The scan runs as a job on the
 * server, paced so the ensemble does not feel it; its progress and Cancel are in the jobs dock,
 * so the dialog closes as soon as it has started.
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { isValidPath } from '@keeper/shared';
import { Callout } from '../../ui/Callout';
import { useSubmit } from '../../ui/useSubmit';
import { Dialog } from '../../ui/Dialog';
import { seedJob } from '../../app/jobs/jobs';
import { dockJob } from '../../app/jobs/jobsDock';
import { startLockScan } from './locksApi';
import { lockScanErrorText } from './lockErrors';
import '../../ui/forms.css';

export function ScanDialog({ ensemble, open, onClose }: { ensemble: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Scan for locks" className="lock-dialog">
      {open && <ScanForm ensemble={ensemble} onClose={onClose} />}
    </Dialog>
  );
}

function ScanForm({ ensemble, onClose }: { ensemble: string; onClose: () => void }) {
  const client = useQueryClient();
  const [path, setPath] = useState('/');
  const { busy, error, submit } = useSubmit(lockScanErrorText);
  const valid = isValidPath(path.trim());
  return (
    <form
      className="lock-flow"
      onSubmit={(e) => {
        e.preventDefault();
        if (!valid || busy) return;
        submit(
          () => startLockScan(ensemble, path.trim()),
          (job) => {
            seedJob(client, job);
            dockJob(job.id);
            onClose();
          },
        );
      }}
    >
      <p className="muted">
        Lists the subtree’s znodes and tracks every directory whose children match a lock recipe. It is paced and has a deadline, so the ensemble stays as fast
        as when idle; progress and Cancel appear in the corner of the page.
      </p>
      <label className={`field${valid ? '' : ' field--invalid'}`}>
        <span className="field__label">Subtree</span>
        <input className="input mono" autoFocus value={path} onChange={(e) => setPath(e.target.value)} spellCheck="false" autoComplete="off" />
        {!valid && <span className="field__error">A ZooKeeper path: it starts with / and does not end with one.</span>}
      </label>
      {error && (
        <Callout tone="lost" role="alert">
          <strong>Not started</strong>
          <p>{error}</p>
        </Callout>
      )}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn--primary" disabled={!valid || busy}>
          {busy ? 'Starting…' : 'Start the scan'}
        </button>
      </div>
    </form>
  );
}
