import './node-check.cjs';
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { buildOpenApiDocument } from '../lib/openapi/document';
import { OPENAPI_DOCUMENT_PATH, renderDocument } from '../lib/openapi/document-file';

/** `npm run openapi`: regenerates docs/openapi.json from the route table and the zod schemas. */
void buildOpenApiDocument().then((document) => {
  writeFileSync(OPENAPI_DOCUMENT_PATH, renderDocument(document));
  console.log(`Wrote ${relative(process.cwd(), OPENAPI_DOCUMENT_PATH)}: ${Object.keys(document.paths).length} paths, ${Object.keys(document.components.schemas).length} schemas`);
});
