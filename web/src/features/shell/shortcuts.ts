/** The keyboard shortcuts the `?` dialog lists; keep in step with the handlers (useGlobalKeys, TreeNav). */
export const SHORTCUTS: readonly { keys: string[]; what: string }[] = [
  { keys: ['?'], what: 'Show these shortcuts' },
  { keys: ['/'], what: 'Focus the filter (children list)' },
  { keys: ['g'], what: 'Go to a znode path (Tab completes each level)' },
  { keys: ['↑', '↓'], what: 'Move in the tree' },
  { keys: ['→'], what: 'Expand the node, or go to its first child' },
  { keys: ['←'], what: 'Collapse the node, or go to its parent' },
  { keys: ['Enter'], what: 'Open the focused node' },
  { keys: ['Home', 'End'], what: 'First or last node in the tree' },
  { keys: ['w'], what: 'Show or hide watch events' },
  { keys: ['Esc'], what: 'Close a dialog or clear a filter' },
  { keys: ['Enter'], what: 'Confirm a dialog (create, delete, share, ACL)' },
  { keys: ['Ctrl', 'Enter'], what: 'Save in the data editor' },
  { keys: ['Tab'], what: 'Indent in the data editor' },
];
