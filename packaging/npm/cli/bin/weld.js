#!/usr/bin/env node
'use strict';
// The weld command of the npm package: runs the platform's weld binary with
// the same arguments, standard streams and environment. SIGINT, SIGTERM and
// SIGHUP sent to this process are passed on to weld, and this process ends
// as weld did: with its exit code, or by the same signal (docs/install.md,
// "npm"). A Ctrl-C in a terminal reaches both processes, so weld sees it
// twice and ends at once (exit 130), as on a second Ctrl-C.
const { spawn } = require('child_process');
const { binaryPath, BinaryNotFound } = require('../lib/binary.js');

let binary;
try {
  binary = binaryPath();
} catch (error) {
  if (!(error instanceof BinaryNotFound)) throw error;
  process.stderr.write(error.message + '\n');
  process.exit(127);
}

const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of forwarded) process.on(signal, forward);

child.on('error', (error) => {
  process.stderr.write(`weld: could not start ${binary}: ${error.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  if (signal) {
    // Ended by a signal: end the same way, so our parent sees what it would
    // have seen running weld itself.
    for (const s of forwarded) process.removeListener(s, forward);
    try {
      process.kill(process.pid, signal);
    } catch {
      // fall through
    }
    const number = require('os').constants.signals[signal];
    process.exit(128 + (number || 0));
  }
  process.exit(code);
});
