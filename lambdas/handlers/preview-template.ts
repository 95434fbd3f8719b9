import * as z from '../shared/zod';
import { previewTemplateVersion, templatePreviewSchema } from '../domain/templates/read-templates';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import { uuid } from '../http/schemas';
import * as routes from '../routes';
import { bodyReading } from '../http/middleware/body-reading';

const variable = z.strictObject({
  name: z.string().check(z.minLength(1), z.maxLength(64)),
  // Read as unknown so its message names the variable (below); the document still says what it takes.
  value: z.unknown().register(z.globalRegistry, { type: 'string' }),
});

export const schemas = {
  // API Gateway calls this segment templateId; it holds a template version id (see routes.ts).
  path: z.object({ templateId: uuid().register(z.globalRegistry, { description: 'A template version id: the contract’s `templateVersionId`.' }) }),
  body: z.strictObject({
    variables: z.pipe(z.array(variable).check(z.maxLength(50, 'at most 50 variables'), z.superRefine((items, ctx) => {
        items.forEach((item, index) => {
          if (typeof item.value !== 'string') ctx.addIssue({ code: 'custom', path: [index, 'value'], message: `variable "${item.name}": value must be a string` });
        });
      })), z.transform((items) => items.map(({ name, value }) => ({ name, value: value as string })))),
  }),
  response: templatePreviewSchema,
};

/** POST /v1/message-templates/{templateVersionId}/preview (docs/api.md#preview-a-template). */
export const previewMessageTemplate = async ({ principal, path, body }: AuthorizedRequest<typeof schemas>) =>
  ok(await previewTemplateVersion(principal.workspaceId, path.templateId, body.variables));

export const handler = httpHandler(routes.previewTemplate, schemas, previewMessageTemplate, { bodyReading });
