import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { childEndsWithParent, isAlive } from '../support/processes';

/**
 * DynamoDB Local is a Java process of its own. A local runtime or test run that dies without its
 * stop (kill -9, the OOM killer, a crash) must not leave it behind, holding its memory and the data
 * directory's database: it ends itself when the process that started it is gone.
 */

const started: number[] = [];
afterAll(() => {
  for (const pid of started.filter(isAlive)) process.kill(pid, 'SIGKILL');
});

it.each([false, true])('ends DynamoDB Local when the process that started it is killed (outlivesInterrupt %s)', async (outlivesInterrupt) => {
  const starter = `require(${JSON.stringify(join(process.cwd(), 'lib/local/dynamodb-loopback.cjs'))})
    .startLoopbackDynamoDb({ outlivesInterrupt: ${outlivesInterrupt} })
    .then((dynamodb) => console.log(dynamodb.process.pid));`;
  const parent = spawn(process.execPath, ['-e', starter], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(parent.stdout, 'data')) as [Buffer];
  const javaPid = Number(line.toString().trim());
  started.push(javaPid);
  expect(isAlive(javaPid)).toBe(true);
  expect(await childEndsWithParent(parent, javaPid)).toBe(true);
}, 90_000);
