// nchan for `npm run bench:realtime`: Debian's nginx with libnginx-mod-nchan, one worker, a
// publisher location (HTTP POST) and a websocket subscriber location on one channel. Answers a
// sentence instead when nginx or the module is absent or nginx refuses the configuration.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const NGINX = '/usr/sbin/nginx';
const MODULE = '/usr/lib/nginx/modules/ngx_nchan_module.so';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

export async function startNchan(
  work: string,
  track: (c: ChildProcess) => ChildProcess,
): Promise<{ pub: string; sub: string; pid: number } | string> {
  if (!existsSync(NGINX)) return `${NGINX} not installed`;
  if (!existsSync(MODULE)) return `${MODULE} not installed`;
  const port = await freePort();
  const dir = join(work, 'nginx');
  mkdirSync(dir, { recursive: true });
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `load_module ${MODULE};
worker_processes 1; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log warn;
worker_rlimit_nofile 65536;
events { worker_connections 32768; }
http {
  access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir};
  uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location = /pub { nchan_publisher; nchan_channel_id presence; nchan_message_buffer_length 1000; }
    location = /sub { nchan_subscriber websocket; nchan_channel_id presence; }
  }
}
`,
  );
  const test = spawnSync(NGINX, ['-t', '-c', conf, '-p', dir], { encoding: 'utf8' });
  if (test.status !== 0) return `nginx refused the configuration: ${test.stderr.trim().split('\n')[0]}`;
  const nginx = track(spawn(NGINX, ['-c', conf, '-p', dir], { stdio: 'ignore' }));
  for (let i = 0; i < 50; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/pub`, { method: 'GET' });
      return { pub: `http://127.0.0.1:${port}/pub`, sub: `ws://127.0.0.1:${port}/sub`, pid: nginx.pid! };
    } catch {
      await sleep(100);
    }
  }
  return 'nginx did not start listening';
}
