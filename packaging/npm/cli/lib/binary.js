'use strict';
// Where the weld binary is: $WELD_BINARY, else the platform package installed
// beside this one (an optionalDependency per platform, as esbuild and Biome
// ship theirs: npm installs only the one whose os, cpu and libc match).
// docs/install.md, "npm".
const fs = require('fs');
const path = require('path');

const PACKAGE = require('../package.json');
// The platforms weld is built for: npm's process.platform-process.arch.
const PLATFORMS = { 'linux-x64': 'linux-x64', 'linux-arm64': 'linux-arm64' };
const GLIBC_FLOOR = PACKAGE.weld && PACKAGE.weld.glibc ? PACKAGE.weld.glibc : '2.34';

class BinaryNotFound extends Error {}

function glibcVersion() {
  try {
    const header = process.report.getReport().header;
    return header.glibcVersionRuntime || null;
  } catch {
    return null;
  }
}

function olderThan(version, floor) {
  const a = version.split('.').map(Number);
  const b = floor.split('.').map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); ++i) {
    if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) < (b[i] || 0);
  }
  return false;
}

function platformPackage() {
  const key = `${process.platform}-${process.arch}`;
  return PLATFORMS[key] ? `${PACKAGE.name}-${PLATFORMS[key]}` : null;
}

// The path of the binary to run; throws BinaryNotFound with the message to
// print (one paragraph that says what to do).
function binaryPath() {
  const override = process.env.WELD_BINARY;
  if (override) {
    if (!fs.existsSync(override)) {
      throw new BinaryNotFound(`weld: WELD_BINARY is set to ${override}, which does not exist. ` +
                               'Point it at a weld executable, or unset it to use the one this package installed.');
    }
    return override;
  }
  const key = `${process.platform}-${process.arch}`;
  const name = platformPackage();
  if (!name) {
    throw new BinaryNotFound(`weld: there is no prebuilt weld for ${key}; the npm packages hold linux-x64 and ` +
                             `linux-arm64 (glibc ${GLIBC_FLOOR} or newer). Build weld from source (its README, ` +
                             '"Building from source") and set WELD_BINARY to it.');
  }
  const glibc = process.platform === 'linux' ? glibcVersion() : null;
  if (process.platform === 'linux' && !glibc) {
    throw new BinaryNotFound('weld: this Linux has no glibc (musl, e.g. Alpine); the prebuilt weld needs glibc ' +
                             `${GLIBC_FLOOR} or newer. Build weld from source and set WELD_BINARY to it.`);
  }
  if (glibc && olderThan(glibc, GLIBC_FLOOR)) {
    throw new BinaryNotFound(`weld: this system's glibc is ${glibc}; the prebuilt weld needs ${GLIBC_FLOOR} or ` +
                             'newer. Build weld from source and set WELD_BINARY to it.');
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    throw new BinaryNotFound(`weld: the package ${name}, which holds weld's binary for ${key}, is not installed. ` +
                             'npm leaves it out when optional dependencies are omitted (--omit=optional, ' +
                             '--no-optional, or omit=optional in .npmrc) or when the platform seen at install ' +
                             `time was another one. Reinstall without that: npm install ${PACKAGE.name}` +
                             ` (or add ${name} yourself), or set WELD_BINARY to a weld executable.`);
  }
  const binary = path.join(dir, 'bin', 'weld');
  if (!fs.existsSync(binary)) {
    throw new BinaryNotFound(`weld: ${name} is installed but holds no bin/weld (${binary}); reinstall it: ` +
                             `npm install ${PACKAGE.name}`);
  }
  return binary;
}

module.exports = { binaryPath, BinaryNotFound, platformPackage };
