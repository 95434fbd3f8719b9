// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', '.messaging/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: { allowDefaultProject: ['*.js', '*.mjs', 'test/support/*.mjs', 'test/support/*.js'] }, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read configuration through lambdas/shared/config.ts' },
      ],
    },
  },
  {
    // Entry points, local tooling and tests configure themselves from their own environment.
    files: ['bin/**', 'lib/**', 'test/**', 'bench/**', '*.js', '*.mjs', 'lambdas/shared/config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
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
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', globalThis: 'readonly', module: 'writable', require: 'readonly', setTimeout: 'readonly' } },
  },
);
