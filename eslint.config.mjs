// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

const configOnlyFromConfigTs = { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read configuration through lambdas/shared/config.ts' };
// Functions use zod/mini through lambdas/shared/zod.ts, which sets its English messages: zod's full
// build is about 60 KB more per function, and its `z` re-export (about 370 KB) no bundle can shake.
const miniZodOnly = {
  selector: "ImportDeclaration[source.value=/^zod($|[^\\w-])/][importKind!='type']",
  message: "Import zod as `import * as z from '…/shared/zod'` (zod/mini with English messages; docs/validation.md)",
};

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', '.messaging/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: { allowDefaultProject: ['*.cjs', '*.mjs', 'bin/*.cjs', 'lib/*.cjs', 'lib/local/*.mjs', 'lib/local/*.cjs', 'test/support/*.mjs', 'test/support/*.cjs'] }, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', configOnlyFromConfigTs, miniZodOnly],
    },
  },
  {
    // The one module that imports zod itself.
    files: ['lambdas/shared/zod.ts'],
    rules: { 'no-restricted-syntax': ['error', configOnlyFromConfigTs] },
  },
  {
    // Entry points, local tooling and tests configure themselves from their own environment.
    files: ['bin/**', 'lib/**', 'test/**', 'bench/**', '*.cjs', '*.mjs'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  { files: ['lambdas/shared/config.ts'], rules: { 'no-restricted-syntax': ['error', miniZodOnly] } },
  {
    files: ['test/**'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/require-await': 'off',
      // Jest's asymmetric matchers and synthesized CloudFormation JSON are `any` by design.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    // Keep disableTypeChecked's parser options (no project service): plain JavaScript needs no
    // TypeScript program, and the default project takes at most eight files.
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { process: 'readonly', globalThis: 'readonly', module: 'writable', require: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', __dirname: 'readonly' } },
  },
  // CommonJS files (jest's config, the Node check every tool loads first) load modules with require().
  { files: ['**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
