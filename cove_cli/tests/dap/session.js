// Drives `cove debug --dap` with @vscode/debugadapter-testsupport's
// DebugClient, a DAP client nobody on the Cove project wrote.
//
//   COVE_BIN=target/debug/cove node session.js stdio
//   COVE_BIN=target/debug/cove node session.js port 4711   (a server already listening)
//
// Prints one line a check and exits 0 when every check held; any failed
// assertion or timeout exits 1 with the reason.

'use strict';

const assert = require('assert');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const root = path.resolve(__dirname, '..', '..', '..');
const shapes = path.join(root, 'cove_cli', 'tests', 'fixtures', 'debug', 'shapes.cove');
const fails = path.join(root, 'examples', 'fails.cove');
const forever = path.join(root, 'cove_cli', 'tests', 'fixtures', 'forever.cove');

function check(what) {
  console.log(`ok: ${what}`);
}

async function variablesOf(dc, frameId) {
  const scopes = await dc.scopesRequest({ frameId });
  assert.strictEqual(scopes.body.scopes[0].name, 'Locals');
  const vars = await dc.variablesRequest({
    variablesReference: scopes.body.scopes[0].variablesReference,
  });
  const byName = {};
  for (const v of vars.body.variables) byName[v.name] = v;
  return byName;
}

async function topFrames(dc, threadId) {
  const trace = await dc.stackTraceRequest({ threadId });
  return trace.body.stackFrames;
}

// A breakpoint in a callee, the stack, the scopes and variables, stepping
// and the end of the run.
async function stepping(dc) {
  const [, , stop] = await dc.hitBreakpoint({ program: shapes }, { path: shapes, line: 24 });
  let frames = stop.body.stackFrames;
  assert.strictEqual(frames[0].name, 'shapes.square');
  assert.strictEqual(frames[1].name, 'shapes.main');
  assert.strictEqual(frames[1].line, 40);
  check('a breakpoint in a callee stops there; the stack names it and its caller');

  let vars = await variablesOf(dc, frames[0].id);
  assert.strictEqual(vars.n.value, '0');
  assert.strictEqual(vars.n.type, 'Int');
  const outer = await variablesOf(dc, frames[1].id);
  assert.strictEqual(outer.p.type, 'Point');
  assert.ok(outer.p.variablesReference > 0);
  const fields = await dc.variablesRequest({ variablesReference: outer.p.variablesReference });
  assert.deepStrictEqual(fields.body.variables.map((v) => `${v.name}=${v.value}`), ['x=1', 'y=2']);
  assert.strictEqual(outer.names.type, 'List[String]');
  check('scopes and variables give typed locals, and a struct expands to its fields');

  await Promise.all([dc.nextRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { line: 25 })]);
  check('next goes to the next line');
  await Promise.all([dc.stepOutRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { line: 40 })]);
  frames = await topFrames(dc, 1);
  assert.strictEqual(frames[0].name, 'shapes.main');
  check('stepOut returns to the caller');

  await dc.setBreakpointsRequest({ source: { path: shapes }, breakpoints: [] });
  // The call on line 40 has returned: stepping goes round the loop first.
  await Promise.all([dc.stepInRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { line: 39 })]);
  await Promise.all([dc.stepInRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { line: 40 })]);
  await Promise.all([dc.stepInRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { line: 24 })]);
  frames = await topFrames(dc, 1);
  assert.strictEqual(frames[0].name, 'shapes.square');
  vars = await variablesOf(dc, frames[0].id);
  assert.strictEqual(vars.n.value, '1');
  check('stepIn enters the call, where n is now 1');

  const evaluated = await dc.evaluateRequest({ expression: 'n * 10 + 2', frameId: frames[0].id, context: 'repl' });
  assert.strictEqual(evaluated.body.result, '12');
  assert.strictEqual(evaluated.body.type, 'Int');
  check('evaluate computes an expression over the frame');

  const threads = await dc.threadsRequest();
  assert.deepStrictEqual(threads.body.threads.map((t) => t.name), ['main']);
  const code = await dc.disassembleRequest({
    memoryReference: frames[0].instructionPointerReference,
    instructionOffset: 0,
    instructionCount: 2,
  });
  assert.ok(code.body.instructions[0].instruction.includes('shapes.square@0'), code.body.instructions[0].instruction);
  const profile = await dc.customRequest('profile');
  assert.ok(profile.body.text.includes('shapes.square'), profile.body.text);
  check('threads, disassemble and the profile so far');

  await Promise.all([
    dc.continueRequest({ threadId: 1 }),
    dc.assertOutput('stdout', 'total 38\n'),
    dc.waitForEvent('exited').then((e) => assert.strictEqual(e.body.exitCode, 38)),
    dc.waitForEvent('terminated'),
  ]);
  check('continue runs to the end: the output, the exit code, terminated');
}

