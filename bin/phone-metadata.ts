import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { phoneMetadata } from '../lib/phones/phone-metadata';
import { PROJECT_ROOT } from '../lib/project-paths';

/** `npx tsx bin/phone-metadata.ts`: rewrites lambdas/domain/phones/metadata.json after a libphonenumber-js upgrade. */
writeFileSync(join(PROJECT_ROOT, 'lambdas', 'domain', 'phones', 'metadata.json'), `${JSON.stringify(phoneMetadata())}\n`);
