/**
 * "Delete": counts the subtree first (GET .../subtree), so the operator reads "this will delete
 * 10,001 nodes" before anything happens. A leaf is deleted at the version shown; a subtree needs
 * the node's name typed, then runs as a job with progress, Cancel, and a report of what remains.
 */
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import { parentPath, type JobSnapshot } from '@keeper/shared';
import { Dialog } from '../../../ui/Dialog';
import { ApiError, errorText } from '../../../lib/api';
import { writeErrorText } from '../../../app/writeErrors';
import { useSeenAs } from '../../../app/consoleSession/consoleSessionTopic';
import { Escaped } from '../ZnodeName';
import { escapeHiddenChars } from '../../../lib/invisibleChars';
import { useZnodeEntry } from '../znodeTopic';
import { JobProgress } from '../../../app/jobs/JobProgress';
import { seedJob, useJob } from '../../../app/jobs/jobs';
import { useDockOnClose } from '../../../app/jobs/jobsDock';
import { countSubtree, deleteZnode, staleVersionOf, startRecursiveDelete, type SubtreeCount } from '../ops/opsApi';
import { znodeUrl } from '../../../app/urls/treeUrls';
import { confirmWord, countWords } from './deleteModel';
import { TypedConfirm, typedMatches } from '../../../ui/TypedConfirm';
import { Callout } from '../../../ui/Callout';
import '../../../ui/forms.css';
import './delete.css';

export function DeleteDialog({ ensemble, path, open, onClose }: { ensemble: string; path: string; open: boolean; onClose: () => void }) {
  const [jobId, setJobId] = useState<string | null>(null);
  const title = jobId ? 'Delete subtree' : 'Delete';
  // A job keeps running on the server when hidden; opening Delete again starts from a fresh count.
  const close = () => {
    setJobId(null);
    onClose();
  };
  return (
    <Dialog open={open} onClose={close} title={title} className="delete-dialog">
      {open && <DeleteFlow ensemble={ensemble} path={path} onClose={close} jobId={jobId} onJob={setJobId} />}
    </Dialog>
  );
}

type Step = { kind: 'counting' } | { kind: 'counted'; count: SubtreeCount } | { kind: 'countFailed'; message: string };

