// The package as a user gets it: a scratch project installs it from its path with npm, offline
// (it has no dependencies), and runs lease.test.mjs, which imports 'warden-testing' and
// 'warden-testing/node-test', with node's test runner. Then tsc checks a consumer against the
// installed types, when a TypeScript is at hand (tests/clients/node installs one).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PACKAGE = dirname(dirname(fileURLToPath(import.meta.url)));
const TSC = [
  process.env.TSC,
  join(PACKAGE, '../../tests/clients/node/node_modules/typescript/bin/tsc'),
].find((path) => path && existsSync(path));

// npm run passes npm_* settings down (the project's prefix among them), and node --test tells
// its children to report to it (NODE_TEST_CONTEXT): the scratch project sees neither.
// A relative WARDEN_BINARY is made absolute: the scratch project is elsewhere.
const env = Object.fromEntries(Object.entries(process.env)
  .filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_TEST_CONTEXT'));
if (env.WARDEN_BINARY) env.WARDEN_BINARY = resolve(env.WARDEN_BINARY);

async function scratchProject(installArgs) {
  const dir = await mkdtemp(join(tmpdir(), 'warden-testing-install-'));
  await writeFile(join(dir, 'package.json'),
    JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', ...installArgs, PACKAGE],
    { cwd: dir, env });
  // The example's Redis client, the package's own dev dependency, stands for the user's.
  await symlink(join(PACKAGE, 'node_modules/ioredis'), join(dir, 'node_modules/ioredis'));
  await mkdir(join(dir, 'test'));
  await copyFile(join(PACKAGE, 'test/lease.test.mjs'), join(dir, 'test/lease.test.mjs'));
  return dir;
}

for (const [how, installArgs] of [['npm install <path>', []],
  ['npm install --install-links <path>', ['--install-links']]]) {
  describe(`a project after ${how}`, () => {
    let dir;
    before(async () => {
      dir = await scratchProject(installArgs);
    });
    after(() => rm(dir, { recursive: true, force: true }));

    test('runs the example with node --test', async () => {
      const { stdout } = await run(process.execPath, ['--test', 'test/lease.test.mjs'],
        { cwd: dir, env }).catch((error) => assert.fail(`${error.stdout}${error.stderr}`));
      assert.match(stdout, /^# pass 3$/m);
      assert.match(stdout, /^# fail 0$/m);
    });
  });
}

describe('the packed package', () => {
  let dir;
  before(async () => {
    dir = await scratchProject(['--install-links']);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('holds the modules, their types and nothing else', async () => {
    const installed = join(dir, 'node_modules/warden-testing');
    assert.deepEqual((await readdir(installed)).sort(), [
      'README.md', 'index.d.ts', 'index.js', 'jest.d.ts', 'jest.js', 'lib', 'node-test.d.ts',
      'node-test.js', 'package.json', 'vitest.d.ts', 'vitest.js',
    ]);
  });

  test('its types check a consumer', { skip: !TSC && 'no TypeScript here' }, async () => {
    await copyFile(join(PACKAGE, 'test/consumer/consumer.ts'), join(dir, 'consumer.ts'));
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'],
        types: [], strict: true, noEmit: true, skipLibCheck: false,
      },
      files: ['consumer.ts'],
    }));
    await run(process.execPath, [TSC, '-p', dir], { cwd: dir, env }).catch((error) => {
      assert.fail(`tsc: ${error.stdout}${error.stderr}`);
    });
  });
});
