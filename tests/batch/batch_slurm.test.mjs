// weld batch on a real Slurm cluster (docs/batch.md, "Slurm job array"): the test starts munged and a
// one-node cluster (slurmctld + slurmd on localhost, from Debian's slurm-wlm
// and munge, configured here in a temporary directory, on free ports), then
// submits docs/batch.md's Slurm recipe as a 4-task job array
// (`sbatch --array=0-3 --wait`); the shards come from SLURM_ARRAY_TASK_ID /
// SLURM_ARRAY_TASK_COUNT and together cover every row exactly once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { WELD, SCHEMA_TEXT, tempDir, writeRows, dataRows, resultLines, assertExactlyOnce, waitFor } from './lib.mjs';
import { recipe } from './recipes.mjs';

const SLURM = ['/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/sbin/munged', '/usr/bin/sbatch'];
const missing = SLURM.filter((p) => !fs.existsSync(p));
const skip = missing.length > 0 ? `Slurm is not installed (${missing.join(', ')}; scripts/install-deps.sh installs slurm-wlm and munge)`
  : process.getuid() !== 0 ? 'the one-node cluster runs its daemons as root (slurmd must launch jobs)' : false;

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); });
  });
}

function start(command, args, env, log) {
  const out = fs.openSync(log, 'a');
  return spawn(command, args, { env, stdio: ['ignore', out, out] });
}

function tail(file) {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').slice(-30).join('\n') : '(no log)';
}

test('a 4-task Slurm job array covers every row exactly once', { skip, timeout: 300000 }, async () => {
  const dir = tempDir('weld-slurm-');
  const daemons = [];
  try {
    const host = os.hostname().split('.')[0];
    const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
    for (const sub of ['state', 'spool', 'munge', 'work/results', 'work/logs', 'bin']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
    fs.chmodSync(path.join(dir, 'munge'), 0o700);
    // munged: its own key and socket, so the test needs nothing from the host.
    const key = path.join(dir, 'munge', 'munge.key');
    fs.writeFileSync(key, Buffer.alloc(1024, 7), { mode: 0o400 });
    const socket = path.join(dir, 'munge', 'munge.socket');
    const munge = spawnSync('/usr/sbin/munged', ['--force', `--socket=${socket}`, `--key-file=${key}`,
      `--pid-file=${path.join(dir, 'munge', 'munged.pid')}`, `--log-file=${path.join(dir, 'munge', 'munged.log')}`,
      `--seed-file=${path.join(dir, 'munge', 'munged.seed')}`], { encoding: 'utf8' });
    assert.equal(munge.status, 0, `munged: ${munge.stderr}`);
    daemons.push({ pidFile: path.join(dir, 'munge', 'munged.pid') });

    const conf = path.join(dir, 'slurm.conf');
    fs.writeFileSync(conf, [
      'ClusterName=weldtest',
      `SlurmctldHost=${host}(127.0.0.1)`,
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${slurmdPort}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      'AuthType=auth/munge',
      'CredType=cred/munge',
      `AuthInfo=socket=${socket}`,
      `StateSaveLocation=${path.join(dir, 'state')}`,
      `SlurmdSpoolDir=${path.join(dir, 'spool')}`,
      `SlurmctldPidFile=${path.join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${path.join(dir, 'slurmd.pid')}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'JobAcctGatherType=jobacct_gather/none',
      'AccountingStorageType=accounting_storage/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'SchedulerType=sched/backfill',
      'MpiDefault=none',
      'ReturnToService=2',
      'SlurmctldTimeout=30',
      'SlurmdTimeout=30',
      'InactiveLimit=0',
      'KillWait=5',
      'MaxArraySize=16',
      `NodeName=${host} NodeAddr=127.0.0.1 CPUs=${os.cpus().length} State=UNKNOWN`,
      `PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4`,
      '',
    ].join('\n'));
    // The recipe's weld answers from the offline model (a real job names its
    // server: OPENAI_BASE_URL, …); sbatch passes the environment on.
    const env = { PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, SLURM_CONF: conf, HOME: dir, WELD_PROVIDER: 'offline' };
    const ctld = start('/usr/sbin/slurmctld', ['-D', '-i', '-f', conf], env, path.join(dir, 'slurmctld.log'));
    const slurmd = start('/usr/sbin/slurmd', ['-D', '-f', conf, '-N', host], env, path.join(dir, 'slurmd.log'));
    daemons.push({ child: ctld }, { child: slurmd });
    const idle = await waitFor(() => {
      const info = spawnSync('/usr/bin/sinfo', ['-h', '-o', '%t'], { env, encoding: 'utf8' });
      return info.status === 0 && /^idle/m.test(info.stdout);
    }, 60000);
    assert.ok(idle, `the node did not come up\nslurmctld:\n${tail(path.join(dir, 'slurmctld.log'))}\nslurmd:\n${tail(path.join(dir, 'slurmd.log'))}`);

    // The recipe, as written in docs/batch.md, with weld on PATH.
    fs.symlinkSync(WELD, path.join(dir, 'bin', 'weld'));
    const work = path.join(dir, 'work');
    const rows = dataRows(400);
    writeRows(work, 'tickets.jsonl', rows);
    fs.writeFileSync(path.join(work, 'schema.json'), SCHEMA_TEXT);
    fs.writeFileSync(path.join(work, 'weld-batch.sbatch'), recipe('slurm'), { mode: 0o755 });
    const submitted = spawnSync('/usr/bin/sbatch', ['--wait', 'weld-batch.sbatch'],
      { cwd: work, env, encoding: 'utf8', timeout: 240000 });
    const logs = fs.readdirSync(path.join(work, 'logs')).map((f) => `${f}:\n${fs.readFileSync(path.join(work, 'logs', f), 'utf8')}`).join('\n');
    assert.equal(submitted.status, 0, `sbatch: ${submitted.stdout}${submitted.stderr}\n${logs}\nslurmd:\n${tail(path.join(dir, 'slurmd.log'))}`);

    const files = fs.readdirSync(path.join(work, 'results')).filter((f) => f.startsWith('out-')).sort();
    assert.deepEqual(files, ['out-0.jsonl', 'out-1.jsonl', 'out-2.jsonl', 'out-3.jsonl']);
    const lines = files.flatMap((f) => resultLines(fs.readFileSync(path.join(work, 'results', f), 'utf8')));
    assertExactlyOnce(lines, rows.map((r) => r.id));
    for (let i = 0; i < 4; ++i) {
      const summary = JSON.parse(fs.readFileSync(path.join(work, 'results', `summary-${i}.json`), 'utf8'));
      assert.deepEqual(summary.shard, { index: i, count: 4 });
      assert.equal(summary.exit_code, 0);
    }
  } finally {
    for (const d of daemons.reverse()) {
      if (d.child) { d.child.kill('SIGTERM'); await new Promise((r) => { if (d.child.exitCode !== null) r(); else { d.child.on('exit', r); setTimeout(r, 5000); } }); }
      if (d.pidFile && fs.existsSync(d.pidFile)) {
        const pid = Number(fs.readFileSync(d.pidFile, 'utf8'));
        try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
        // A daemon (munged) writes into the directory as it exits (its seed
        // file): wait for it to be gone, or the removal races it (ENOTEMPTY).
        for (let i = 0; i < 100; ++i) {
          try { process.kill(pid, 0); } catch { break; }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    }
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
});
