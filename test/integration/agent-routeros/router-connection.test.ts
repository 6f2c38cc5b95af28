import { createHash } from 'node:crypto';
import net from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import { RouterConnection } from '../../../agent/routeros/router-connection.js';
import type { RouterConnectionOptions } from '../../../agent/routeros/router-connection.js';
import { ScriptedRouter, answerDone } from './support/scripted-router.js';
import type { ScriptedCommand } from './support/scripted-router.js';
import { delay, expectRouterError, oneTurn, rejectionOf, watchProcessFailures } from './support/helpers.js';
import { waitFor } from '../../support/wait-for.js';
import { encodeSentence } from '../../routeros-sim/api-wire.js';

function md5Hex(hex: string): string {
  return createHash('md5').update(Buffer.from(hex, 'hex')).digest('hex');
}

function encodeRaw(words: string[]): Buffer {
  return encodeSentence(words);
}

describe('RouterConnection (real sockets, scripted router)', () => {
  let router: ScriptedRouter;
  let conn: RouterConnection;
  let watch: ReturnType<typeof watchProcessFailures>;

  async function setup(
    script: (cmd: ScriptedCommand) => void,
    options: Partial<RouterConnectionOptions> = {},
  ) {
    router = new ScriptedRouter(script);
    const port = await router.start();
    conn = new RouterConnection({
      host: '127.0.0.1',
      port,
      user: 'admin',
      password: 'secret',
      timeoutMs: 2000,
      ...options,
    });
  }

  beforeEach(() => {
    watch = watchProcessFailures();
  });

  afterEach(async () => {
    await conn?.close();
    await router?.stop();
    // late socket events and rejections reach the spies while they still listen
    await oneTurn();
    watch.restore();
  });

  it('logs in and returns the !re records of a command', async () => {
    await setup((cmd) =>
      cmd.reply(['!re', '=.id=*1', '=name=alpha'], ['!re', '=.id=*2', '=name=béta'], ['!done']),
    );
    const rows = await conn.print('/ip/hotspot/user');
    expect(rows).to.deep.equal([
      { '.id': '*1', name: 'alpha' },
      { '.id': '*2', name: 'béta' },
    ]);
    expect(router.commands[0]?.words.slice(0, 3)).to.deep.equal([
      '/login',
      '=name=admin',
      '=password=secret',
    ]);
    expect(conn.isConnected).to.equal(true);
    watch.assertNone();
  });

  it('refuses a wrong password with ROUTER_AUTH_FAILED, not retryable', async () => {
    await setup(answerDone, { password: 'wrong' });
    const err = await expectRouterError(conn.print('/system/identity'), 'ROUTER_AUTH_FAILED');
    expect(err.retryable).to.equal(false);
    expect(err.message).to.include('invalid user name or password');
    watch.assertNone();
  });

  it('answers the MD5 challenge of routers before 6.43', async () => {
    let challenged = false;
    router = new ScriptedRouter(
      (cmd) => {
        if (cmd.path !== '/login') return cmd.reply(['!re', '=name=old'], ['!done']);
        if (cmd.attrs.has('password')) {
          challenged = true;
          return cmd.reply(['!done', '=ret=00112233445566778899aabbccddeeff']);
        }
        // md5(0x00 + "secret" + challenge), precomputed independently of the client
        const ok =
          cmd.attrs.get('response') ===
          '00' + md5Hex('00' + Buffer.from('secret').toString('hex') + '00112233445566778899aabbccddeeff');
        cmd.reply(ok ? ['!done'] : ['!trap', '=message=cannot log in']);
      },
      { handleLogin: false },
    );
    const port = await router.start();
    conn = new RouterConnection({ host: '127.0.0.1', port, user: 'admin', password: 'secret' });
    expect(await conn.print('/system/identity')).to.deep.equal([{ name: 'old' }]);
    expect(challenged).to.equal(true);
  });

  it('takes !empty (RouterOS 7.18+) as no records, without crashing', async () => {
    await setup((cmd) => cmd.reply(['!empty'], ['!done']));
    expect(await conn.print('/ip/hotspot/user', { where: { name: 'nobody' } })).to.deep.equal([]);
    expect(await conn.count('/ip/hotspot/user', { name: 'nobody' })).to.equal(0);
    // the link is still good afterwards
    expect(await conn.write('/system/identity/print')).to.deep.equal([]);
    expect(router.sockets).to.have.length(1);
    watch.assertNone();
  });

  it('rejects a call cut by ECONNRESET with ROUTER_UNREACHABLE and reconnects on the next call', async () => {
    await setup((cmd) => {
      if (cmd.connection === 0) cmd.socket.resetAndDestroy();
      else cmd.reply(['!re', '=name=back'], ['!done']);
    });
    const err = await expectRouterError(conn.print('/system/identity'), 'ROUTER_UNREACHABLE');
    expect(err.retryable).to.equal(true);
    expect(err.message).to.match(/reset/);
    expect(await conn.print('/system/identity')).to.deep.equal([{ name: 'back' }]);
    expect(router.sockets).to.have.length(2);
    watch.assertNone();
  });

  it('rejects with ROUTER_UNREACHABLE when the router closes the connection mid-call', async () => {
    await setup((cmd) => cmd.socket.end());
    await expectRouterError(conn.print('/system/identity'), 'ROUTER_UNREACHABLE');
    watch.assertNone();
  });

  it('turns a router that goes silent into ROUTER_TIMEOUT within the timeout, then reconnects', async () => {
    await setup(
      (cmd) => {
        // first connection: the router "lost power" — no answer, no FIN
        if (cmd.connection > 0) cmd.reply(['!re', '=name=again'], ['!done']);
      },
      { timeoutMs: 300 },
    );
    const started = Date.now();
    const err = await expectRouterError(conn.print('/system/identity'), 'ROUTER_TIMEOUT');
    const elapsed = Date.now() - started;
    expect(elapsed).to.be.within(250, 1500);
    expect(err.retryable).to.equal(true);
    expect(conn.isConnected).to.equal(false);
    expect(await conn.print('/system/identity')).to.deep.equal([{ name: 'again' }]);
    expect(router.sockets).to.have.length(2);
    watch.assertNone();
  });

  it('drops every call sharing a link that timed out', async () => {
    await setup(() => undefined, { timeoutMs: 200 });
    const slow = expectRouterError(conn.print('/a', { timeoutMs: 5000 }), 'ROUTER_TIMEOUT');
    const quick = expectRouterError(conn.print('/b'), 'ROUTER_TIMEOUT');
    await Promise.all([slow, quick]);
  });

  it('keeps a long print alive while records keep streaming (the timeout is per silence)', async () => {
    await setup(
      (cmd) => {
        let n = 0;
        const timer = setInterval(() => {
          if (n < 8) cmd.reply(['!re', `=n=${n++}`]);
          else {
            clearInterval(timer);
            cmd.reply(['!done']);
          }
        }, 60);
      },
      { timeoutMs: 200 },
    );
    const rows = await conn.print('/ip/hotspot/user');
    expect(rows.map((r) => r.n)).to.deep.equal(['0', '1', '2', '3', '4', '5', '6', '7']);
  });

  it('ignores a late reply on an abandoned tag, replies on unknown tags, untagged and unknown reply words', async () => {
    let abandoned: ScriptedCommand | undefined;
    await setup((cmd) => {
      if (cmd.path === '/cancel') return cmd.reply(['!done']);
      if (cmd.words[0] === '/slow') {
        abandoned = cmd;
        return;
      }
      cmd.reply(['!future-reply-word', '=x=1'], ['!re', '=name=ok'], ['!done']);
    });
    const ac = new AbortController();
    const slow = conn.write('/slow', [], { signal: ac.signal });
    await waitFor(() => abandoned, { what: 'the router to receive /slow' });
    ac.abort(new Error('deadline passed'));
    expect(String(await rejectionOf(slow))).to.include('deadline passed');
    // the client asked the router to cancel the abandoned tag
    const cancel = await waitFor(() => router.commands.find((c) => c.path === '/cancel'), {
      what: 'the router to receive /cancel',
    });
    expect(cancel?.attrs.get('tag')).to.equal(abandoned?.tag);
    // now the router answers it anyway, plus noise on a tag nobody asked for
    abandoned?.reply(['!re', '=late=yes'], ['!trap', '=category=2', '=message=interrupted'], ['!done']);
    const socket = router.sockets[0] as net.Socket;
    socket.write(
      Buffer.concat([
        encodeRaw(['!re', '.tag=9999', '=ghost=1']),
        encodeRaw(['!done', '.tag=9999']),
        encodeRaw(['!re', '=untagged=1']),
      ]),
    );
    // The answer to the next command comes after the noise on the same socket: by then it was read.
    expect(await conn.print('/system/identity')).to.deep.equal([{ name: 'ok' }]);
    expect(router.sockets).to.have.length(1);
    watch.assertNone();
  });

  it('reports a trap with its category and keeps the link', async () => {
    await setup((cmd) => {
      if (cmd.words[0] === '/bad/add')
        cmd.reply(['!trap', '=category=1', '=message=invalid value for argument x'], ['!done']);
      else if (cmd.words[0] === '/system/backup/save')
        cmd.reply(['!trap', '=message=not enough space'], ['!done']);
      else cmd.reply(['!done', '=ret=*1A']);
    });
    const trap = await expectRouterError(conn.add('/bad', { x: 'y' }), 'ROUTER_TRAP');
    expect(trap.category).to.equal(1);
    expect(trap.message).to.include('invalid value for argument x');
    expect(trap.retryable).to.equal(false);
    const full = await expectRouterError(conn.write('/system/backup/save', { name: 'b' }), 'NO_SPACE');
    expect(full.retryable).to.equal(false);
    expect(await conn.add('/ip/hotspot/user', { name: 'v1' })).to.equal('*1A');
    expect(router.sockets).to.have.length(1);
  });

  it('ends all calls with ROUTER_UNREACHABLE on !fatal', async () => {
    await setup((cmd) => cmd.socket.write(encodeRaw(['!fatal', 'session terminated on request'])));
    const err = await expectRouterError(conn.print('/system/identity'), 'ROUTER_UNREACHABLE');
    expect(err.message).to.include('session terminated on request');
    watch.assertNone();
  });

  it('matches concurrent replies to their calls by tag, whatever the order', async () => {
    const held: ScriptedCommand[] = [];
    await setup((cmd) => {
      held.push(cmd);
      if (held.length === 3)
        for (const c of [...held].reverse()) c.reply(['!re', `=cmd=${c.words[0]}`], ['!done']);
    });
    const [a, b, c] = await Promise.all([conn.write('/a'), conn.write('/b'), conn.write('/c')]);
    expect([a, b, c]).to.deep.equal([[{ cmd: '/a' }], [{ cmd: '/b' }], [{ cmd: '/c' }]]);
  });

  it('decodes replies split into tiny TCP segments', async () => {
    await setup((cmd) => {
      const bytes = Buffer.concat([
        encodeRaw(['!re', `.tag=${cmd.tag}`, '=comment=' + 'x'.repeat(300), '=name=split']),
        encodeRaw(['!done', `.tag=${cmd.tag}`]),
      ]);
      void (async () => {
        for (let i = 0; i < bytes.length; i += 7) {
          cmd.socket.write(bytes.subarray(i, i + 7));
          await delay(1);
        }
      })();
    });
    expect(await conn.print('/x')).to.deep.equal([{ comment: 'x'.repeat(300), name: 'split' }]);
  });

  it('returns binary attribute values byte for byte through call()', async () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    await setup((cmd) => cmd.reply(['!re', Buffer.concat([Buffer.from('=data='), all])], ['!done']));
    const reply = await conn.call('/file/read', { file: 'x', offset: 0, 'chunk-size': 256 });
    expect(reply.records[0]?.get('data')?.equals(all)).to.equal(true);
  });

  it('sends the words RouterOS expects for print, add, set, remove and count', async () => {
    await setup((cmd) => {
      if (cmd.words[0]?.endsWith('/add')) cmd.reply(['!done', '=ret=*2B']);
      else if (cmd.attrs.has('count-only')) cmd.reply(['!done', '=ret=42']);
      else cmd.reply(['!done']);
    });
    await conn.print('/ip/hotspot/user', {
      where: { profile: '1h', disabled: 'false' },
      proplist: ['name', 'profile'],
    });
    expect(await conn.add('ip hotspot user', { name: 'v', 'limit-uptime': 3600, disabled: true })).to.equal(
      '*2B',
    );
    await conn.set('/ip/hotspot/user', '*2B', { comment: 'ticketnet:1' });
    await conn.remove(
      '/ip/hotspot/user',
      Array.from({ length: 250 }, (_, i) => `*${(i + 1).toString(16).toUpperCase()}`),
    );
    await conn.remove('/ip/hotspot/user', []);
    expect(await conn.count('/ip/hotspot/user')).to.equal(42);
    const sent = router.calls.map((c) => c.words.filter((w) => !w.startsWith('.tag=')));
    expect(sent[0]).to.deep.equal([
      '/ip/hotspot/user/print',
      '=.proplist=name,profile',
      '?profile=1h',
      '?disabled=false',
    ]);
    expect(sent[1]).to.deep.equal(['/ip/hotspot/user/add', '=name=v', '=limit-uptime=3600', '=disabled=yes']);
    expect(sent[2]).to.deep.equal(['/ip/hotspot/user/set', '=comment=ticketnet:1', '=.id=*2B']);
    const removes = sent.filter((w) => w[0] === '/ip/hotspot/user/remove');
    expect(removes.map((w) => (w[1] ?? '').split(',').length)).to.deep.equal([100, 100, 50]);
    expect(removes[0]?.[1]?.startsWith('=.id=*1,*2,')).to.equal(true);
    expect(sent.at(-1)).to.deep.equal(['/ip/hotspot/user/print', '=count-only=']);
  });

  it('rejects pending calls on close() and connects again afterwards', async () => {
    await setup((cmd) => {
      if (cmd.connection > 0) cmd.reply(['!done']);
    });
    const pending = expectRouterError(conn.print('/hang'), 'ROUTER_UNREACHABLE');
    await waitFor(() => router.commands.some((c) => c.path.startsWith('/hang')), {
      what: 'the router to receive /hang',
    });
    await conn.close();
    await pending;
    expect(await conn.print('/system/identity')).to.deep.equal([]);
    expect(router.sockets).to.have.length(2);
  });

  it('cancels a streamed print whose consumer throws, and keeps the link', async () => {
    await setup((cmd) => {
      if (cmd.path === '/cancel') return cmd.reply(['!done']);
      if (cmd.words[0] === '/ip/hotspot/user/print') return cmd.reply(['!re', '=name=a'], ['!re', '=name=b']);
      cmd.reply(['!re', '=name=still-here'], ['!done']);
    });
    const seen: string[] = [];
    const err = await rejectionOf(
      conn.printEach('/ip/hotspot/user', (r) => {
        seen.push(r.name ?? '');
        if (seen.length === 2) throw new Error('consumer gave up');
      }),
    );
    expect(String(err)).to.include('consumer gave up');
    expect(seen).to.deep.equal(['a', 'b']);
    expect(await conn.print('/system/identity')).to.deep.equal([{ name: 'still-here' }]);
    expect(router.commands.some((c) => c.path === '/cancel')).to.equal(true);
    watch.assertNone();
  });

  it('logs through a pino logger', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    await setup(() => undefined, { timeoutMs: 100, logger });
    await expectRouterError(conn.print('/system/identity'), 'ROUTER_TIMEOUT');
    expect(lines.join('')).to.include('RouterOS call timed out');
    expect(lines.join('')).to.not.include('secret');
  });

  it('drops a connection still being made at close()', async () => {
    await setup(answerDone);
    const opening = expectRouterError(conn.connect(), 'ROUTER_UNREACHABLE');
    await conn.close();
    await opening;
    expect(conn.isConnected).to.equal(false);
    // close() drops the connection being made: the router saw none, or one that is closed.
    await waitFor(() => router.sockets.every((s) => s.destroyed || s.readableEnded), {
      what: 'the late connection to be closed',
    });
    expect(await conn.print('/system/identity')).to.deep.equal([]);
    watch.assertNone();
  });

  it('shares one connection attempt between concurrent first calls', async () => {
    await setup(answerDone);
    await Promise.all([conn.print('/a'), conn.print('/b'), conn.print('/c')]);
    expect(router.sockets).to.have.length(1);
  });
});

