// The package's RESP2 reader and writer (lib/resp.js): every reply warden sends the controls,
// whole and cut at every byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReplyError, encodeCommand, parseReply } from '../lib/resp.js';

const REPLIES = [
  ['+OK\r\n', 'OK'],
  ['-ERR no such snapshot\r\n', new ReplyError('ERR no such snapshot')],
  [':-2\r\n', -2],
  ['$5\r\nhé!\r\r\n', 'hé!\r'],  // five bytes, a CR among them
  ['$-1\r\n', null],
  ['*-1\r\n', null],
  ['*0\r\n', []],
  ['*2\r\n$6\r\nfrozen\r\n:1700000000000\r\n', ['frozen', 1_700_000_000_000]],
  ['*1\r\n*3\r\n$4\r\nname\r\n$-1\r\n-ERR inner\r\n', [['name', null, new ReplyError('ERR inner')]]],
];

test('each reply is read whole, and not before its last byte', () => {
  for (const [wire, value] of REPLIES) {
    const bytes = Buffer.from(wire);
    for (let cut = 0; cut < bytes.length; cut++) {
      assert.equal(parseReply(bytes.subarray(0, cut)), null, `${JSON.stringify(wire)} at ${cut}`);
    }
    assert.deepEqual(parseReply(bytes), { value, end: bytes.length });
  }
});

test('a reply is read from an offset, the next one after its end', () => {
  const bytes = Buffer.from('+OK\r\n:7\r\n');
  const first = parseReply(bytes);
  assert.deepEqual(parseReply(bytes, first.end), { value: 7, end: bytes.length });
});

test('commands are arrays of bulk strings, lengths in bytes', () => {
  assert.equal(encodeCommand(['SET', 'clé', 30000]),
    '*3\r\n$3\r\nSET\r\n$4\r\nclé\r\n$5\r\n30000\r\n');
});
