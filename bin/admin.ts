import './node-check.cjs';
import { runAdmin } from '../lib/admin/cli';

process.exitCode = await runAdmin(process.argv.slice(2), {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
  env: process.env,
});
