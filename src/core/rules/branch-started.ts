/**
 * branch-started — a reader's rule, not a window check: a session rewound to an
 * earlier message (a Claude Code rewind or edit) continues on a new branch. The
 * prefix it shares with the old branch is intact (the prompt cache is reused),
 * so this is not lost history: the step is judged from the branch point, and
 * this info says where the branch starts and how many messages of the old
 * branch left the context. Emitted by the Claude Code reader.
 */
import { defineRule } from './rule';

export const meta = defineRule({
  id: 'branch-started',
  severity: 'info',
  decides: 'none',
  title: 'A rewind started a branch from an earlier message',
  protects: '(1) prefix identity',
  fixes: [],
});
