/**
 * Import a keeper-export file under the selected node: read the file, dry-run it (the server
 * plans against what is there now: create, update, unchanged, conflicts), then apply as a job with
 * progress and Cancel. Nothing is written before Apply.
 */
import { useMemo, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { ExportDocument, ImportPlan, JobSnapshot } from '@keeper/shared';
import { Dialog } from '../../../ui/Dialog';
import { writeErrorText } from '../../../app/writeErrors';
import { formatBytes, formatCount } from '../../../lib/bytes';
import { RelativeTime } from '../../../ui/RelativeTime';
import { JobProgress } from '../../../app/jobs/JobProgress';
import { seedJob, useJob } from '../../../app/jobs/jobs';
import { useDockOnClose } from '../../../app/jobs/jobsDock';
import { previewImport, startImport } from '../ops/opsApi';
import { applyWords, canApply, firstKind, parseExport, planCounts, planRows, PLAN_KINDS, refusalWords, type PlanKind } from './importModel';
import { Callout } from '../../../ui/Callout';
import '../../../ui/forms.css';
import './transfer.css';

export function ImportDialog({ ensemble, path, open, onClose }: { ensemble: string; path: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Import into this node" className="transfer-dialog transfer-dialog--wide">
      {open && <ImportFlow ensemble={ensemble} path={path} onClose={onClose} />}
    </Dialog>
  );
}

function ImportFlow({ ensemble, path, onClose }: { ensemble: string; path: string; onClose: () => void }) {
  const [file, setFile] = useState<{ name: string; size: number; doc: ExportDocument } | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [overwrite, setOverwrite] = useState(false);
  const [plan, setPlan] = useState<{ plan: ImportPlan; overwrite: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const queryClient = useQueryClient();

  const choose = async (f: File | undefined) => {
    setPlan(null);
    setError(null);
    setFile(null);
    setFileError(null);
    if (!f) return;
    const parsed = parseExport(await f.text());
    if (parsed.ok) setFile({ name: f.name, size: f.size, doc: parsed.doc });
    else setFileError(parsed.reason);
  };

  const preview = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await previewImport(ensemble, path, file.doc, overwrite);
      setPlan({ plan: answer.plan, overwrite });
    } catch (e) {
      setError(writeErrorText(e, 'import'));
    } finally {
      setBusy(false);
    }
  };

  const apply = async () => {
    if (!file || !plan) return;
    setBusy(true);
    setError(null);
    try {
      const job = await startImport(ensemble, path, file.doc, plan.overwrite);
      seedJob(queryClient, job);
      setJobId(job.id);
    } catch (e) {
      setError(writeErrorText(e, 'import'));
    } finally {
      setBusy(false);
    }
  };

  if (jobId) return <ImportJob jobId={jobId} onClose={onClose} />;

  return (
    <div className="transfer-flow">
      <p className="transfer-lead">
        Nodes from a Keeper export are placed under <span className="mono">{path}</span>: the export’s root becomes this node. Nothing is written until you
        apply.
      </p>
      <label className="field">
        <span className="field__label">Export file</span>
        <input className="transfer-file" type="file" accept="application/json,.json" onChange={(e) => void choose(e.target.files?.[0])} />
      </label>
      {fileError && (
        <Callout tone="lost" role="alert">
          <strong>Cannot use this file</strong>
          <p>{fileError}</p>
        </Callout>
      )}
      {file && (
        <p className="transfer-file-info">
          <span className="mono">{file.name}</span> · {formatBytes(file.size)} · {formatCount(file.doc.nodes.length)} nodes from{' '}
          <span className="mono">{file.doc.root}</span> on <span className="mono">{file.doc.ensemble}</span>, exported <RelativeTime at={file.doc.exportedAt} />
        </p>
      )}
      {file && (
        <label className="transfer-check">
          <input
            type="checkbox"
            checked={overwrite}
            onChange={(e) => {
              setOverwrite(e.target.checked);
              setPlan(null);
            }}
          />
          <span>
            Overwrite nodes whose data differs <span className="muted">(each checked against the version read for the plan)</span>
          </span>
        </label>
      )}
      {plan && refusalWords(plan.plan) && (
        <Callout tone="lost" role="alert">
          <strong>This import would be refused</strong>
          <p className="transfer-refusal">{refusalWords(plan.plan)}</p>
        </Callout>
      )}
      {plan && <PlanTable plan={plan.plan} />}
      {error && (
        <Callout tone="lost" role="alert">
          <strong>{plan ? 'Not applied' : 'No plan'}</strong>
          <p>{error}</p>
        </Callout>
      )}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        {file && !plan && (
          <button type="button" className="btn btn--primary" disabled={busy} onClick={() => void preview()}>
            {busy ? 'Planning…' : 'Preview changes'}
          </button>
        )}
        {plan && (
          <button type="button" className="btn btn--primary" disabled={busy || !canApply(plan.plan)} onClick={() => void apply()}>
            {busy ? 'Starting…' : applyWords(plan.plan)}
          </button>
        )}
      </div>
    </div>
  );
}

const ROW = 26;

function PlanTable({ plan }: { plan: ImportPlan }) {
  const counts = planCounts(plan);
  const [kind, setKind] = useState<PlanKind>(() => firstKind(plan));
  const rows = useMemo(() => planRows(plan, kind), [plan, kind]);
  const scrollRef = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW, overscan: 10 });
  return (
    <section className="plan" aria-label="Import plan">
      <div className="plan__tabs" role="tablist" aria-label="Changes by kind">
        {PLAN_KINDS.filter((k) => k.kind !== 'problems' || counts.problems > 0).map((k) => (
          <button key={k.kind} type="button" role="tab" aria-selected={kind === k.kind} className={`plan__tab tone-${k.tone}`} onClick={() => setKind(k.kind)}>
            <span className="status">{k.label}</span>
            <span className="plan__count mono">{formatCount(counts[k.kind])}</span>
          </button>
        ))}
      </div>
      <div ref={scrollRef} className="plan__scroll" role="tabpanel">
        {rows.length === 0 ? (
          <p className="muted plan__empty">None.</p>
        ) : (
          <div className="plan__list" style={{ height: virtualizer.getTotalSize() }} role="list">
            {virtualizer.getVirtualItems().map((v) => {
              const row = rows[v.index];
              if (!row) return null;
              return (
                <div key={v.key} role="listitem" className="plan__row" style={{ transform: `translateY(${v.start}px)`, height: ROW }}>
                  <span className="mono plan__path" title={row.path}>
                    {row.path}
                  </span>
                  <span className="muted plan__detail" title={row.title ?? row.detail}>
                    {row.detail}
                  </span>
                </div>
              );
            })}
          </div>
        )}
      </div>
    </section>
  );
}

function ImportJob({ jobId, onClose }: { jobId: string; onClose: () => void }) {
  const job: JobSnapshot | undefined = useJob(jobId);
  const running = !job || job.state === 'running';
  useDockOnClose(jobId, running);
  return (
    <div className="transfer-flow">
      <JobProgress jobId={jobId} />
      <div className="form-actions">
        {running && <span className="form-actions__hint">Hiding keeps it running, in the corner of the page.</span>}
        <button type="button" className={running ? 'btn' : 'btn btn--primary'} onClick={onClose} autoFocus={!running}>
          {running ? 'Hide' : 'Done'}
        </button>
      </div>
    </div>
  );
}
