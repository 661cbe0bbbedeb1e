/**
 * The one alert for a request herd: who, how hard, what share of the ensemble's requests, what it
 * does to latency, what it asks for and on which node where Keeper saw it, and seed 000's fix.
 * Every clause says only what a gathering saw: nothing about watches without a recent wchp.
 */
import type { Alert } from '../types.js';
import { operationName } from './detect.js';
import type { RequestHerd } from './schema.js';

const fmt = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, word: string, many = `${word}s`) => `${fmt(n)} ${n === 1 ? word : many}`;
const seconds = (ms: number) => `${fmt(Math.max(0, Math.round(ms / 1000)))} s`;

/** ", mostly getChildren, likely on /tasks" or ", last sent getChildren (12) and create (8)". */
export function herdOperationText(herd: RequestHerd): string {
  if (herd.operation) return `, mostly ${operationName(herd.operation)}${herd.target ? `, likely on ${herd.target.path}` : ''}`;
  const ops = herd.operations ?? [];
  if (ops.length === 0) return '';
  return `, last sent ${ops.map((o) => `${operationName(o.operation)} (${fmt(o.sessions)})`).join(' and ')}`;
}

function watchText(herd: RequestHerd): string {
  const w = herd.watched;
  if (w === null || w === undefined) return 'Whether they also watch a path is not known: Keeper has no recent wchp (the Watches view asks for it).';
  const where = w.source === 'watches' ? "the Watches view's wchp" : "the Locks view's wchp";
  const age = herd.measuredAt !== undefined ? `, ${seconds(herd.measuredAt - w.gatheredAt)} before this gathering` : '';
  if (w.paths.length > 0) {
    const list = w.paths.map((p) => `${p.path} (${fmt(p.herdWatchers)} of them, ${plural(p.watchers, 'watcher')} in all)`).join(', ');
    return `In ${where}${age}, most of them watch ${list}: a change there notifies them all at once.`;
  }
  if (!w.complete) return `${where}${age} was incomplete (a member did not answer), so it says nothing of their watches.`;
  return `In ${where}${age}, none of them held a data watch (wchp lists exists and getData watches, not child watches): they poll rather than wait for a change.`;
}

export function herdAlert(herd: RequestHerd): Alert {
  const each = herd.minRate === herd.maxRate ? `${herd.minRate}` : `${herd.minRate}–${herd.maxRate}`;
  const hostList = herd.hosts
    .slice(0, 5)
    .map((h) => `${h.host} (${plural(h.sessions, 'session')}, ${fmt(h.requestsPerSecond)} req/s)`)
    .join(', ');
  const more = herd.hosts.length > 5 ? ` and ${plural(herd.hosts.length - 5, 'more host')}` : '';
  const share =
    herd.shareOfRequests !== null && herd.shareOfRequests !== undefined
      ? `; ${Math.round(herd.shareOfRequests * 100)}% of all the requests sessions send, ${fmt(herd.allRequestsPerSecond ?? herd.requestsPerSecond)} req/s`
      : '';
  const rule =
    herd.rule === 'share'
      ? ' Each of them is slow on its own (a slowed ensemble slows its herd too), but together they send most of what the ensemble serves.'
      : '';
  const latency = [
    herd.latencyAvgMs !== null ? `their average latency is ${herd.latencyAvgMs} ms` : null,
    herd.latencyMaxMs !== null ? `max ${fmt(herd.latencyMaxMs)} ms` : null,
    herd.othersLatencyAvgMs !== null ? `against ${herd.othersLatencyAvgMs} ms for the other sessions` : null,
    herd.slowSessions > 0 ? `${fmt(herd.slowSessions)} of them had a request wait ${herd.slowRequestMs} ms or more` : null,
  ]
    .filter(Boolean)
    .join(', ');
  const backlog = [
    herd.outstanding !== null && herd.outstanding > 0 ? `up to ${plural(herd.outstanding, 'request')} outstanding on a member` : null,
    herd.queued > 0 ? `${fmt(herd.queued)} queued for these sessions` : null,
  ]
    .filter(Boolean)
    .join(', ');
  const target = herd.target
    ? ` They most likely hammer ${herd.target.path} (${plural(herd.target.numChildren, 'child', 'children')}${herd.target.pzxidChanging ? ', its child list changing all the time' : ''}), which a browser has open: every getChildren of it returns the whole list.`
    : '';
  const held = herd.heldByAggregate
    ? ` Its latency no longer climbs, but together its sessions still send ${fmt(herd.requestsPerSecond)} req/s of the same request, most of what the ensemble gets: it stays named while that stands out.`
    : '';
  const fading =
    (herd.gatheringsBelow ?? 0) > 0
      ? ` The last ${plural(herd.gatheringsBelow!, 'gathering')} measured it below the threshold; it stays named until ${plural(herd.clearsAfter ?? 0, 'gathering')} in a row do.`
      : '';
  return {
    id: 'request-herd',
    severity: 'warning',
    title: `Request herd: ${plural(herd.sessions, 'session')} from ${plural(herd.hosts.length, 'host')} send ${fmt(herd.requestsPerSecond)} req/s together${herdOperationText(herd)}`,
    why:
      `${plural(herd.sessions, 'session')} send requests at similar rates (${each} req/s each, ${fmt(herd.requestsPerSecond)} req/s combined${share}) from ${hostList}${more}.${rule} ` +
      `${herd.heldByAggregate ? 'Latency' : 'Latency climbs'}: ${latency || 'not reported'}${backlog ? `; ${backlog}` : ''}.${target} ${watchText(herd)}${held}${fading} ` +
      'Workers polling for work all at once make each request cost every other client latency.',
    action:
      'Back off with deadlines (kazoo: KazooRetry(max_tries=..., deadline=...); Curator: a RetryPolicy with a time limit) so a slow ensemble makes workers wait rather than ask harder. ' +
      'Take work through a queue or lock recipe, or one leader that hands out tasks, instead of every worker racing for it. ' +
      'Do not call getChildren on a huge list in a loop: watch it (one notification per change) or split it.',
    members: [],
    see: { view: 'sessions', label: 'Sessions, busiest first' },
  };
}