function DeleteFlow({
  ensemble,
  path,
  onClose,
  jobId,
  onJob,
}: {
  ensemble: string;
  path: string;
  onClose: () => void;
  jobId: string | null;
  onJob: (id: string | null) => void;
}) {
  const entry = useZnodeEntry(ensemble, path);
  const seenAs = useSeenAs(ensemble);
  // The version the operator is looking at when the dialog opens: the delete is checked against it.
  const [version] = useState<number | null>(() => (entry?.node.exists ? entry.node.stat.version : null));
  const [step, setStep] = useState<Step>({ kind: 'counting' });
  const [attempt, setAttempt] = useState(0);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const parent = parentPath(path) ?? '/';

  useEffect(() => {
    const abort = new AbortController();
    countSubtree(ensemble, path, abort.signal).then(
      (count) => setStep({ kind: 'counted', count }),
      (e: unknown) => {
        if (!abort.signal.aborted) setStep({ kind: 'countFailed', message: errorText(e) });
      },
    );
    return () => abort.abort();
  }, [ensemble, path, attempt]);

  if (jobId) return <DeleteJob jobId={jobId} ensemble={ensemble} parent={parent} onClose={onClose} />;

  if (version === null) {
    return (
      <Callout tone="stale" role="status">
        <strong>Nothing to delete</strong>
        <p>
          <span className="mono">
            <Escaped text={path} />
          </span>{' '}
          does not exist (any more).
        </p>
      </Callout>
    );
  }

  const fail = (e: unknown) => {
    const stale = staleVersionOf(e);
    if (stale) {
      setError(
        `It changed since you looked: it is now version ${stale.stat.version} (you saw ${version}). Nothing was deleted. Close, look at the new value, and delete again if you still mean to.`,
      );
    } else if (e instanceof ApiError && e.code === 'NOT_EMPTY') {
      // Children appeared meanwhile: count again, and the recursive path takes over.
      setError('It got children since it was counted. Counted again: read the new count before going on.');
      setStep({ kind: 'counting' });
      setAttempt((a) => a + 1);
    } else {
      setError(writeErrorText(e, 'delete', seenAs));
    }
  };

  const deleteOne = async () => {
    setBusy(true);
    setError(null);
    try {
      await deleteZnode(ensemble, path, version);
      onClose();
      navigate(znodeUrl(ensemble, parent));
    } catch (e) {
      fail(e);
    } finally {
      setBusy(false);
    }
  };

  const deleteAll = async () => {
    setBusy(true);
    setError(null);
    try {
      const job = await startRecursiveDelete(ensemble, path, version);
      seedJob(queryClient, job);
      onJob(job.id);
    } catch (e) {
      fail(e);
    } finally {
      setBusy(false);
    }
  };

  if (step.kind === 'counting') {
    return (
      <div className="delete-flow">
        <p className="muted" aria-busy="true">
          Counting what{' '}
          <span className="mono">
            <Escaped text={path} />
          </span>{' '}
          holds…
        </p>
        {error && <p role="status">{error}</p>}
      </div>
    );
  }
  if (step.kind === 'countFailed') {
    return (
      <div className="delete-flow">
        <Callout tone="lost" role="alert">
          <strong>Cannot count the subtree, so nothing is deleted</strong>
          <p>{step.message}</p>
        </Callout>
        <div className="form-actions">
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
          <button type="button" className="btn btn--outline" onClick={() => setAttempt((a) => a + 1)}>
            Count again
          </button>
        </div>
      </div>
    );
  }

  const { count, truncated, depth } = step.count;
  const leaf = count <= 1 && !truncated;
  const word = confirmWord(path);
  const ready = leaf || typedMatches(word, typed);

  return (
    <form
      className="delete-flow"
      onSubmit={(e) => {
        e.preventDefault();
        if (!ready || busy) return;
        void (leaf ? deleteOne() : deleteAll());
      }}
    >
      {leaf ? (
        <p className="delete-lead">
          Delete{' '}
          <span className="mono delete-path">
            <Escaped text={path} />
          </span>{' '}
          at version <span className="mono">{version}</span>? It has no children. This cannot be undone.
        </p>
      ) : (
        <>
          <Callout tone="lost" role="status" className="delete-count">
            <span className="delete-count__number">{countWords(count, truncated)}</span>
            <span>
              this will delete{' '}
              <span className="mono delete-path">
                <Escaped text={path} />
              </span>{' '}
              and everything under it{depth > 0 ? `, ${depth} ${depth === 1 ? 'level' : 'levels'} deep` : ''}.
            </span>
          </Callout>
          <p className="delete-lead muted">
            Deleted children first, one node at a time; the root only if it is still at version <span className="mono">{version}</span>. You can cancel while it
            runs; what was deleted stays deleted.
          </p>
          <TypedConfirm
            phrase={word}
            value={typed}
            onChange={setTyped}
            autoFocus
            shown={
              <span className="mono delete-word">
                <Escaped text={word} />
              </span>
            }
            ariaLabel={`Type ${escapeHiddenChars(word)} to confirm`}
          />
        </>
      )}
      {error && (
        <Callout tone="lost" role="alert">
          <strong>Not deleted</strong>
          <p>{error}</p>
        </Callout>
      )}
      <div className="form-actions">
        <span className="form-actions__hint">{leaf ? 'Enter to delete · Esc to cancel' : 'Esc to cancel'}</span>
        <button type="button" className="btn" onClick={onClose} autoFocus={leaf}>
          Cancel
        </button>
        <button type="submit" className="btn btn--danger" disabled={!ready || busy}>
          {busy ? 'Starting…' : leaf ? 'Delete' : `Delete ${countWords(count, truncated)}`}
        </button>
      </div>
    </form>
  );
}

function DeleteJob({ jobId, ensemble, parent, onClose }: { jobId: string; ensemble: string; parent: string; onClose: () => void }) {
  const job: JobSnapshot | undefined = useJob(jobId);
  const navigate = useNavigate();
  const running = !job || job.state === 'running';
  // Hidden while it runs: the dock keeps showing it until its report is dismissed.
  useDockOnClose(jobId, running);
  return (
    <div className="delete-flow delete-flow--job">
      <p className="delete-lead muted">
        <span className="mono delete-path">{job?.path}</span> and everything under it
      </p>
      <JobProgress jobId={jobId} />
      <div className="form-actions">
        {running ? <span className="form-actions__hint">Hiding keeps it running, in the corner of the page.</span> : null}
        {job?.state === 'done' && (
          <button type="button" className="btn" onClick={onClose}>
            Done
          </button>
        )}
        {job?.state === 'done' ? (
          <button
            type="button"
            className="btn btn--primary"
            autoFocus
            onClick={() => {
              onClose();
              navigate(znodeUrl(ensemble, parent));
            }}
          >
            Open the parent
          </button>
        ) : (
          <button type="button" className="btn" onClick={onClose}>
            {running ? 'Hide' : 'Done'}
          </button>
        )}
      </div>
    </div>
  );
}
