// Minimal passive-mode FTP server over the simulated /file store. RouterOS 6
// has no /file/read, so a site agent on the LAN fetches backups by FTP with
// the API credentials; this is the subset such a client uses.
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import type { SimContext } from './command-types.js';
import { authenticate } from './user-accounts.js';

export class FtpServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly dataServers = new Set<Server>();

  constructor(
    private readonly sim: SimContext,
    private readonly host: string,
  ) {
    this.server = createServer((socket) => this.session(socket));
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, this.host, () => resolve());
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo | null)?.port ?? 0;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    for (const d of this.dataServers) d.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private session(ctrl: Socket): void {
    this.sockets.add(ctrl);
    ctrl.on('close', () => this.sockets.delete(ctrl));
    ctrl.on('error', () => undefined);
    const { state, credentials } = this.sim;
    let user: string | undefined;
    let authed = false;
    let cwd = '/';
    let data: Promise<Socket> | undefined;
    let dataServer: Server | undefined;
    const say = (line: string): void => {
      if (ctrl.writable) ctrl.write(`${line}\r\n`);
    };
    const resolvePath = (arg: string): string => {
      const joined = arg.startsWith('/') ? arg : `${cwd.replace(/\/$/, '')}/${arg}`;
      return joined.replace(/^\/+/, '');
    };
    const openPassive = async (): Promise<number> => {
      dataServer?.close();
      const srv = createServer();
      this.dataServers.add(srv);
      dataServer = srv;
      data = new Promise<Socket>((resolve) =>
        srv.once('connection', (s) => {
          this.sockets.add(s);
          s.on('close', () => this.sockets.delete(s));
          srv.close();
          this.dataServers.delete(srv);
          resolve(s);
        }),
      );
      await new Promise<void>((resolve) => srv.listen(0, this.host, () => resolve()));
      return (srv.address() as AddressInfo).port;
    };
    const takeData = async (): Promise<Socket | undefined> => {
      const pending = data;
      data = undefined;
      if (!pending) {
        say('425 Use PASV first');
        return undefined;
      }
      return pending;
    };

    say(`220 MikroTik FTP server (MikroTik ${state.caps.version.text}) ready`);
    let buffer = '';
    let queue = Promise.resolve();
    ctrl.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        // commands run one after the other, as FTP clients expect
        queue = queue.then(() => handle(line)).catch(() => say('451 Local error'));
      }
    });

    const handle = async (line: string): Promise<void> => {
      const sp = line.indexOf(' ');
      const cmd = (sp < 0 ? line : line.slice(0, sp)).toUpperCase();
      const arg = sp < 0 ? '' : line.slice(sp + 1);
      if (cmd === 'USER') {
        user = arg;
        authed = false;
        return say(`331 Password required for ${arg}`);
      }
      if (cmd === 'PASS') {
        authed = authenticate(state, user, 'ftp', (password) => arg === password) !== undefined;
        return say(authed ? `230 User ${user} logged in` : '530 Login incorrect');
      }
      if (cmd === 'QUIT') {
        say('221 Closing');
        ctrl.end();
        return;
      }
      if (!authed) return say('530 Please login with USER and PASS');
      switch (cmd) {
        case 'SYST':
          return say('215 UNIX Type: L8');
        case 'FEAT':
          return say('211-Features:\r\n SIZE\r\n PASV\r\n EPSV\r\n211 End');
        case 'NOOP':
          return say('200 NOOP command successful');
        case 'PWD':
        case 'XPWD':
          return say(`257 "${cwd}" is current directory`);
        case 'CWD': {
          const target = resolvePath(arg);
          if (target === '' || state.findFile(target)?.props.type === 'directory') {
            cwd = `/${target}`;
            return say('250 CWD command successful');
          }
          return say(`550 ${arg}: No such file or directory`);
        }
        case 'TYPE':
          return say(`200 Type set to ${arg.toUpperCase().startsWith('A') ? 'A' : 'I'}`);
        case 'PASV': {
          const port = await openPassive();
          const ip = (this.host === '0.0.0.0' ? '127.0.0.1' : this.host).split('.').join(',');
          return say(`227 Entering Passive Mode (${ip},${port >> 8},${port & 0xff})`);
        }
        case 'EPSV': {
          const port = await openPassive();
          return say(`229 Entering Extended Passive Mode (|||${port}|)`);
        }
        case 'SIZE': {
          const f = state.findFile(resolvePath(arg));
          if (!f || f.props.type === 'directory') return say(`550 ${arg}: No such file or directory`);
          return say(`213 ${f.blob?.length ?? 0}`);
        }
        case 'RETR': {
          const f = state.findFile(resolvePath(arg));
          if (!f || f.props.type === 'directory') return say(`550 ${arg}: No such file or directory`);
          const sock = await takeData();
          if (!sock) return;
          const bytes = f.blob ?? Buffer.alloc(0);
          say(`150 Opening BINARY mode data connection for ${arg} (${bytes.length} bytes)`);
          await new Promise<void>((resolve) => sock.end(bytes, () => resolve()));
          return say('226 Transfer complete');
        }
        case 'STOR': {
          const sock = await takeData();
          if (!sock) return;
          say(`150 Opening BINARY mode data connection for ${arg}`);
          const chunks: Buffer[] = [];
          await new Promise<void>((resolve) => {
            sock.on('data', (c: Buffer) => chunks.push(c));
            sock.on('end', () => resolve());
            sock.on('error', () => resolve());
          });
          try {
            state.writeFile(resolvePath(arg), Buffer.concat(chunks));
          } catch {
            return say('552 Requested file action aborted. Exceeded storage allocation');
          }
          return say('226 Transfer complete');
        }
        case 'DELE': {
          const f = state.findFile(resolvePath(arg));
          if (!f) return say(`550 ${arg}: No such file or directory`);
          state.table('/file').delete(f);
          return say('250 DELE command successful');
        }
        case 'LIST':
        case 'NLST': {
          const sock = await takeData();
          if (!sock) return;
          const dir = resolvePath(arg.startsWith('-') ? '' : arg).replace(/\/$/, '');
          const prefix = dir ? `${dir}/` : '';
          const entries = state
            .table('/file')
            .list()
            .filter((f) => {
              const name = f.props.name ?? '';
              return name.startsWith(prefix) && !name.slice(prefix.length).includes('/');
            });
          const text = entries
            .map((f) => {
              const name = (f.props.name ?? '').slice(prefix.length);
              if (cmd === 'NLST') return name;
              const isDir = f.props.type === 'directory';
              return `${isDir ? 'drwxrwx---' : '-rw-rw----'} 1 ${credentials.username} ${credentials.username} ${String(f.blob?.length ?? 0).padStart(10)} Jan  1 00:00 ${name}`;
            })
            .join('\r\n');
          say('150 Here comes the directory listing');
          await new Promise<void>((resolve) => sock.end(text ? `${text}\r\n` : '', () => resolve()));
          return say('226 Transfer complete');
        }
        default:
          return say(`502 ${cmd} not implemented`);
      }
    };
  }
}