describe('RouterConnection (unreachable routers)', () => {
  let watch: ReturnType<typeof watchProcessFailures>;
  beforeEach(() => {
    watch = watchProcessFailures();
  });
  afterEach(async () => {
    await oneTurn();
    watch.restore();
  });

  it('reports a refused connection as ROUTER_UNREACHABLE', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const conn = new RouterConnection({ host: '127.0.0.1', port, user: 'a', password: 'b' });
    const err = await expectRouterError(conn.print('/system/identity'), 'ROUTER_UNREACHABLE');
    expect(err.message).to.include('refused');
    watch.assertNone();
  });

  it('gives up on a router that accepts TCP but never answers /login', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((s) => void sockets.push(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as net.AddressInfo).port;
    const conn = new RouterConnection({
      host: '127.0.0.1',
      port,
      user: 'a',
      password: 'b',
      connectTimeoutMs: 200,
    });
    const started = Date.now();
    await expectRouterError(conn.connect(), 'ROUTER_UNREACHABLE');
    expect(Date.now() - started).to.be.below(1500);
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    watch.assertNone();
  });

  it('refuses nonsense options up front', () => {
    expect(() => new RouterConnection({ host: 'h', user: 'u', password: 'p', timeoutMs: 0 })).to.throw(
      RangeError,
    );
  });
});
