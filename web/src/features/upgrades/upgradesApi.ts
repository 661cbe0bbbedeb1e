/**
 * The Upgrades view's HTTP calls: plan (the preflight runs at once), start/pause/resume/abort,
 * skip or mark a member's step done (admins), and the history (everyone). Every answer is parsed
 * with the shared contract's schema; refusals come back as ApiError.
 */
import { useQuery } from '@tanstack/react-query';
import {
  upgradeAnswerSchema,
  upgradeListAnswerSchema,
  type UpgradeAction,
  type UpgradeActionBody,
  type UpgradeAnswer,
  type UpgradeCreateBody,
  type UpgradeListAnswer,
  type UpgradeStepAction,
} from '@keeper/shared';
import { api } from '../../lib/api';
import { apiEnsembleUrl } from '../ensemble/urls';

export const upgradesQueryKey = (ensemble: string) => ['ensembles', ensemble, 'upgrades'] as const;

const upgradeUrl = (ensemble: string, id: string, rest = '') => apiEnsembleUrl(ensemble, `upgrades/${encodeURIComponent(id)}${rest}`);

export function createUpgrade(ensemble: string, body: UpgradeCreateBody): Promise<UpgradeAnswer> {
  return api(apiEnsembleUrl(ensemble, 'upgrades'), { method: 'POST', body, schema: upgradeAnswerSchema });
}

export function upgradeAction(ensemble: string, id: string, action: UpgradeAction, body: UpgradeActionBody = {}): Promise<UpgradeAnswer> {
  return api(upgradeUrl(ensemble, id, `/${action}`), { method: 'POST', body, schema: upgradeAnswerSchema });
}

/** A step is named by its member's address (host:clientPort), the step's stable key. */
export function upgradeStepAction(ensemble: string, id: string, address: string, action: UpgradeStepAction, confirmation?: string): Promise<UpgradeAnswer> {
  const body = confirmation !== undefined ? { confirmation } : {};
  return api(upgradeUrl(ensemble, id, `/steps/${encodeURIComponent(address)}/${action}`), { method: 'POST', body, schema: upgradeAnswerSchema });
}

export function listUpgrades(ensemble: string): Promise<UpgradeListAnswer> {
  return api(apiEnsembleUrl(ensemble, 'upgrades'), { schema: upgradeListAnswerSchema });
}

export function useUpgradeHistory(ensemble: string) {
  return useQuery({ queryKey: upgradesQueryKey(ensemble), queryFn: () => listUpgrades(ensemble) });
}
