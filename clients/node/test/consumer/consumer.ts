// Compiled with tsc --noEmit by install.test.mjs against the installed package: its types
// describe what a suite calls, and refuse what it must not.
import { ReplyError, startWarden, type CommandLogEntry, type Warden } from 'warden-testing';
import { useWarden as useNodeTest } from 'warden-testing/node-test';
import { useWarden as useVitest } from 'warden-testing/vitest';
import { useWarden as useJest } from 'warden-testing/jest';

export async function lease(): Promise<void> {
  const warden: Warden = await startWarden({ seed: 42n, config: { maxmemory: '10mb' } });
  const url: string = warden.url;
  const seed: string = warden.seed;
  await warden.freeze(1_700_000_000_000);
  await warden.advance(30_000);
  const now: number = await warden.now();
  const fault = await warden.faults.error('READONLY no',
    { command: 'set', key: 'lock:*', times: 1 });
  const removed: boolean = await fault.remove();
  await warden.faults.delay(100, { jitter: 10, clientName: 'worker-*' });
  await warden.commandLog.start();
  const entries: CommandLogEntry[] = await warden.commandLog.entries();
  const sent: string[][] = await warden.commandLog.commands({ includeScripts: false });
  await warden.snapshot.save('clean');
  await warden.snapshot.load();
  await warden.flush();
  await warden.stop();
  void [url, seed, now, removed, entries, sent, ReplyError];

  // @ts-expect-error advance takes milliseconds as a number
  await warden.advance('30s');
  // @ts-expect-error there is no such option
  await startWarden({ portt: 0 });
}

const viaNodeTest = useNodeTest({ flushBeforeEach: false });
const viaVitest: Warden = useVitest();
const viaJest = useJest({ seed: '7' });
export const ready: Promise<Warden> = viaNodeTest.ready;
void [viaVitest, viaJest];
