/**
 * What can be done to the selected znode, in its header. Admins get the write controls (Edit data,
 * Create child, Delete, Import); everyone gets Export, which only reads. Viewers and share-link
 * holders see the same header without write controls: absent, not disabled.
 */
import { useState } from 'react';
import { useZnodeEntry } from '../../socket/hooks';
import { useIsAdmin } from '../auth/me';
import { DownloadIcon, PencilIcon, PlusIcon, TrashIcon, UploadIcon } from '../audit/icons';
import { CreateNodeDialog } from './create/CreateNodeDialog';
import { DeleteDialog } from './delete/DeleteDialog';
import { isProtectedPath } from './delete/deleteModel';
import { EditDataDialog } from './edit/EditDataDialog';
import { ExportDialog } from './transfer/ExportDialog';
import { ImportDialog } from './transfer/ImportDialog';
import './writeControls.css';

type Open = 'edit' | 'create' | 'delete' | 'export' | 'import' | null;

export function ZnodeActions({ ensemble, path }: { ensemble: string; path: string }) {
  const admin = useIsAdmin();
  const entry = useZnodeEntry(ensemble, path);
  const [open, setOpen] = useState<Open>(null);
  // Dialogs are keyed to the path they opened for: following a link elsewhere never retargets one.
  const [target, setTarget] = useState(path);
  const exists = entry?.node.exists === true;
  if (!exists && open === null) return null;
  const show = (what: Open) => {
    setTarget(path);
    setOpen(what);
  };
  const close = () => setOpen(null);

  return (
    <div className="znode-actions" role="group" aria-label="Znode actions">
      {admin && exists && (
        <>
          <button type="button" className="btn znode-action" onClick={() => show('edit')} aria-label="Edit data" title="Edit data (version-checked)">
            <PencilIcon />
            <span className="znode-action__label">Edit data</span>
          </button>
          <button type="button" className="btn znode-action" onClick={() => show('create')} aria-label="Create child" title="Create a child node">
            <PlusIcon />
            <span className="znode-action__label">Create child</span>
          </button>
          {!isProtectedPath(path) && (
            <button type="button" className="btn znode-action znode-action--danger" onClick={() => show('delete')} aria-label="Delete" title="Delete this node (and its subtree)">
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
      {admin && exists && (
        <button type="button" className="btn btn--icon" onClick={() => show('import')} aria-label="Import" title="Import an export under this node">
          <UploadIcon />
        </button>
      )}
      {admin && (
        <>
          <EditDataDialog ensemble={ensemble} path={target} open={open === 'edit'} onClose={close} />
          <CreateNodeDialog ensemble={ensemble} parent={target} open={open === 'create'} onClose={close} />
          <DeleteDialog ensemble={ensemble} path={target} open={open === 'delete'} onClose={close} />
          <ImportDialog ensemble={ensemble} path={target} open={open === 'import'} onClose={close} />
        </>
      )}
      <ExportDialog ensemble={ensemble} path={target} open={open === 'export'} onClose={close} />
    </div>
  );
}
