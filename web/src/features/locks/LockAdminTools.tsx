/** The list's admin actions: find locks in a subtree, and clean leaked contenders after a dry run. */
import { useState } from 'react';
import { CleanLeakedDialog } from './CleanLeakedDialog';
import { ScanDialog } from './ScanDialog';

/** `notLive`: why the data is not live now (the freshness reason: "read-only: member 3 has lost quorum; …"), or null. */
export function LockAdminTools({ ensemble, root, notLive: reason }: { ensemble: string; root: string; notLive: string | null }) {
  const [open, setOpen] = useState<'scan' | 'clean' | null>(null);
  const live = reason === null;
  const notLive = live ? undefined : `Not while the data is not live (${reason}): what it would delete is not known to be current`;
  return (
    <>
      <button type="button" className="btn btn--outline" onClick={() => setOpen('scan')}>
        Scan for locks…
      </button>
      <button type="button" className="btn btn--outline" disabled={!live} title={notLive} onClick={() => setOpen('clean')}>
        Clean leaked…
      </button>
      <ScanDialog ensemble={ensemble} open={open === 'scan'} onClose={() => setOpen(null)} />
      <CleanLeakedDialog ensemble={ensemble} root={root} open={open === 'clean'} onClose={() => setOpen(null)} />
    </>
  );
}
