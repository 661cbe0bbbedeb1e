/**
 * The Upgrades view's pure logic (issue 13), shared by server and web, ZooKeeper-free:
 *   planUpgrade        the order (observers, followers, the leader last), risk and confirmation
 *   preflight          the five gates before anything runs; stepGates before each member
 *   stepReducer        one member's step: gates, restart, down (or restarted), back, synced, settled
 *   workflowReducer    the whole upgrade over its steps; createWorkflow; stepsToRestart
 *   upgradeProgress    the bar, elapsed, estimate and "Restarting member 2 (next: 3, then the leader, 1)"
 *   resumeFrom         after Keeper restarted mid-upgrade: where each current step stands
 *   recordHandover     with replicas: another replica took the upgrade over (its replica's session ended)
 *   fillRestartCommand the config's restartCommand: argv with no shell, or a checked shell line
 *   recheckMembers     every member against the target and its role: before done, and on resume
 *   withheldCommands   an answer for non-admins: the restart's outcome and exit code, never its command or output
 *   upgradeAlert       the alert a paused or failed upgrade raises
 *   upgradeWorkflowSchema: the versioned state on disk and on the wire; requests.ts: the HTTP bodies and answers
 */
export * from './schemas.js';
export { memberLabel, memberName, memberShortLabel, plannedRoleOf, servesInRightRole } from './members.js';
export * from './builds.js';
export * from './gates.js';
export * from './plan.js';
export * from './restartEvidence.js';
export * from './stepRecord.js';
export * from './stepActions.js';
export * from './step.js';
export * from './workflowSteps.js';
export * from './workflowEvents.js';
export * from './workflow.js';
export * from './sessionExpiries.js';
export * from './progress.js';
export * from './recheck.js';
export * from './resume.js';
export * from './handover.js';
export * from './restartCommand.js';
export * from './requests.js';
export * from './alert.js';
