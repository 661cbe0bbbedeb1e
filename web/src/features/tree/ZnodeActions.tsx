/**
 * What can be done to the selected znode, in its header. Admins, and writers inside the subtrees
 * their groups are granted, get the write controls (Edit data, Create child, Delete, Import) where
 * the write can succeed (writePolicy: not on ZooKeeper's own nodes, no child under an ephemeral
 * one, paused with the reason while the session is not live); everyone gets Export, which only
 * reads. Viewers, share-link holders and writers elsewhere see the same header without write
 * controls: absent, not disabled.
 */
import { useState } from 'react';
import { useZnodeEntry } from './znodeTopic';
import { useMayWriteAt } from '../../app/me';
import { DownloadIcon, PencilIcon, PlusIcon, TrashIcon, UploadIcon } from './actionIcons';
import { useFreshness } from '../../app/freshness/useFreshness';
import { writePolicy, type WriteGate } from './writePolicy';
import { lazyNamed } from '../../lib/lazyNamed';
import { LazyPart, useOpenedOnce } from '../../ui/LazyPart';
import './writeControls.css';

// Each dialog's code arrives when it is first opened: showing a znode needs none of it.
const EditDataDialog = lazyNamed(() => import('./edit/EditDataDialog'), 'EditDataDialog');
const CreateNodeDialog = lazyNamed(() => import('./create/CreateNodeDialog'), 'CreateNodeDialog');
const DeleteDialog = lazyNamed(() => import('./delete/DeleteDialog'), 'DeleteDialog');
const ImportDialog = lazyNamed(() => import('./transfer/ImportDialog'), 'ImportDialog');
const ExportDialog = lazyNamed(() => import('./transfer/ExportDialog'), 'ExportDialog');

type Open = 'edit' | 'create' | 'delete' | 'export' | 'import' | null;

export function ZnodeActions({ ensemble, path }: { ensemble: string; path: string }) {
  // The server decides the same way (shared/src/grants.ts); this only leaves out what it would refuse.
  const admin = useMayWriteAt(ensemble, path);
  const entry = useZnodeEntry(ensemble, path);
  const [open, setOpen] = useState<Open>(null);
  // Dialogs are keyed to the path they opened for: following a link elsewhere never retargets one.
  const [target, setTarget] = useState(path);
  const freshness = useFreshness(ensemble, entry?.epoch);
  const edited = useOpenedOnce(open === 'edit');
  const created = useOpenedOnce(open === 'create');
  const deleted = useOpenedOnce(open === 'delete');
  const imported = useOpenedOnce(open === 'import');
  const exported = useOpenedOnce(open === 'export');
  const exists = entry?.node.exists === true;
  if (!exists && open === null) return null;
  const policy = entry?.node.exists ? writePolicy(path, entry.node.stat, freshness) : null;
  const gate = (action: 'edit' | 'create' | 'delete' | 'import'): WriteGate => policy?.gates[action] ?? { state: 'absent', reason: null };
  /** Props of a control by its gate: paused ones are disabled and say why. */
  const control = (g: WriteGate, title: string) => (g.state === 'paused' ? { disabled: true, title: g.reason } : { title });
  const paused = policy ? Object.values(policy.gates).find((g) => g.state === 'paused') : undefined;
  const show = (what: Open) => {
    setTarget(path);
    setOpen(what);
  };
  const close = () => setOpen(null);

  return (
    <div className="znode-actions" role="group" aria-label="Znode actions">
      {admin && exists && policy && (
        <>
          {policy.note && (
            <span className="znode-actions__note muted" role="note" title={policy.note.long}>
              {policy.note.short}
            </span>
          )}
          {paused?.state === 'paused' && (
            <span className="znode-actions__note znode-actions__note--paused" role="note" title={paused.reason}>
              {!freshness.live && freshness.readOnly ? 'read-only: writes paused' : 'writes paused'}
            </span>
          )}
          {gate('edit').state !== 'absent' && (
            <button
              type="button"
              className="btn znode-action"
              onClick={() => show('edit')}
              aria-label="Edit data"
              {...control(gate('edit'), 'Edit data (version-checked)')}
            >
              <PencilIcon />
              <span className="znode-action__label">Edit data</span>
            </button>
          )}
          {gate('create').state !== 'absent' && (
            <button
              type="button"
              className="btn znode-action"
              onClick={() => show('create')}
              aria-label="Create child"
              {...control(gate('create'), 'Create a child node')}
            >
              <PlusIcon />
              <span className="znode-action__label">Create child</span>
            </button>
          )}
          {gate('delete').state !== 'absent' && (
            <button
              type="button"
              className="btn znode-action znode-action--danger"
              onClick={() => show('delete')}
              aria-label="Delete"
              {...control(gate('delete'), 'Delete this node (and its subtree)')}
            >
              <TrashIcon />
              <span className="znode-action__label">Delete</span>
            </button>
          )}
          <span className="znode-actions__sep" aria-hidden="true" />
        </>
      )}
      {exists && (
        <button type="button" className="btn btn--icon" onClick={() => show('export')} aria-label="Export subtree" title="Export this subtree as JSON">
          <DownloadIcon />
        </button>
      )}
      {admin && exists && gate('import').state !== 'absent' && (
        <button
          type="button"
          className="btn btn--icon"
          onClick={() => show('import')}
          aria-label="Import"
          {...control(gate('import'), 'Import an export under this node')}
        >
          <UploadIcon />
        </button>
      )}
      <LazyPart>
        {admin && (
          <>
            {edited && <EditDataDialog ensemble={ensemble} path={target} open={open === 'edit'} onClose={close} />}
            {created && <CreateNodeDialog ensemble={ensemble} parent={target} open={open === 'create'} onClose={close} />}
            {deleted && <DeleteDialog ensemble={ensemble} path={target} open={open === 'delete'} onClose={close} />}
            {imported && <ImportDialog ensemble={ensemble} path={target} open={open === 'import'} onClose={close} />}
          </>
        )}
        {exported && <ExportDialog ensemble={ensemble} path={target} open={open === 'export'} onClose={close} />}
      </LazyPart>
    </div>
  );
}
