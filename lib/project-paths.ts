import { join } from 'node:path';
import projectRoot from './project-root.cjs';

/** The project's root folder (where package.json is). */
export const PROJECT_ROOT = projectRoot;

/** The route and consumer handlers the stack bundles and the OpenAPI generator reads. */
export const HANDLERS_DIR = join(PROJECT_ROOT, 'lambdas', 'handlers');
