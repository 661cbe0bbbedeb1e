/**
 * Real answers captured from the sandbox (ZooKeeper 3.8.0 as Debian builds it): a leader,
 * a follower, an observer, a standalone server, a member without quorum, a member whose
 * whitelist is restricted to srvr, and a dead client whose 15-minute session lingers.
 */
import adminConnectionsLeader from './fixtures/admin-connections-leader.json?raw';
import adminDumpLeader from './fixtures/admin-dump-leader.json?raw';
import adminWatchSummaryFollower from './fixtures/admin-watch_summary-follower.json?raw';
import adminWatchesByPathFollower from './fixtures/admin-watches_by_path-follower.json?raw';
import adminMonitorLeader from './fixtures/admin-monitor-leader.json?raw';
import adminMonitorNotServing from './fixtures/admin-monitor-not-serving.html?raw';
import adminMonitorObserver from './fixtures/admin-monitor-observer.json?raw';
import adminServerStatsFollower from './fixtures/admin-server_stats-follower.json?raw';
import adminServerStatsLeader from './fixtures/admin-server_stats-leader.json?raw';
import adminServerStatsNotServing from './fixtures/admin-server_stats-not-serving.json?raw';
import confFollower from './fixtures/conf-follower.txt?raw';
import confLeader from './fixtures/conf-leader.txt?raw';
import confObserver from './fixtures/conf-observer.txt?raw';
import confStandalone from './fixtures/conf-standalone.txt?raw';
import consFollower from './fixtures/cons-follower.txt?raw';
import consNotWhitelisted from './fixtures/cons-not-whitelisted.txt?raw';
import dumpFollower from './fixtures/dump-follower.txt?raw';
import dumpFollowerDeadSession from './fixtures/dump-follower-dead-session.txt?raw';
import dumpLeader from './fixtures/dump-leader.txt?raw';
import dumpLeaderDeadSession from './fixtures/dump-leader-dead-session.txt?raw';
import dumpStandalone from './fixtures/dump-standalone.txt?raw';
import mntrFollower from './fixtures/mntr-follower.txt?raw';
import mntrLeader from './fixtures/mntr-leader.txt?raw';
import mntrNotWhitelisted from './fixtures/mntr-not-whitelisted.txt?raw';
import mntrObserver from './fixtures/mntr-observer.txt?raw';
import srvrFollower from './fixtures/srvr-follower.txt?raw';
import srvrLeader from './fixtures/srvr-leader.txt?raw';
import srvrNotServing from './fixtures/srvr-not-serving.txt?raw';
import srvrObserver from './fixtures/srvr-observer.txt?raw';
import srvrStandalone from './fixtures/srvr-standalone.txt?raw';
import wchcFollower from './fixtures/wchc-follower.txt?raw';
import wchpFollower from './fixtures/wchp-follower.txt?raw';
import wchpFollower2 from './fixtures/wchp-follower2.txt?raw';
import wchsFollower from './fixtures/wchs-follower.txt?raw';

export const fx = {
  adminConnectionsLeader,
  adminDumpLeader,
  adminWatchSummaryFollower,
  adminWatchesByPathFollower,
  adminMonitorLeader,
  adminMonitorNotServing,
  adminMonitorObserver,
  adminServerStatsFollower,
  adminServerStatsLeader,
  adminServerStatsNotServing,
  confFollower,
  confLeader,
  confObserver,
  confStandalone,
  consFollower,
  consNotWhitelisted,
  dumpFollower,
  dumpFollowerDeadSession,
  dumpLeader,
  dumpLeaderDeadSession,
  dumpStandalone,
  mntrFollower,
  mntrLeader,
  mntrNotWhitelisted,
  mntrObserver,
  srvrFollower,
  srvrLeader,
  srvrNotServing,
  srvrObserver,
  srvrStandalone,
  wchcFollower,
  wchpFollower,
  wchpFollower2,
  wchsFollower,
};
