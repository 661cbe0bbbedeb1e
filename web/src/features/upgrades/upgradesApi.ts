/**
 * The Upgrades view's HTTP calls: plan (the preflight runs at once), start/pause/resume/abort,
 * skip, mark done or restart again a member's step (admins), the history (everyone), and for
 * admins the restart commands with their output, which the live topic (shared by every browser)
 * does not carry. Every answer is parsed with the shared contract's schema; refusals come back as
 * ApiError.
 */
import { useQuery } from '@tanstack/react-query';
import {
  ROUTES,
  restartCommandRecordSchema,
  type UpgradeAction,
  type UpgradeActionBody,
  type UpgradeAnswer,
  type UpgradeCreateBody,
  type UpgradeListAnswer,
  type RestartCommandRecord,
  type UpgradeStepAction,
} from '@keeper/shared';
import { call } from '../../lib/api';

export const upgradesQueryKey = (ensemble: string) => ['ensembles', ensemble, 'upgrades'] as const;

export function createUpgrade(ensemble: string, body: UpgradeCreateBody): Promise<UpgradeAnswer> {
  return call(ROUTES.upgradeCreate, { params: { name: ensemble }, body });
}

export function upgradeAction(ensemble: string, id: string, action: UpgradeAction, body: UpgradeActionBody = {}): Promise<UpgradeAnswer> {
  return call(ROUTES.upgradeAction, { params: { name: ensemble, id, action }, body });
}

/** A step is named by its member's address (host:clientPort), the step's stable key. */
export function upgradeStepAction(ensemble: string, id: string, address: string, action: UpgradeStepAction, confirmation?: string): Promise<UpgradeAnswer> {
  const body = confirmation !== undefined ? { confirmation } : {};
  return call(ROUTES.upgradeStepAction, { params: { name: ensemble, id, member: address, action }, body });
}

export function listUpgrades(ensemble: string): Promise<UpgradeListAnswer> {
  return call(ROUTES.upgrades, { params: { name: ensemble } });
}

export function getUpgrade(ensemble: string, id: string): Promise<UpgradeAnswer> {
  return call(ROUTES.upgrade, { params: { name: ensemble, id } });
}

/** What changes a step's command record: its restart asked for again, its end, its output. */
const commandsKey = (upgrade: UpgradeAnswer) =>
  upgrade.steps
    .filter((s) => s.command !== null)
    .map((s) => `${s.address} ${s.restartRequestedAt} ${s.command!.exitCode} ${s.checks.filter((c) => c.id === 'restart-command').length}`)
    .join('|');

/**
 * For an admin: each step's restart command as it ran, with its output, read again whenever the
 * live workflow says a command started or ended. Null for anyone else, and until read.
 */
export function useAdminCommands(ensemble: string, upgrade: UpgradeAnswer, admin: boolean): ReadonlyMap<string, RestartCommandRecord> | null {
  const withCommands = upgrade.steps.some((s) => s.command !== null);
  const query = useQuery({
    queryKey: [...upgradesQueryKey(ensemble), upgrade.id, 'commands', commandsKey(upgrade)],
    queryFn: async () => {
      const full = await getUpgrade(ensemble, upgrade.id);
      return new Map(full.steps.flatMap((s) => (s.command ? [[s.address, restartCommandRecordSchema.parse(s.command)] as const] : [])));
    },
    enabled: admin && withCommands,
    staleTime: Infinity,
  });
  return admin ? (query.data ?? null) : null;
}

export function useUpgradeHistory(ensemble: string) {
  return useQuery({ queryKey: upgradesQueryKey(ensemble), queryFn: () => listUpgrades(ensemble) });
}