// A runtime error stops at the faulting frame with its locals.
async function fault(dc) {
  await Promise.all([
    dc.configurationSequence(),
    dc.launch({ program: fails }),
    dc.waitForEvent('stopped').then((e) => {
      assert.strictEqual(e.body.reason, 'exception');
      assert.strictEqual(e.body.text, 'division by zero');
    }),
  ]);
  const frames = await topFrames(dc, 1);
  assert.deepStrictEqual(frames.map((f) => f.name), ['fails.average', 'fails.report', 'fails.main']);
  const vars = await variablesOf(dc, frames[0].id);
  assert.strictEqual(vars.count.value, '0');
  check('a runtime error stops at the faulting frame, its locals readable');
  await Promise.all([
    dc.continueRequest({ threadId: 1 }),
    dc.waitForEvent('exited').then((e) => assert.strictEqual(e.body.exitCode, 70)),
  ]);
  check('continuing from the error ends the run with its status');
}

// Entry, a function breakpoint with a condition, and a pause from outside.
async function entryFunctionAndPause(dc) {
  await Promise.all([
    dc.configurationSequence(),
    dc.launch({ program: shapes, stopOnEntry: true }),
    dc.assertStoppedLocation('entry', { line: 29 }),
  ]);
  const set = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'square', condition: 'n == 2' }] });
  assert.strictEqual(set.body.breakpoints[0].verified, true);
  await Promise.all([dc.continueRequest({ threadId: 1 }), dc.assertStoppedLocation('breakpoint', { line: 24 })]);
  const frames = await topFrames(dc, 1);
  const vars = await variablesOf(dc, frames[0].id);
  assert.strictEqual(vars.n.value, '2');
  check('stopOnEntry, then a conditional function breakpoint');
  await Promise.all([dc.terminateRequest(), dc.waitForEvent('terminated')]);

  await dc.launchRequest({ program: forever });
  await dc.configurationDoneRequest();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await Promise.all([dc.pauseRequest({ threadId: 1 }), dc.waitForEvent('stopped').then((e) => assert.strictEqual(e.body.reason, 'pause'))]);
  const paused = await topFrames(dc, 1);
  assert.ok(paused.length >= 1);
  check('pause stops a running program where it is');
}

async function main() {
  const mode = process.argv[2] || 'stdio';
  const port = Number(process.argv[3]);
  const dc = new DebugClient('/bin/sh', path.join(__dirname, 'cove-dap.sh'), 'cove', { env: process.env });
  dc.defaultTimeout = 20000;
  if (mode === 'port') {
    await dc.start(port);
    await entryFunctionAndPause(dc);
  } else {
    await dc.start();
    await stepping(dc);
    await dc.stop();
    const again = new DebugClient('/bin/sh', path.join(__dirname, 'cove-dap.sh'), 'cove', { env: process.env });
    again.defaultTimeout = 20000;
    await again.start();
    await fault(again);
    await again.stop();
    return;
  }
  await dc.stop();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`failed: ${e && e.stack ? e.stack : e}`);
    process.exit(1);
  },
);
