/** Where the real files others wrote live: `../shared/corpus` beside the repository (CI has it there). Tests read them in place. */
import path from 'node:path';

export const CORPUS = path.resolve(__dirname, '..', '..', '..', 'shared', 'corpus');
